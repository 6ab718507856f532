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
import os
import re
import shutil
from pathlib import Path
from typing import Dict, List, Sequence, Set, Tuple

import pytest

from . import payload_util as pu
from .test_scenarios import SCENARIOS, load_expected

KINDS = tuple(pu.PAYLOADS)
GROUPS = tuple(pu.MUTATIONS)
FIXTURES = SCENARIOS[0].parent
FLEET = FIXTURES / "fleet-16"

# Sinks in files the lead is converting (issue 21, item 2 replaces their commands with the resolver's):
# (check id, mutation group, a fixture that shows it). Group "syntax" is a command that does not parse even
# unmutated. A payload only these checks print, from that group, is tolerated here; each entry is also an
# xfail(strict) case of test_lead_owned_sink_still_open, so removing the sink makes that case XPASS and fail
# until the entry is removed.
LEAD_OWNED_SINKS: Tuple[Tuple[str, str, str], ...] = ()

# The counts of the fast run of each kind on this commit (runs, values planted, commands pasted); a kind's
# test fails when its coverage falls below 90 % of them, or when any payload runs.
FAST_RUN_COUNTS = {
    "dollar": {"runs": 84, "values": 833, "commands": 398},
    "semicolon": {"runs": 84, "values": 979, "commands": 444},
    "backtick": {"runs": 84, "values": 1143, "commands": 447},
    "newline": {"runs": 84, "values": 810, "commands": 357},
    "quote": {"runs": 84, "values": 956, "commands": 373},
}

# ASCEND_DOCTOR_PAYLOADS=all: the slow tests take the whole product (every fixture x every group on its own x
# every kind x both languages: about 4,900 check runs and 50 fleet runs, 6 minutes of CPU, for a release or a
# night); by default each group goes alone once per fixture and once per kind in fleet, languages alternating.
EVERY_COMBINATION = os.environ.get("ASCEND_DOCTOR_PAYLOADS") == "all"


# (checks, group, fixture) of every payload a LEAD_OWNED_SINKS entry let pass in this session (printed by -s).
TOLERATED: Set[Tuple[str, str, str]] = set()


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
        target = root / f"{fixture.name}-{'+'.join(groups) or 'none'}-{kind}-{lang}"
        args = pu.mutate(fixture, target, [str(a) for a in expected.get("args", [])], groups, planter)
        code, out = pu.run_cli(["check", "--from", str(target), "--format", "json", "--lang", lang, *args])
        assert code in (0, 1, 3), out
        self.add(list(pu.commands_in(json.loads(out))))
        self.runs += 1
        self.fixtures.add(fixture.name)
        self.kinds.add(kind)


def _tolerated(origins: Sequence[str], group: str, allowed: Sequence[Tuple[str, str, str]]) -> bool:
    """Whether every check that printed it is a lead-owned sink of this group."""
    return bool(origins) and all(any(check in o for check, g, _ in allowed if g == group)
                                 for origin in origins for o in origin.split(","))


def _tolerated_syntax(command: str, origins: Sequence[str], allowed: Sequence[Tuple[str, str, str]]) -> bool:
    """Whether a command that does not parse is a lead-owned one: named by its command's start, or printed
    only by lead-owned checks (whatever the group)."""
    if any(command.startswith(name) for name, _g, _f in allowed if not name.startswith("ASC-")):
        return True
    return bool(origins) and all(any(check in o for check, _g, _f in allowed)
                                 for origin in origins for o in origin.split(","))


def _paste_and_judge(harvest: Harvest, workdir: Path, allowed: Sequence[Tuple[str, str, str]] = LEAD_OWNED_SINKS
                     ) -> Tuple[pu.PasteResult, List[str]]:
    commands = sorted(harvest.commands)
    lines = {c for c, origins in harvest.commands.items() if any(not o.endswith(pu.SPAN) for o in origins)}
    result = pu.paste(commands, workdir, lines=lines)
    sinks: Dict[Tuple[str, str], str] = {}
    for marker in sorted(result.markers):
        culprits = pu.commands_with(marker, harvest.commands)
        group, where = pu.Planter.registry.get(marker, ("?", "?"))
        origins = sorted({o for _, found in culprits for o in found})
        if _tolerated(origins, group, allowed):
            TOLERATED.add((",".join(origins), group, where.split(":")[0]))
            continue
        # One line per sink: the checks that printed it and the kind of field (fixture and index left out).
        field = re.sub(r"\[[0-9]+\]|^[^:]*:", "", where)
        sinks.setdefault((",".join(origins) or "?", field),
                         f"{marker} from {where!r}: " + " || ".join(repr(c) for c, _ in culprits[:2]))
    failures = [f"{origin} <- {field}: {example}" for (origin, field), example in sorted(sinks.items())]
    for command in result.syntax_errors:
        origins = sorted(harvest.commands.get(command, {"?"}))
        if not _tolerated_syntax(command, origins, allowed):
            failures.append(f"does not parse (bash -n), from {origins}: {command!r}")
    return result, failures


def _report(name: str, harvest: Harvest, result: pu.PasteResult, failures: Sequence[str]) -> Dict[str, int]:
    """The counts of a run; payloads_run counts the payloads that ran and were not tolerated."""
    counts = {"fixtures": len(harvest.fixtures), "kinds": len(harvest.kinds), "runs": harvest.runs,
              "values": harvest.values(), "commands": result.pasted,
              "payloads_run": sum(1 for f in failures if not f.startswith("does not parse"))}
    print(f"\n{name}: {counts} (markers seen: {len(result.markers)}, of them lead-owned: "
          f"{sorted(TOLERATED)[:40]})")
    return counts


def _groups_of(fixture: Path) -> List[str]:
    """The groups of fields that have something to plant in this fixture."""
    args = [str(a) for a in load_expected(fixture).get("args", [])]
    return [g for g in GROUPS if pu.applies(g, fixture, args)]


def _kind_of(index: int, group: str, groups: Sequence[str]) -> str:
    """The kind ``group`` (one of the fixture's ``groups``) is planted with in fixture number ``index`` (the
    fast plan and the group-alone plan deal alike): the fixture's groups in turn, so that every kind gets one
    when five apply, rotating with the fixture, so that across the fixtures every group meets every kind."""
    return KINDS[(index + list(groups).index(group)) % len(KINDS)]


def _lang_of(index: int) -> str:
    """English on even fixtures, Chinese on odd ones (every group and kind meets both)."""
    return "zh" if index % 2 else "en"


def _fast_plan() -> List[Tuple[Path, Tuple[str, ...], str, str]]:
    """Five runs per fixture, one per payload kind: the groups of fields that apply to the fixture are dealt
    to the kinds (``_kind_of``), and a kind left without a group plants everything at once. A kind dealt one
    group is that group planted alone: the run the group-alone plan would make, which it leaves to this one."""
    plan = []
    for i, fixture in enumerate(SCENARIOS):
        dealt: Dict[str, List[str]] = {kind: [] for kind in KINDS}
        groups = _groups_of(fixture)
        for group in groups:
            dealt[_kind_of(i, group, groups)].append(group)
        plan += [(fixture, tuple(dealt[kind]) or GROUPS, kind, _lang_of(i)) for kind in KINDS]
    return plan


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_no_payload_runs_from_any_fixture(tmp_path: Path, kind: str) -> None:
    """Every fixture with this kind (one test per kind: five even parts for the workers)."""
    harvest = Harvest()
    for fixture, groups, planted, lang in _fast_plan():
        if planted == kind:
            harvest.check(fixture, groups, kind, tmp_path / "fx", lang)
    result, failures = _paste_and_judge(harvest, tmp_path / "paste")
    counts = _report(f"check {kind}", harvest, result, failures)
    assert not failures, "payloads ran or commands do not parse:\n" + "\n".join(failures)
    assert not result.refused, f"commands that write outside the folder: {result.refused}"
    assert counts["payloads_run"] == 0
    assert (counts["fixtures"], counts["kinds"]) == (len(SCENARIOS), 1)
    for key in ("runs", "values", "commands"):
        recorded = FAST_RUN_COUNTS[kind][key]
        assert counts[key] >= 0.9 * recorded, f"coverage fell: {key} {counts[key]} ({FAST_RUN_COUNTS[kind]})"


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


# The fields fleet compares across nodes: HCCL variables, the Python stack, /etc (hccn.conf, the install
# record), driver/firmware/CANN versions, the host record.
FLEET_GROUPS = ("env", "python", "etc", "install", "snapshot")


def _fleet_render_plan(kind: str) -> List[Tuple[str, Tuple[str, ...]]]:
    """(group, languages) of the fleet runs of test_no_payload_runs_from_fleet_or_report_render: one group per
    kind, in English, and in Chinese too on odd kinds."""
    index = KINDS.index(kind)
    return [(FLEET_GROUPS[index % len(FLEET_GROUPS)], ("en", "zh") if index % 2 else ("en",))]


def _fleet_every_group_plan(kind: str) -> List[Tuple[str, Tuple[str, ...]]]:
    """(group, languages) of the fleet runs of test_no_payload_runs_from_fleet_with_every_group: every group
    with this kind, one language each (alternating; both with ASCEND_DOCTOR_PAYLOADS=all). The group the
    other fleet test gives this kind is left to it (the same run)."""
    index = KINDS.index(kind)
    if EVERY_COMBINATION:
        return [(group, ("en", "zh")) for group in FLEET_GROUPS]
    left = {group for group, _langs in _fleet_render_plan(kind)}
    return [(group, (("en", "zh")[(index + FLEET_GROUPS.index(group)) % 2],)) for group in FLEET_GROUPS
            if group not in left]


@pytest.mark.skipif(EVERY_COMBINATION, reason="every combination runs")
def test_fleet_runs_meet_every_group_and_kind_in_both_languages() -> None:
    runs = [(group, kind, lang) for kind in KINDS
            for plan in (_fleet_render_plan(kind), _fleet_every_group_plan(kind))
            for group, langs in plan for lang in langs]
    assert len(runs) == len(set(runs)), "a fleet run made twice"
    assert {(group, kind) for group, kind, _lang in runs} == {(g, k) for g in FLEET_GROUPS for k in KINDS}
    for group in FLEET_GROUPS:
        assert {lang for g, _kind, lang in runs if g == group} == {"en", "zh"}, group
    for kind in KINDS:
        assert {lang for _group, k, lang in runs if k == kind} == {"en", "zh"}, kind


@pytest.mark.parametrize("kind", KINDS)
def test_no_payload_runs_from_fleet_or_report_render(tmp_path: Path, kind: str) -> None:
    """One group of fields per kind (each group meets one kind here, every kind in the slow variant), fleet in
    English and Chinese; then reports with hostile file names through fleet and report render."""
    _fleet_and_render(tmp_path, kind, _fleet_render_plan(kind), hostile_names=True)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_no_payload_runs_from_fleet_with_every_group(tmp_path: Path, kind: str) -> None:
    """Every group with this kind (``_fleet_every_group_plan``): a fleet run grades 16 node reports. The
    reports with hostile file names are the other fleet test's (the same runs for each kind)."""
    _fleet_and_render(tmp_path, kind, _fleet_every_group_plan(kind), hostile_names=EVERY_COMBINATION)


def _fleet_and_render(tmp_path: Path, kind: str, plan: Sequence[Tuple[str, Sequence[str]]],
                      hostile_names: bool) -> None:
    harvest = Harvest()
    for group, langs in plan:
        planter = pu.Planter(kind)
        harvest.planters.append(planter)
        folder = _fleet_copy(tmp_path / "fleets", (group,), planter)
        for lang in langs:
            code, out = pu.run_cli(["fleet", str(folder), "--format", "json", "--lang", lang])
            assert code in (0, 1, 3), out
            harvest.add(list(pu.commands_in(json.loads(out))))
            harvest.runs += 1
    if hostile_names:
        _run_with_hostile_report_names(tmp_path, kind, harvest)
    # Defect 3 of the review: these checks print commands from the planted majority values (quoted, or a
    # placeholder where the value has a shape).
    printed = {o for found in harvest.commands.values() for o in found}
    expected = {"env": "ASC-FLT-009", "python": "ASC-FLT-006"}
    for check_id in (expected[g] for g, _langs in plan if g in expected):
        assert any(check_id in o for o in printed), f"{check_id} prints no command any more"
    harvest.fixtures.add("fleet-16")
    harvest.kinds.add(kind)
    result, failures = _paste_and_judge(harvest, tmp_path / "paste")
    _report(f"fleet {kind}", harvest, result, failures)
    assert not failures, "payloads ran or commands do not parse:\n" + "\n".join(failures)
    assert not result.refused


def _run_with_hostile_report_names(tmp_path: Path, kind: str, harvest: Harvest) -> None:
    """Reports whose file names carry a payload (a `%N` host name), through fleet (which points at them by
    name, JSON and text) and report render (a mutated report in text: what a person reads and pastes from)."""
    planter = pu.Planter(kind)
    harvest.planters.append(planter)
    reports = tmp_path / "reports"
    reports.mkdir()
    for node in ("node01", "node05", "node16"):
        mutated = tmp_path / "names" / node
        pu.mutate(FLEET / node, mutated, [], ("snapshot", "env"), planter, label="fleet-16")
        code, out = pu.run_cli(["check", "--from", str(mutated), "--format", "json"])
        name = f"{node}{planter.payload(f'fleet-16:report-file:{node}')}.json"
        pu.write_report(reports / name, out)
    code, out = pu.run_cli(["fleet", str(reports), "--format", "json"])
    harvest.add(list(pu.commands_in(json.loads(out))))
    code, text = pu.run_cli(["fleet", str(reports)])
    harvest.add(list(pu.commands_in_text(text, "fleet-text")))
    for report in sorted(reports.iterdir()):
        code, text = pu.run_cli(["report", "render", str(report)])
        assert code == 0, text
        harvest.add(list(pu.commands_in_text(text, "report-render")))
    harvest.runs += 6
    # Defect 1 of the review: ASC-FLT-001 prints the report file names (quoted).
    carried = {o for c, found in harvest.commands.items() if pu.commands_marker(c) for o in found}
    assert any("ASC-FLT-001" in o for o in carried), "ASC-FLT-001 no longer names the report files"


def _alone_plan(kind: str) -> List[Tuple[Path, str, str]]:
    """(fixture, group, language) of this kind's runs: every group that applies to a fixture is planted on
    its own once (so a parser stopped by one field cannot hide what a later check prints), with the kind and
    language of ``_kind_of`` and ``_lang_of``, so that across the fixtures every group meets every kind in
    English and Chinese. A run the fast plan already makes (the kind was dealt that group alone) is left to
    it. Together with the fast test (every kind on every fixture) this is what the planted values must prove,
    at a tenth of the runs."""
    plan = []
    for i, fixture in enumerate(SCENARIOS):
        groups = _groups_of(fixture)
        for group in groups:
            if EVERY_COMBINATION:
                plan += [(fixture, group, lang) for lang in ("en", "zh")]
            elif _kind_of(i, group, groups) == kind and \
                    [g for g in groups if _kind_of(i, g, groups) == kind] != [group]:
                plan.append((fixture, group, _lang_of(i)))
    return plan


@pytest.mark.skipif(EVERY_COMBINATION, reason="every combination runs")
def test_each_group_alone_meets_every_kind_in_both_languages() -> None:
    """The group-alone runs, with those the fast plan makes: each group that applies planted alone once per
    fixture, and every group meeting every kind in both languages."""
    alone = [(fixture, group, kind, lang) for kind in KINDS for fixture, group, lang in _alone_plan(kind)]
    in_fast = [(fixture, groups[0], kind, lang) for fixture, groups, kind, lang in _fast_plan() if len(groups) == 1]
    assert not set(alone) & set(in_fast), "a run made twice"
    runs = [(fixture, group) for fixture, group, _kind, _lang in alone + in_fast]
    assert len(runs) == len(set(runs)), "each group that applies is planted alone once per fixture"
    assert {(fixture.name, group) for fixture, group in runs} == {
        (fixture.name, group) for fixture in SCENARIOS for group in _groups_of(fixture)}
    met = {(group, kind, lang) for _fixture, group, kind, lang in alone + in_fast}
    assert met == {(group, kind, lang) for group in GROUPS for kind in KINDS for lang in ("en", "zh")}


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_no_payload_runs_with_each_group_alone(tmp_path: Path, kind: str) -> None:
    harvest = Harvest()
    for fixture, group, lang in _alone_plan(kind):
        harvest.check(fixture, (group,), kind, tmp_path / "fx", lang)
    result, failures = _paste_and_judge(harvest, tmp_path / "paste")
    _report(f"each group alone {kind}", harvest, result, failures)
    assert not failures, "payloads ran or commands do not parse:\n" + "\n".join(failures)


@pytest.mark.xfail(strict=True, reason="a sink in a file the lead is converting (LEAD_OWNED_SINKS)")
@pytest.mark.parametrize("check_id,group,fixture", LEAD_OWNED_SINKS,
                         ids=["-".join(s[:2]).replace(" ", "_") for s in LEAD_OWNED_SINKS])
def test_lead_owned_sink_still_open(tmp_path: Path, check_id: str, group: str, fixture: str) -> None:
    """The fixture named with the entry, that group planted with every kind (nothing for "syntax"): the
    commands this check prints run no payload and parse."""
    harvest = Harvest()
    for kind in KINDS:
        harvest.check(FIXTURES / fixture, () if group == "syntax" else (group,), kind, tmp_path / "fx")
    harvest.commands = {c: o for c, o in harvest.commands.items()
                        if c.startswith(check_id) or any(check_id in x for x in o)}
    if not harvest.commands:  # not a failure: the entry names a fixture where the check prints nothing now
        pytest.skip(f"stale entry: {check_id} prints no command in {fixture}; name another fixture or remove it")
    _result, failures = _paste_and_judge(harvest, tmp_path / "paste", allowed=())
    assert not failures, "\n".join(failures)


# The shell-injection sinks of the second hostile-input review (defect number, check, a fixture where the value
# reaches the check's command, the group of fields that carries it). The check must still print a command
# there (holding the planted value quoted, or a placeholder where the value has a shape), and run nothing.
# Defects 1 and 3 (fleet) are asserted in _fleet_and_render.
REVIEW_SINKS = (
    (2, "ASC-NET-003", "network-faults-8x910B3", "etc"),
    (2, "ASC-NET-004", "network-faults-8x910B3", "etc"),
    (4, "ASC-MDL-008", "w8a8-weights-ready", "names"),
    (5, "ASC-MDL-013", "w8a8-weights-ready", "paths"),
    (5, "ASC-MDL-020", "dotted-weight-path", "paths"),
    (6, "ASC-CFG-004", "dotted-weight-path", "configs"),
    (7, "ASC-RT-007", "rank-table-faults-8x910B3", "paths"),
    (7, "ASC-DRV-003", "run-user-not-in-group", "etc"),
)


@pytest.mark.parametrize("defect,check_id,fixture,group", REVIEW_SINKS,
                         ids=[f"defect{d}-{c}" for d, c, _f, _g in REVIEW_SINKS])
def test_review_sink_quotes_the_value(tmp_path: Path, defect: int, check_id: str, fixture: str, group: str) -> None:
    harvest = Harvest()
    for kind in KINDS:
        harvest.check(FIXTURES / fixture, (group,), kind, tmp_path / "fx")
    printed = {c: o for c, o in harvest.commands.items() if any(check_id in x for x in o)}
    assert printed, f"defect {defect}: {check_id} no longer prints a command in {fixture} ({group})"
    harvest.commands = printed
    _result, failures = _paste_and_judge(harvest, tmp_path / "paste", allowed=())
    assert not failures, "\n".join(failures)


def test_inline_commands_are_read_whole() -> None:
    """A backtick inside a quoted value does not end the inline command; one at the end of the text does."""
    assert list(pu.inline_commands("see `ascend-doctor plan --model '/m`touch X`' --mem-gb 32`")) == [
        "ascend-doctor plan --model '/m`touch X`' --mem-gb 32"]
    assert list(pu.inline_commands("move it: `mv x`touch X`y stray/`.")) == ["mv x`touch X`y stray/"]
    assert list(pu.inline_commands("the value was `touch X` here")) == []


@pytest.mark.parametrize("kind", KINDS)
def test_review_sink_mdl017_unreadable_entry(tmp_path: Path, kind: str) -> None:
    """Defect 5, ASC-MDL-017: an unreadable sub-folder's name in `chmod a+rX` (a snapshot cannot hold an
    unreadable folder, so the fix is built from the problem record directly)."""
    from ascend_doctor.checks.mdl_017_directory_readable import _fix

    from ascend_doctor.model import records

    name = "sub" + pu.PAYLOADS[kind].format(m="PWN_9017")
    fix = _fix(records.Problem(records.UNREADABLE, "ERROR", "denied", path=name))
    commands = list(pu.inline_commands(fix))
    assert commands and all("chmod" in c for c in commands)
    result = pu.paste(commands, tmp_path)
    assert not result.markers and not result.syntax_errors, (fix, result.markers)
