"""Streaming scanner and paste unwrapping: correctness, ordering, bounds on hostile input."""

from __future__ import annotations

import io
import json
import time
import tracemalloc
from typing import Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_doctor.logscan.normalize import expand_line, strip_ansi, strip_prefixes, unescape_json
from ascend_doctor.logscan.scanner import LogScanner, ScanResult, order_hits, shown_text
from ascend_doctor.logscan.signatures import load_signatures

# Real lines from tests/samples/dmesg-and-logs (vllm-ascend-3479..., fastchat-2843..., vllm-ascend-doc-npu-oom...).
EL0004 = "EL0004: [PID: 3132] 2025-10-15-16:32:16.417.528 Failed to allocate memory."
ERR00100 = "[ERROR] 2025-10-15-16:32:16 (PID:3132, Device:0, RankID:-1) ERR00100 PTA call acl api failed"
EE1001 = "EE1001: The argument is invalid.Reason: rtGetDevMsg execute failed, reason=[context pointer null]"
OOM = ("RuntimeError: NPU out of memory. Tried to allocate 260.00 MiB (NPU 0; 28.50 GiB total capacity; "
       "10.24 GiB already allocated; 10.24 GiB current active; 149.57 MiB free; "
       "10.28 GiB reserved in total by PyTorch)")
NOISE = "[2025-10-12 17:17:33.458+08:00] [26217] [33186] [server] [INFO] [http_server.cpp:54] : [endpoint] Receive"


@pytest.fixture(scope="module")
def scanner() -> LogScanner:
    return LogScanner()


class Repeat(io.RawIOBase):
    """A stream of ``size`` bytes made of ``unit`` repeated, produced on demand (never held whole)."""

    def __init__(self, unit: bytes, size: int) -> None:
        self.unit = unit
        self.left = size
        self.offset = 0

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = self.left
        n = min(n, self.left)
        out = bytearray()
        while len(out) < n:
            start = self.offset % len(self.unit)
            piece = self.unit[start:start + n - len(out)]
            out += piece
            self.offset += len(piece)
        self.left -= n
        return bytes(out)


def ids(result: ScanResult) -> List[str]:
    return [hit.id for hit in result.hits]


# -- unwrapping ----------------------------------------------------------------------------------


@pytest.mark.parametrize("raw,expected", [
    ("[rank0]: EI9999: x", "EI9999: x"),
    ("[rank12]:[W220 02:16:08.680800943 NPUStream.cpp:487] Warning",
     "[W220 02:16:08.680800943 NPUStream.cpp:487] Warning"),
    ("(VllmWorker rank=3 pid=123) RuntimeError: x", "RuntimeError: x"),
    ("(EngineCore_DP0 pid=3132) EL0004: x", "EL0004: x"),
    ("(raylet, ip=96.13.20.32) [2025-07-09 17:31:56,030 E 42912 42956] (raylet) x",
     "[2025-07-09 17:31:56,030 E 42912 42956] (raylet) x"),
    ("deepseek-v3_2-exp  | (EngineCore_DP0 pid=414) [ERROR] x", "[ERROR] x"),
    ("api-1  | ERROR 08-14 11:52:46 worker_base.py:581] Traceback", "Traceback"),
    ("(NPURayWorkerWrapper pid=1189) ERROR 08-14 11:52:46 worker_base.py:581] x", "x"),
    ("(Worker_DP3_TP0_EP12 pid=9196) INFO 01-19 05:52:13 [backends.py:643] Using cache", "Using cache"),
    ("(allocate:torch_npu/csrc/core/npu/NPUCachingAllocator.cpp:2050 NPU error",
     "(allocate:torch_npu/csrc/core/npu/NPUCachingAllocator.cpp:2050 NPU error"),
    ("| NPU   Name                | Health        |", "| NPU   Name                | Health        |"),
])
def test_strip_prefixes(raw: str, expected: str) -> None:
    assert strip_prefixes(raw) == expected


def test_strip_ansi() -> None:
    assert strip_ansi("\x1b[1;31mERROR\x1b[0m x \x1b]0;title\x07y") == "ERROR x y"
    assert strip_ansi("plain") == "plain"


def test_unescape_json() -> None:
    assert unescape_json(r"a\nb\t\"q\" \\n \u001b[31m") == 'a\nb\t"q" \\n \x1b[31m'


def test_expand_json_escaped_paste() -> None:
    physical = json.dumps({"log": "[rank0]: " + EL0004 + "\n\x1b[31m[rank0]: " + ERR00100 + "\x1b[0m"})
    # A prefix is only stripped at the start of a logical line; the JSON wrapper keeps the first one.
    assert expand_line(physical) == ['{"log": "[rank0]: ' + EL0004, ERR00100 + '"}']


def test_expand_keeps_a_literal_backslash_n_in_a_plain_line() -> None:
    # fastchat-2843: "TraceBack (most recent call last):\n        ctx is NULL!" pasted with a literal \n.
    line = r"        TraceBack (most recent call last):\n        ctx is NULL![FUNC:GetDevErrMsg]"
    assert expand_line(line) == ["        TraceBack (most recent call last):",
                                 "        ctx is NULL![FUNC:GetDevErrMsg]"]


# -- matching and ordering --------------------------------------------------------------------------


def test_counts_and_line_numbers(scanner: LogScanner) -> None:
    text = "\n".join([NOISE, EL0004, NOISE, ERR00100, EL0004, EL0004]) + "\n"
    result = scanner.scan_text(text)
    assert ids(result) == ["SIG-DRV-EL0004", "SIG-PTA-ERR00100"]
    el = result.hits[0]
    assert (el.count, el.first_line, el.last_line) == (3, 2, 6)
    assert el.first_text == EL0004
    assert result.lines == 6 and result.matched_lines == 4


def test_generic_wrapper_points_at_specific_cause(scanner: LogScanner) -> None:
    result = scanner.scan_text(ERR00100 + "\n" + EL0004 + "\n")
    assert ids(result) == ["SIG-DRV-EL0004", "SIG-PTA-ERR00100"]
    assert result.hits[1].secondary_of == "SIG-DRV-EL0004"
    assert result.hits[0].secondary_of is None


def test_only_generic_wrappers(scanner: LogScanner) -> None:
    result = scanner.scan_text(EE1001 + "\n" + ERR00100 + "\n")
    assert ids(result) == ["SIG-RT-EE1001", "SIG-PTA-ERR00100"]
    assert all(hit.secondary_of is None for hit in result.hits)


def test_order_hits_is_stable() -> None:
    result = LogScanner().scan_text(OOM + "\n" + EL0004 + "\n")
    again = order_hits(list(reversed(result.hits)))
    assert [h.id for h in again] == [h.id for h in result.hits] == ["SIG-DRV-EL0004", "SIG-OOM-NPU-OUT-OF-MEMORY"]


def test_no_final_newline(scanner: LogScanner) -> None:
    result = scanner.scan_text(NOISE + "\n" + OOM)
    assert ids(result) == ["SIG-OOM-NPU-OUT-OF-MEMORY"] and result.lines == 2


def test_crlf_and_invalid_utf8(scanner: LogScanner) -> None:
    data = b"\xff\xfe garbage \xc3\x28\r\n" + EL0004.encode() + b" \xe4\xb8\r\n"
    result = scanner.scan_bytes(data)
    assert ids(result) == ["SIG-DRV-EL0004"] and result.hits[0].first_line == 2
    assert "\ufffd" in result.hits[0].first_text


def test_shown_text_is_a_window_around_the_match() -> None:
    text = "x" * 1000 + "EL0004 here" + "y" * 1000
    shown = shown_text(text, 1000, 1006, limit=100)
    assert "EL0004 here" in shown and shown.startswith("…") and shown.endswith("…") and len(shown) <= 102


def test_chunk_boundaries_do_not_change_results() -> None:
    lines = []
    for i in range(3000):
        lines.append(f"{NOISE} {i}")
        if i % 97 == 0:
            lines.append(EL0004 if i % 2 else OOM)
    data = ("\n".join(lines) + "\n").encode()
    big = LogScanner(chunk_size=1 << 20).scan_bytes(data)
    small = LogScanner(chunk_size=4096).scan_bytes(data)
    assert [(h.id, h.count, h.first_line, h.last_line) for h in big.hits] == \
           [(h.id, h.count, h.first_line, h.last_line) for h in small.hits]
    assert big.lines == small.lines == len(lines)


# -- the prefilter never loses a match (property) -------------------------------------------------

_DB = load_signatures()
_FRAGMENTS = sorted({lit for sig in _DB.signatures for lit in sig.literals}) + [
    "error", "failed", "507", "EL00", "code is", "x", "Error:", "[rank0]:", "(VllmWorker rank=1 pid=9)",
    EL0004, OOM, EE1001, "retCode: -8020", "ret is -8005", "PCIe Bus Error: severity=Uncorrected (Fatal)",
]
_SCANNER = LogScanner(_DB)
_HAS_CONTEXT_RULE = {sig.id: bool(sig.after_any or sig.requires_any or sig.unless_any) for sig in _DB.signatures}


def brute_force(lines: List[str]) -> Dict[str, Tuple[int, int]]:
    """Every signature on every line, the slow obvious way: sig id -> (count, first line).

    A code family counts on a logical line only when no other signature matched there."""
    found: Dict[str, Tuple[int, int]] = {}
    for number, line in enumerate(lines, 1):
        on_line = set()
        for text in expand_line(line):
            here = {sig.id for sig in _DB.signatures if not sig.family and sig.regex.search(text)}
            if not here:
                here = {sig.id for sig in _DB.signatures if sig.family and sig.regex.search(text)}
            on_line |= here
        for sig_id in on_line:
            count, first = found.get(sig_id, (0, number))
            found[sig_id] = (count + 1, first)
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(_FRAGMENTS), max_size=5).map(" ".join), min_size=1, max_size=30))
def test_prefilter_equals_brute_force(lines: List[str]) -> None:
    result = _SCANNER.scan_text("\n".join(lines) + "\n")
    got = {hit.id: (hit.count, hit.first_line) for hit in result.hits}
    expected = brute_force(lines)
    # The brute force knows no context rules (logscan/incidents.py): a signature that carries one
    # (507899 counts as "after an allocation failure" only after EL0004 ...) may be dropped by them.
    # hypothesis 6.141 (Python 3.9) finds that case: lines=['drvRetCode=87'].
    dropped = {sig_id for sig_id in expected.keys() - got.keys() if _HAS_CONTEXT_RULE[sig_id]}
    assert got == {sig_id: seen for sig_id, seen in expected.items() if sig_id not in dropped}


# -- bounds on hostile input --------------------------------------------------------------------


def peak_memory_of(func) -> Tuple[object, int]:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    try:
        value = func()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return value, peak


def test_ten_megabyte_single_line_is_bounded(scanner: LogScanner) -> None:
    unit = (NOISE + " " + EL0004 + " ").encode()
    started = time.monotonic()
    result, peak = peak_memory_of(lambda: scanner.scan_stream(Repeat(unit, 10 * 1024 * 1024), "one-line"))
    assert isinstance(result, ScanResult)
    assert time.monotonic() - started < 20
    assert peak < 16 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB for a 10 MB line"
    assert result.lines == 1 and result.long_lines == 1
    assert ids(result) == ["SIG-DRV-EL0004"] and result.hits[0].count == 1
    assert len(result.hits[0].first_text) <= 402


def test_memory_does_not_grow_with_input(scanner: LogScanner) -> None:
    unit = ("\n".join([NOISE] * 50 + [EL0004]) + "\n").encode()
    result, peak = peak_memory_of(lambda: scanner.scan_stream(Repeat(unit, 24 * 1024 * 1024), "big"))
    assert isinstance(result, ScanResult)
    assert result.bytes_read == 24 * 1024 * 1024
    assert peak < 12 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB for 24 MB of log"


def test_json_escaped_giant_line_is_cut_at_escaped_newlines() -> None:
    scanner = LogScanner(chunk_size=4096, max_segment=4096)
    record = NOISE + r"\n" + EL0004 + r"\n"
    data = ('{"log": "' + record * 2000 + OOM + '"}\n').encode()
    result = scanner.scan_bytes(data)
    assert ids(result) == ["SIG-DRV-EL0004", "SIG-OOM-NPU-OUT-OF-MEMORY"]
    assert result.hits[0].first_text == EL0004
    assert result.lines == 1 and result.long_lines == 1 and result.matched_lines == 1


def test_binary_garbage_is_scanned_without_error(scanner: LogScanner) -> None:
    import random

    rng = random.Random(7)
    data = bytes(rng.getrandbits(8) for _ in range(300_000)) + b"\x00\x00" + EL0004.encode()
    result = scanner.scan_bytes(data)
    assert result.binary
    assert "SIG-DRV-EL0004" in ids(result)


def test_empty_input(scanner: LogScanner) -> None:
    result = scanner.scan_bytes(b"")
    assert result.hits == () and result.lines == 0 and result.bytes_read == 0 and result.complete


def test_byte_budget_stops_early(scanner: LogScanner) -> None:
    unit = (NOISE + "\n").encode()
    result = scanner.scan_stream(Repeat(unit, 5 * 1024 * 1024), max_bytes=1024 * 1024)
    assert not result.complete and result.stop_reason == "byte budget"
    assert result.bytes_read == 1024 * 1024


def test_deadline_stops_early(scanner: LogScanner) -> None:
    ticks = iter(range(1000))

    def clock() -> float:
        return float(next(ticks))

    unit = (NOISE + "\n").encode()
    result = scanner.scan_stream(Repeat(unit, 50 * 1024 * 1024), deadline=3.0, clock=clock)
    assert not result.complete and result.stop_reason == "time budget"
    assert result.bytes_read < 50 * 1024 * 1024


def test_exact_budget_is_complete(scanner: LogScanner) -> None:
    data = (EL0004 + "\n").encode()
    result = scanner.scan_stream(io.BytesIO(data), max_bytes=len(data))
    assert result.complete and ids(result) == ["SIG-DRV-EL0004"]


def test_scan_path(tmp_path, scanner: LogScanner) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "plog-1_2025.log"
    path.write_text(NOISE + "\n" + OOM + "\n", encoding="utf-8")
    result = scanner.scan_path(str(path))
    assert result.source == str(path) and ids(result) == ["SIG-OOM-NPU-OUT-OF-MEMORY"]
    data = result.to_dict()
    assert data["findings"][0]["id"] == "SIG-OOM-NPU-OUT-OF-MEMORY" and data["findings"][0]["first_line"] == 2
    json.dumps(data)

