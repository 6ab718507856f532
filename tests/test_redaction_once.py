"""A run redacts its report once, before any format sees it, and without a Report -> dict -> Report
round trip (issue 23 item 4).

The identity redaction now walks the report's records; for every fixture's report it gives what the
round trip through ``redact_report_dict`` gave (compared as the JSON a report writes), and the one
step of a run (redaction/output.py) gives what the two passes it replaced gave.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest
import yaml

import ascend_doctor.cli._common as common
from ascend_doctor.cli import main
from ascend_doctor.redaction import identity, secrets
from ascend_doctor.redaction.identity import REPORT_NOTE, IdentityRedactor, redact_report_dict
from ascend_doctor.redaction.output import redact_for_output
from ascend_doctor.render import FORMATS, prepare_report, render_report
from ascend_doctor.report import Report
from ascend_doctor.reportio import report_from_dict

from .clirunner import make_runner

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCENARIOS = sorted(p for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file())


def produced_report(scenario: Path, monkeypatch: pytest.MonkeyPatch) -> Report:
    """The report `check --from scenario` hands to its output step, before any redaction."""
    expected = yaml.safe_load((scenario / "expected.yaml").read_text(encoding="utf-8"))
    extra = [str(a).replace("{fixture}", str(scenario)) for a in expected.get("args", [])]
    seen: List[Report] = []
    monkeypatch.setattr(common, "emit_report", lambda report, *args, **kwargs: seen.append(report))
    make_runner().invoke(main, ["check", "--from", str(scenario), "--format", "json", *extra],
                       catch_exceptions=False)
    monkeypatch.undo()
    assert len(seen) == 1
    return seen[0]


def round_trip_identity(report: Report) -> Report:
    """What `--redact` did before: Report -> dict -> redacted dict -> Report, and the note."""
    redacted = report_from_dict(redact_report_dict(report.to_dict()), "report")
    redacted.notes.append(REPORT_NOTE)
    return redacted


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[p.name for p in SCENARIOS])
def test_walking_the_report_redacts_as_the_dict_round_trip_did(scenario: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    report = produced_report(scenario, monkeypatch)
    before = report.to_dict()
    walked = identity.redact_report(report)
    assert walked.to_dict() == round_trip_identity(report).to_dict()
    assert report.to_dict() == before  # the report the command produced is left as it was
    # the one step of a run equals the two passes it replaced (identities, then secrets at render time)
    assert redact_for_output(report, IdentityRedactor()).to_dict() == \
        secrets.redact_report(round_trip_identity(report)).to_dict()


def counting(monkeypatch: pytest.MonkeyPatch) -> Dict[str, int]:
    calls = {"identity": 0, "secrets": 0}

    def wrap(module: Any, name: str) -> None:
        original = module.redact_report

        def counted(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(module, "redact_report", counted)

    wrap(identity, "identity")
    wrap(secrets, "secrets")
    return calls


def test_a_report_rendered_in_every_format_is_redacted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    report = produced_report(SCENARIOS[0], monkeypatch)
    calls = counting(monkeypatch)
    redacted = redact_for_output(report, IdentityRedactor())
    shown: List[Tuple[str, str]] = [(fmt, render_report(prepare_report(redacted), fmt)) for fmt in FORMATS]
    assert calls == {"identity": 1, "secrets": 1}
    assert len(shown) >= 2 and all(text for _fmt, text in shown)


@pytest.mark.parametrize("redact", [[], ["--redact"]])
def test_a_command_redacts_its_report_once(redact: List[str], tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    calls = counting(monkeypatch)
    out = tmp_path / "report.json"
    result = make_runner().invoke(main, ["check", "--from", str(SCENARIOS[0]), "--format", "json", "-o", str(out),
                                       *redact], catch_exceptions=False)
    assert out.stat().st_size > 0, result.output
    assert calls == {"identity": len(redact), "secrets": 1}
    result = make_runner().invoke(main, ["report", "render", str(out), "--format", "markdown", *redact],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert calls == {"identity": 2 * len(redact), "secrets": 2}
