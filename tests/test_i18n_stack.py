"""The stack checks, and the matrix verdicts and plans they show, speak the run's language
(docs/i18n.md), while the matrix keeps its verdicts English for the code and the JSON that read them."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

from ascend_doctor import i18n
from ascend_doctor.cli import main
from ascend_doctor.i18n_text import Text, localized
from ascend_doctor.matrix import Matrix, load_matrix
from ascend_doctor.matrix.plan import PlanError
from ascend_doctor.resolve.plan import make_plan

from .clirunner import make_runner

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CJK = re.compile(r"[\u4e00-\u9fff]")
# Three ordinary English words in a row: prose left untranslated (tests/test_i18n_complete.py is the full rule).
PROSE = re.compile(r"\b[a-z]{2,} [a-z]{2,} [a-z]{2,}\b")


@pytest.fixture(scope="module")
def m() -> Matrix:
    return load_matrix()


def _results(fixture: str, lang: str) -> List[Dict[str, Any]]:
    result = make_runner().invoke(main, ["check", "--from", str(FIXTURES / fixture), "--format", "json",
                                       "--lang", lang], catch_exceptions=False)
    return list(json.loads(result.stdout)["results"])


def test_a_verdict_is_english_data_that_shows_in_chinese(m: Matrix) -> None:
    verdict = m.torch_npu_vs_torch("2.1.0.post8", "2.1.0")
    english = "torch_npu 2.1.0.post8 is built for PyTorch 2.1.0 (branch v2.1.0-6.0.rc3)"
    assert verdict.message == english and isinstance(verdict.message, Text)
    i18n.set_language("zh")
    shown = localized(verdict.message)
    assert CJK.search(shown) and "2.1.0.post8" in shown and "v2.1.0-6.0.rc3" in shown, shown
    assert not PROSE.search(shown), shown
    assert verdict.message == english  # the data did not change with the language
    assert json.loads(json.dumps(verdict.to_dict()))["message"] == english


def test_a_prefixed_verdict_translates_both_parts(m: Matrix) -> None:
    verdicts = dict(m.engine_vs_stack("vllm-ascend", "0.9.1", driver="25.0.rc1.1"))
    message = verdicts["driver"].message
    assert message.startswith("vLLM-Ascend 0.9.1 uses CANN 8.2.RC1: ")
    i18n.set_language("zh")
    shown = localized(message)
    assert shown.startswith("vLLM-Ascend 0.9.1 使用 CANN 8.2.RC1：") and not PROSE.search(shown), shown


def test_plan_errors_keep_their_english_start_for_the_cli_and_show_in_chinese(m: Matrix) -> None:
    with pytest.raises(PlanError) as caught:
        make_plan(m, "no-such-chip", "mindie", {})
    assert str(caught.value).startswith("unknown chip 'no-such-chip'")  # cli/matrix_cmd.py reads this start
    i18n.set_language("zh")
    assert localized(caught.value).startswith("未知的芯片 'no-such-chip'")


def test_plan_steps_and_notes_are_translatable(m: Matrix) -> None:
    plan = make_plan(m, "910B3", "vllm-ascend", {})
    english = [step.title for step in plan.steps]
    assert any(title.startswith("Install the CANN toolkit ") for title in english)
    i18n.set_language("zh")
    for text in [step.title for step in plan.steps] + [n for n in plan.notes if isinstance(n, Text)]:
        assert CJK.search(localized(text)), text


@pytest.mark.parametrize("fixture, check_id", [
    ("310p3-inference", "ASC-PY-002"),
    ("engine-pairing-mismatch", "ASC-CANN-002"),
    ("engine-pairing-mismatch", "ASC-NNAL-001"),
    ("no-driver", "ASC-DRV-001"),
])
def test_stack_findings_read_in_chinese_with_values_and_commands_intact(fixture: str, check_id: str) -> None:
    en = [r for r in _results(fixture, "en") if r["id"] == check_id]
    zh = [r for r in _results(fixture, "zh") if r["id"] == check_id]
    assert en and len(en) == len(zh)
    for e, z in zip(en, zh):
        assert e["status"] == z["status"] and e["evidence"] == z["evidence"] and e["scope"] == z["scope"]
        assert CJK.search(z["message"]) and not PROSE.search(z["message"]), z["message"]
        versions = set(re.findall(r"\b\d+\.\d+(?:\.[0-9A-Za-z]+)*\b", e["message"]))
        assert all(v in z["message"] for v in versions), (versions, z["message"])
        # the commands of the fix are the same lines in both languages
        assert [a["commands"] for a in e["actions"]] == [a["commands"] for a in z["actions"]]
        # ... and so are the command lines of the remediation, but for their comments (translated)
        en_commands = [_without_comment(line) for line in e["remediation"].split("\n") if line.startswith("  ")]
        zh_commands = [_without_comment(line) for line in z["remediation"].split("\n") if line.startswith("  ")]
        assert en_commands == zh_commands


def _without_comment(line: str) -> str:
    """A command line without its shell comment: "  # ..." lines and "cmd  # ..." tails are prose."""
    body = line.strip()
    return "#" if body.startswith("#") else re.split(r"\s{2,}#", body)[0]
