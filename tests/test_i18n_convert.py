"""Display-time translation of texts with values (ascend_doctor.i18n.convert): a report written in
one language, shown in the other. Unit tests on a small made-up catalogue, then real round trips:
a fixture's Chinese JSON shown in English reads exactly as the English run, and the reverse."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest
import yaml

from ascend_doctor import i18n
from ascend_doctor.cli import main

from .clirunner import make_runner
from .i18n_pending import NOT_READ_BACK, PENDING_AREAS

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

PAIRS: List[Tuple[str, Optional[str], List[str]]] = [
    ("Summary", None, ["汇总"]),
    ("No problems found", None, ["未发现问题"]),
    ("not recorded in this snapshot", None, ["此快照未记录"]),
    ("{what}: {absent}", None, ["{what}：{absent}"]),  # no word of its own: a bare template
    ("`id`: {absent}", None, ["`id`：{absent}"]),
    ("cannot be checked here: {reason}", None, ["无法在此检查：{reason}"]),
    ("{name} is not installed", None, ["未安装 {name}"]),
    ("driver {version} is not installed", None, ["驱动 {version} 未安装"]),
    ("driver {version} at {path} is older than {need}", None, ["{path} 处的驱动 {version} 早于 {need}"]),
    ("Upgrade the driver first, then reboot:", None, ["先升级驱动，再重启："]),
    ("{count} NPU is busy", "{count} NPUs are busy", ["{count} 个 NPU 被占用"]),
    ("{a} fixes {b}", None, ["{a} 可修复 {b}"]),
    ("{a} or {b}", None, ["{a} 或 {b}"]),
    ("findings asked for different {subject} versions ({versions})", None,
     ["各结果要求的 {subject} 版本不同（{versions}）"]),
    ("Two lines:\n{detail}", None, ["两行：\n{detail}"]),
    ("{same} and {same} again", None, ["{same} 与 {same} 再次"]),
]


def converter(to_foreign: bool) -> Any:
    return i18n._build_converter([(s, p, list(t)) for s, p, t in PAIRS], to_foreign=to_foreign)


@pytest.mark.parametrize("english, chinese", [
    ("Summary", "汇总"),
    ("driver 23.0.7 is not installed", "驱动 23.0.7 未安装"),  # the most specific template wins
    ("torch_npu is not installed", "未安装 torch_npu"),
    ("driver 24.1.rc2 at /usr/local/Ascend/driver is older than 25.0.rc1",
     "/usr/local/Ascend/driver 处的驱动 24.1.rc2 早于 25.0.rc1"),  # fields move, values verbatim
    ("cannot be checked here: `id`: not recorded in this snapshot", "无法在此检查：`id`：此快照未记录"),  # nested
    ("x, y and z", "x, y and z"),
    ("Upgrade the driver first, then reboot:\n  ./Ascend-hdk-910b-npu-driver_25.0.rc1_linux-aarch64.run --full",
     "先升级驱动，再重启：\n  ./Ascend-hdk-910b-npu-driver_25.0.rc1_linux-aarch64.run --full"),  # per line
    ("findings asked for different hdk versions (25.0, 25.3); 25.0 fixes ASC-MIX-003, ASC-CANN-002",
     "各结果要求的 hdk 版本不同（25.0, 25.3）; 25.0 可修复 ASC-MIX-003, ASC-CANN-002"),  # per "; " piece
    ("Two lines:\nmore here", "两行：\nmore here"),  # a multi-line message
    ("x and x again", "x 与 x 再次"),
    ("nothing known here", "nothing known here"),
])
def test_both_directions(english: str, chinese: str) -> None:
    assert converter(True).convert(english) == chinese
    assert converter(False).convert(chinese) == english


def test_plural_back_to_english_follows_the_count() -> None:
    back = converter(False)
    assert back.convert("1 个 NPU 被占用") == "1 NPU is busy"
    assert back.convert("3 个 NPU 被占用") == "3 NPUs are busy"
    assert converter(True).convert("3 NPUs are busy") == "3 个 NPU 被占用"


def test_templates_saying_little_besides_their_values() -> None:
    forward = converter(True)
    # "{what}: {absent}" has no word of its own: used only when one value is a message and the
    # others are plain values (else every "a: b" would become "a：b")
    assert forward.convert("node05: not recorded in this snapshot") == "node05：此快照未记录"
    assert forward.convert("node05: 23.0.3") == "node05: 23.0.3"
    assert forward.convert("the old node: not recorded in this snapshot") == \
        "the old node: not recorded in this snapshot"
    assert forward.convert("No problems found: not recorded in this snapshot") == "未发现问题：此快照未记录"
    # "{a} or {b}" is weak: used only when one of its values is a message itself
    assert forward.convert("25.0 or 25.3") == "25.0 or 25.3"
    assert forward.convert("not recorded in this snapshot or 25.3") == "此快照未记录 或 25.3"


def test_regexes_are_compiled_only_for_candidates() -> None:
    forward = converter(True)
    forward.convert("driver 23.0.7 is not installed")
    compiled = [t.source for bucket in forward.buckets.values() for t in bucket if t._regex is not None]
    assert "driver {version} is not installed" in compiled
    assert "findings asked for different {subject} versions ({versions})" not in compiled


def test_english_pays_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(i18n, "_reverse", {})
    i18n.set_language("en")
    assert i18n.translate("driver 23.0.7 is not installed") == "driver 23.0.7 is not installed"
    assert i18n.to_english("driver 23.0.7 is not installed", "en") == "driver 23.0.7 is not installed"
    assert i18n._reverse == {}


def test_real_catalogue_round_trip_of_a_runner_message() -> None:
    english = "cannot be checked here: the output of `id` (the run user): not recorded in this snapshot"
    chinese = i18n.convert(english, "en", "zh")
    assert "无法在此检查" in chinese and "`id`" in chinese
    assert i18n.to_english(chinese, "zh") == english


# -- whole reports ---------------------------------------------------------------------------

# Fixtures with many messages made with values (runner SKIP reasons, facts, fix-plan reasoning,
# the driver/firmware/HDK checks, model and container findings).
ROUND_TRIP = ("no-driver", "cann-newer-than-driver", "firmware-newer-than-driver", "two-stacks-running-new",
              "half-downloaded-weights", "container-missing-mounts")


def _invoke(*args: str) -> str:
    result = make_runner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.output
    return result.stdout


def _reports(fixture: str, tmp_path: Path) -> Tuple[Path, Path]:
    path = FIXTURES / fixture
    expected = yaml.safe_load((path / "expected.yaml").read_text(encoding="utf-8"))
    extra = [str(a).replace("{fixture}", str(path)) for a in expected.get("args", [])]
    english: Dict[str, Any] = json.loads(_invoke("check", "--from", str(path), "--format", "json", *extra))
    chinese: Dict[str, Any] = json.loads(_invoke("check", "--from", str(path), "--format", "json", "--lang", "zh",
                                                 *extra))
    assert chinese["lang"] == "zh" and english["lang"] == "en"
    left_out = tuple(PENDING_AREAS | NOT_READ_BACK)  # checks whose texts do not read back yet (i18n_pending.py)
    for report in (english, chinese):
        report["results"] = [r for r in report["results"] if not str(r["id"]).startswith(left_out)]
        report["fix_plan"] = [s for s in report["fix_plan"] if not s.get("fixes") or not all(
            str(f).startswith(left_out) for f in s["fixes"])]
    # The two runs differ only in their times.
    chinese["started_at"], chinese["duration_s"] = english["started_at"], english["duration_s"]
    for mine, theirs in zip(chinese["results"], english["results"]):
        mine["duration_s"] = theirs["duration_s"]
    en_path, zh_path = tmp_path / "en.json", tmp_path / "zh.json"
    en_path.write_text(json.dumps(english), encoding="utf-8")
    zh_path.write_text(json.dumps(chinese, ensure_ascii=False), encoding="utf-8")
    return en_path, zh_path


@pytest.mark.parametrize("fixture", ROUND_TRIP)
def test_a_chinese_report_reads_in_english_as_the_english_run(fixture: str, tmp_path: Path) -> None:
    en_path, zh_path = _reports(fixture, tmp_path)
    assert _invoke("report", "render", str(zh_path), "--lang", "en") == _invoke("report", "render", str(en_path))


@pytest.mark.parametrize("fixture", ROUND_TRIP)
def test_an_english_report_reads_in_chinese_as_the_chinese_run(fixture: str, tmp_path: Path) -> None:
    en_path, zh_path = _reports(fixture, tmp_path)
    assert _invoke("report", "render", str(en_path), "--lang", "zh") == \
        _invoke("report", "render", str(zh_path), "--lang", "zh")
