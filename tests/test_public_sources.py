"""Issue 21 item 4: every citation a user can see is one they can follow.

What a user sees (matrix sources, signature sources, check specs and `explain`, every `--help`,
every fixture's rendered report, `diagnose` on the collected logs) must cite a public page (a URL,
or a repository and path) or the evidence seen, never this project's internal notes: research file
names, section signs, seed report numbers, test-sample or corpus paths.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

import click
import pytest
import yaml
from msgspec import Struct

from ascend_doctor.cli import SUBCOMMANDS, main
from ascend_doctor.logscan.signatures import load_signatures
from ascend_doctor.matrix.loader import load_document
from ascend_doctor.matrix.meta import shipped_matrix_path
from ascend_doctor.registry import all_checks
from ascend_doctor.sourceref import source_problem

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
LOGS = ROOT / "tests" / "samples" / "dmesg-and-logs"

# The words of the issue: a user-visible text containing one of these cites something internal.
INTERNAL = re.compile(
    r"compat_facts|model_facts|anchors_|advice_review|hostile_inputs|house_review|newcomer_review|"
    r"\bseeds? ?0*\d+|§|tests/samples|tests/|fixtures/|\bcorpus\b|research/|\.\./shared",
    re.IGNORECASE)


def internal_hits(text: str, ignore: Tuple[str, ...] = ()) -> List[str]:
    """Each internal citation in ``text`` with some context (after removing the ``ignore`` strings:
    the input path a command echoes back is the user's own file, not a citation)."""
    for value in ignore:
        text = text.replace(value, "<input>")
    return [text[max(0, m.start() - 60):m.end() + 60].replace("\n", " ") for m in INTERNAL.finditer(text)]


# --- (a) matrix sources ------------------------------------------------------------------------

def _sources(obj: Any, where: str) -> Iterator[Tuple[str, str]]:
    if isinstance(obj, Struct):
        for name in obj.__struct_fields__:
            value = getattr(obj, name)
            if name in ("source", "sources"):
                for ref in value if isinstance(value, (tuple, list)) else (value,):
                    if isinstance(ref, str):
                        yield getattr(obj, "path", "") or where, ref
            else:
                yield from _sources(value, where)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _sources(item, where)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _sources(item, where)


def test_every_matrix_source_is_followable() -> None:
    doc = load_document(shipped_matrix_path())
    assert doc.ok, doc.problems
    seen = [(where, ref) for name, rows in doc.sections.items() for where, ref in _sources(rows, name)]
    assert len(seen) > 300
    bad = [f"{where}: {ref!r}: {source_problem(ref)}" for where, ref in seen if source_problem(ref)]
    assert not bad, "\n".join(bad)


def test_matrix_yaml_source_values_have_no_internal_citation() -> None:
    """The YAML text itself (anchors included), not only what the loader kept."""
    bad = []
    for path in sorted((ROOT / "compat_matrix").glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for ref in _yaml_sources(data):
            bad += [f"{path.name}: {hit}" for hit in internal_hits(ref)]
    assert not bad, "\n".join(bad)


def _yaml_sources(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        for key, value in data.items():
            if key in ("source", "sources"):
                for ref in value if isinstance(value, list) else [value]:
                    if isinstance(ref, str):
                        yield ref
            else:
                yield from _yaml_sources(value)
    elif isinstance(data, list):
        for item in data:
            yield from _yaml_sources(item)


# --- (b) signature sources ---------------------------------------------------------------------

def test_every_signature_source_is_public() -> None:
    db = load_signatures()
    bad = [f"{sig.id}: {ref!r}" for sig in db.signatures for ref in sig.source
           if internal_hits(ref) or not (ref.startswith(("https://", "http://")) or "/" in ref.split(" ")[0])]
    assert not bad, "\n".join(bad)


# --- (c) check specs and `explain` -------------------------------------------------------------

def test_check_specs_cite_no_internal_note() -> None:
    bad = []
    for check in all_checks():
        for name in check.spec.__struct_fields__:
            value = getattr(check.spec, name)
            for text in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(text, str):
                    bad += [f"{check.spec.id}.{name}: {hit}" for hit in internal_hits(text)]
    assert not bad, "\n".join(bad)


def test_explain_of_every_check_cites_no_internal_note() -> None:
    runner = make_runner()
    bad = []
    for check in all_checks():
        for fmt in ("text", "json"):
            result = runner.invoke(main, ["explain", check.spec.id, "--format", fmt], catch_exceptions=False)
            assert result.exit_code == 0, result.output
            bad += [f"{check.spec.id} ({fmt}): {hit}" for hit in internal_hits(result.output)]
    assert not bad, "\n".join(bad)


# --- (d) every --help --------------------------------------------------------------------------

def _command_paths() -> Iterator[List[str]]:
    yield []
    for name, (module, attribute, _) in SUBCOMMANDS.items():
        command = getattr(__import__(module, fromlist=[attribute]), attribute)
        yield [name]
        if isinstance(command, click.Group):
            for sub in command.commands:
                yield [name, sub]


def test_every_help_text_cites_no_internal_note() -> None:
    runner = make_runner()
    bad = []
    count = 0
    for path in _command_paths():
        result = runner.invoke(main, [*path, "--help"], catch_exceptions=False)
        assert result.exit_code == 0, (path, result.output)
        count += 1
        bad += [f"{' '.join(path) or 'ascend-doctor'} --help: {hit}" for hit in internal_hits(result.output)]
    assert count > len(SUBCOMMANDS)
    assert not bad, "\n".join(bad)


# --- (e) every fixture's rendered report -------------------------------------------------------

FIXTURE_DIRS = sorted(p for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file())


@functools.cache
def _fixture_args(path: Path) -> Tuple[str, ...]:
    data = yaml.safe_load((path / "expected.yaml").read_text(encoding="utf-8")) or {}
    return tuple(str(a).replace("{fixture}", str(path)) for a in data.get("args", []))


@pytest.mark.parametrize("fixture", FIXTURE_DIRS, ids=[p.name for p in FIXTURE_DIRS])
def test_fixture_reports_cite_no_internal_note(fixture: Path) -> None:
    runner = make_runner()
    bad = []
    for fmt in ("text", "json"):
        args = ["check", "--from", str(fixture), "--format", fmt, *_fixture_args(fixture)]
        result = runner.invoke(main, args, catch_exceptions=False)
        assert result.exit_code in (0, 1, 3), result.output
        # The report names the snapshot it was read from (the user's own path), and argument values.
        ignore = tuple(sorted({str(fixture), str(FIXTURES), *_fixture_args(fixture)}, key=len, reverse=True))
        bad += [f"{fmt}: {hit}" for hit in internal_hits(result.output, ignore)]
    assert not bad, "\n".join(bad)


# --- (f) diagnose on the collected logs ---------------------------------------------------------

LOG_FILES = sorted(LOGS.glob("*.txt"))


@pytest.mark.parametrize("log", LOG_FILES, ids=[p.name for p in LOG_FILES])
def test_diagnose_cites_no_internal_note(log: Path) -> None:
    runner = make_runner()
    bad = []
    for fmt in ("text", "json"):
        result = runner.invoke(main, ["diagnose", str(log), "--format", fmt], catch_exceptions=False)
        assert result.exit_code in (0, 1), result.output
        ignore = (str(log), str(LOGS), log.name)
        bad += [f"{fmt}: {hit}" for hit in internal_hits(_without_matched_lines(result.output, log), ignore)]
    assert not bad, "\n".join(bad)


def _without_matched_lines(output: str, log: Path) -> str:
    """The output less the log's own lines it quotes (a log may say anything; the tool's words may not)."""
    body = log.read_text(encoding="utf-8", errors="replace").splitlines()
    for line in sorted({line.strip() for line in body if len(line.strip()) > 8}, key=len, reverse=True):
        output = output.replace(line, "<log line>")
    return output


# --- the collector's header of an annotated sample never counts (row 27) ------------------------

def _first_hit_line(text: str) -> Optional[int]:
    from ascend_doctor.logscan.scanner import LogScanner

    result = LogScanner(load_signatures()).scan_text(text)
    return min((hit.first_line for hit in result.hits), default=None)


def test_sample_header_lines_are_not_matched() -> None:
    quoted = '[ascend] [drv_pcie] [devdrv_sync_non_trans_msg_send 1239] Device is abnormal. (dev_id=5)'
    header = f"# source: a public page\n# what: a reboot hang: \"{quoted}\"\n# ---\n"
    assert _first_hit_line(header + "nothing to see here\n") is None
    assert _first_hit_line(header + "[  452.9] " + quoted + "\n") == 4  # line numbers stay the file's


def test_header_rule_is_narrow() -> None:
    quoted = '[ascend] [drv_pcie] [devdrv_sync_non_trans_msg_send 1239] Device is abnormal. (dev_id=5)'
    # Not the collector's header: a log that merely starts with a comment, or a header never closed.
    assert _first_hit_line(f"# what: {quoted}\n# ---\n") == 1
    assert _first_hit_line(f"# source: x\n# what: {quoted}\n") == 2
    assert _first_hit_line(f"log start\n# source: x\n# what: {quoted}\n# ---\n") == 3
