"""Two languages (docs/i18n.md): every check text, help line and renderer word in English and in
Simplified Chinese, chosen with --lang or the locale; English output unchanged; nothing loaded in
English."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any, Dict, Iterator, List, Tuple

import click
import pytest
from click.testing import Result
from hypothesis import given
from hypothesis import strategies as st

from ascend_doctor import i18n
from ascend_doctor.cli import SUBCOMMANDS, main
from ascend_doctor.cli._localize import language_from_args, localize_command
from ascend_doctor.widewrap import cell_width, wrap

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "tests" / "samples" / "i18n"
SAMPLE_REPORT = SAMPLES / "report-kernels-wrong-chip.json"
HEALTHY = ROOT / "fixtures" / "healthy-8x910B3"
CJK = re.compile(r"[\u4e00-\u9fff]")
FIX_HINT = "run `python tools/extract_messages.py`, translate the empty msgstr, run it again (docs/i18n.md)"


# -- helpers -----------------------------------------------------------------------------------


def _load_extractor() -> ModuleType:
    spec = importlib.util.spec_from_file_location("extract_messages", ROOT / "tools" / "extract_messages.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def em() -> ModuleType:
    return _load_extractor()


@pytest.fixture(scope="module")
def catalogue(em: ModuleType) -> Dict[str, Any]:
    _header, entries = em.read_po(em.PO_PATH)
    return {e.msgid: e for e in entries if not e.obsolete}


@pytest.fixture(scope="module")
def extracted(em: ModuleType) -> Tuple[List[Any], List[str]]:
    messages, problems = em.extract_all()
    return messages, problems


def _command_tree() -> Iterator[Tuple[List[str], click.Command]]:
    """Every command the user can ask --help of, with its argv path."""
    def walk(command: click.Command, path: List[str]) -> Iterator[Tuple[List[str], click.Command]]:
        yield path, command
        if isinstance(command, click.Group):
            for name in sorted(command.commands):
                yield from walk(command.commands[name], [*path, name])

    yield [], main
    for name in sorted(SUBCOMMANDS):
        module_name, attr, _ = SUBCOMMANDS[name]
        yield from walk(getattr(importlib.import_module(module_name), attr), [name])


@pytest.fixture(autouse=True)
def _english_again() -> Iterator[None]:
    """A test that showed Chinese leaves the command objects and the language as it found them."""
    yield
    i18n.set_language("en")
    for _path, command in _command_tree():
        localize_command(command)


def invoke(*args: str, env: Any = None) -> Result:
    runner = make_runner()
    return runner.invoke(main, list(args), env=env, catch_exceptions=False)


# -- completeness ------------------------------------------------------------------------------


def test_every_check_title_what_why_fix_has_chinese(catalogue: Dict[str, Any]) -> None:
    from ascend_doctor.registry import all_checks

    missing = []
    for check in all_checks():
        for field in ("title", "what", "why", "fix"):
            text = getattr(check.spec, field)
            entry = catalogue.get(text)
            # A fix that is only a command is translated as itself (commands stay verbatim).
            if entry is None or not entry.translated or not (CJK.search(entry.msgstr) or entry.msgstr == text):
                missing.append(f"{check.spec.id} {field}")
    assert not missing, f"check texts without Chinese: {missing}; {FIX_HINT}"


def test_every_marked_message_and_help_text_is_translated(extracted: Tuple[List[Any], List[str]],
                                                          catalogue: Dict[str, Any]) -> None:
    messages, problems = extracted
    assert not problems
    assert len(messages) > 500  # the extractor found the catalogue's sources (specs, CLI tree, marks)
    missing = [f"{m.msgid[:70]!r} ({m.references[0]})" for m in messages
               if m.msgid not in catalogue or not catalogue[m.msgid].translated]
    assert not missing, f"{len(missing)} messages without Chinese: {missing[:20]}; {FIX_HINT}"


def test_every_help_text_of_the_command_tree_shows_in_chinese() -> None:
    i18n.set_language("zh")
    untranslated = []
    for path, command in _command_tree():
        localize_command(command)
        texts = [command.help, command.epilog] + [p.help for p in command.params if isinstance(p, click.Option)]
        for text in texts:
            if text and not CJK.search(text):
                untranslated.append(f"{' '.join(path) or 'ascend-doctor'}: {text[:60]!r}")
    assert not untranslated, untranslated


def test_mo_is_the_compiled_po(em: ModuleType) -> None:
    header, entries = em.read_po(em.PO_PATH)
    assert Path(em.MO_PATH).read_bytes() == em.compile_mo(header, entries), \
        "the committed .mo is not the compiled .po: run python tools/extract_messages.py"


def test_extractor_check_mode_passes() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "extract_messages.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr


# -- translations keep what must not change ----------------------------------------------------


_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
# What must appear verbatim in the Chinese: check ids, `code`, --options, absolute paths,
# environment variables and versions.
_VERBATIM = (re.compile(r"ASC-[A-Z0-9]+-\d{3}"), re.compile(r"`[^`]+`"),
             re.compile(r"(?<![\w-])--[a-z][a-z0-9_-]*"), re.compile(r"(?<![\w.:/~])/(?:[\w.*+-]+/)*[\w.*+-]*[\w*+-]"),
             re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b"), re.compile(r"\b\d+\.\d+(?:\.[0-9A-Za-z]+)*\b"))


def _translations(catalogue: Dict[str, Any]) -> Iterator[Tuple[str, str]]:
    for entry in catalogue.values():
        if not entry.translated:
            continue
        if entry.plural is not None:
            for text in entry.plural_strs:
                yield entry.plural, text
        else:
            yield entry.msgid, entry.msgstr


def test_translations_keep_exactly_the_placeholders(catalogue: Dict[str, Any]) -> None:
    wrong = [(en, zh) for en, zh in _translations(catalogue)
             if Counter(_PLACEHOLDER.findall(en)) != Counter(_PLACEHOLDER.findall(zh))]
    assert not wrong, wrong[:5]


def test_translations_keep_ids_commands_paths_variables_and_versions(catalogue: Dict[str, Any]) -> None:
    lost = []
    for en, zh in _translations(catalogue):
        for pattern in _VERBATIM:
            for token in set(pattern.findall(en)):
                if token not in zh:
                    lost.append((token, en[:60]))
    assert not lost, f"{len(lost)} verbatim tokens missing from translations: {lost[:15]}"


def test_placeholder_messages_format_in_both_languages() -> None:
    i18n.set_language("zh")
    text = i18n.gettext("Start with {id}: {title} (`ascend-doctor explain {id}`)").format(id="ASC-DRV-001", title="x")
    assert text.startswith("请先处理 ASC-DRV-001") and "`ascend-doctor explain ASC-DRV-001`" in text
    singular = "{count} check not run: it needs {flags}, which was not given."
    plural = "{count} checks not run: they need {flags}, which was not given."
    assert i18n.ngettext(singular, plural, 3).format(count=3, flags="--model DIR").startswith("3 个检查项未运行")
    i18n.set_language("en")
    assert i18n.ngettext(singular, plural, 1).format(count=1, flags="--model DIR") == \
        "1 check not run: it needs --model DIR, which was not given."
    assert i18n.ngettext(singular, plural, 2).format(count=2, flags="--model DIR").startswith("2 checks not run")


# -- choosing the language ---------------------------------------------------------------------


@pytest.mark.parametrize("env, lang", [
    ({}, "en"),
    ({"LANG": "zh_CN.UTF-8"}, "zh"),
    ({"LANG": "zh_TW"}, "zh"),
    ({"LANG": "en_US.UTF-8"}, "en"),
    ({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),  # LC_ALL wins
    ({"LC_MESSAGES": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh"),
    ({"LC_ALL": "zh_CN.UTF-8", "LC_MESSAGES": "C"}, "zh"),
    ({"LC_ALL": "", "LANG": "zh_CN.UTF-8"}, "zh"),  # set but empty: not deciding
])
def test_language_from_the_locale(env: Dict[str, str], lang: str) -> None:
    assert i18n.language_from_env(env) == lang


def test_lang_option_is_found_anywhere_before_double_dash() -> None:
    assert language_from_args(["check", "--lang", "zh"]) == "zh"
    assert language_from_args(["--lang=zh", "explain", "X"]) == "zh"
    assert language_from_args(["--lang", "zh", "check", "--lang", "en"]) == "en"
    assert language_from_args(["check", "--", "--lang", "zh"]) is None
    assert language_from_args(["check", "--lang", "fr"]) is None
    assert language_from_args(["check", "--vllm-args", "--lang zh"]) is None


@pytest.mark.parametrize("argv", [
    ["--lang", "zh", "explain", "ASC-DRV-001"],
    ["explain", "ASC-DRV-001", "--lang", "zh"],
    ["explain", "--lang=zh", "ASC-DRV-001"],
])
def test_explain_in_chinese_with_lang_anywhere(argv: List[str]) -> None:
    result = invoke(*argv)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ASC-DRV-001: 昇腾驱动已安装\n")
    assert "检查内容" in result.stdout and "修复方法" in result.stdout
    assert "/etc/ascend_install.info" in result.stdout  # paths verbatim


def test_explain_in_chinese_from_the_locale_and_english_when_lc_all_says_so() -> None:
    zh = invoke("explain", "ASC-DRV-001", env={"LC_ALL": None, "LC_MESSAGES": None, "LANG": "zh_CN.UTF-8"})
    assert "昇腾驱动已安装" in zh.stdout
    en = invoke("explain", "ASC-DRV-001", env={"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"})
    assert en.stdout.startswith("ASC-DRV-001: Ascend driver installed\n")
    forced = invoke("explain", "ASC-DRV-001", "--lang", "en", env={"LC_ALL": "zh_CN.UTF-8"})
    assert forced.stdout == en.stdout


def test_unknown_language_is_a_usage_error() -> None:
    result = invoke("explain", "ASC-DRV-001", "--lang", "fr")
    assert result.exit_code == 2


def test_checks_list_and_json_in_chinese() -> None:
    text = invoke("checks", "--lang", "zh")
    assert "ASC-DRV-001" in text.stdout and "昇腾驱动已安装" in text.stdout
    data = json.loads(invoke("checks", "--format", "json", "--lang", "zh").stdout)
    by_id = {c["id"]: c for c in data}
    assert by_id["ASC-DRV-001"]["title"] == "昇腾驱动已安装"


def test_static_errors_are_translated_and_keep_their_prefix_and_code() -> None:
    result = invoke("explain", "NOPE-1", "--lang", "zh")
    assert result.exit_code == 2
    assert "ascend-doctor: error: 没有 id 为 'NOPE-1' 的检查项" in result.stderr
    usage = invoke("check", "--verify", "m.json", "--lang", "zh")
    assert usage.exit_code == 2
    assert "--verify 需要同时给出 --model DIR" in usage.stderr


# -- help in Chinese ---------------------------------------------------------------------------


def _example_commands(help_text: str) -> List[str]:
    """The command part of every example line of an English --help ("  ascend-doctor ...  # why")."""
    out = []
    for line in help_text.splitlines():
        stripped = line.strip()
        if re.match(r"(ascend-doctor [a-z-]+( |$)|docker logs |srun |ASCEND_DOCTOR_API_KEY=)", stripped):
            out.append(stripped.split("  #")[0].rstrip())
    return out


def test_help_in_chinese_for_every_command_keeps_examples_verbatim() -> None:
    checked = 0
    for path, _command in _command_tree():
        english = invoke(*path, "--help")
        chinese = invoke(*path, "--help", "--lang", "zh")
        assert chinese.exit_code == 0, chinese.output
        assert CJK.search(chinese.stdout), path
        assert "用法：" in chinese.stdout and "选项:" in chinese.stdout and "显示本帮助并退出。" in chinese.stdout
        for command in _example_commands(english.stdout):
            assert command in chinese.stdout, (path, command)
            checked += 1
    assert checked > 40


def test_help_language_does_not_depend_on_where_lang_stands() -> None:
    argvs = (["--lang", "zh", "check", "--help"], ["check", "--lang", "zh", "--help"],
             ["check", "--help", "--lang", "zh"])
    outputs = {invoke(*argv).stdout for argv in argvs}
    assert len(outputs) == 1
    (text,) = outputs
    assert "评估一台昇腾服务器能否部署 DeepSeek 推理服务。" in text
    assert "[默认：text]" in text and "--lang en|zh" in text


def test_top_level_help_lists_commands_in_chinese() -> None:
    text = invoke("--lang", "zh", "--help").stdout
    assert "命令:" in text and "检查本机（或快照）是否满足昇腾部署要求。" in text
    assert "  ascend-doctor explain ASC-DRV-001" in text


def test_chinese_help_lines_fit_the_terminal_width() -> None:
    too_wide = []
    for path, _command in _command_tree():
        text = invoke(*path, "--help", "--lang", "zh").stdout
        lines = [ln for ln in text.splitlines() if CJK.search(ln) and "ascend-doctor " not in ln]
        assert lines, path
        # click's 80 columns, +2 for closing punctuation kept with its word; example lines are verbatim
        too_wide += [ln for ln in lines if cell_width(ln) > 82 and "#" not in ln]
    assert not too_wide, too_wide[:3]


def test_english_help_is_click_s_own_after_chinese() -> None:
    before = invoke("matrix", "show", "--help").stdout
    invoke("matrix", "show", "--help", "--lang", "zh")
    assert invoke("matrix", "show", "--help").stdout == before
    assert "Usage:" in before and "Show this message and exit." in before


# -- reports -----------------------------------------------------------------------------------


def test_check_from_fixture_in_chinese_text() -> None:
    en = invoke("check", "--from", str(HEALTHY), "-v")  # -v: every result, PASS included
    zh = invoke("check", "--from", str(HEALTHY), "--lang", "zh", "-v")
    assert zh.exit_code == en.exit_code
    assert "PASS  ASC-DRV-001 昇腾驱动已安装" in zh.stdout
    assert "驱动\n" in zh.stdout and "汇总：" in zh.stdout
    assert "PASS  ASC-DRV-001 Ascend driver installed" in en.stdout


def test_check_from_fixture_json_is_the_same_for_machines(tmp_path: Path) -> None:
    en = json.loads(invoke("check", "--from", str(HEALTHY), "--format", "json").stdout)
    zh = json.loads(invoke("check", "--from", str(HEALTHY), "--format", "json", "--lang", "zh").stdout)
    assert en["lang"] == "en" and zh["lang"] == "zh"
    assert [(r["id"], r["status"], r["scope"]) for r in en["results"]] == \
        [(r["id"], r["status"], r["scope"]) for r in zh["results"]]
    assert [r["evidence"] for r in en["results"]] == [r["evidence"] for r in zh["results"]]
    assert en["summary"] == zh["summary"] and en["exit_code"] == zh["exit_code"]
    titles = {r["id"]: r["title"] for r in zh["results"]}
    assert titles["ASC-DRV-001"] == "昇腾驱动已安装"
    assert all(CJK.search(t) for t in titles.values()), titles


@pytest.mark.parametrize("fmt, golden", [("text", "en.text"), ("markdown", "en.markdown"), ("html", "en.html"),
                                         ("junit", "en.junit.xml")])
def test_english_renders_are_byte_identical_to_before(tmp_path: Path, fmt: str, golden: str) -> None:
    expected = (SAMPLES / f"report-kernels-wrong-chip.{golden}").read_bytes()
    for extra in ([], ["--lang", "en"]):
        out = tmp_path / f"out-{len(extra)}.{fmt}"
        result = invoke("report", "render", str(SAMPLE_REPORT), "--format", fmt, "-o", str(out), *extra)
        assert result.exit_code == 0, result.output
        assert out.read_bytes() == expected, f"English {fmt} output changed (tests/samples/i18n/README.md)"


def test_report_written_in_chinese_renders_back_in_english(tmp_path: Path) -> None:
    zh_json = tmp_path / "zh.json"
    assert invoke("report", "render", str(SAMPLE_REPORT), "--format", "json", "--lang", "zh",
                  "-o", str(zh_json)).exit_code == 0
    data = json.loads(zh_json.read_text(encoding="utf-8"))
    assert data["lang"] == "zh"
    assert any(r["title"] == "已安装适用于本机架构的 CANN Toolkit开发套件包" for r in data["results"])
    back = tmp_path / "en.text"
    assert invoke("report", "render", str(zh_json), "--format", "text", "--lang", "en", "-o", str(back)).exit_code == 0
    assert back.read_bytes() == (SAMPLES / "report-kernels-wrong-chip.en.text").read_bytes()


def test_markdown_and_junit_in_chinese() -> None:
    md = invoke("report", "render", str(SAMPLE_REPORT), "--format", "markdown", "--lang", "zh").stdout
    assert md.startswith("# ascend-doctor 报告：kernels-wrong-chip\n")
    assert "## 修复计划" in md and "**未就绪**" in md and "| 状态 | 结果 |" in md
    junit = invoke("report", "render", str(SAMPLE_REPORT), "--format", "junit", "--lang", "zh").stdout
    assert 'name="ASC-OPS-002"' in junit and "修复方法：" in junit


def test_html_in_chinese_keeps_its_script_allowed_by_the_policy() -> None:
    page = invoke("report", "render", str(SAMPLE_REPORT), "--format", "html", "--lang", "zh").stdout
    assert '<html lang="zh-CN">' in page and "verdict-NOT-READY" in page and ">未就绪<" in page
    script = page.split("<script>", 1)[1].split("</script>", 1)[0]
    import base64

    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    assert f"'sha256-{digest}'" in page  # the CSP allows exactly this (translated) script
    assert "\\u5df2\\u590d\\u5236" in script  # "已复制" as an escaped JS string


def test_text_report_wraps_chinese_messages_by_cell_width() -> None:
    from ascend_doctor.checkapi import Status
    from ascend_doctor.render.text import report_to_text
    from ascend_doctor.report import Report, Result

    message = "设备" * 80 + " /usr/local/Ascend/driver/lib64/driver/version.info 之后再检查"
    report = Report(tool_version="0", matrix={}, host={}, facts={}, lang="zh",
                    results=[Result("ASC-DRV-001", "昇腾驱动已安装", Status.FAIL, message, "修复步骤\nsecond line")])
    i18n.set_language("zh")
    text = report_to_text(report, width=60)
    body = [ln for ln in text.splitlines() if ln.startswith("      设备")]
    assert len(body) >= 2 and all(cell_width(ln) <= 60 for ln in body)
    assert "/usr/local/Ascend/driver/lib64/driver/version.info" in text  # a path is never cut
    fix = [ln for ln in text.splitlines() if "修复" in ln or "second line" in ln]
    assert fix[0].startswith("      修复：修复步骤") and fix[1] == " " * cell_width("      修复：") + "second line"


# Chinese prose after code joined its pieces: a half-width mark right after a Chinese character.
_HALF_WIDTH_IN_CHINESE = re.compile(r"[\u4e00-\u9fff）][:;,] |[\u4e00-\u9fff]\.$")
# A shell comment in a command line that is still English prose (three words or more).
_ENGLISH_COMMENT = re.compile(r"  # (?=[^\u4e00-\u9fff]*$)[A-Za-z(][^`]*\b[a-z]+ [a-z]+ [a-z]+\b")


@pytest.mark.parametrize("fixture", ["cann-newer-than-driver", "driver-firmware-out-of-range", "mixed-driver-stacks",
                                     "310p3-inference", "firmware-newer-than-driver", "x86-toolkit-on-aarch64",
                                     "no-driver", "container-missing-mounts", "torch-npu-other-cann",
                                     "npu-smi-device-used", "busy-npus-other-container", "vllm-a2-build-on-a3"])
def test_chinese_report_has_full_width_prose_and_translated_comments(fixture: str) -> None:
    root = Path(__file__).resolve().parents[1] / "fixtures" / fixture
    if not root.is_dir():
        pytest.skip(f"no fixture {fixture}")
    result = make_runner().invoke(main, ["check", "--from", str(root), "--lang", "zh", "-v"])
    lines = result.stdout.splitlines()
    assert not [ln for ln in lines if _HALF_WIDTH_IN_CHINESE.search(ln)]
    assert not [ln for ln in lines if _ENGLISH_COMMENT.search(ln)]


# -- start-up and robustness -------------------------------------------------------------------


_AUDIT = """
import json, sys
opened = []
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].endswith(".mo"):
        opened.append(args[0])
sys.addaudithook(hook)
from ascend_doctor.cli import main
for argv in ARGVS:
    try:
        main(argv, standalone_mode=False)
    except SystemExit:
        pass
print("\\n" + json.dumps({"opened": opened, "widewrap": "ascend_doctor.widewrap" in sys.modules}))
"""


def _run_audited(argvs: List[List[str]], env_lang: str) -> Dict[str, Any]:
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    env["LANG"] = env_lang
    done = subprocess.run([sys.executable, "-c", _AUDIT.replace("ARGVS", repr(argvs))], capture_output=True,
                          text=True, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_english_never_opens_the_catalogue() -> None:
    seen = _run_audited([["--version"], ["--help"], ["check", "--help"], ["explain", "ASC-DRV-001"]], "C.UTF-8")
    assert seen == {"opened": [], "widewrap": False}


def test_chinese_opens_the_catalogue_once() -> None:
    seen = _run_audited([["--help"], ["explain", "ASC-DRV-001"]], "zh_CN.UTF-8")
    assert len(seen["opened"]) == 1 and seen["opened"][0].endswith("zh/LC_MESSAGES/ascend_doctor.mo")


def test_a_missing_catalogue_falls_back_to_english_with_one_warning(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    tmp_path: Path) -> None:
    monkeypatch.setattr(i18n, "_catalogues", {})
    monkeypatch.setattr(i18n, "_reverse", {})
    monkeypatch.setattr(i18n, "catalogue_path", lambda lang: str(tmp_path / "missing.mo"))
    i18n.set_language("zh")
    assert i18n.gettext("Summary") == "Summary"
    assert i18n.gettext("Fix plan") == "Fix plan"
    assert i18n.to_english("汇总", "zh") == "汇总"
    assert capsys.readouterr().err.count("warning: cannot read the zh message catalogue") == 1


def test_a_damaged_catalogue_falls_back_to_english(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bad = tmp_path / "bad.mo"
    bad.write_bytes(b"\x00" * 40)
    monkeypatch.setattr(i18n, "_catalogues", {})
    monkeypatch.setattr(i18n, "catalogue_path", lambda lang: str(bad))
    i18n.set_language("zh")
    assert i18n.gettext("Summary") == "Summary"


def test_set_language_refuses_other_languages() -> None:
    with pytest.raises(ValueError):
        i18n.set_language("fr")


# -- wrapping ----------------------------------------------------------------------------------


def test_wrap_breaks_between_chinese_characters_never_inside_a_word() -> None:
    lines = wrap("安装驱动和固件，然后重启主机。" * 4, 20)
    assert all(cell_width(ln) <= 20 for ln in lines) and len(lines) > 3
    assert not any(ln.startswith(("，", "。")) for ln in lines)
    long_path = "/usr/local/Ascend/ascend-toolkit/latest/set_env.sh"
    assert long_path in wrap(f"执行 source {long_path} 之后", 12)
    assert wrap("hello world again", 11) == ["hello world", "again"]
    assert wrap("请执行（npu-smi info）查看", 10)[1].startswith("（")  # an opening bracket moves with its word


@given(st.lists(st.tuples(st.sampled_from(["运", "行", "驱动", "固件"]), st.sampled_from(["", "，", "。", "——65536"])),
                max_size=60),
       st.integers(min_value=10, max_value=60))
def test_wrap_never_overflows_for_punctuation_that_cannot_start_a_line(pieces: List[Tuple[str, str]],
                                                                       width: int) -> None:
    # "——65536" may not start a line: the wide character before it goes down with it, so the line
    # stays inside the width (rich would otherwise re-wrap it, the rest without its indentation).
    lines = wrap("".join(word + punctuation for word, punctuation in pieces), width)
    assert all(cell_width(line) <= width for line in lines), (lines, width)
    assert not any(line.startswith(("，", "。", "—")) for line in lines)


def test_widths() -> None:
    assert cell_width("NPU 驱动") == 8
    assert cell_width("") == 0
