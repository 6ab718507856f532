"""What a fact provider reads from the host, declared (as sos plugins declare what they collect).

``snapshot`` captures exactly the union of the declarations, and a test replays every fixture
through a recording host and fails on any read that no declaration covers, so a snapshot taken on
a machine grades exactly like ``check`` on that machine.

Paths are host paths, with shell-style wildcards inside one path segment (``*``, ``?``,
``[...]``), ``**`` for any number of segments (bounded by the capture), and variables that depend
on the host:

``{root}``
    each Ascend install root: ``/usr/local/Ascend``, the roots named in ``/etc/ascend_install.info``,
    ``$HOME/Ascend``, and the roots behind ``ASCEND_HOME_PATH`` / ``ASCEND_TOOLKIT_HOME``;
``{log_root}``
    each CANN log folder: ``$ASCEND_PROCESS_LOG_PATH`` and ``$HOME/ascend/log`` (also ``/root``);
``{env_path}``
    each path named by an Ascend environment variable (``ASCEND_HOME_PATH``, ``ASCEND_OPP_PATH``...);
``{python}``, ``{python_site}``
    the target interpreter, and the site-packages folders where its torch may live;
``{model}``, ``{config}``, ``{manifest}``
    the inputs given on the command line (``--model`` and the weight folders a serving
    configuration names, ``--config``, ``--verify``): read where the run happens, never captured
    by a plain ``snapshot`` (``snapshot --model`` records the model's metadata);
``{rank_table}``
    the rank table: ``--rank-table FILE``, else the file ``RANK_TABLE_FILE`` (or ``RANKTABLEFILE``,
    ``DISAGGREGATED_PREFILL_RANK_TABLE_PATH``) names (ascend_doctor/facts/ranktable.py); an input;
``{npu}``
    in ``per_npu`` commands: each NPU id that ``npu-smi info`` lists.
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Sequence, Tuple

Argv = Tuple[str, ...]

# Host methods besides commands and files (each maps to a file of the snapshot).
HOST_SOURCES = ("info", "env", "python", "memory", "cpu", "disks", "processes", "listening")
VARIABLES = ("root", "log_root", "env_path", "python", "python_site", "model", "config", "manifest", "rank_table")
# Inputs of the run, not of the machine: a capture does not record them.
INPUT_VARIABLES = ("model", "config", "manifest", "rank_table")


class Reads:
    """A provider's declared reads. Cheap to build (plain class): providers are imported on the
    hot path of ``check``."""

    __slots__ = ("commands", "files", "host", "listings", "per_npu")

    def patterns(self, variables: Dict[str, Sequence[str]]) -> Dict[str, List[str]]:
        """Files and listings with the variables expanded."""
        return {"files": [p for f in self.files for p in expand(f, variables)],
                "listings": [p for f in self.listings for p in expand(f, variables)]}

    def argvs(self, variables: Dict[str, Sequence[str]], npu_ids: Sequence[int] = ()) -> List[Argv]:
        """Commands with the variables expanded; per-NPU commands once per NPU id."""
        out: List[Argv] = []
        for argv in self.commands:
            out.extend(_expand_argv(argv, variables))
        for argv in self.per_npu:
            for npu in npu_ids:
                out.extend(_expand_argv(tuple(a.replace("{npu}", str(npu)) for a in argv), variables))
        return out

    def __init__(self, commands: Sequence[Argv] = (), per_npu: Sequence[Argv] = (),
                 files: Sequence[str] = (), listings: Sequence[str] = (), host: Sequence[str] = ()) -> None:
        self.commands: Tuple[Argv, ...] = tuple(tuple(c) for c in commands)
        self.per_npu: Tuple[Argv, ...] = tuple(tuple(c) for c in per_npu)
        # Files whose content is read (and whose existence is tested).
        self.files: Tuple[str, ...] = tuple(files)
        # Folders whose entries are listed (names, sub-folders and links, no contents).
        self.listings: Tuple[str, ...] = tuple(listings)
        self.host: Tuple[str, ...] = tuple(host)
        unknown = [h for h in self.host if h not in HOST_SOURCES]
        if unknown:
            raise ValueError(f"unknown host sources {unknown}; known: {', '.join(HOST_SOURCES)}")

    def merged(self, other: Reads) -> Reads:
        return Reads(_union(self.commands, other.commands), _union(self.per_npu, other.per_npu),
                     _union(self.files, other.files), _union(self.listings, other.listings),
                     _union(self.host, other.host))

    def __repr__(self) -> str:
        return (f"Reads(commands={self.commands!r}, per_npu={self.per_npu!r}, files={self.files!r}, "
                f"listings={self.listings!r}, host={self.host!r})")


def _expand_argv(argv: Argv, variables: Dict[str, Sequence[str]]) -> List[Argv]:
    """An argv whose arguments may be variables (``{python}``); plain arguments stay as they are."""
    out: List[Argv] = [()]
    for arg in argv:
        name = arg[1:-1] if arg.startswith("{") and arg.endswith("}") else ""
        values = list(variables.get(name, ())) if name in VARIABLES else [arg]
        out = [prefix + (value,) for prefix in out for value in values]
    return out


def _union(a: Iterable[Any], b: Iterable[Any]) -> Tuple[Any, ...]:
    out: List[object] = []
    for item in (*a, *b):
        if item not in out:
            out.append(item)
    return tuple(out)


def expand(pattern: str, variables: Dict[str, Sequence[str]]) -> List[str]:
    """``pattern`` with each ``{variable}`` replaced by each of its values (a variable with no
    value gives no pattern)."""
    patterns = [pattern]
    for name in VARIABLES:
        token = "{" + name + "}"
        if token not in pattern:
            continue
        values = [v.rstrip("/") or "/" for v in variables.get(name, ())]
        patterns = [p.replace(token, _escape(v)) for p in patterns for v in values]
    return patterns


def _escape(value: str) -> str:
    """A literal path inside a pattern (its own * ? [ are not wildcards)."""
    return re.sub(r"([*?\[])", r"[\1]", value)


def path_matches(path: str, pattern: str) -> bool:
    """Whether a host path matches an expanded pattern (``*`` within a segment, ``**`` across)."""
    return _compile(pattern).match(path.rstrip("/") or "/") is not None


_compiled: Dict[str, re.Pattern[str]] = {}


def _segment(segment: str) -> str:
    """One path segment of a pattern as a regex: * and ? never cross a "/"."""
    out: List[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = segment.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                klass = segment[i + 1:end]
                if klass.startswith("!"):
                    klass = "^" + klass[1:]
                out.append("[" + klass.replace("\\", "\\\\").replace("[", "\\[") + "]")
                i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def _compile(pattern: str) -> re.Pattern[str]:
    regex = _compiled.get(pattern)
    if regex is None:
        body = ""
        for segment in pattern.rstrip("/").split("/")[1:] if pattern.startswith("/") else pattern.split("/"):
            body += "(?:/[^/]+)*" if segment == "**" else "/" + _segment(segment)
        regex = re.compile("^" + (body or "/") + "$")
        _compiled[pattern] = regex
    return regex
