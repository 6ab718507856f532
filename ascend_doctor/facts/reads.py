"""What a fact provider reads from the host, declared (as sos plugins declare what they collect).

``snapshot`` captures exactly the union of the declarations (ascend_doctor/capture), and a test
replays every fixture through a recording host and fails on any read that no declaration covers, so
a snapshot taken on a machine grades exactly like ``check`` on that machine.

What each kind of declaration means, and what the capture records for it:

``commands`` / ``per_npu``
    commands run (``per_npu``: once per NPU id ``npu-smi info`` lists); their outputs are recorded;
``files``
    files whose content is read: copied (bounded); a folder that matches is recorded as a folder;
``present``
    paths of which only the existence, type, mode or link target is read (binaries, device nodes,
    folders, files tested with ``exists``): recorded as an empty file of the same kind, so that a
    snapshot never carries a binary or anything the doctor does not read;
``listings``
    folders whose entry names are read: each entry is recorded (folders as folders, links as
    links, anything else as an empty file unless ``files`` copies it);
``tails``
    files of which the doctor reads the newest few, from their end (CANN logs): the capture keeps
    the newest ``MAX_TAIL_FILES``, their last ``MAX_TAIL_BYTES``, and their modification times;
``host``
    host sources besides files and commands (environment, Python, memory, processes...);
``adaptive``
    what the provider runs depends on earlier answers (hccn_tool: which binary answers, and a
    device whose first query hangs is asked nothing else): the capture runs the provider itself on
    the machine and records the commands it ran, which are always within the declaration.

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
    in ``per_npu`` commands: each NPU id that ``npu-smi info`` lists (a snapshot or a paste without
    the table: those its ``info -m``/``info -l`` or its per-NPU queries show);
``{chip}``
    with ``{npu}``: each chip id the table (or ``info -m``) shows on that NPU (A3 and Atlas 300I Duo:
    two per NPU);
``{device}``
    in ``per_npu`` commands instead of ``{npu}``: each device id hccn_tool takes, one per die (the
    chip logic ids of ``npu-smi info -m``; A3: 0-15 on an 8-NPU node; one chip per NPU: the NPU ids).
"""

from __future__ import annotations

import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ascend_doctor.pathpatterns import path_matches

Argv = Tuple[str, ...]

# Host methods besides commands and files (each maps to a file of the snapshot).
HOST_SOURCES = ("info", "env", "python", "memory", "cpu", "disks", "processes", "listening")
VARIABLES = ("root", "log_root", "env_path", "python", "python_site", "model", "config", "manifest", "rank_table")
# Inputs of the run, not of the machine: a capture does not record them.
INPUT_VARIABLES = ("model", "config", "manifest", "rank_table")


class Reads:
    """A provider's declared reads. Cheap to build (plain class): providers are imported on the
    hot path of ``check``."""

    __slots__ = ("adaptive", "commands", "files", "host", "listings", "per_npu", "present", "tails")

    def patterns(self, variables: Mapping[str, Sequence[str]]) -> Dict[str, List[str]]:
        """Files, present paths, listings and tails with the variables expanded."""
        return {kind: [p for f in getattr(self, kind) for p in expand(f, variables)]
                for kind in ("files", "present", "listings", "tails")}

    def argvs(self, variables: Mapping[str, Sequence[str]], npu_ids: Sequence[int] = (),
              chips: Optional[Mapping[int, Sequence[int]]] = None, device_ids: Sequence[int] = ()) -> List[Argv]:
        """Commands with the variables expanded; per-NPU commands once per NPU id (``{npu}``), per chip
        of that NPU (``{chip}``: ``chips`` maps an NPU id to its chip ids) and per device (``{device}``)."""
        out: List[Argv] = []
        for argv in self.commands:
            out.extend(_expand_argv(argv, variables))
        for argv in self.per_npu:
            if "{device}" in argv:
                for device in device_ids:
                    out.extend(_expand_argv(tuple(a.replace("{device}", str(device)) for a in argv), variables))
                continue
            for npu in npu_ids:
                one = tuple(a.replace("{npu}", str(npu)) for a in argv)
                for chip in ((chips or {}).get(npu, ()) if "{chip}" in one else (None,)):
                    expanded = one if chip is None else tuple(a.replace("{chip}", str(chip)) for a in one)
                    out.extend(_expand_argv(expanded, variables))
        return out

    def __init__(self, commands: Sequence[Argv] = (), per_npu: Sequence[Argv] = (),
                 files: Sequence[str] = (), listings: Sequence[str] = (), host: Sequence[str] = (),
                 present: Sequence[str] = (), tails: Sequence[str] = (), adaptive: bool = False) -> None:
        self.commands: Tuple[Argv, ...] = tuple(tuple(c) for c in commands)
        self.per_npu: Tuple[Argv, ...] = tuple(tuple(c) for c in per_npu)
        self.files: Tuple[str, ...] = tuple(files)
        self.present: Tuple[str, ...] = tuple(present)
        self.listings: Tuple[str, ...] = tuple(listings)
        self.tails: Tuple[str, ...] = tuple(tails)
        self.host: Tuple[str, ...] = tuple(host)
        self.adaptive = adaptive
        unknown = [h for h in self.host if h not in HOST_SOURCES]
        if unknown:
            raise ValueError(f"unknown host sources {unknown}; known: {', '.join(HOST_SOURCES)}")

    def merged(self, other: Reads) -> Reads:
        return Reads(_union(self.commands, other.commands), _union(self.per_npu, other.per_npu),
                     _union(self.files, other.files), _union(self.listings, other.listings),
                     _union(self.host, other.host), _union(self.present, other.present),
                     _union(self.tails, other.tails), self.adaptive or other.adaptive)

    def __repr__(self) -> str:
        return (f"Reads(commands={self.commands!r}, per_npu={self.per_npu!r}, files={self.files!r}, "
                f"present={self.present!r}, listings={self.listings!r}, tails={self.tails!r}, "
                f"host={self.host!r}, adaptive={self.adaptive!r})")


def _expand_argv(argv: Argv, variables: Mapping[str, Sequence[str]]) -> List[Argv]:
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


def expand(pattern: str, variables: Mapping[str, Sequence[str]]) -> List[str]:
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


__all__ = ["HOST_SOURCES", "INPUT_VARIABLES", "VARIABLES", "Reads", "expand", "path_matches"]
