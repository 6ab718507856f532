"""Issue 21, item 3 ("commands are data"): a value read from a machine never runs when a person pastes a
command the tool printed.

Every fixture is copied with shell payloads (``$(touch PWN_n)``, ``;touch PWN_n;``, a backtick form, a
newline, a single-quote breakout; tests/payload_util.py) planted in the values a machine reports: the
snapshot's JSON records, environment values, /etc/hccn.conf and ascend_install.info, version files, serving
configs and rank tables, a model folder's file names and the paths given on the command line. Planting
everything at once can stop a parser early and hide what a later check would print, so each fixture also
gets every group of fields on its own. ``check`` (English and ``--lang zh``), ``fleet`` over fixtures/fleet-16
and a folder of reports with hostile file names, and ``report render`` are run in-process; every command they
print (fix-plan steps, finding actions, remediation lines, inline commands of advice) is pasted into bash in
a scratch folder where only ``touch`` is real. No marker file may appear, and every command must parse
(``bash -n``, with the ``<...>`` placeholders filled in).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Dict, List, Sequence, Set, Tuple

import pytest

from . import payload_util as pu
from .test_scenarios import SCENARIOS, load_expected

KINDS = tuple(pu.PAYLOADS)
GROUPS = tuple(pu.MUTATIONS)
FLEET = SCENARIOS[0].parent / "fleet-16"

# Sinks in files the lead is converting (issue 21, item 2 replaces their commands with the resolver's):
# (check id, mutation group). A marker that only these print is reported, not failed; the lead removes an
# entry when its sink is gone (test_lead_owned_sink_still_open then XPASSes strictly and fails).
LEAD_OWNED_SINKS: Tuple[Tuple[str, str], ...] = ()

# What the fast run must cover at least (measured counts are printed; see the closing note of issue 21).
MINIMUM = {"fixtures": 77, "kinds": 5, "values": 4000, "commands": 1500}


class Harvest:
    """Commands printed across many runs, each with the check ids that printed it."""

    def __init__(self) -> None:
        self.commands: Dict[str, Set[str]] = {}
        self.planters: List[pu.Planter] = []
        self.runs = 0
        self.fixtures: Set[str] = set()
        self.kinds: Set[str] = set()

    def add(self, found: Sequence[Tuple[str, str]]) -> None:
        for command, origin in found:
            self.commands.setdefault(command, set()).add(origin)

    def values(self) -> int:
        return sum(len(p.where) for p in self.planters)

    def check(self, fixture: Path, groups: Sequence[str], kind: str, root: Path, lang: str = "en") -> None:
        planter = pu.Planter(kind)
        self.planters.append(planter)
        expected = load_expected(fixture)
        target = root / f"{fixture.name}-{'+'.join(groups)}-{kind}-{lang}"
        args = pu.mutate(fixture, target, [str(a) for a in expected.get("args", [])], groups, planter)
        code, out = pu.run_cli(["check", "--from", str(target), "--format", "json", "--lang", lang, *args])
        assert code in (0, 1, 3), out
        self.add(list(pu.commands_in(json.loads(out))))
        self.runs += 1
        self.fixtures.add(fixture.name)
        self.kinds.add(kind)


def _paste_and_judge(harvest: Harvest, workdir: Path, allowed: Sequence[Tuple[str, str]] = LEAD_OWNED_SINKS
                     ) -> Tuple[pu.PasteResult, List[str]]:
    commands = sorted(harvest.commands)
    result = pu.paste(commands, workdir)
    sinks: Dict[Tuple[str, str], str] = {}
    for marker in sorted(result.markers):
        culprits = pu.commands_with(marker, harvest.commands)
        where = pu.Planter.registry.get(marker, "?")
        origins = sorted({o for _, found in culprits for o in found})
        if origins and all(any(check in o for check, _ in allowed) for o in origins):
            continue
        # One line per sink: the checks that printed it and the kind of field (fixture and index left out).
        field = re.sub(r"\[[0-9]+\]|^[^:]*:", "", where)
        sinks.setdefault((",".join(origins) or "?", field),
                         f"{marker} from {where!r}: " + " || ".join(repr(c) for c, _ in culprits[:2]))
    failures = [f"{origin} <- {field}: {example}" for (origin, field), example in sorted(sinks.items())]
    return result, failures


def _report(name: str, harvest: Harvest, result: pu.PasteResult) -> Dict[str, int]:
    counts = {"fixtures": len(harvest.fixtures), "kinds": len(harvest.kinds), "runs": harvest.runs,
              "values": harvest.values(), "commands": result.pasted, "payloads_run": len(result.markers)}
    print(f"\n{name}: {counts}")
    return counts


def _fast_plan() -> List[Tuple[Path, Tuple[str, ...], str, str]]:
    """Every fixture with everything planted once per payload kind, and every group that applies to it on its
    own with one kind (rotating, so that each group meets every kind across fixtures); every third targeted run
    in Chinese."""
    plan = []
    for i, fixture in enumerate(SCENARIOS):
        args = [str(a) for a in load_expected(fixture).get("args", [])]
        for kind in KINDS:
            plan.append((fixture, GROUPS, kind, "en"))
        for j, group in enumerate(g for g in GROUPS if pu.applies(g, fixture, args)):
            plan.append((fixture, (group,), KINDS[(i + j) % len(KINDS)], "zh" if (i + j) % 3 == 0 else "en"))
    return plan


def test_no_payload_runs_from_any_fixture(tmp_path: Path) -> None:
    harvest = Harvest()
    for fixture, groups, kind, lang in _fast_plan():
        harvest.check(fixture, groups, kind, tmp_path / "fx", lang)
    result, failures = _paste_and_judge(harvest, tmp_path / "paste")
    counts = _report("check", harvest, result)
    assert not failures, "payloads ran:\n" + "\n".join(failures)
    assert not result.syntax_errors, "commands that do not parse:\n" + "\n".join(map(repr, result.syntax_errors))
    assert not result.refused, f"commands that write outside the folder: {result.refused}"
    for key, least in MINIMUM.items():
        assert counts[key] >= least, f"coverage fell: {key} {counts[key]} < {least}"


def _fleet_copy(root: Path, groups: Sequence[str], planter: pu.Planter) -> Path:
    """fixtures/fleet-16 with the same payload in the same field of every node, so the majority every odd node
    is told to adopt is the payload."""
    target = root / f"fleet-{'+'.join(groups)}-{planter.kind}"
    target.mkdir(parents=True)
    for node in sorted(p for p in FLEET.iterdir() if p.is_dir()):
        pu.mutate(node, target / node.name, [], groups, planter, label="fleet-16")
    # One node keeps the planted values of the fixture so that something differs in every field.
    shutil.rmtree(target / "node16")
    shutil.copytree(FLEET / "node16", target / "node16", symlinks=True)
    return target


@pytest.mark.parametrize("kind", KINDS)
def test_no_payload_runs_from_fleet_or_report_render(tmp_path: Path, kind: str) -> None:
    harvest = Harvest()
    for groups in (("env",), ("python",), ("etc",), ("install",), ("snapshot",)):
        planter = pu.Planter(kind)
        harvest.planters.append(planter)
        folder = _fleet_copy(tmp_path / "fleets", groups, planter)
        for lang in ("en", "zh"):
            code, out = pu.run_cli(["fleet", str(folder), "--format", "json", "--lang", lang])
            assert code in (0, 1, 3), out
            harvest.add(list(pu.commands_in(json.loads(out))))
            harvest.runs += 1
    # Reports whose file names carry a payload (a `%N` host name): fleet points at them by name.
    planter = pu.Planter(kind)
    harvest.planters.append(planter)
    reports = tmp_path / "reports"
    reports.mkdir()
    mutated = _fleet_copy(tmp_path / "names", ("snapshot",), planter)
    for node in ("node01", "node05", "node16"):
        code, out = pu.run_cli(["check", "--from", str(mutated / node), "--format", "json"])
        name = f"{node}{planter.payload(f'fleet-16:report-file:{node}')}.json"
        pu.write_report(reports / name, out)
    code, out = pu.run_cli(["fleet", str(reports), "--format", "json"])
    harvest.add(list(pu.commands_in(json.loads(out))))
    code, text = pu.run_cli(["fleet", str(reports)])
    harvest.add(list(pu.commands_in_text(text, "fleet-text")))
    # report render: a mutated report in text (what a person reads and pastes from).
    for report in sorted(reports.iterdir()):
        code, text = pu.run_cli(["report", "render", str(report)])
        assert code == 0, text
        harvest.add(list(pu.commands_in_text(text, "report-render")))
    harvest.runs += 6
    harvest.fixtures.add("fleet-16")
    harvest.kinds.add(kind)
    result, failures = _paste_and_judge(harvest, tmp_path / "paste")
    _report(f"fleet {kind}", harvest, result)
    assert not failures, "payloads ran:\n" + "\n".join(failures)
    assert not result.syntax_errors, "commands that do not parse:\n" + "\n".join(map(repr, result.syntax_errors))
    assert not result.refused


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_no_payload_runs_exhaustive(tmp_path: Path, kind: str) -> None:
    """Every fixture × every group on its own × this kind × both languages."""
    harvest = Harvest()
    for fixture in SCENARIOS:
        args = [str(a) for a in load_expected(fixture).get("args", [])]
        for group in (g for g in GROUPS if pu.applies(g, fixture, args)):
            for lang in ("en", "zh"):
                harvest.check(fixture, (group,), kind, tmp_path / "fx", lang)
    result, failures = _paste_and_judge(harvest, tmp_path / "paste")
    _report(f"exhaustive {kind}", harvest, result)
    assert not failures, "payloads ran:\n" + "\n".join(failures)
    assert not result.syntax_errors, "commands that do not parse:\n" + "\n".join(map(repr, result.syntax_errors))


def _sink_cases() -> List[Tuple[str, str]]:
    return list(LEAD_OWNED_SINKS)


@pytest.mark.xfail(strict=True, reason="a sink in a file the lead is converting (LEAD_OWNED_SINKS)")
@pytest.mark.parametrize("check_id,group", _sink_cases())
def test_lead_owned_sink_still_open(tmp_path: Path, check_id: str, group: str) -> None:
    harvest = Harvest()
    for fixture in SCENARIOS:
        args = [str(a) for a in load_expected(fixture).get("args", [])]
        if pu.applies(group, fixture, args):
            for kind in KINDS:
                harvest.check(fixture, (group,), kind, tmp_path / "fx")
    harvest.commands = {c: o for c, o in harvest.commands.items() if any(check_id in x for x in o)}
    result, failures = _paste_and_judge(harvest, tmp_path / "paste", allowed=())
    assert not failures, "\n".join(failures)
