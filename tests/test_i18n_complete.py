"""A Chinese run is Chinese: every human line of every command's output has Chinese in it, unless
it is a command, a path, a version, an id or another token that stays verbatim (docs/i18n.md).

What is checked: ``check --from F --lang zh --format json`` on every fixture (with the arguments of
its expected.yaml, as tests/test_scenarios.py runs it) - each result's title, message and
remediation, each fix-plan step's summary, why and alternative, and the report's notes - and the
Chinese outputs of ``fleet`` (fixtures/fleet-16), ``diagnose`` (every log sample), ``plan``,
``model inspect`` (every model folder of the fixtures) and ``report diff``.

When a line must be Chinese (``untranslated``, strictly):

* it is prose: after taking out what stays verbatim (backtick, quoted and ``<placeholder>`` spans,
  URLs), it holds a run of at least 3 ordinary English words (letters only, at least two, lower
  case after the first letter) that no other token interrupts; acronyms and CamelCase names
  (NPU, CANN, MindIE) and one-letter words neither count nor interrupt, anything with a digit,
  ``/ . _ = -``-options and the like interrupts;
* and it has no CJK ideograph;
* and it is not a command line: a line of the commands of the finding's fix actions (or of the
  fix-plan step), a line starting with ``#`` or ``$`` (shell comments stay English), a line of a
  report field indented by two spaces or more (code in a remediation), or a line that starts with
  a shell verb (``pip``, ``./``, ``npu-smi``, ...) and is not itself prose after the verb.

A line with Chinese in it also fails when a piece of it between ``;``/``。`` is English prose of
6 words or more with no Chinese (a translated sentence glued to an untranslated one).

The failure message names the fixture or command, the check id and field, and the English line,
so the owner of that text can find it. Run as a script to write the same list grouped by area:

    python -m tests.test_i18n_complete /tmp/i18n/complete-failures.txt
"""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import pytest
import yaml

from ascend_doctor.cli import main

from .clirunner import make_runner
from .i18n_pending import PENDING_AREAS

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SCENARIOS = sorted(p for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file())
LOG_SAMPLES = sorted((ROOT / "tests" / "samples" / "dmesg-and-logs").glob("*.txt"))
MODEL_DIRS = sorted(p for p in FIXTURES.glob("*/files/data/models/*") if p.is_dir())
PLAN_ARGS = (
    ("--model", "DeepSeek-R1", "--precision", "w8a8", "--chip", "910B3", "--cards", "16"),
    ("--model", "DeepSeek-R1", "--precision", "w8a8", "--mem-gb", "64", "--cards", "8"),
    ("--model", "r1-distill-qwen-32b", "--chip", "910B3", "--precision", "fp16"),
    ("--model", "DeepSeek-V3", "--chip", "A3"),
    ("--model", "DeepSeek-R1", "--chip", "310P3"),
)
DIFF_PAIRS = (("healthy-8x910B3", "cann-newer-than-driver"), ("cann-newer-than-driver", "healthy-8x910B3"),
              ("no-driver", "healthy-8x910B3"))

# Who owns a text, for the grouped failure list: by check-id prefix; "core" are the texts of the
# runner, requirements, fix plan, notes and the non-report commands.
AREAS = {
    "stack": ("ASC-SMI-", "ASC-DEV-", "ASC-SYS-", "ASC-CTR-", "ASC-DRV-", "ASC-FW-", "ASC-MIX-", "ASC-CANN-",
              "ASC-OPS-", "ASC-NNAL-", "ASC-ARCH-", "ASC-ENV-", "ASC-PY-", "ASC-ENG-"),
    "model/config/logs": ("ASC-MDL-", "ASC-CFG-", "ASC-LOG-"),
    "network/rank table/serving/fleet": ("ASC-NET-", "ASC-RT-", "ASC-SRV-", "ASC-FLT-"),
}
CORE = "core"

# -- what a line is --------------------------------------------------------------------------

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Spans that stay verbatim whatever the language: `code`, "quoted", 'quoted' (not an apostrophe),
# “quoted”, <placeholder>, URLs.
_VERBATIM = re.compile(r"`[^`]*`|\"[^\"]*\"|(?<![A-Za-z])'[^'\n]*'(?![A-Za-z])|“[^”]*”|‘[^’]*’"
                       r"|<[^<>\s][^<>]*>|https?://\S+")
_WORD = re.compile(r"[A-Za-z][a-z]+(?:['’-][A-Za-z]+)*")
_LETTERS = re.compile(r"[A-Za-z]+")
_EDGE = ".,;:!?()[]{}\"'“”‘’…*"
SHELL_VERBS = frozenset((
    "pip", "pip3", "python", "python3", "source", ".", "export", "unset", "docker", "reboot", "mv", "chmod",
    "chown", "chgrp", "rm", "ln", "cp", "mkdir", "sudo", "npu-smi", "hccn_tool", "ascend-doctor", "bash", "sh",
    "usermod", "useradd", "groupadd", "sysctl", "echo", "yum", "apt", "apt-get", "dnf", "modprobe", "systemctl",
    "vllm", "huggingface-cli", "kill", "ulimit", "mount", "cat", "sed", "grep", "ls", "find", "id", "df", "lsmod",
    "dmesg", "stat", "cd", "tar", "curl", "wget", "git", "kubectl", "ssh", "scp", "lspci", "ps", "ip", "ping",
    "torchrun", "msnpureport", "numactl", "jq", "env", "sha256sum", "awk", "tail", "head", "journalctl",
    "setfacl", "ldd", "readelf", "for", "while", "ulimit", "umask", "free", "du", "top", "hostname", "uname",
    "chattr", "setenforce", "firewall-cli", "iptables", "nproc", "lscpu", "numastat", "watch", "mindieservice_daemon",
    "benchmark", "ais_bench", "msprof", "npu-smi", "upgrade-tool", "hccn", "ldconfig", "update-alternatives",
))


def _tokens(line: str) -> List[str]:
    return _VERBATIM.sub(" \x00 ", line).split()


SHELL_WORDS = frozenset(("do", "done", "then", "fi", "if", "else", "in", "while", "case", "esac", "xargs"))


def prose_run(tokens: Sequence[str], shell: bool = False) -> int:
    """The longest run of ordinary English words in ``tokens`` (see the module docstring); in a
    command line (``shell``) the shell's own words (do, done, grep ...) are no English."""
    best = run = 0
    for raw in tokens:
        token = raw.replace("\x00", "").strip(_EDGE)
        if not token or not any(ch.isalnum() for ch in token):
            continue  # a verbatim span or punctuation alone ("-", "—", "|"): neither counts nor interrupts
        if shell and (token in SHELL_WORDS or token in SHELL_VERBS):
            run = 0
        elif _WORD.fullmatch(token):
            run += 1
            best = max(best, run)
        elif not _LETTERS.fullmatch(token):  # an acronym, a CamelCase name, a one-letter word: transparent
            run = 0
    return best


def is_prose(text: str, words: int = 3, shell: bool = False) -> bool:
    return prose_run(_tokens(text), shell) >= words


def is_command(line: str, commands: Set[str], indented_is_code: bool) -> bool:
    stripped = line.strip()
    if not stripped:
        return True
    if stripped in commands or stripped.startswith(("#", "$")):
        return True
    if indented_is_code and (line.startswith("  ") or line.startswith("\t")):
        return True
    first = stripped.split()[0]
    if first.startswith("./") or first in SHELL_VERBS:
        code = re.split(r"\s#\s", stripped, maxsplit=1)[0]  # its shell comment stays English
        return not is_prose(code[len(first):], shell=True)
    return False


def untranslated(line: str, commands: Set[str] = frozenset(), indented_is_code: bool = False) -> bool:
    """Whether ``line`` of a Chinese output is English prose that should have been translated."""
    if is_command(line, commands, indented_is_code):
        return False
    if not _CJK.search(line):
        return is_prose(line)
    # Chinese here: a long English sentence glued to it is still untranslated.
    return any(not _CJK.search(piece) and is_prose(piece, 6) for piece in re.split(r"[;；。]", line))


# -- where lines come from ---------------------------------------------------------------------

Line = Tuple[str, str, str, str]  # (owner, where, what, line)


def _area(check_id: str) -> str:
    for area, prefixes in AREAS.items():
        if check_id.startswith(prefixes):
            return area
    return CORE


def report_lines(report: Dict[str, Any], where: str) -> Iterator[Line]:
    """The untranslated lines of a JSON report: (owner id, where, field, line)."""
    for result in report.get("results", []):
        check_id = result["id"]
        evidence = result.get("evidence") or {}
        commands = {c.strip() for a in result.get("actions", []) for cmd in a.get("commands", [])
                    for c in cmd.split("\n")}
        for field in ("title", "message", "remediation"):
            owner = check_id
            text = result.get(field) or ""
            if field == "message" and (
                    "precondition" in evidence or "exception" in evidence or (result["status"] == "SKIP"
                    and text.startswith(("cannot be checked here", "不能在此检查", "无法在此检查")))):
                owner = "core:" + check_id  # a SKIP/ERROR reason the runner or a fact wrote
            for line in text.split("\n"):
                if untranslated(line, commands, indented_is_code=field == "remediation"):
                    yield owner, where, f"{check_id} {field}", line
        for action in result.get("actions", []):
            for field in ("summary", "alternative"):
                for line in (action.get(field) or "").split("\n"):
                    if untranslated(line, commands):
                        yield check_id, where, f"{check_id} action {field}", line
    for step in report.get("fix_plan", []):
        fixes = step.get("fixes") or ["?"]
        first = str(fixes[0]).split(" ")[0]
        commands = {c.strip() for cmd in step.get("commands", []) for c in cmd.split("\n")}
        for field in ("summary", "why", "alternative"):
            for line in (step.get(field) or "").split("\n"):
                owner = first if field != "why" else "core:fix plan"
                if field == "summary" and line.startswith(("Restore: ", "After the ")):
                    owner = "core:fix plan"
                if untranslated(line, commands):
                    label = f"fix plan step {step.get('order')} ({', '.join(map(str, fixes))}) {field}"
                    yield owner, where, label, line
    for note in report.get("notes", []):
        for line in str(note).split("\n"):
            if untranslated(line):
                yield "core:notes", where, "note", line


def text_lines(text: str, where: str, owner: str = "core", commands: Iterable[str] = ()) -> Iterator[Line]:
    known = {c.strip() for c in commands}
    for line in text.split("\n"):
        if untranslated(line, known):
            yield owner, where, "output", line.strip()


def _invoke(args: Sequence[str], stdin: Optional[str] = None) -> Any:
    runner = make_runner()
    return runner.invoke(main, list(args), input=stdin, catch_exceptions=False)


def scenario_args(fixture: Path) -> List[str]:
    expected = yaml.safe_load((fixture / "expected.yaml").read_text(encoding="utf-8"))
    return [str(a).replace("{fixture}", str(fixture)) for a in expected.get("args", [])]


@functools.cache
def zh_report(fixture: str) -> Dict[str, Any]:
    path = FIXTURES / fixture
    result = _invoke(["check", "--from", str(path), "--format", "json", "--lang", "zh", *scenario_args(path)])
    assert result.exit_code in (0, 1, 3), result.output
    report: Dict[str, Any] = json.loads(result.stdout)
    assert report["lang"] == "zh"
    return report


def fixture_lines(fixture: str) -> List[Line]:
    return list(report_lines(zh_report(fixture), f"fixtures/{fixture}"))


def fleet_lines() -> List[Line]:
    result = _invoke(["fleet", str(FIXTURES / "fleet-16"), "--format", "json", "--lang", "zh"])
    assert result.exit_code in (0, 1, 3), result.output
    lines = list(report_lines(json.loads(result.stdout), "fleet fixtures/fleet-16"))
    text = _invoke(["fleet", str(FIXTURES / "fleet-16"), "--lang", "zh"])
    lines.extend(text_lines(text.stderr, "fleet fixtures/fleet-16 (stderr)"))
    return lines


def _log_body(path: Path) -> str:
    return path.read_text(encoding="utf-8").partition("\n# ---\n")[2]


def diagnose_lines(sample: Path) -> List[Line]:
    body = _log_body(sample)
    data = json.loads(_invoke(["diagnose", "-", "--format", "json"], stdin=body).stdout)
    commands = [c for f in data.get("findings", []) for key in ("check_next", "fix") for c in f.get(key, [])]
    # The matched log lines are the user's own text, verbatim (shortened with "…" when long).
    quoted = [str(f.get("line_text", "")).strip("…") for f in data.get("findings", [])]
    result = _invoke(["diagnose", "-", "--lang", "zh"], stdin=body)
    out = [ln for ln in text_lines(result.stdout, f"diagnose {sample.name}", commands=commands)
           if not any(q and (q[:60] in ln[3]) for q in quoted)]
    return out + list(text_lines(result.stderr, f"diagnose {sample.name} (stderr)"))


def plan_lines(args: Sequence[str]) -> List[Line]:
    result = _invoke(["plan", *args, "--lang", "zh"])
    assert result.exit_code in (0, 1), result.output
    where = "plan " + " ".join(args)
    return list(text_lines(result.stdout, where)) + list(text_lines(result.stderr, where + " (stderr)"))


def model_inspect_lines(folder: Path) -> List[Line]:
    result = _invoke(["model", "inspect", str(folder), "--lang", "zh"])
    assert result.exit_code in (0, 1), result.output
    where = "model inspect " + str(folder.relative_to(ROOT))
    return list(text_lines(result.stdout, where)) + list(text_lines(result.stderr, where + " (stderr)"))


def diff_lines(old: str, new: str, tmp: Path) -> List[Line]:
    paths = []
    for name in (old, new):
        path = tmp / f"{name}.json"
        path.write_text(json.dumps(zh_report(name), ensure_ascii=False), encoding="utf-8")
        paths.append(str(path))
    result = _invoke(["report", "diff", *paths, "--lang", "zh"])
    assert result.exit_code in (0, 1), result.output
    # A finding's own text quoted by the diff is listed (and owned) with its report already.
    quoted = {line for name in (old, new) for *_, line in report_lines(zh_report(name), "") if len(line) > 8}
    return [ln for ln in text_lines(result.stdout, f"report diff {old} {new}")
            if not any(q in ln[3] for q in quoted)]


def _pending(owner: str) -> bool:
    return not owner.startswith(CORE) and owner.startswith(tuple(PENDING_AREAS))


def _assert_chinese(lines: Iterable[Line]) -> None:
    bad = [f"{where}: {what}: {line!r}" for owner, where, what, line in lines if not _pending(owner)]
    assert not bad, (f"{len(bad)} English line(s) in a --lang zh output; translate them where they are "
                     "made (docs/i18n.md):\n" + "\n".join(bad))


# -- the classifier itself ---------------------------------------------------------------------


@pytest.mark.parametrize("line", [
    "no NPU devices were listed by npu-smi",
    "Install the driver, then the firmware, of one Ascend HDK release, and reboot once:",
    "find the package that matches the driver",
    "驱动已安装; the firmware is from another release and must be installed again",
])
def test_prose_is_untranslated(line: str) -> None:
    assert untranslated(line)


@pytest.mark.parametrize("line", [
    "未找到昇腾驱动（/usr/local/Ascend/driver/version.info 不存在）",
    "./Ascend-cann-toolkit_8.0.0_linux-aarch64.run --install",
    "source /usr/local/Ascend/ascend-toolkit/set_env.sh",
    "# which HDK release: `ascend-doctor matrix lookup --cann <your CANN> --chip <chip>`",
    "ascend-doctor matrix lookup --cann 8.0.RC3",
    "npu-smi info -t health -i 0 -c 0",
    "CANN toolkit 8.0.0",
    "ASC-DRV-001 / ASC-FW-001",
    "`npu-smi info` 'device lost' \"no such file\"",
    "https://www.hiascend.com/document/detail/zh/canncommercial/80RC22/index.html",
    "DeepSeek-R1-Distill-Qwen-32B W8A8 910B3",
    "bf16     32 cards",
])
def test_verbatim_is_not_untranslated(line: str) -> None:
    assert not untranslated(line)


def test_indented_remediation_lines_and_fix_commands_are_code() -> None:
    assert not untranslated("    pip install torch numpy transformers", indented_is_code=True)
    assert untranslated("    pip install torch numpy transformers and then restart it", indented_is_code=False)
    assert not untranslated("restart the serving engine now", {"restart the serving engine now"})


# -- the outputs -------------------------------------------------------------------------------


@pytest.mark.parametrize("fixture", [p.name for p in SCENARIOS])
def test_check_report_is_chinese(fixture: str) -> None:
    _assert_chinese(fixture_lines(fixture))


def test_fleet_is_chinese() -> None:
    _assert_chinese(fleet_lines())


@pytest.mark.parametrize("sample", LOG_SAMPLES, ids=[p.stem for p in LOG_SAMPLES])
def test_diagnose_is_chinese(sample: Path) -> None:
    _assert_chinese(diagnose_lines(sample))


@pytest.mark.parametrize("args", PLAN_ARGS, ids=[" ".join(a) for a in PLAN_ARGS])
def test_plan_is_chinese(args: Sequence[str]) -> None:
    _assert_chinese(plan_lines(args))


@pytest.mark.parametrize("folder", MODEL_DIRS, ids=[f"{p.parts[-5]}/{p.name}" for p in MODEL_DIRS])
def test_model_inspect_is_chinese(folder: Path) -> None:
    _assert_chinese(model_inspect_lines(folder))


@pytest.mark.parametrize("pair", DIFF_PAIRS, ids=[f"{a}->{b}" for a, b in DIFF_PAIRS])
def test_report_diff_is_chinese(pair: Tuple[str, str], tmp_path: Path) -> None:
    _assert_chinese(diff_lines(pair[0], pair[1], tmp_path))


# -- script mode: the list per area ------------------------------------------------------------


def all_lines(tmp: Path) -> List[Line]:
    lines: List[Line] = []
    for fixture in SCENARIOS:
        lines.extend(fixture_lines(fixture.name))
    lines.extend(fleet_lines())
    for sample in LOG_SAMPLES:
        lines.extend(diagnose_lines(sample))
    for args in PLAN_ARGS:
        lines.extend(plan_lines(args))
    for folder in MODEL_DIRS:
        lines.extend(model_inspect_lines(folder))
    for old, new in DIFF_PAIRS:
        lines.extend(diff_lines(old, new, tmp))
    return lines


def grouped_failures(lines: Iterable[Line]) -> str:
    by_area: Dict[str, Dict[str, List[str]]] = {}
    for owner, where, what, line in lines:
        area = CORE if owner.startswith(CORE) else _area(owner)
        texts = by_area.setdefault(area, {}).setdefault(line, [])
        label = f"{where}: {what}"
        if label not in texts:
            texts.append(label)
    out = []
    for area in sorted(by_area):
        entries = by_area[area]
        out.append(f"== {area}: {len(entries)} distinct untranslated line(s)")
        for line, places in sorted(entries.items(), key=lambda kv: kv[1][0].split(": ", 1)[-1]):
            out.append(f"  {line}")
            out.extend(f"      at {p}" for p in places[:3])
            if len(places) > 3:
                out.append(f"      ... and {len(places) - 3} more")
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":  # python -m tests.test_i18n_complete OUT
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        text = grouped_failures(all_lines(Path(folder)))
    target = sys.argv[1] if len(sys.argv) > 1 else "-"
    if target == "-":
        sys.stdout.write(text)
    else:
        Path(target).write_text(text, encoding="utf-8")
        print(f"written to {target}")
