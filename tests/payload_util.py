"""Hostile values for tests/test_injection_payloads.py: fixtures copied with shell payloads planted in the
values a machine reports, every command the tool prints collected, and all of them pasted into bash.

A payload is a shell fragment that runs ``touch PWN_<n>`` when a shell interprets it; ``n`` is one value's
own number, so a marker file that appears names the value that leaked (``Planter.where``). The commands run in
a scratch folder with ``PATH`` holding only ``touch``: every other command is a no-op that succeeds
(``command_not_found_handle``), and the builtins that reach outside the folder (``cd``, ``kill``, ``exec``,
``ulimit``, ``trap``) are shadowed by no-op functions.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable, ClassVar, Dict, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from ascend_doctor.fixplan import _COMMAND_STARTS

# The five forms issue 21 names; "{m}" is the value's marker. Appended to a value (or put in a file name).
PAYLOADS: Dict[str, str] = {
    "dollar": "$(touch {m})",
    "semicolon": ";touch {m};",
    "backtick": "`touch {m}`",
    "newline": "\ntouch {m}\n",
    "quote": "'$(touch {m})'",  # breaks out of a value wrapped in single quotes by hand
}

# Command words the fix plan's list lacks but remediation prose uses. "touch" opens a line a newline payload
# split off a remediation value: a person pasting that block runs it.
EXTRA_STARTS = ("rsync ", "getent ", "tar ", "cd ", "kill ", "scp ", "curl ", "wget ", "git ", "ssh ")
LINE_STARTS = tuple(_COMMAND_STARTS) + EXTRA_STARTS + ("touch ",)
SPAN_STARTS = tuple(_COMMAND_STARTS) + EXTRA_STARTS

# Keys of a report whose strings are data, not advice: the raw facts and evidence a check saw.
DATA_KEYS = frozenset({"facts", "evidence", "host", "matrix", "tool"})
# Keys whose strings are advice a person may paste from (lines and `inline commands`).
LINE_KEYS = frozenset({"remediation", "summary"})
PROSE_KEYS = frozenset({"remediation", "summary", "message", "why", "alternative", "notes", "title"})

# shellcmd's placeholders (<image>, <row’s version>), bare or in their single quotes.
_PLACEHOLDER = re.compile(r"<[A-Za-z0-9 _.,:/=+’|-]{1,60}>")
_MARKER = re.compile(r"PWN_[0-9]+", re.IGNORECASE)


class Planter:
    """Gives every planted value its own marker, and remembers where it went (``registry``: marker -> the
    mutation group and the field)."""

    registry: ClassVar[Dict[str, Tuple[str, str]]] = {}

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.group = ""
        self.where: Dict[str, str] = {}
        self._by_key: Dict[str, str] = {}

    def payload(self, key: str) -> str:
        """The payload for one value; the same ``key`` (one field on several fleet nodes) gets the same marker."""
        marker = self._by_key.get(key)
        if marker is None:
            marker = f"PWN_{len(Planter.registry)}"
            Planter.registry[marker] = (self.group, key)
            self._by_key[key] = marker
            self.where[marker] = key
        return PAYLOADS[self.kind].format(m=marker)

    def spoil(self, value: str, key: str) -> str:
        return value + self.payload(key)


# --- mutations: each takes the fixture copy and its args, plants payloads, returns the new args -------------

Args = List[str]
Mutation = Callable[[Path, Args, Planter, str], Args]

_SNAPSHOT_JSON = ("snapshot.json", "host.json")
# Files whose size would make planting slow and that no check quotes from (a tokenizer's vocabulary).
_SKIP_FILES = frozenset({"tokenizer.json", "SOURCES.md", "expected.yaml", "fleet-expected.yaml", "README.md"})


def _spoil_strings(data: Any, planter: Planter, key: str, keys_too: bool = False) -> Any:
    if isinstance(data, str):
        return planter.spoil(data, key)
    if isinstance(data, list):
        return [_spoil_strings(v, planter, f"{key}[{i}]") for i, v in enumerate(data)]
    if isinstance(data, dict):
        return {k: _spoil_strings(v, planter, f"{key}.{k}") for k, v in data.items()}
    return data


def _rewrite_json(path: Path, change: Callable[[Any], Any]) -> None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return
    path.write_text(json.dumps(change(data)), encoding="utf-8")


def _label(root: Path, path: Path, fixture: str) -> str:
    return f"{fixture}:{path.relative_to(root)}"


def _spoil_json_file(path: Path, planter: Planter, label: str) -> None:
    _rewrite_json(path, lambda data: _spoil_strings(data, planter, label))


def env_values(root: Path, args: Args, planter: Planter, fixture: str) -> Args:
    for path in root.rglob("env.json"):
        label = _label(root, path, fixture)
        _rewrite_json(path, lambda d, label=label: {k: planter.spoil(v, f"{label}:{k}") if isinstance(v, str) else v
                                                    for k, v in d.items()} if isinstance(d, dict) else d)
    return args


def snapshot_strings(root: Path, args: Args, planter: Planter, fixture: str) -> Args:
    """The host name, OS, kernel, process names and command lines, disk paths."""
    for name in _SNAPSHOT_JSON:
        for path in root.rglob(name):
            _spoil_json_file(path, planter, _label(root, path, fixture))
    return args


def python_strings(root: Path, args: Args, planter: Planter, fixture: str) -> Args:
    """Python's path and version, every package's version."""
    for path in root.rglob("python.json"):
        _spoil_json_file(path, planter, _label(root, path, fixture))
    return args


def _spoil_key_values(path: Path, planter: Planter, label: str) -> None:
    try:
        lines = path.read_text(encoding="utf-8").split("\n")
    except (OSError, UnicodeDecodeError):
        return
    out = []
    for line in lines:
        key, eq, value = line.partition("=")
        if eq and key.strip() and not key.lstrip().startswith("#"):
            line = f"{key}={planter.spoil(value, f'{label}:{key.strip()}')}"
        out.append(line)
    path.write_text("\n".join(out), encoding="utf-8")


def etc_values(root: Path, args: Args, planter: Planter, fixture: str) -> Args:
    """/etc/hccn.conf and /etc/ascend_install.info (and the other KEY=VALUE files under /etc)."""
    for path in sorted(root.glob("**/files/etc/**/*")) + sorted(root.glob("files/etc/**/*")):
        if path.is_file() and not path.is_symlink():
            _spoil_key_values(path, planter, _label(root, path, fixture))
    return args


def install_values(root: Path, args: Args, planter: Planter, fixture: str) -> Args:
    """version.info, version.cfg and *_install.info files of the driver, firmware, CANN and NNAL."""
    for path in sorted(root.glob("**/files/usr/**/*")):
        if path.is_file() and not path.is_symlink() and path.name.endswith((".info", ".cfg")):
            _spoil_key_values(path, planter, _label(root, path, fixture))
    return args


def config_strings(root: Path, args: Args, planter: Planter, fixture: str) -> Args:
    """Every string of every other JSON file: serving configs, rank tables, manifests, a model's config.json."""
    for path in sorted(root.rglob("*.json")):
        if path.name in _SKIP_FILES or path.name in (*_SNAPSHOT_JSON, "env.json", "python.json"):
            continue
        if path.is_file() and not path.is_symlink() and path.stat().st_size < 2_000_000:
            _spoil_json_file(path, planter, _label(root, path, fixture))
    return args


def model_dirs(root: Path) -> List[Path]:
    return sorted(p for p in root.glob("**/files/data/models/*") if p.is_dir() and not p.is_symlink())


def file_names(root: Path, args: Args, planter: Planter, fixture: str) -> Args:
    """Files in a model folder whose names carry a payload: a stray shard, a JSON file, a sub-folder."""
    for folder in model_dirs(root):
        label = _label(root, folder, fixture)
        shards = sorted(folder.glob("*.safetensors"))
        if shards:
            stray = folder / f"x{planter.payload(label + ':shard')}-00009-of-00009.safetensors"
            shutil.copyfile(shards[0], stray, follow_symlinks=False)
        (folder / f"y{planter.payload(label + ':json')}.json").write_text("{}", encoding="utf-8")
        (folder / f"z{planter.payload(label + ':dir')}").mkdir()
    return args


def _replace_everywhere(root: Path, old: str, new: str) -> None:
    for path in sorted(root.rglob("*.json")):
        if path.name in _SKIP_FILES or not path.is_file() or path.is_symlink():
            continue
        def change(d: Any) -> Any:
            if isinstance(d, str):
                return d.replace(old, new)
            if isinstance(d, list):
                return [change(v) for v in d]
            if isinstance(d, dict):
                return {k: change(v) for k, v in d.items()}
            return d
        _rewrite_json(path, change)


def paths(root: Path, args: Args, planter: Planter, fixture: str) -> Args:
    """The model folder's name (and every config naming it), the --config, --rank-table and --verify files."""
    out = list(args)
    for i, arg in enumerate(out[:-1]):
        value = out[i + 1]
        if arg == "--model" and value.startswith("/"):
            folder = root / "files" / value.lstrip("/")
            if folder.is_dir():
                new = value.rstrip("/") + planter.payload(f"{fixture}:--model")
                folder.rename(root / "files" / new.lstrip("/"))
                _replace_everywhere(root, value, new)
                out = [a.replace(value, shlex.quote(new)) if a.startswith("vllm ") else a for a in out]
                out[i + 1] = new
        elif arg in ("--config", "--rank-table", "--verify") and Path(value).is_file():
            source = Path(value)
            target = source.with_name(source.stem + planter.payload(f"{fixture}:{arg}") + source.suffix)
            shutil.copyfile(source, target)
            out[i + 1] = str(target)
    return out


MUTATIONS: Dict[str, Mutation] = {
    "env": env_values, "snapshot": snapshot_strings, "python": python_strings, "etc": etc_values,
    "install": install_values, "configs": config_strings, "names": file_names, "paths": paths,
}


def applies(group: str, root: Path, args: Sequence[str]) -> bool:
    """Whether a mutation has anything to plant in this fixture."""
    if group == "names":
        return bool(model_dirs(root))
    if group == "paths":
        return any(a in ("--model", "--config", "--rank-table", "--verify") for a in args)
    if group == "etc":
        return any(root.glob("**/files/etc/*"))
    return True


def mutate(source: Path, target: Path, args: Sequence[str], groups: Iterable[str], planter: Planter,
           label: Optional[str] = None) -> Args:
    """A copy of fixture ``source`` at ``target`` with the ``groups`` planted; the args point into the copy.
    Fields of copies with the same ``label`` (fleet nodes) get the same markers."""
    shutil.copytree(source, target, symlinks=True)
    out = [str(a).replace("{fixture}", str(target)) for a in args]
    for group in groups:
        planter.group = group
        out = MUTATIONS[group](target, out, planter, label or source.name)
    return out


# --- commands: what a person can paste from an output --------------------------------------------------------

Origin = str
# Marks an origin whose command is an `inline command` of prose: it must not run a payload, but may show a
# bare <placeholder> (bash -n is asked of command lines only).
SPAN = "#inline"


def _span_end(text: str, start: int) -> int:
    """The backtick closing the inline command opened at ``start``: the first whose content is balanced shell
    words and which is not glued to a following word (a payload's own backticks sit inside a value)."""
    pos = start + 1
    while True:
        end = text.find("`", pos)
        if end < 0:
            return -1
        after = text[end + 1:end + 2]
        content = text[start + 1:end]
        glued = bool(after) and (after.isalnum() or after in "_$'\"")
        if not glued and _balanced(content):
            return end
        pos = end + 1


def _balanced(content: str) -> bool:
    try:
        shlex.split(content)
    except ValueError:
        return False
    return True


def inline_commands(text: str) -> Iterator[str]:
    """``inline commands`` of prose: spans opening with a command word."""
    pos = 0
    while True:
        start = text.find("`", pos)
        if start < 0:
            return
        if text[start + 1:].startswith(SPAN_STARTS):
            end = _span_end(text, start)
            if end > start:
                yield text[start + 1:end]
                pos = end + 1
                continue
        pos = start + 1


def command_lines(text: str) -> Iterator[str]:
    """Lines of advice that are commands (the fix plan's own test, plus a line a newline payload split off)."""
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(LINE_STARTS):
            yield stripped


def commands_in(data: Any, origin: Origin = "") -> Iterator[Tuple[str, Origin]]:
    """Every command of a JSON report (check or fleet): fix-plan steps, finding actions, remediation lines,
    inline commands of any advice text. Facts and evidence are data and are skipped."""
    if isinstance(data, dict):
        here = origin
        if isinstance(data.get("id"), str):
            here = data["id"]
        elif isinstance(data.get("fixes"), list):
            here = ",".join(str(f).split(" ")[0] for f in data["fixes"])
        for key, value in data.items():
            if key in DATA_KEYS:
                continue
            if key == "commands" and isinstance(value, list):
                yield from ((str(c), here) for c in value)
                continue
            if isinstance(value, str) and key in PROSE_KEYS:
                if key in LINE_KEYS:
                    yield from ((c, here) for c in command_lines(value))
                yield from ((c, here + SPAN) for c in _inline_commands_of_prose(value))
                continue
            yield from commands_in(value, here)
    elif isinstance(data, list):
        for item in data:
            if isinstance(item, str):
                yield from ((c, origin + SPAN) for c in inline_commands(item))
            else:
                yield from commands_in(item, origin)


def _inline_commands_of_prose(text: str) -> Iterator[str]:
    """Inline commands of the lines that are not command lines: a command line is pasted whole, and a
    backtick inside its quotes is a character of a value, not the start of an inline command."""
    for line in text.split("\n"):
        if not line.strip().startswith(LINE_STARTS):
            yield from inline_commands(line)


_FIX_LABEL = "      fix: "
_PLAN_LABELS = ("fixes:", "why:", "alternative:")


def commands_in_text(text: str, origin: Origin) -> Iterator[Tuple[str, Origin]]:
    """Commands of an English text rendering: the command lines of each "fix:" block (the label's line and
    the lines indented under it), the command lines of the fix plan's steps, and inline commands anywhere."""
    in_plan = False
    in_fix = False
    for line in text.split("\n"):
        if not line.strip().startswith(LINE_STARTS):
            # a command line is pasted whole below: a backtick inside its quotes is a character of a value
            yield from ((c, origin + SPAN) for c in inline_commands(line))
        if line == "Fix plan":
            in_plan = True
            continue
        if line.startswith(_FIX_LABEL):
            in_fix, body = True, line[len(_FIX_LABEL):]
        elif in_fix and line.startswith(" " * len(_FIX_LABEL)):
            body = line[len(_FIX_LABEL):]
        elif in_plan and line.startswith("      ") and not line.strip().startswith(_PLAN_LABELS):
            in_fix, body = False, line.strip()
        else:
            in_fix = False
            continue
        if body.strip().startswith(LINE_STARTS):
            yield body.strip(), origin


# --- pasting --------------------------------------------------------------------------------------------------

_PRELUDE = """\
command_not_found_handle() { return 0; }
cd() { :; }; pushd() { :; }; popd() { :; }; kill() { :; }; exec() { :; }; ulimit() { :; }; trap() { :; }
builtin() { :; }; enable() { :; }; command() { :; }; set +e
"""
# A redirection to an absolute path (the tests may run as root on a shared machine): pointed into a folder of
# the scratch directory that does not exist, so that it fails there; the words before it are still expanded.
_ABSOLUTE_REDIRECT = re.compile(r"([0-9&]?>>?|<)(\s*)/(?!dev/null\b)")
# A command that starts with an absolute path would bypass the stub PATH: it is pointed into the scratch folder
# too (where it does not exist), and a command that still starts with one is not run.
_ABSOLUTE_COMMAND = re.compile(r"(^|[;&|(`]\s*)/")
_OPERATORS = frozenset({";", "&&", "||", "|", "&", "(", "$(", "`"})


def _starts_an_absolute_path(command: str) -> bool:
    """Whether a simple command of ``command`` starts with an absolute path (outside quotes); when the words
    do not split, any ``/`` after an operator counts."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|()`")
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:
        return bool(_ABSOLUTE_COMMAND.search(command))
    at_start = True
    for token in tokens:
        if at_start and token.startswith("/"):
            return True
        at_start = token in _OPERATORS or set(token) <= set(";&|()`")
    return False


def fill_placeholders(command: str) -> str:
    """The command as a person types it once the ``<...>`` words are filled in (``bash -n`` reads ``<image>``
    at the end of a line as a redirection without a target)."""
    return _PLACEHOLDER.sub("PLACEHOLDER", command)


def runnable(command: str) -> Optional[str]:
    """The command as the scratch run pastes it: placeholders filled, absolute redirections moved into the
    scratch folder; None for a command that starts with an absolute path."""
    filled = _ABSOLUTE_COMMAND.sub(lambda m: f"{m.group(1)}./outside/", fill_placeholders(command))
    if _starts_an_absolute_path(filled):
        return None
    return _ABSOLUTE_REDIRECT.sub(lambda m: f"{m.group(1)}{m.group(2)}./outside/", filled)


class PasteResult:
    def __init__(self) -> None:
        self.pasted = 0
        self.syntax_errors: List[str] = []
        self.refused: List[str] = []
        self.markers: Set[str] = set()


def paste(commands: Sequence[str], workdir: Path, timeout: float = 300,
          lines: Optional[Set[str]] = None) -> PasteResult:
    """Run every command as a pasted script of its own in ``workdir``; which markers appeared. ``lines``: the
    commands printed as lines (default: all), which must also parse as printed, placeholders unfilled."""
    result = PasteResult()
    bin_dir = workdir / "bin"
    bin_dir.mkdir(parents=True)
    touch = shutil.which("touch") or "/usr/bin/touch"
    os.symlink(touch, bin_dir / "touch")
    scripts = workdir / "scripts"
    scripts.mkdir()
    run_dir = workdir / "run"
    run_dir.mkdir()
    (workdir / "prelude.sh").write_text(_PRELUDE, encoding="utf-8")
    names: List[str] = []
    by_index: Dict[str, str] = {}
    for i, command in enumerate(commands):
        text = runnable(command)
        if text is None:
            result.refused.append(command)
            continue
        path = scripts / f"{i:06d}.sh"
        path.write_text(text + "\n", encoding="utf-8")
        names.append(path.name)
        by_index[path.name] = command
    (workdir / "list").write_text("\n".join(names) + "\n", encoding="utf-8")
    bash = shutil.which("bash") or "/bin/bash"
    errors = workdir / "stderr"
    errors.mkdir()
    raw = workdir / "raw"
    raw.mkdir()
    for name in names:  # the command as printed, for bash -n: a placeholder must parse unfilled too
        command = by_index[name] if lines is None or by_index[name] in lines else "true"
        (raw / name).write_text(command + "\n", encoding="utf-8")
    # One bash per command: a syntax error stops that command only, and bash names it on stderr.
    driver = (f'while IFS= read -r f; do\n'
              f'  {bash} -n "{raw}/$f" 2>"{errors}/$f.n"\n'
              f'  {bash} --norc --noprofile "{scripts}/$f" </dev/null >/dev/null 2>"{errors}/$f"\n'
              f'done < "{workdir}/list"\n')
    env = {"PATH": str(bin_dir), "HOME": str(run_dir), "BASH_ENV": str(workdir / "prelude.sh"), "LC_ALL": "C"}
    subprocess.run([bash, "--norc", "--noprofile", "-c", driver], cwd=run_dir, env=env, timeout=timeout,
                   check=False, capture_output=True)
    result.pasted = len(names)
    for name in names:
        stderr = "".join((errors / n).read_text(encoding="utf-8", errors="replace")
                         for n in (name, name + ".n") if (errors / n).exists())
        if "syntax error" in stderr:
            result.syntax_errors.append(by_index[name])
    for path in run_dir.rglob("*"):
        for marker in _MARKER.findall(path.name):
            result.markers.add(marker.upper())
    return result


def commands_marker(command: str) -> bool:
    """Whether a command holds a planted value."""
    return bool(_MARKER.search(command))


def commands_with(marker: str, commands: Dict[str, Set[Origin]]) -> List[Tuple[str, Set[Origin]]]:
    pattern = re.compile(re.escape(marker) + r"(?![0-9])", re.IGNORECASE)
    return [(c, o) for c, o in commands.items() if pattern.search(c)]


def write_report(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def run_cli(args: Sequence[str], env: Optional[Dict[str, str]] = None) -> Tuple[int, str]:
    from ascend_doctor.cli import main

    from .clirunner import make_runner

    runner = make_runner()
    result = runner.invoke(main, list(args), catch_exceptions=False, env=env)
    return result.exit_code, result.stdout
