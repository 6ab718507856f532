"""Parse ``npu-smi info`` tables and the ``npu-smi info -t TYPE`` key/value outputs.

Every layout below was seen in real captures (``tests/samples/npu-smi-info/``)::

    standard       | NPU   Name   | Health | Power(W) Temp(C) Hugepages-Usage(page) |
                   | Chip         | Bus-Id | AICore(%) Memory-Usage(MB) HBM-Usage(MB) |
                   910A/910ProB/legacy 910 (DDR *and* HBM), 910B1-B4/910B2C; 21.x without the
                   Hugepages column; 26.x with wider padding and a "Process id in container" column
    chip-device    | Chip  Device | ...    310, 310P3, 310B, Atlas 300I Duo (two chips per NPU,
                   ids like 32768/1792), HAMi vNPUs ("310Pvir01"); no HBM column
    chip-phy-id    | Chip  Phy-ID | ...    Atlas A3 ("Ascend910", two dies per NPU, die 1 power "-")
    npu-id-column  | NPU ID | Name | Health | ...   Ascend 950: no Chip column, "NPU Util(%)" instead
                   of AICore(%), Bus-Id "NA", process table keyed by NPU ID only

The metrics cells are read as a sequence of tokens (``88.4``, ``46``, ``0 / 0``) instead of by
character column, so padding differences between versions and pastes do not matter.

Decisions:

* ``parse_npu_smi_info`` parses the **first** complete table and ignores anything after it
  (a warning says so); ``parse_all_npu_smi_tables`` returns every table in the text, e.g. the
  host view and the pod views of a HAMi tutorial. In the latter, a fragment pasted without its
  header rows reuses the layout of the table before it.
* Lines that are not part of a table (shell prompts, ``[host]`` labels, markdown) are skipped
  before the table; after the table has started, such a line ends it.
* Authors' elisions (``...``), a missing closing border, and a device whose second row was cut
  off are tolerated and reported in ``warnings``. Anything else that does not fit the layout
  raises ``NpuSmiParseError`` naming the line.
* A process row that cannot be read is skipped with a warning rather than failing the parse,
  so one odd process never hides the device list.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Set, Tuple

from msgspec import Struct, field
from msgspec.structs import asdict, replace

from ascend_doctor.parsers._table import (
    Token,
    is_border,
    is_elision,
    is_missing,
    split_row,
    to_float,
    to_int,
    tokens,
)

# Health states npu-smi documents: "OK、Warning、Alarm、Critical或UNKNOWN"
# (hiascend.com, npu-smi reference, "查询指定芯片健康状态", npusmi_028, 24.1.RC3).
HEALTH_OK = "OK"
HEALTH_WARNING = "WARNING"
HEALTH_ALARM = "ALARM"
HEALTH_CRITICAL = "CRITICAL"
HEALTH_UNKNOWN = "UNKNOWN"

LAYOUT_STANDARD = "standard"
LAYOUT_CHIP_DEVICE = "chip-device"
LAYOUT_CHIP_PHY_ID = "chip-phy-id"
LAYOUT_NPU_ID_COLUMN = "npu-id-column"

_MAX_SHOWN = 120
# Real banners print versions like "25.0.rc1.1" or "25.6.rc1.b218" (at most 14 characters in the
# samples). A longer word is not a version: a 1 MB "Version: 9.9.9..." was taken as the running
# driver and echoed by three checks into a 4 MB report (hostile_inputs.md row 224).
_MAX_VERSION_CHARS = 64


class NpuSmiParseError(ValueError):
    """The text is not ``npu-smi`` output this parser understands.

    ``line_no`` is 1-based (0 when the problem is not tied to one line, e.g. empty text) and
    ``line`` is that line as it appeared.
    """

    def __init__(self, reason: str, line_no: int = 0, line: str = "") -> None:
        self.reason = reason
        self.line_no = line_no
        self.line = line
        if line_no:
            shown = line.strip()
            if len(shown) > _MAX_SHOWN:
                shown = shown[:_MAX_SHOWN] + "..."
            message = f"could not parse npu-smi output: unexpected line {line_no}: {shown!r} ({reason})"
        else:
            message = f"could not parse npu-smi output: {reason}"
        super().__init__(message)


def normalize_health(printed: str) -> str:
    """Map what npu-smi prints in the Health column to OK/WARNING/ALARM/CRITICAL/UNKNOWN."""
    word = printed.strip().upper()
    if word == "OK":
        return HEALTH_OK
    if "CRITICAL" in word:
        return HEALTH_CRITICAL
    if "ALARM" in word:
        return HEALTH_ALARM
    if "WARN" in word:
        return HEALTH_WARNING
    return HEALTH_UNKNOWN


class NpuDevice(Struct, frozen=True):
    """One chip (die) row pair of the device table."""

    npu_id: int
    chip_id: int
    chip_phy_id: Optional[int]  # "Phy-ID" on A3, "Device" on 310/310P/310B; None otherwise
    name: str
    health: str  # as printed ("OK", "Warning", ...); see health_status for the normalized form
    power_w: Optional[float]
    temp_c: Optional[float]
    hugepages_used: Optional[int]
    hugepages_total: Optional[int]
    aicore_pct: Optional[float]  # "NPU Util(%)" on the 950 layout
    memory_used_mb: Optional[int]  # the DDR "Memory-Usage(MB)" column
    memory_total_mb: Optional[int]
    hbm_used_mb: Optional[int]
    hbm_total_mb: Optional[int]
    bus_id: Optional[str]  # None where npu-smi prints "NA"

    @property
    def health_status(self) -> str:
        return normalize_health(self.health)

    @property
    def has_hbm(self) -> bool:
        return bool(self.hbm_total_mb)

    @property
    def in_use_mb(self) -> Optional[int]:
        """Device memory in use: HBM when the chip has HBM, else the DDR memory column."""
        return self.hbm_used_mb if self.has_hbm else self.memory_used_mb

    @property
    def capacity_mb(self) -> Optional[int]:
        return self.hbm_total_mb if self.has_hbm else self.memory_total_mb

    def to_dict(self) -> Dict[str, Any]:
        data = asdict(self)
        data["health_status"] = self.health_status
        data["in_use_mb"] = self.in_use_mb
        data["capacity_mb"] = self.capacity_mb
        return data


class NpuProcess(Struct, frozen=True):
    """One row of the process table. The same PID may appear on several NPUs."""

    npu_id: int
    chip_id: Optional[int]  # None on the 950 layout, whose process table has no Chip column
    pid: int
    container_pid: Optional[int]  # "Process id in container"; None when absent or "NA"
    name: str  # may be "" (npu-smi prints no name for some processes)
    memory_mb: Optional[int]

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


class NpuSmiInfo(Struct, frozen=True):
    version: Optional[str]  # the npu-smi tool version in the banner ("npu-smi 23.0.rc3")
    driver_version: Optional[str]  # the banner's "Version:" (the driver), when printed
    devices: List[NpuDevice]
    processes: List[NpuProcess] = field(default_factory=list)
    idle_npus: List[int] = field(default_factory=list)  # "No running processes found in NPU N"
    process_table_present: bool = False
    warnings: List[str] = field(default_factory=list)
    layout: str = LAYOUT_STANDARD

    @property
    def npu_ids(self) -> List[int]:
        """Distinct NPU ids in the order printed (an A3 or 300I Duo NPU has two chips)."""
        seen: Dict[int, None] = {}
        for dev in self.devices:
            seen.setdefault(dev.npu_id, None)
        return list(seen)

    def processes_on(self, npu_id: int) -> List[NpuProcess]:
        return [proc for proc in self.processes if proc.npu_id == npu_id]

    def to_dict(self) -> Dict[str, Any]:
        return {
            "version": self.version,
            "driver_version": self.driver_version,
            "layout": self.layout,
            "devices": [dev.to_dict() for dev in self.devices],
            "processes": [proc.to_dict() for proc in self.processes],
            "idle_npus": list(self.idle_npus),
            "process_table_present": self.process_table_present,
            "warnings": list(self.warnings),
        }


# --------------------------------------------------------------------------- layout


class _Layout(Struct, frozen=True):
    name: str

    @property
    def has_chip_column(self) -> bool:
        return self.name != LAYOUT_NPU_ID_COLUMN


class _ProcColumns(Struct, frozen=True):
    has_chip: bool
    pid: int
    name: int
    memory: int
    container_pid: Optional[int]
    count: int


class _RowError(Exception):
    """A row that does not fit; turned into NpuSmiParseError (or a warning) by the caller."""


def _lower_words(cells: List[str]) -> str:
    return " ".join(" ".join(cells).lower().split())


def _is_banner(cells: List[str]) -> bool:
    if len(cells) != 1:
        return False
    low = cells[0].lower()
    return low.startswith("npu-smi") or "version:" in low


def _is_device_header(text: str) -> bool:
    return "npu" in text and "name" in text and "health" in text


def _is_process_header(text: str) -> bool:
    return "process id" in text and "process name" in text


def _is_idle_row(cells: List[str]) -> bool:
    return len(cells) == 1 and cells[0].lower().startswith("no running processes found")


def _layout_from_headers(first: str, second: str) -> _Layout:
    """Decide the layout from the two header rows (already lower-cased)."""
    if "power" not in first or "temp" not in first:
        raise _RowError("device header without Power/Temp columns: unknown layout")
    if "bus-id" not in second or not ("memory" in second or "hbm" in second):
        raise _RowError("second header row without Bus-Id/Memory columns: unknown layout")
    if "npu id" in first:
        return _Layout(LAYOUT_NPU_ID_COLUMN)
    if "phy-id" in second:
        return _Layout(LAYOUT_CHIP_PHY_ID)
    if "device" in second:
        return _Layout(LAYOUT_CHIP_DEVICE)
    if "chip" in second:
        return _Layout(LAYOUT_STANDARD)
    raise _RowError("second header row without a Chip column: unknown layout")


def _process_columns(cells: List[str]) -> _ProcColumns:
    pid = name = memory = -1
    container: Optional[int] = None
    for index, cell in enumerate(cells):
        low = " ".join(cell.lower().split())
        if low == "process id":
            pid = index
        elif low.startswith("process id in container"):
            container = index
        elif low.startswith("process name"):
            name = index
        elif low.startswith("process memory"):
            memory = index
    if min(pid, name, memory) < 1 or "npu" not in cells[0].lower():
        raise _RowError("process table header not understood")
    return _ProcColumns("chip" in cells[0].lower(), pid, name, memory, container, len(cells))


# --------------------------------------------------------------------------- row readers


def _number(token: Optional[Token], what: str) -> Optional[float]:
    if token is None:
        return None
    if isinstance(token, tuple):
        raise _RowError(f"{what}: expected a number, got a pair")
    if is_missing(token):
        return None
    value = to_float(token)
    if value is None:
        raise _RowError(f"{what}: {token!r} is not a number")
    return value


def _pair(token: Optional[Token], what: str) -> Tuple[Optional[int], Optional[int]]:
    if token is None:
        return None, None
    if not isinstance(token, tuple):
        if is_missing(token):
            return None, None
        raise _RowError(f"{what}: expected 'used / total', got {token!r}")
    used, total = (None if is_missing(part) else to_int(part) for part in token)
    if (used is None and not is_missing(token[0])) or (total is None and not is_missing(token[1])):
        raise _RowError(f"{what}: {token[0]!r} / {token[1]!r} are not integers")
    return used, total


def _at(items: List[Token], index: int) -> Optional[Token]:
    return items[index] if index < len(items) else None


def _ints(words: List[str], what: str) -> List[int]:
    out = []
    for word in words:
        value = to_int(word)
        if value is None:
            raise _RowError(f"{what}: {word!r} is not an id")
        out.append(value)
    return out


class _FirstRow(Struct, frozen=True):
    npu_id: int
    name: str
    health: str
    power_w: Optional[float]
    temp_c: Optional[float]
    hugepages: Tuple[Optional[int], Optional[int]]


def _read_first_row(cells: List[str]) -> _FirstRow:
    """``| 0     910B1 | OK | 88.4  46  0 / 0 |`` (950: ``| 0 | Ascend950PR | OK | ... |``)."""
    if len(cells) < 3:
        raise _RowError("device row with too few cells")
    ident = " ".join(cells[:-2]).split()
    health = cells[-2]
    if len(ident) < 2 or not health or not health.replace(" ", "").isalpha():
        raise _RowError("expected 'NPU Name | Health | Power Temp ...'")
    npu = _ints(ident[:1], "NPU id")[0]
    metrics = tokens(cells[-1])
    if not metrics or len(metrics) > 3:
        raise _RowError("expected 'Power Temp [Hugepages]'")
    return _FirstRow(
        npu_id=npu,
        name=" ".join(ident[1:]),
        health=health,
        power_w=_number(_at(metrics, 0), "Power(W)"),
        temp_c=_number(_at(metrics, 1), "Temp(C)"),
        hugepages=_pair(_at(metrics, 2), "Hugepages-Usage"),
    )


def _read_second_row(cells: List[str], first: _FirstRow, layout: _Layout) -> NpuDevice:
    """``| 0  [8] | 0000:C1:00.0 | 0  0 / 0  4175 / 65536 |`` (950: ``| | | NA | ... |``)."""
    if len(cells) < 3:
        raise _RowError("device row with too few cells")
    ids = _ints(" ".join(cells[:-2]).split(), "Chip id")
    bus = cells[-2]
    if len(ids) > 2 or (layout.has_chip_column and not ids) or not bus or " " in bus:
        raise _RowError("expected 'Chip [Device/Phy-ID] | Bus-Id | AICore Memory ...'")
    metrics = tokens(cells[-1])
    if not metrics or len(metrics) > 3:
        raise _RowError("expected 'AICore Memory-Usage [HBM-Usage]'")
    memory = _pair(_at(metrics, 1), "Memory-Usage")
    hbm = _pair(_at(metrics, 2), "HBM-Usage")
    return NpuDevice(
        npu_id=first.npu_id,
        chip_id=ids[0] if ids else 0,
        chip_phy_id=ids[1] if len(ids) > 1 else None,
        name=first.name,
        health=first.health,
        power_w=first.power_w,
        temp_c=first.temp_c,
        hugepages_used=first.hugepages[0],
        hugepages_total=first.hugepages[1],
        aicore_pct=_number(metrics[0], "AICore(%)"),
        memory_used_mb=memory[0],
        memory_total_mb=memory[1],
        hbm_used_mb=hbm[0],
        hbm_total_mb=hbm[1],
        bus_id=None if is_missing(bus) else bus,
    )


def _read_process_row(cells: List[str], cols: _ProcColumns) -> NpuProcess:
    if len(cells) < cols.count:
        raise _RowError("process row with too few cells")
    if len(cells) > cols.count and cols.name == cols.pid + 1:
        # A "|" inside a process name: glue the surplus cells back into the name.
        extra = len(cells) - cols.count
        cells = [*cells[: cols.name], "|".join(cells[cols.name : cols.name + extra + 1]),
                 *cells[cols.name + extra + 1 :]]
    elif len(cells) > cols.count:
        raise _RowError("process row with too many cells")
    ids = _ints(cells[0].split(), "NPU/Chip id")
    if not ids or len(ids) > 2:
        raise _RowError("expected 'NPU [Chip]' in the first cell")
    pid = to_int(cells[cols.pid])
    if pid is None:
        raise _RowError(f"process id {cells[cols.pid]!r} is not a number")
    memory_cell = cells[cols.memory]
    memory = to_int(memory_cell)
    if memory is None and not is_missing(memory_cell):
        raise _RowError(f"process memory {memory_cell!r} is not a number")
    container: Optional[int] = None
    if cols.container_pid is not None:
        container_cell = cells[cols.container_pid]
        container = to_int(container_cell)
        if container is None and not is_missing(container_cell):
            raise _RowError(f"process id in container {container_cell!r} is not a number")
    return NpuProcess(
        npu_id=ids[0],
        chip_id=ids[1] if len(ids) > 1 else None,
        pid=pid,
        container_pid=container,
        name=cells[cols.name],
        memory_mb=memory,
    )


def _idle_npu(cells: List[str]) -> Optional[int]:
    words = cells[0].split()
    return to_int(words[-1]) if words and words[-2:-1] == ["NPU"] else None


# --------------------------------------------------------------------------- table reader

_PRE, _DEVICES, _PROCESSES = "pre", "devices", "processes"


class _TableReader:
    """Reads one table from ``lines[start:]``; ``read()`` returns where the next one may begin."""

    def __init__(self, lines: List[str], start: int, inherited: Optional[_Layout]) -> None:
        self.lines = lines
        self.start = start
        self.inherited = inherited
        self.version: Optional[str] = None
        self.driver_version: Optional[str] = None
        self.first_header: Optional[str] = None
        self.layout: Optional[_Layout] = None
        self.section = _PRE
        self.pending: Optional[Tuple[_FirstRow, int]] = None
        self.devices: List[NpuDevice] = []
        self.seen_chips: Set[Tuple[int, int]] = set()
        self.processes: List[NpuProcess] = []
        self.idle: List[int] = []
        self.proc_cols: Optional[_ProcColumns] = None
        self.warnings: List[str] = []
        self.first_table_line = 0  # 1-based; 0 = no table line seen yet
        self.first_text_line = 0
        self.last_table_line = 0
        self.last_was_border = False
        self.cut_short = False

    # -- helpers
    def _fail(self, reason: str, index: int) -> NpuSmiParseError:
        return NpuSmiParseError(reason, index + 1, self.lines[index])

    @property
    def started(self) -> bool:
        return self.first_table_line > 0

    def _starts_new_table(self) -> bool:
        return bool(self.devices) or self.first_header is not None

    def _drop_pending(self, why: str) -> None:
        if self.pending is not None:
            first, line_no = self.pending
            self.warnings.append(f"NPU {first.npu_id} ({first.name}) at line {line_no}: {why}; row ignored")
            self.pending = None

    # -- main loop
    def read(self) -> int:
        index = self.start
        while index < len(self.lines):
            line = self.lines[index].strip()
            if not line:
                index += 1
                continue
            if is_elision(line):
                if self.started:
                    self.warnings.append(f"line {index + 1}: rows left out by the author ('{line}')")
                index += 1
                continue
            if is_border(line):
                self._note_table_line(index, border=True)
                self._drop_pending("second row missing")
                index += 1
                continue
            if not line.startswith("|"):
                if self.started:
                    return index  # prose after the table ends it
                if not self.first_text_line:
                    self.first_text_line = index + 1
                index += 1
                continue
            if not self._row(index, line):
                return index
            if self.cut_short:
                return index + 1
            index += 1
        return index

    def _note_table_line(self, index: int, border: bool) -> None:
        if not self.first_table_line:
            self.first_table_line = index + 1
        self.last_table_line = index + 1
        self.last_was_border = border

    def _row(self, index: int, line: str) -> bool:
        """Handle one ``|`` row; False when it belongs to the next table."""
        cells, closed = split_row(line)
        text = _lower_words(cells)
        if _is_banner(cells):
            if self._starts_new_table():
                return False
            self._banner(cells[0])
        elif _is_device_header(text):
            if self._starts_new_table():
                return False
            self.first_header = text
            self.section = _DEVICES
        elif "bus-id" in text and self.first_header is not None and self.layout is None:
            try:
                self.layout = _layout_from_headers(self.first_header, text)
            except _RowError as err:
                raise self._fail(str(err), index) from None
        elif _is_process_header(text):
            self._process_header(cells, index)
        elif _is_idle_row(cells):
            self._idle_row(cells, index)
        else:
            self._data_row(cells, closed, index)
        self._note_table_line(index, border=False)
        return True

    def _banner(self, cell: str) -> None:
        words = cell.split()
        for pos, word in enumerate(words):
            nxt = words[pos + 1] if pos + 1 < len(words) else None
            if word.lower() == "npu-smi" and nxt and self.version is None and len(nxt) <= _MAX_VERSION_CHARS:
                self.version = nxt
            elif word.lower().startswith("version:"):
                value = word[len("version:"):] or nxt
                if value and self.driver_version is None and len(value) <= _MAX_VERSION_CHARS:
                    self.driver_version = value

    def _process_header(self, cells: List[str], index: int) -> None:
        if not self.devices:
            raise self._fail("process table before any device row", index)
        self._drop_pending("second row missing")
        try:
            self.proc_cols = _process_columns(cells)
        except _RowError as err:
            raise self._fail(str(err), index) from None
        self.section = _PROCESSES

    def _idle_row(self, cells: List[str], index: int) -> None:
        if not self.devices:
            raise self._fail("process rows before any device row", index)
        npu = _idle_npu(cells)
        if npu is not None:
            self.idle.append(npu)
        self.section = _PROCESSES

    def _data_row(self, cells: List[str], closed: bool, index: int) -> None:
        if self.section == _PROCESSES:
            self._process_row(cells, closed, index)
            return
        if self.layout is None:
            if self.first_header is not None:
                raise self._fail("expected the second device header row (Chip | Bus-Id | ...)", index)
            if self.inherited is None:
                raise self._fail("table row before the npu-smi device header", index)
            self.layout = self.inherited
            self.section = _DEVICES
            self.warnings.append(
                f"line {index + 1}: table without header rows; layout of the previous table assumed"
            )
        if not closed:
            # A row without its closing "|" was cut by the paste: its last number may be cut too
            # ("4175 / 655"), so it is not used at all.
            self._drop_pending("second row cut off")
            self.warnings.append(f"line {index + 1}: row cut off; table truncated here")
            self.cut_short = True
            return
        try:
            self._device_row(cells, index)
        except _RowError as err:
            raise self._fail(str(err), index) from None

    def _device_row(self, cells: List[str], index: int) -> None:
        assert self.layout is not None
        if self.pending is None:
            self.pending = (_read_first_row(cells), index + 1)
            return
        first, _ = self.pending
        try:
            device = _read_second_row(cells, first, self.layout)
        except _RowError as second_err:
            # Maybe the first row of the next NPU, its predecessor's second row lost in a paste.
            try:
                replacement = _read_first_row(cells)
            except _RowError:
                raise second_err from None
            self._drop_pending("second row missing")
            self.pending = (replacement, index + 1)
            return
        self.pending = None
        key = (device.npu_id, device.chip_id)
        if key in self.seen_chips:
            self.warnings.append(f"line {index + 1}: NPU {device.npu_id} chip {device.chip_id} listed twice")
        self.seen_chips.add(key)
        self.devices.append(device)

    def _process_row(self, cells: List[str], closed: bool, index: int) -> None:
        if self.proc_cols is None:
            self.warnings.append(f"line {index + 1}: process row without a process header; skipped")
            return
        if not closed:
            self.warnings.append(f"line {index + 1}: process row cut off; skipped")
            return
        try:
            self.processes.append(_read_process_row(cells, self.proc_cols))
        except _RowError as err:
            self.warnings.append(f"line {index + 1}: process row not understood ({err}); skipped")

    # -- result
    def result(self) -> NpuSmiInfo:
        if self.layout is None:
            if self.first_header is not None:
                raise NpuSmiParseError(
                    "device header without its second row (Chip | Bus-Id | ...)",
                    self.last_table_line,
                    self.lines[self.last_table_line - 1],
                )
            line_no = self.first_table_line or self.first_text_line
            reason = "no npu-smi device table found"
            raise NpuSmiParseError(reason, line_no, self.lines[line_no - 1] if line_no else "")
        if self.pending is not None:
            first, _ = self.pending
            self._drop_pending("second row missing")
            self.warnings.append(f"table truncated after NPU {first.npu_id}")
        if not self.devices:
            raise NpuSmiParseError(
                "table has no device rows", self.last_table_line, self.lines[self.last_table_line - 1]
            )
        if not self.last_was_border and not self.cut_short:
            self.warnings.append(
                f"table ends without its closing border at line {self.last_table_line} (output truncated?)"
            )
        return NpuSmiInfo(
            version=self.version,
            driver_version=self.driver_version,
            devices=list(self.devices),
            processes=list(self.processes),
            idle_npus=list(self.idle),
            process_table_present=self.proc_cols is not None or bool(self.idle),
            warnings=list(self.warnings),
            layout=self.layout.name,
        )


def _split_lines(text: str) -> List[str]:
    if not isinstance(text, str):
        raise NpuSmiParseError(f"expected text, got {type(text).__name__}")
    if not text.strip():
        raise NpuSmiParseError("the text is empty")
    # Only "\n" ends a line, so line numbers match what an editor shows.
    return [line.rstrip("\r") for line in text.split("\n")]


def _has_table_line(lines: List[str], start: int) -> int:
    for index in range(start, len(lines)):
        line = lines[index].strip()
        if line.startswith("|") or is_border(line):
            return index + 1
    return 0


def parse_npu_smi_info(text: str) -> NpuSmiInfo:
    """Parse the first ``npu-smi info`` table in ``text``.

    Text around the table (prompts, labels) is ignored. Raises ``NpuSmiParseError`` when there
    is no table, or the table does not fit any known layout.
    """
    lines = _split_lines(text)
    reader = _TableReader(lines, 0, None)
    end = reader.read()
    info = reader.result()
    more = _has_table_line(lines, end)
    if more:
        note = f"more table output from line {more} ignored (parse_all_npu_smi_tables reads every table)"
        info = replace(info, warnings=[*info.warnings, note])
    return info


def parse_all_npu_smi_tables(text: str) -> List[NpuSmiInfo]:
    """Parse every ``npu-smi info`` table in ``text``, in order (at least one, or it raises).

    A table pasted without its banner and header rows reuses the previous table's layout.
    """
    lines = _split_lines(text)
    tables: List[NpuSmiInfo] = []
    start = 0
    inherited: Optional[_Layout] = None
    while start < len(lines):
        reader = _TableReader(lines, start, inherited)
        end = reader.read()
        if tables and not reader.started:
            break  # only prose after the last table
        tables.append(reader.result())
        inherited = reader.layout
        if end <= start:  # cannot happen (read() always consumes a line), but never loop forever
            break
        start = end
    return tables


# --------------------------------------------------------------------------- key : value outputs


def _keyvalue_lines(text: str) -> List[Tuple[Optional[str], str]]:
    """``(key, value)`` per ``Key   : value`` line, ``(None, "")`` for a blank line."""
    if not isinstance(text, str):
        raise NpuSmiParseError(f"expected text, got {type(text).__name__}")
    out: List[Tuple[Optional[str], str]] = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            out.append((None, ""))
            continue
        # npu-smi pads every key to a column and prints " : "; requiring the blank before the
        # colon keeps shell prompts ("root@host:~#") and "[WARNING]: ..." out.
        cut = line.find(" :")
        if cut <= 0:
            continue
        key = line[:cut].strip()
        if key and not key.startswith(("|", "+", "$", "#")):
            out.append((key, line[cut + 2 :].strip()))
    if not any(key for key, _ in out):
        raise NpuSmiParseError("no 'Key : value' lines found in npu-smi output")
    return out


def parse_npu_smi_keyvalue(text: str) -> Dict[str, str]:
    """``npu-smi info -t board|usages|health|common|... -i N`` output as a dict.

    Keys are as printed (``"HBM Capacity(MB)"``), values are stripped strings (``"NA"`` kept).
    When a key repeats (the MCU block after the chip block of ``-t common``, several NPUs in
    ``info -l``) the first value wins; use ``parse_npu_smi_keyvalue_blocks`` to see them all.
    """
    result: Dict[str, str] = {}
    for key, value in _keyvalue_lines(text):
        if key is not None and key not in result:
            result[key] = value
    return result


def parse_npu_smi_keyvalue_blocks(text: str) -> List[Dict[str, str]]:
    """The same output split into the blank-line separated blocks npu-smi prints.

    ``info -l`` gives one block per NPU; ``-t common`` a chip block then a ``Chip Name : mcu``
    block. Within a block a repeated key keeps its first value.
    """
    blocks: List[Dict[str, str]] = []
    current: Dict[str, str] = {}
    for key, value in _keyvalue_lines(text):
        if key is None:
            if current:
                blocks.append(current)
                current = {}
            continue
        current.setdefault(key, value)
    if current:
        blocks.append(current)
    return blocks
