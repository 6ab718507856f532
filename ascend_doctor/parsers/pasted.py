"""Recognise what a support ticket pastes: environment dumps, ``npu-smi`` outputs, version files.

``parse_pasted_text(text)`` cuts one pasted text into *segments* of known kinds and returns the
lines it could not place, so that ``check --from-text`` can grade what is there and say what it
ignored. Kinds recognised (every layout from real samples, ``tests/samples/``):

=========================  ===============================================================
kind                       what it looks like
=========================  ===============================================================
``collect_env``            vLLM-Ascend / vLLM ``collect_env.py`` (old and new templates, the
                           sectioned ``=====`` style, a paste whose line breaks were collapsed)
``llamafactory_env``       ``llamafactory-cli env`` (``- Label: value`` bullets)
``npu-smi info``           the device table
``npu-smi info -l``        ``Total Count`` / ``NPU ID`` / ``Chip Count`` blocks
``npu-smi info -t board``  ``Software Version`` / ``Firmware Version`` / ``Compatibility``
``npu-smi info -t usages`` ``DDR Capacity(MB)`` / ``HBM Capacity(MB)`` ...
``npu-smi info -t topo``   the ``NPU0 NPU1 ... CPU Affinity`` matrix and its legend
``npu-smi info -m``        the ``NPU ID  Chip ID  Chip Logic ID  [Chip Phy-ID]  Chip Name`` rows
``npu-smi info -t <view>`` ``-t ecc|health|common|memory|temp|power -i N [-c C]``: named by their
                           prompt, else by their keys and ``NPU ID`` line
``npu-smi (other)``        other ``npu-smi`` outputs (``watch``, ``template-info``, ``upgrade``,
                           ``-h``, a view whose NPU is not named): recognised, not graded
``hccn_tool``              ``hccn_tool -i N -link|-net_health|-ip|-route|-tls|-fec|-lldp|-optical|
                           -link_stat|-status -g`` outputs after the command line that ran them
``hccn_tool (other)``      other hccn_tool outputs (``-hw_stats``, ``-stat``, ``-ping``...)
``/etc/hccn.conf``         ``address_N=`` / ``netmask_N=`` / ``gateway_N=`` ... lines
``driver version.info``    ``Version=`` with ``ascendhal_version=`` / ``compatible_version_fw=`` ...
``firmware version.info``  ``Version=`` with ``firmware_version=`` / ``compatible_version_drv=``
``CANN install.info``      ``package_name=Ascend-cann-toolkit`` ... (toolkit, nnae, ops)
``ascend_install.info``    ``/etc/ascend_install.info`` (``Driver_Install_Path_Param=`` ...)
``environment variables``  ``NAME=value`` lines (``env`` output)
``CANN version.info``      a component's ``version.info`` (``Version=`` + ``version_dir=``)
``pip list``               ``name  version`` rows naming torch/vllm... (header optional)
``container marker``       a line listing ``/.dockerenv``
=========================  ===============================================================

Text between them (shell prompts, log lines, prose) is reported as unrecognised line ranges.
A shell prompt naming an ``npu-smi`` or ``cat`` command (``$ npu-smi info -t usages -i 0``)
names the output that follows. Input is bounded (``MAX_PASTE_BYTES``, ``MAX_LINES``,
``MAX_LINE_CHARS``); binary input raises :class:`PastedTextError`.

``summarise(pasted)`` condenses the segments into :class:`PastedFacts`: versions, chips and
device counts, Python packages, environment variables, OS / kernel / architecture. Everything
is pure: text in, records out.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from msgspec import Struct, field

from ascend_doctor.i18n import N_
from ascend_doctor.lazy import lazy_re

# The parser's notes and warnings are English data (the snapshot written from the paste keeps
# them); their templates are N_-marked so the report shows them in the run's language.

MAX_PASTE_BYTES = 4 * 1024 * 1024
MAX_LINES = 100_000
MAX_LINE_CHARS = 64 * 1024
MAX_PREVIEW = 80

KIND_COLLECT_ENV = "collect_env"
KIND_LLAMAFACTORY = "llamafactory_env"
KIND_NPU_SMI_INFO = "npu-smi info"
KIND_NPU_SMI_LIST = "npu-smi info -l"
KIND_NPU_SMI_BOARD = "npu-smi info -t board"
KIND_NPU_SMI_USAGES = "npu-smi info -t usages"
KIND_NPU_SMI_TOPO = "npu-smi info -t topo"
KIND_NPU_SMI_MAPPING = "npu-smi info -m"
KIND_NPU_SMI_QUERY = "npu-smi info -t"
KIND_NPU_SMI_OTHER = "npu-smi (other)"
KIND_HCCN = "hccn_tool"
KIND_HCCN_OTHER = "hccn_tool (other)"
KIND_HCCN_CONF = "/etc/hccn.conf"
KIND_DRIVER_INFO = "driver version.info"
KIND_FIRMWARE_INFO = "firmware version.info"
KIND_CANN_INFO = "CANN install.info"
KIND_ASCEND_INSTALL_INFO = "ascend_install.info"
KIND_ENV_VARS = "environment variables"
KIND_CANN_COMPONENT = "CANN version.info"
KIND_PIP_LIST = "pip list"
KIND_CONTAINER_MARKER = "container marker"

# Kinds whose content becomes facts of the partial snapshot (the others are only named).
GRADED_KINDS = (KIND_COLLECT_ENV, KIND_LLAMAFACTORY, KIND_NPU_SMI_INFO, KIND_NPU_SMI_LIST, KIND_NPU_SMI_BOARD,
                KIND_NPU_SMI_USAGES, KIND_NPU_SMI_TOPO, KIND_NPU_SMI_MAPPING, KIND_NPU_SMI_QUERY, KIND_HCCN,
                KIND_HCCN_CONF,
                KIND_DRIVER_INFO, KIND_FIRMWARE_INFO, KIND_CANN_INFO, KIND_ASCEND_INSTALL_INFO, KIND_ENV_VARS,
                KIND_CANN_COMPONENT, KIND_PIP_LIST, KIND_CONTAINER_MARKER)
# The per-NPU views written as command outputs (their -t and -i name the file).
SMI_QUERY_TYPES = ("ecc", "health", "common", "memory", "temp", "power")
# hccn_tool queries the network checks read (facts/network.py QUERIES), by flag.
HCCN_QUERIES = ("-link", "-net_health", "-ip", "-route", "-tls", "-fec", "-lldp", "-optical", "-link_stat", "-status")

_ANSI = lazy_re(r"\x1b\[[0-9;?]*[A-Za-z]")
_CONTROL = lazy_re(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_FENCE = lazy_re(r"^\s*(```|~~~)")
# "$ cmd", "# cmd", "root@host:/path# cmd", "(venv) user@host:~$ cmd", "/usr/local/Ascend/driver# cmd"
_PROMPT = lazy_re(r"^\s*(?:\([^)]*\)\s*)?(?:[\w.@:~/\-\[\] ]*?[#$>]|\$|#|>)\s+(?P<cmd>\S.*)$")
_COMMANDS = lazy_re(r"(?:^|[\s/])(npu-smi|hccn_tool|cat|python3?|llamafactory-cli|vllm|env|printenv|collect_env|"
                       r"pip3?|ls)\b")
_KV = lazy_re(r"^(?:export\s+)?(?P<key>[A-Za-z_][A-Za-z0-9_.\-]{0,127})=(?P<value>.*)$")
_ENV_NAME = lazy_re(r"^[A-Z][A-Z0-9_]*$")
_SMI_KV = lazy_re(r"^(?P<key>[A-Za-z][A-Za-z0-9 ()%_./\-]*?)\s+:\s?(?P<value>.*)$")
_LABEL = lazy_re(r"^(?:[-*]\s+)?(?P<label>[A-Za-z`\[][A-Za-z0-9 ()_/.`'\-\]]{0,60}?)\s*:(?:\s+(?P<value>.*))?$")
_PIP = lazy_re(r"^\[(pip3?|conda)\]\s")
_BANNER = lazy_re(r"^={10,}$")
_TOPO_HEADER = lazy_re(r"^NPU0\s+NPU1\b.*|^NPU0\s+CPU Affinity$")
_TOPO_ROW = lazy_re(r"^NPU\d+\s+\S")
_WATCH_HEADER = lazy_re(r"^NpuID\(Idx\)\s+ChipId\(Idx\)")
_PIP_HEADER = lazy_re(r"^Package\s+Version(\s+\S.*)?$")
_PIP_RULE = lazy_re(r"^-{3,}(\s+-{3,})+$")
_PIP_ROW = lazy_re(r"^[A-Za-z0-9][A-Za-z0-9._\-]*\s+(\d[\w.+!\-]*|[0-9a-f]{7,40})(\s+/\S*)?$")
# Distributions whose presence makes two-column lines a pip list (the packages the checks read).
_PIP_ANCHORS = ("torch", "torch-npu", "vllm", "vllm-ascend", "mindie", "transformers", "mindspeed")
_COLLAPSED_LABELS = ("PyTorch version:", "Is debug build:", "OS:", "Python version:", "Python platform:",
                     "vLLM Version:", "CUDA used to build PyTorch:", "Libc version:")

# Labels that open a collect_env dump (lower case), and its section headers.
_COLLECT_ENV_STARTS = ("pytorch version", "is debug build", "os", "python version", "python platform",
                       "vllm version", "vllm ascend version", "versions of relevant libraries")
_COLLECT_ENV_HEADERS = ("cpu", "npu", "cann", "env variables", "versions of relevant libraries", "gpu topology",
                        "vllm build flags")
_PLAIN_INSIDE = ("collecting environment information", "could not collect")
_LLAMAFACTORY_LABELS = ("`llamafactory` version", "llamafactory version", "platform", "npu type", "cann version",
                        "pytorch version", "transformers version", "python version")

# npu-smi "Key : value" outputs, told apart by their keys.
_SMI_LIST_KEYS = ("Total Count",)
_SMI_BOARD_KEYS = ("Software Version", "Compatibility", "Board ID", "PCB ID", "BOM ID")
_SMI_USAGES_KEYS = ("DDR Capacity(MB)", "HBM Capacity(MB)")
_SMI_OTHER_KEYS = ("Health Status", "Aicore Freq(MHZ)", "NPU Temperature (C)", "NPU Real-time Power(W)",
                   "Temperature(C)", "Validity", "Status", "Message", "Version", "Chip Type", "Chip Name",
                   "Memory Usage Rate(%)", "Health", "HBM Clock Speed(MHz)", "HBM Temperature(C)")
# A view told by its keys when no prompt names it (the NPU comes from its "NPU ID" line).
_SMI_VIEW_KEYS = (("ecc", ("HBM Single Bit Error Count", "DDR Single Bit Error Count", "HBM Double Bit Error Count",
                           "DDR Double Bit Error Count")),
                  ("health", ("Health",)),
                  ("common", ("Aicore Freq(MHZ)", "Aicore Count", "Aicore curFreq(MHZ)")),
                  ("memory", ("HBM Clock Speed(MHz)", "HBM Manufacturer ID", "DDR Clock Speed(MHz)")),
                  ("temp", ("NPU Temperature (C)",)),
                  ("power", ("NPU Real-time Power(W)",)))
_SMI_COMMON_KEYS = ("NPU ID", "Chip Count", "Chip ID")


class PastedTextError(ValueError):
    """The text cannot be read at all (binary data, empty)."""


class Line(Struct, frozen=True):
    number: int  # 1-based, in the text as given
    text: str  # without trailing spaces, ANSI escapes and control characters

    @property
    def stripped(self) -> str:
        return self.text.strip()


class Segment(Struct, frozen=True):
    """One recognised part of the text."""

    kind: str
    first_line: int
    last_line: int
    text: str  # the segment's lines (the prompt line that named it excluded)
    record: Any = None  # the parser's record (CollectEnv, NpuSmiInfo, DriverVersionInfo, dict ...)
    command: Tuple[str, ...] = ()  # argv of the npu-smi output, when known
    detail: str = ""  # e.g. "layout vllm-sectioned", "NPU 0", "-t common"
    warnings: Tuple[str, ...] = ()

    @property
    def graded(self) -> bool:
        return self.kind in GRADED_KINDS

    def describe(self) -> str:
        lines = (f"line {self.first_line}" if self.first_line == self.last_line
                 else f"lines {self.first_line}-{self.last_line}")
        extra = f" ({self.detail})" if self.detail else ""
        return f"{self.kind}{extra}, {lines}"

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": self.kind, "lines": [self.first_line, self.last_line], "detail": self.detail,
                "command": list(self.command), "graded": self.graded, "warnings": list(self.warnings)}


class LineRange(Struct, frozen=True):
    """Consecutive non-blank lines nothing recognised."""

    first_line: int
    last_line: int
    preview: str  # the first line, shortened

    def describe(self) -> str:
        lines = (f"line {self.first_line}" if self.first_line == self.last_line
                 else f"lines {self.first_line}-{self.last_line}")
        return f"{lines}: {self.preview!r}"

    def to_dict(self) -> Dict[str, Any]:
        return {"lines": [self.first_line, self.last_line], "preview": self.preview}


class PastedText(Struct, frozen=True):
    segments: Tuple[Segment, ...]
    unrecognised: Tuple[LineRange, ...]
    line_count: int
    truncated: bool = False  # more than MAX_PASTE_BYTES / MAX_LINES: the rest was not read
    warnings: Tuple[str, ...] = ()

    def of_kind(self, kind: str) -> List[Segment]:
        return [s for s in self.segments if s.kind == kind]

    def to_dict(self) -> Dict[str, Any]:
        return {"segments": [s.to_dict() for s in self.segments],
                "unrecognised": [r.to_dict() for r in self.unrecognised],
                "line_count": self.line_count, "truncated": self.truncated, "warnings": list(self.warnings)}


# ---------------------------------------------------------------------------------------------
# Cleaning


def decode_paste(data: bytes) -> Tuple[str, bool]:
    """Bytes of a paste -> (text, truncated). Raises PastedTextError for binary data."""
    truncated = len(data) > MAX_PASTE_BYTES
    data = data[:MAX_PASTE_BYTES]
    if b"\x00" in data[:65536]:
        raise PastedTextError("binary data (NUL bytes), not pasted text")
    text = data.decode("utf-8", errors="replace")
    if text.count("\ufffd") * 10 > max(len(text), 1):
        raise PastedTextError("binary data (mostly bytes that are not UTF-8 text), not pasted text")
    return text, truncated


def _clean(text: str) -> Tuple[List[Line], bool]:
    if text.startswith("\ufeff"):
        text = text[1:]
    truncated = False
    raw_lines = text.splitlines()
    if len(raw_lines) > MAX_LINES:
        raw_lines, truncated = raw_lines[:MAX_LINES], True
    out: List[Line] = []
    for number, raw in enumerate(raw_lines, start=1):
        line = _CONTROL.sub("", _ANSI.sub("", raw[:MAX_LINE_CHARS])).replace("\t", "    ").rstrip()
        if _FENCE.match(line):
            line = ""  # markdown fences separate, they are not content
        out.append(Line(number, line))
    return out, truncated


def _preview(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_PREVIEW else text[: MAX_PREVIEW - 3] + "..."


# ---------------------------------------------------------------------------------------------
# Line classes


def _prompt_command(line: str) -> Optional[str]:
    """The command of a shell prompt line (``$ npu-smi info``), None for other lines."""
    text = line.strip()
    if _KV.match(text) or text.startswith(("|", "+")):
        return None
    match = _PROMPT.match(text)
    if match and _COMMANDS.search(match.group("cmd")):
        return match.group("cmd").strip()
    if re.match(r"^(/\S*/)?(npu-smi\s+\w|hccn_tool\s+-)", text):  # a command line pasted without its prompt
        return text
    return None


def _label(line: str) -> Optional[Tuple[str, str]]:
    match = _LABEL.match(line.strip())
    if not match:
        return None
    return match.group("label").replace("`", "").strip().lower(), (match.group("value") or "").strip()


def _is_table(line: str) -> bool:
    text = line.lstrip()
    return text.startswith(("+", "|")) and len(text) > 1


def _kv(line: str) -> Optional[Tuple[str, str]]:
    match = _KV.match(line.strip())
    return (match.group("key"), match.group("value")) if match else None


def _smi_kv(line: str) -> Optional[Tuple[str, str]]:
    text = line.strip()
    if " :" not in text or text.startswith(("|", "+", "$", "#", "[")):
        return None
    match = _SMI_KV.match(text)
    return (match.group("key").strip(), match.group("value").strip()) if match else None


# ---------------------------------------------------------------------------------------------
# The segmenter


class _Cutter:
    def __init__(self, lines: List[Line]) -> None:
        self.lines = lines
        self.segments: List[Segment] = []
        self.unrecognised: List[Line] = []
        self.warnings: List[str] = []
        self.hint: Optional[Tuple[int, str]] = None  # (index, command) of the last prompt line

    def run(self) -> None:
        i = 0
        n = len(self.lines)
        while i < n:
            line = self.lines[i]
            text = line.stripped
            if not text:
                i += 1
                continue
            command = _prompt_command(line.text)
            if command is not None:
                if self.hint is not None:
                    self.unrecognised.append(self.lines[self.hint[0]])
                self.hint = (i, command)
                i += 1
                continue
            end = self._one(i)
            if end <= i:
                self.unrecognised.append(line)
                end = i + 1
            if self.hint is not None:  # the prompt named what came next, recognised or not
                if end == i + 1 and self.unrecognised and self.unrecognised[-1] is line:
                    self.unrecognised.append(self.lines[self.hint[0]])
                self.hint = None
            i = end
        if self.hint is not None:
            self.unrecognised.append(self.lines[self.hint[0]])

    # Each reader returns the index after what it consumed, or ``start`` when it does not apply.
    def _one(self, i: int) -> int:
        hint = self.hint[1] if self.hint else ""
        for reader in (self._hccn, self._collapsed, self._collect_env, self._llamafactory, self._table, self._topo,
                       self._mapping, self._watch, self._smi_help, self._container_marker, self._pip_list,
                       self._smi_keyvalue, self._keyvalue):
            end = reader(i, hint)
            if end > i:
                return end
        return i

    def _add(self, kind: str, start: int, end: int, record: Any = None, command: Sequence[str] = (),
             detail: str = "", warnings: Sequence[str] = ()) -> None:
        chunk = self.lines[start:end]
        first = self.lines[self.hint[0]].number if self.hint else chunk[0].number
        last = max((ln.number for ln in chunk if ln.stripped), default=chunk[-1].number)
        self.segments.append(Segment(kind, first, last, "\n".join(ln.text for ln in chunk).strip("\n") + "\n",
                                     record, tuple(command), detail, tuple(warnings)))

    # -- vLLM collect_env -----------------------------------------------------------------------
    def _collapsed(self, i: int, hint: str) -> int:
        text = self.lines[i].stripped
        if len(text) < 200 or sum(1 for label in _COLLAPSED_LABELS if label in text) < 3:
            return i
        from ascend_doctor.parsers.collect_env import parse_collect_env

        try:
            record = parse_collect_env(text)
        except ValueError:
            return i
        self._add(KIND_COLLECT_ENV, i, i + 1, record, detail="line breaks collapsed", warnings=record.warnings)
        return i + 1

    def _collect_env(self, i: int, hint: str) -> int:
        text = self.lines[i].stripped
        label = _label(text)
        starts = (text.lower().startswith("collecting environment information")
                  or (_BANNER.match(text) is not None and i + 1 < len(self.lines)
                      and "system info" in self.lines[i + 1].stripped.lower())
                  or (label is not None and label[0] in _COLLECT_ENV_STARTS and not text.startswith(("-", "*"))))
        if not starts:
            return i
        end = self._collect_env_end(i)
        from ascend_doctor.parsers.collect_env import parse_collect_env

        chunk = "\n".join(ln.text for ln in self.lines[i:end])
        try:
            record = parse_collect_env(chunk)
        except ValueError:
            return i
        self._add(KIND_COLLECT_ENV, i, end, record, detail=f"layout {record.layout}", warnings=record.warnings)
        return end

    def _collect_env_end(self, start: int) -> int:
        """Where the dump ends: a shell prompt, a second dump, or a line no section explains."""
        section = ""
        seen_torch = seen_banner_line = False
        last = start
        j = start
        while j < len(self.lines):
            text = self.lines[j].stripped
            if not text:
                j += 1
                continue
            if j > start and _prompt_command(text) is not None:
                break
            lowered = text.lower()
            label = _label(text)
            if lowered.startswith("collecting environment information"):
                if seen_banner_line and j > start:
                    break  # a second dump
                seen_banner_line = True
            if label and label[0] == "pytorch version":
                if seen_torch:
                    break  # a second dump
                seen_torch = True
            if label and not label[1] and label[0] in _COLLECT_ENV_HEADERS:
                section = label[0]
            kv = _kv(text)
            if kv is not None:
                lower_key = not _ENV_NAME.match(kv[0])
                if lower_key and section != "cann":
                    break  # a version file pasted after the dump
            elif not (_is_table(text) or _PIP.match(text) or _BANNER.match(text) or label is not None
                      or any(lowered.startswith(p) for p in _PLAIN_INSIDE) or self.lines[j].text.startswith(" ")
                      or (j > 0 and _BANNER.match(self.lines[j - 1].stripped))):  # a title between banners
                break
            last = j
            j += 1
        return last + 1

    def _llamafactory(self, i: int, hint: str) -> int:
        label = _label(self.lines[i].stripped)
        if label is None or not self.lines[i].stripped.startswith(("-", "*")) or label[0] not in _LLAMAFACTORY_LABELS:
            return i
        j = i
        while j < len(self.lines) and self.lines[j].stripped.startswith(("-", "*")) and _label(self.lines[j].stripped):
            j += 1
        from ascend_doctor.parsers.collect_env import parse_collect_env

        try:
            record = parse_collect_env("\n".join(ln.text for ln in self.lines[i:j]))
        except ValueError:
            return i
        self._add(KIND_LLAMAFACTORY, i, j, record, warnings=record.warnings)
        return j

    # -- npu-smi --------------------------------------------------------------------------------
    def _table(self, i: int, hint: str) -> int:
        if not _is_table(self.lines[i].text):
            return i
        j = i
        while j < len(self.lines) and (_is_table(self.lines[j].text) or self.lines[j].stripped == "..."):
            j += 1
        chunk = "\n".join(ln.stripped for ln in self.lines[i:j]) + "\n"
        argv = _argv(hint)
        if argv[:2] == ("npu-smi", "info") and len(argv) > 2:
            self._add(KIND_NPU_SMI_OTHER, i, j, None, argv, detail=" ".join(argv[2:]))
            return j
        from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_all_npu_smi_tables

        try:
            tables = parse_all_npu_smi_tables(chunk)
        except NpuSmiParseError:
            tables = []
        tables = [t for t in tables if t.devices]
        if not tables:
            if "template info" in chunk.lower() or "npu-smi" in chunk.lower():
                self._add(KIND_NPU_SMI_OTHER, i, j, None, argv, detail="table")
                return j
            return i
        info = tables[0]
        warnings = list(info.warnings)
        if len(tables) > 1:
            warnings.append(N_("{count} tables in one block; the first one is used").format(count=len(tables)))
        self._add(KIND_NPU_SMI_INFO, i, j, info, ("npu-smi", "info"),
                  detail=f"{len(info.devices)} chip(s)", warnings=warnings)
        return j

    def _topo(self, i: int, hint: str) -> int:
        if not _TOPO_HEADER.match(self.lines[i].stripped):
            return i
        j = i + 1
        while j < len(self.lines) and _TOPO_ROW.match(self.lines[j].stripped):
            j += 1
        if j == i + 1:
            return i
        # The legend that follows (blank lines, "Legend:", "  X    = Self" ...)
        k = j
        while k < len(self.lines):
            text = self.lines[k].stripped
            if text and not (text == "Legend:" or re.match(r"^[A-Z]+\s+=\s", text)):
                break
            k += 1
        while k > j and not self.lines[k - 1].stripped:
            k -= 1
        self._add(KIND_NPU_SMI_TOPO, i, k, None, ("npu-smi", "info", "-t", "topo"))
        return k

    def _mapping(self, i: int, hint: str) -> int:
        """``npu-smi info -m``: its header, then one row per chip (``Mcu`` rows have logic id ``-``)."""
        from ascend_doctor.parsers.npu_smi import NpuSmiParseError
        from ascend_doctor.parsers.npu_smi_views import is_mapping_header, parse_npu_smi_mapping

        if not is_mapping_header(self.lines[i].text):
            return i
        j = i + 1
        while j < len(self.lines) and re.match(r"^\d+\s+\d+\s+(\d+|-)\s", self.lines[j].stripped):
            j += 1
        chunk = "\n".join(ln.text for ln in self.lines[i:j]) + "\n"
        try:
            mapping = parse_npu_smi_mapping(chunk)
        except NpuSmiParseError:
            return i
        self._add(KIND_NPU_SMI_MAPPING, i, j, mapping, ("npu-smi", "info", "-m"),
                  detail=f"{len(mapping.compute_chips)} chip(s)")
        return j

    def _hccn(self, i: int, hint: str) -> int:
        """The output of the ``hccn_tool`` command line just before: up to the next command line (or a
        ``key=value`` / table line). The command names the device and the query; without a numeric
        ``-i`` it cannot be placed and is only named."""
        words = hint.split()
        if not words or words[0].rsplit("/", 1)[-1] != "hccn_tool":
            return i  # also not a header line that only mentions hccn_tool ("# what: hccn_tool ...")
        j = i
        while j < len(self.lines):
            text = self.lines[j].text
            if j > i and (_prompt_command(text) is not None or _kv(text.strip()) is not None or _is_table(text)):
                break
            j += 1
        while j > i + 1 and not self.lines[j - 1].stripped:
            j -= 1
        argv, detail = _hccn_argv(hint)
        self._add(KIND_HCCN if argv else KIND_HCCN_OTHER, i, j, None, argv, detail)
        return j

    def _watch(self, i: int, hint: str) -> int:
        if not _WATCH_HEADER.match(self.lines[i].stripped):
            return i
        j = i + 1
        while j < len(self.lines) and re.match(r"^\d+\s+\d+\s", self.lines[j].stripped):
            j += 1
        self._add(KIND_NPU_SMI_OTHER, i, j, None, ("npu-smi", "info", "watch"), detail="watch")
        return j

    def _smi_help(self, i: int, hint: str) -> int:
        if not self.lines[i].stripped.startswith("Usage: npu-smi"):
            return i
        j = i + 1
        while j < len(self.lines):
            text = self.lines[j].text
            if text.strip() and not (text.startswith(" ") or text.rstrip().endswith(":")):
                break
            j += 1
        self._add(KIND_NPU_SMI_OTHER, i, j, None, ("npu-smi", "info", "-h"), detail="help")
        return j

    def _smi_keyvalue(self, i: int, hint: str) -> int:
        first = _smi_kv(self.lines[i].text)
        if first is None:
            return i
        keys: List[str] = []
        pairs: List[Tuple[str, str]] = []
        j = i
        last = i
        while j < len(self.lines):
            text = self.lines[j].stripped
            if not text:
                j += 1
                continue
            pair = _smi_kv(text)
            if pair is None:
                break
            # A new output starts when "NPU ID" comes back in anything but an `info -l` listing.
            if pair[0] == "NPU ID" and "NPU ID" in keys and "Total Count" not in keys and not hint:
                break
            keys.append(pair[0])
            pairs.append(pair)
            last = j
            j += 1
        kind, argv, detail = _smi_kind(keys, pairs, hint)
        if kind is None:
            return i
        self._add(kind, i, last + 1, dict(pairs), argv, detail)
        return last + 1

    # -- pip list, a container marker ---------------------------------------------------------------
    def _pip_list(self, i: int, hint: str) -> int:
        """``pip list`` rows (``torch   2.5.1``), with or without its ``Package Version`` header.

        Rows alone look like any two-word line, so a block counts only when it names a package
        the checks read (torch, torch-npu, vllm...) or follows a ``pip list`` prompt.
        """
        j = i
        if _PIP_HEADER.match(self.lines[j].stripped):
            j += 1
            if j < len(self.lines) and _PIP_RULE.match(self.lines[j].stripped):
                j += 1
        rows: Dict[str, str] = {}
        while j < len(self.lines) and _PIP_ROW.match(self.lines[j].stripped):
            name, version = self.lines[j].stripped.split()[:2]
            rows.setdefault(name, version)
            j += 1
        pip_prompt = re.search(r"\bpip3?\s+(list|freeze)\b", hint) is not None
        if not rows or not (pip_prompt or any(_dist(n) in _PIP_ANCHORS for n in rows)):
            return i
        self._add(KIND_PIP_LIST, i, j, rows, detail=f"{len(rows)} package(s)")
        return j

    def _container_marker(self, i: int, hint: str) -> int:
        """A line that shows ``/.dockerenv`` exists (``ls -l /.dockerenv``), not one saying it is absent."""
        text = self.lines[i].stripped
        if text.split()[-1] != "/.dockerenv" or re.search(r"cannot access|no such file", text, re.I):
            return i
        self._add(KIND_CONTAINER_MARKER, i, i + 1, "/.dockerenv", detail="/.dockerenv")
        return i + 1

    # -- key=value files ---------------------------------------------------------------------------
    def _keyvalue(self, i: int, hint: str) -> int:
        if _kv(self.lines[i].stripped) is None:
            return i
        j = i
        while j < len(self.lines) and _kv(self.lines[j].stripped) is not None:
            j += 1
        # Several files printed back to back (`cat a b`): a repeated key starts the next one.
        start = i
        seen: Dict[str, int] = {}
        pieces: List[Tuple[int, int]] = []
        for k in range(i, j):
            kv = _kv(self.lines[k].stripped)
            assert kv is not None
            key = kv[0].lower()
            if key in seen and not _ENV_NAME.match(kv[0]):
                pieces.append((start, k))
                start, seen = k, {}
            seen[key] = k
        pieces.append((start, j))
        recognised_any = False
        for index, (a, b) in enumerate(pieces):
            if self._kv_file(a, b, hint if index == 0 else ""):
                recognised_any = True
                self.hint = None
            else:
                self.unrecognised.extend(self.lines[a:b])
        if not recognised_any and self.hint is not None:
            self.unrecognised.append(self.lines[self.hint[0]])
            self.hint = None
        return j

    def _kv_file(self, a: int, b: int, hint: str) -> bool:
        pairs = [kv for kv in (_kv(ln.stripped) for ln in self.lines[a:b]) if kv is not None]
        keys = {k.lower() for k, _ in pairs}
        text = "\n".join(ln.stripped for ln in self.lines[a:b]) + "\n"
        parser = _kv_parser(keys, pairs, hint)
        if parser is None:
            return False
        kind, parse = parser
        try:
            record = parse(text)
        except ValueError as exc:
            self.warnings.append(f"lines {self.lines[a].number}-{self.lines[b - 1].number}: {exc}")
            return False
        path = _cat_path(self.lines[self.hint[0]].text, hint) if self.hint is not None and hint else None
        detail = ""
        if kind == KIND_CANN_COMPONENT:
            detail = f"{path or 'version.info'}: version_dir={getattr(record, 'version_dir', None)}"
        self._add(kind, a, b, record, command=("cat", path) if path else (), detail=detail,
                  warnings=getattr(record, "warnings", ()) or ())
        return True


def _argv(command: str) -> Tuple[str, ...]:
    """``/usr/local/bin/npu-smi info -i 0 -t board`` -> ("npu-smi", "info", "-t", "board", "-i", "0")."""
    words = command.split()
    for index, word in enumerate(words):
        if word.rsplit("/", 1)[-1] == "npu-smi":
            words = ["npu-smi", *words[index + 1:]]
            break
    else:
        return tuple(words[:1])
    # Capture and the probes spell the options as "-t TYPE -i N": reorder "-i N -t TYPE".
    options: Dict[str, str] = {}
    rest: List[str] = []
    k = 2
    while k < len(words):
        if words[k] in ("-t", "-i", "-c") and k + 1 < len(words):
            options[words[k]] = words[k + 1]
            k += 2
            continue
        rest.append(words[k])
        k += 1
    argv = list(words[:2])
    for flag in ("-t", "-i", "-c"):
        if flag in options:
            argv += [flag, options[flag]]
    return tuple(argv + rest)


def _hccn_argv(command: str) -> Tuple[Tuple[str, ...], str]:
    """``/usr/local/Ascend/driver/tools/hccn_tool -i 3 -status -g`` -> (("hccn_tool", "-i", "3",
    "-status", "-g"), detail); () when the device is not a number or the query is not one the checks
    read. A ``| grep`` after it (``-tls -g | grep switch``) keeps the lines it let through."""
    pipeline = re.sub(r"\s#\s.*$", "", command).split("|")  # a "# comment" after the command is the author's
    words = pipeline[0].split()
    detail = " ".join(w for w in words[1:])[:80]
    if len(pipeline) > 1:
        detail += " (filtered: |" + "|".join(pipeline[1:]).strip()[:40] + ")"
    device = next((words[k + 1] for k, w in enumerate(words[:-1]) if w == "-i"), None)
    flags = [w for w in words if w in HCCN_QUERIES]
    if device is None or not device.isdigit() or len(device) > 4 or len(flags) != 1 or "-g" not in words:
        return (), detail
    return ("hccn_tool", "-i", device, flags[0], "-g"), detail


def _cat_path(prompt_line: str, command: str) -> Optional[str]:
    """The absolute path of the file a ``cat FILE`` prompt printed: FILE itself, or FILE under the
    folder the prompt shows (``/usr/local/Ascend/ascend-toolkit/latest/opp# cat version.info``)."""
    words = command.split()
    if len(words) != 2 or words[0].rsplit("/", 1)[-1] != "cat":
        return None
    target = words[1]
    if target.startswith("/"):
        return target
    folder = re.search(r"(/[^\s#$>]*)\s*[#$>]\s+\S", prompt_line)
    if folder is None:
        return None
    return folder.group(1).rstrip("/") + "/" + target


def _smi_kind(keys: List[str], pairs: List[Tuple[str, str]], hint: str
              ) -> Tuple[Optional[str], Tuple[str, ...], str]:
    argv = _argv(hint) if "npu-smi" in hint else ()
    npu = next((v for k, v in pairs if k == "NPU ID"), None)
    known = set(_SMI_LIST_KEYS + _SMI_BOARD_KEYS + _SMI_USAGES_KEYS + _SMI_OTHER_KEYS + _SMI_COMMON_KEYS)
    known.update(k for _, marks in _SMI_VIEW_KEYS for k in marks)
    if not any(k in known for k in keys):
        return None, (), ""
    if argv[:2] == ("npu-smi", "info") and "-t" in argv:
        kind_of = {"board": KIND_NPU_SMI_BOARD, "usages": KIND_NPU_SMI_USAGES}
        kind_of.update({view: KIND_NPU_SMI_QUERY for view in SMI_QUERY_TYPES})
        kind = kind_of.get(argv[argv.index("-t") + 1], KIND_NPU_SMI_OTHER)
        if "-c" in argv and kind == KIND_NPU_SMI_BOARD:
            kind = KIND_NPU_SMI_OTHER  # the chip-level board query: not what the probes read
        if kind != KIND_NPU_SMI_OTHER and not _numbered(argv):
            kind = KIND_NPU_SMI_OTHER  # "-i ${id}": the NPU it was about is not known
        return kind, argv, " ".join(argv[2:])
    if argv[:3] == ("npu-smi", "info", "-l") or "Total Count" in keys:
        return KIND_NPU_SMI_LIST, ("npu-smi", "info", "-l"), f"{keys.count('NPU ID')} NPU(s)"
    if argv and argv[:2] != ("npu-smi", "info"):
        return KIND_NPU_SMI_OTHER, argv, " ".join(argv[1:])
    if "Chip Type" in keys or "VDie ID" in keys:
        return KIND_NPU_SMI_OTHER, (), "chip board"
    if npu is not None and any(k in keys for k in _SMI_BOARD_KEYS):
        return KIND_NPU_SMI_BOARD, ("npu-smi", "info", "-t", "board", "-i", npu), f"NPU {npu}"
    if npu is not None and all(k in keys for k in _SMI_USAGES_KEYS):
        return KIND_NPU_SMI_USAGES, ("npu-smi", "info", "-t", "usages", "-i", npu), f"NPU {npu}"
    view = next((name for name, marks in _SMI_VIEW_KEYS if any(k in keys for k in marks)), None)
    if npu is not None and npu.isdigit() and len(npu) <= 6 and view is not None:
        return KIND_NPU_SMI_QUERY, ("npu-smi", "info", "-t", view, "-i", npu), f"-t {view} -i {npu}"
    if any(k in keys for k in _SMI_OTHER_KEYS + _SMI_USAGES_KEYS):
        what = next((k for k in keys if k in _SMI_OTHER_KEYS + _SMI_USAGES_KEYS), "")
        return KIND_NPU_SMI_OTHER, (), what
    return None, (), ""


def _numbered(argv: Sequence[str]) -> bool:
    """Whether ``-i`` (and ``-c`` when given) are plain numbers."""
    for flag in ("-i", "-c"):
        if flag in argv:
            index = list(argv).index(flag)
            value = argv[index + 1] if index + 1 < len(argv) else ""
            if not value.isdigit() or len(value) > 6:
                return False
    return "-i" in argv


_DRIVER_KEYS = ("ascendhal_version", "compatible_version_fw", "tsfw_version", "aicpu_version", "dvppkernels_version")
_FIRMWARE_KEYS = ("firmware_version", "compatible_version_drv")
_HCCN_CONF_KEY = lazy_re(r"^(address|netmask|netdetect|gateway|send_arp_status|arp_send_status|xsfp_reset_\w+)_\d+$"
                            r"|^(dscp_tc|bitmap|tls_enable|lldp_enable)(_\d+)?$", re.I)
_INSTALL_KEYS = ("driver_install_path_param", "firmware_install_path_param", "driver_install_type", "username")


def _kv_parser(keys: Set[str], pairs: List[Tuple[str, str]], hint: str
               ) -> Optional[Tuple[str, Callable[[str], Any]]]:
    from ascend_doctor.parsers import driver_firmware_info as dfi
    from ascend_doctor.parsers import install_info as ii

    if "package_name" in keys and "version" in keys:
        return KIND_CANN_INFO, ii.parse_cann_install_info
    if any(k in keys for k in _INSTALL_KEYS):
        return KIND_ASCEND_INSTALL_INFO, ii.parse_ascend_install_info
    if "version_dir" in keys and "version" in keys:  # a CANN component's version.info (opp, toolkit...)
        from ascend_doctor.parsers.cann_component_info import parse_component_version_info

        return KIND_CANN_COMPONENT, parse_component_version_info
    if "version" in keys and (any(k in keys for k in _FIRMWARE_KEYS) or "firmware/" in hint):
        return KIND_FIRMWARE_INFO, dfi.parse_firmware_version_info
    if "version" in keys and (any(k in keys for k in _DRIVER_KEYS) or "driver/" in hint):
        return KIND_DRIVER_INFO, dfi.parse_driver_version_info
    if pairs and all(_HCCN_CONF_KEY.match(k) for k, _ in pairs):
        from ascend_doctor.parsers.hccn import parse_hccn_conf

        return KIND_HCCN_CONF, parse_hccn_conf
    if pairs and all(_ENV_NAME.match(k) for k, _ in pairs):
        return KIND_ENV_VARS, _parse_env
    return None


def _parse_env(text: str) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for line in text.splitlines():
        kv = _kv(line)
        if kv is not None:
            out[kv[0]] = kv[1]
    return out


def parse_pasted_text(text: str, truncated: bool = False) -> PastedText:
    """Cut ``text`` into recognised segments and unrecognised line ranges (never raises for text)."""
    if not isinstance(text, str):
        raise PastedTextError(f"expected text, got {type(text).__name__}")
    lines, cut = _clean(text)
    cutter = _Cutter(lines)
    cutter.run()
    unrecognised = _ranges(cutter.unrecognised, lines)
    warnings = list(cutter.warnings)
    if truncated or cut:
        warnings.append(N_("only the first {mib} MiB / {lines} lines were read").format(
            mib=MAX_PASTE_BYTES // (1024 * 1024), lines=MAX_LINES))
    segments = tuple(sorted(cutter.segments, key=lambda s: s.first_line))
    return PastedText(segments, unrecognised, len(lines), truncated or cut, tuple(warnings))


def _ranges(lines: List[Line], every: List[Line]) -> Tuple[LineRange, ...]:
    """Group unrecognised lines into ranges of consecutive lines (blank lines do not break them)."""
    numbers = sorted({ln.number for ln in lines})
    if not numbers:
        return ()
    by_number = {ln.number: ln for ln in every}
    out: List[LineRange] = []
    start = prev = numbers[0]
    for number in numbers[1:]:
        gap = range(prev + 1, number)
        if all(not by_number[k].stripped for k in gap):
            prev = number
            continue
        out.append(LineRange(start, prev, _preview(by_number[start].text)))
        start = prev = number
    out.append(LineRange(start, prev, _preview(by_number[start].text)))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# What the segments say


_NOT_COLLECTED = ("could not collect", "n/a", "none", "no cuda", "not set", "-", "")


def _value(text: Optional[str]) -> Optional[str]:
    if text is None or text.strip().lower() in _NOT_COLLECTED:
        return None
    return text.strip()


class PastedFacts(Struct):
    """The facts the pasted text establishes (None / empty when it does not say)."""

    driver_version: Optional[str] = None  # from a pasted driver version.info (installed)
    running_driver_version: Optional[str] = None  # from the npu-smi banner's "Version:"
    firmware_version: Optional[str] = None
    cann_version: Optional[str] = None
    npu_smi_version: Optional[str] = None
    npu_type: Optional[str] = None  # llamafactory's "NPU type" when no table was pasted
    chips: Tuple[str, ...] = ()  # chip names in table order (one per chip / die)
    npu_ids: Tuple[int, ...] = ()
    python_version: Optional[str] = None
    packages: Dict[str, str] = field(default_factory=dict)  # distribution name as printed -> version
    env: Dict[str, str] = field(default_factory=dict)
    os: Optional[str] = None
    kernel: Optional[str] = None
    arch: Optional[str] = None
    cpu_count: Optional[int] = None
    env_dumps: int = 0  # environment dumps seen (collect_env, llamafactory-cli env)
    notes: List[str] = field(default_factory=list)
    os_from_kernel: bool = False  # ``os`` was named from the kernel's suffix (no OS line was pasted)
    host_os: Optional[str] = None  # the OS the kernel's suffix names: the host's, also under a container
    container_evidence: List[str] = field(default_factory=list)  # "ASCEND_DOCKER_RUNTIME is set" ...

    @property
    def chip_count(self) -> int:
        return len(self.chips)

    def package(self, name: str) -> Optional[str]:
        want = _dist(name)
        return next((v for k, v in self.packages.items() if _dist(k) == want), None)

    def to_dict(self) -> Dict[str, Any]:
        return {"driver_version": self.driver_version, "running_driver_version": self.running_driver_version,
                "firmware_version": self.firmware_version,
                "cann_version": self.cann_version, "npu_smi_version": self.npu_smi_version,
                "npu_type": self.npu_type, "chips": list(self.chips), "chip_count": self.chip_count,
                "npu_ids": list(self.npu_ids), "python_version": self.python_version,
                "packages": dict(self.packages), "env_names": sorted(self.env), "os": self.os,
                "kernel": self.kernel, "arch": self.arch, "cpu_count": self.cpu_count,
                "os_from_kernel": self.os_from_kernel, "host_os": self.host_os,
                "container_evidence": list(self.container_evidence)}


def _dist(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.lower())


def kernel_from_platform(platform: Optional[str]) -> Tuple[Optional[str], Optional[str]]:
    """``Linux-5.10.0-182.0.0.95.oe2203sp3.aarch64-aarch64-with-glibc2.35`` -> (kernel, arch).

    Python's ``platform.platform()`` joins system, release, machine and the libc with ``-``; the
    release itself may hold dashes, so the machine is found from the right.
    """
    if not platform or not platform.startswith("Linux-"):
        return None, None
    body = platform[len("Linux-"):]
    body = body.split("-with-", 1)[0]
    release, _, machine = body.rpartition("-")
    if not release or not re.match(r"^(aarch64|x86_64|arm64|amd64|ppc64le|riscv64|loongarch64)$", machine):
        return None, None
    return release, machine


# Kernel release suffixes that name the distribution the kernel was built for (the host's OS:
# a container shares the host's kernel). Only suffixes seen in real pastes are listed.
_KERNEL_OS = ((re.compile(r"\.hce2\.(aarch64|x86_64)$"), "Huawei Cloud EulerOS 2.0"),)

# Variables the Ascend Docker Runtime sets inside the containers it starts (MindCluster
# ascend-docker-runtime: ASCEND_VISIBLE_DEVICES / ASCEND_RUNTIME_OPTIONS select the NPUs,
# ASCEND_DOCKER_RUNTIME marks its containers); a host shell has no use for them.
CONTAINER_ENV_HINTS = ("ASCEND_DOCKER_RUNTIME", "ASCEND_VISIBLE_DEVICES", "ASCEND_RUNTIME_OPTIONS")


def os_from_kernel(kernel: Optional[str]) -> Optional[str]:
    """The OS a kernel release's suffix names (``5.10.0-60.18.0.50.r865_35.hce2.aarch64`` -> HCE 2.0)."""
    for pattern, name in _KERNEL_OS:
        if kernel and pattern.search(kernel):
            return name
    return None


def summarise(pasted: PastedText) -> PastedFacts:
    """Everything the recognised segments say, the first statement of each fact winning."""
    facts = PastedFacts()
    _summarise_segments(pasted, facts)
    facts.host_os = os_from_kernel(facts.kernel)
    for name in CONTAINER_ENV_HINTS:
        if name in facts.env:
            facts.container_evidence.append(f"{name} is set in the pasted environment")
    if pasted.of_kind(KIND_CONTAINER_MARKER):
        facts.container_evidence.append("the pasted text lists /.dockerenv")
    # No OS line: the kernel's suffix names the host OS. Under a container the userland is
    # another OS, which the paste does not name: then nothing is said.
    if facts.os is None and facts.host_os is not None and not facts.container_evidence:
        facts.os, facts.os_from_kernel = facts.host_os, True
    return facts


def _summarise_segments(pasted: PastedText, facts: PastedFacts) -> None:
    for segment in pasted.segments:
        if segment.kind in (KIND_COLLECT_ENV, KIND_LLAMAFACTORY):
            _from_collect_env(segment.record, facts)
        elif segment.kind == KIND_NPU_SMI_INFO:
            _from_table(segment.record, facts)
        elif segment.kind == KIND_DRIVER_INFO:
            facts.driver_version = facts.driver_version or getattr(segment.record, "version", None)
        elif segment.kind == KIND_FIRMWARE_INFO:
            facts.firmware_version = facts.firmware_version or getattr(segment.record, "version", None)
        elif segment.kind == KIND_CANN_INFO:
            if getattr(segment.record, "package_name", "") in (None, "", "Ascend-cann-toolkit"):
                facts.cann_version = facts.cann_version or getattr(segment.record, "version", None)
            facts.arch = facts.arch or getattr(segment.record, "arch", None)
        elif segment.kind == KIND_ENV_VARS:
            _add_env(segment.record, facts)
        elif segment.kind == KIND_PIP_LIST:
            for name, version in segment.record.items():
                if facts.package(name) is None:
                    facts.packages[name] = version
        elif segment.kind == KIND_CANN_COMPONENT and component_is_toolkit_release(segment):
            facts.cann_version = facts.cann_version or getattr(segment.record, "cann_release", None)


def component_is_toolkit_release(segment: Segment) -> bool:
    """Whether a pasted component ``version.info`` names the toolkit's release: the file of
    ``opp/`` or of the toolkit folder itself (``opp_kernel/`` is the kernels package's own)."""
    path = segment.command[1] if len(segment.command) == 2 else ""
    folder = path.rsplit("/", 2)[-2] if path.count("/") >= 2 else ""
    return not path or folder in ("opp", "latest", "toolkit") or folder.startswith(("cann", "ascend-toolkit")) or \
        bool(re.match(r"^\d+\.\d+", folder))


def _from_table(info: Any, facts: PastedFacts) -> None:
    if facts.chips:
        facts.notes.append(N_("a second npu-smi table was pasted; the first one is used"))
        return
    facts.chips = tuple(d.name or "?" for d in info.devices)
    facts.npu_ids = tuple(info.npu_ids)
    facts.npu_smi_version = facts.npu_smi_version or info.version
    # The banner's "Version:" is the driver that runs; driver_version is the installed one (version.info).
    facts.running_driver_version = facts.running_driver_version or info.driver_version


def _from_collect_env(record: Any, facts: PastedFacts) -> None:
    facts.env_dumps += 1
    if facts.env_dumps > 1:
        # Two dumps may come from two machines or two venvs: mixing their packages would grade a
        # Python that exists nowhere. The first one speaks for the Python side.
        facts.notes.append(N_("a second environment dump ({layout}) was pasted; its Python, packages and OS are "
                              "not used (the first dump's are)").format(layout=record.layout))
    if record.npu_smi_text:
        from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_npu_smi_info

        try:
            _from_table(parse_npu_smi_info(record.npu_smi_text), facts)
        except NpuSmiParseError as exc:
            facts.notes.append(N_("the NPU table of the environment dump cannot be read: {error}").format(error=exc))
    facts.npu_type = facts.npu_type or _value(record.npu_type)
    facts.cann_version = facts.cann_version or _value(record.cann_version)
    if facts.env_dumps > 1:
        return
    facts.python_version = facts.python_version or _value(record.python_version)
    kernel, machine = kernel_from_platform(record.python_platform)
    os_name = _value(record.os)
    arch = _value(record.arch)
    if os_name and os_name.endswith(")") and "(" in os_name:
        os_name = os_name.rsplit("(", 1)[0].strip() or os_name
    facts.os = facts.os or os_name
    facts.kernel = facts.kernel or kernel
    facts.arch = facts.arch or arch or machine
    cpus = record.labels.get("cpu(s)")
    if facts.cpu_count is None and cpus and cpus.strip().isdigit():
        facts.cpu_count = int(cpus.strip())
    packages: Dict[str, str] = {}
    for name, version in record.packages.items():
        if _value(version):
            packages[name] = version
    named = {"torch": record.torch_version, "vllm": record.vllm_version, "vllm_ascend": record.vllm_ascend_version}
    for label, dist in (("transformers version", "transformers"), ("datasets version", "datasets"),
                        ("accelerate version", "accelerate"), ("peft version", "peft"), ("trl version", "trl"),
                        ("deepspeed version", "deepspeed"), ("llamafactory version", "llamafactory")):
        named[dist] = record.labels.get(label)
    for dist, version in named.items():
        words = (_value(version) or "").split()
        if words and not any(_dist(k) == _dist(dist) for k in packages):
            packages[dist] = words[0]
    for name, version in packages.items():
        if facts.package(name) is None:
            facts.packages[name] = version
    _add_env(record.env, facts)


def _elided(value: str) -> bool:
    """A value the author shortened (``[... elided ...]``, ``/usr/...``): not the real value."""
    return "..." in value or "\u2026" in value


def _add_env(env: Dict[str, str], facts: PastedFacts) -> None:
    for name, value in env.items():
        if _elided(value):
            facts.notes.append(N_("{name} was shortened in the pasted text ({preview}); not used").format(
                name=name, preview=_preview(value)))
            continue
        facts.env.setdefault(name, value)


__all__ = [
    "CONTAINER_ENV_HINTS",
    "GRADED_KINDS",
    "KIND_ASCEND_INSTALL_INFO",
    "KIND_CANN_COMPONENT",
    "KIND_CANN_INFO",
    "KIND_COLLECT_ENV",
    "KIND_CONTAINER_MARKER",
    "KIND_DRIVER_INFO",
    "KIND_ENV_VARS",
    "KIND_FIRMWARE_INFO",
    "KIND_HCCN",
    "KIND_HCCN_CONF",
    "KIND_HCCN_OTHER",
    "KIND_LLAMAFACTORY",
    "KIND_NPU_SMI_BOARD",
    "KIND_NPU_SMI_INFO",
    "KIND_NPU_SMI_LIST",
    "KIND_NPU_SMI_MAPPING",
    "KIND_NPU_SMI_OTHER",
    "KIND_NPU_SMI_QUERY",
    "KIND_NPU_SMI_TOPO",
    "KIND_NPU_SMI_USAGES",
    "KIND_PIP_LIST",
    "LineRange",
    "PastedFacts",
    "PastedText",
    "PastedTextError",
    "Segment",
    "component_is_toolkit_release",
    "decode_paste",
    "kernel_from_platform",
    "os_from_kernel",
    "parse_pasted_text",
    "summarise",
]
