"""Streaming log scanner: find every known signature in a log of any size, in bounded memory.

The input is read in binary chunks (1 MiB). In each chunk a literal prefilter (see
``literals.py``) finds the few lines that can possibly match; only those are decoded
(``errors="replace"``), unwrapped (``normalize.expand_line``) and matched against the full
patterns. Memory is bounded by one chunk plus one line segment: a physical line longer than
``max_segment`` (a whole log JSON-escaped into one line, or garbage without newlines) is cut
into segments, preferably at an escaped ``\\n``, that keep the same line number.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Dict, List, Optional, Set, Tuple

from msgspec import Struct

from ascend_doctor.logscan.hits import SignatureHit as SignatureHit
from ascend_doctor.logscan.hits import order_hits as order_hits
from ascend_doctor.logscan.literals import pivot_pattern, plan_needles
from ascend_doctor.logscan.normalize import expand_line
from ascend_doctor.logscan.signatures import Signature, SignatureDB, default_path, load_signatures

if TYPE_CHECKING:
    from ascend_doctor.logscan.incidents import Incident

DEFAULT_CHUNK = 1 << 20
DEFAULT_MAX_SEGMENT = 1 << 20
MAX_SHOWN_CHARS = 400  # of a matched line, for display and JSON
# Up to this size, input is checked needle by needle before a pivot's regex is compiled.
SMALL_INPUT = 64 * 1024


class ScanResult(Struct, frozen=True):
    source: str
    hits: Tuple[SignatureHit, ...]  # most specific first; generic wrappers last
    lines: int  # physical lines read
    bytes_read: int
    matched_lines: int  # physical lines with at least one signature (what `grep -c` counts)
    complete: bool = True  # False when a byte or time budget stopped the scan early
    stop_reason: str = ""
    long_lines: int = 0  # physical lines longer than the segment size (cut into pieces)
    binary: bool = False  # the input contains NUL bytes: probably not a text log
    elapsed_s: float = 0.0
    # The separate incidents of the input (logscan/incidents.py), each with its own causes; one
    # incident when nothing (a section heading, a time gap, a reboot) separates the lines found.
    incidents: Tuple[Incident, ...] = ()

    @property
    def primary(self) -> Optional[SignatureHit]:
        return self.hits[0] if self.hits else None

    @property
    def found(self) -> bool:
        return bool(self.hits)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "source": self.source,
            "bytes_read": self.bytes_read,
            "lines": self.lines,
            "matched_lines": self.matched_lines,
            "complete": self.complete,
            "stop_reason": self.stop_reason,
            "long_lines": self.long_lines,
            "binary": self.binary,
            "elapsed_s": round(self.elapsed_s, 3),
            "findings": [hit.to_dict() for hit in self.hits],
            "incidents": [incident.to_dict() for incident in self.incidents],
        }


def shown_text(text: str, start: int, end: int, limit: int = MAX_SHOWN_CHARS) -> str:
    """The line as shown to people: whole when short, else a window around the match."""
    if len(text) <= limit:
        return text.strip()
    left = max(0, min(start - limit // 4, len(text) - limit))
    window = text[left : left + limit].strip()
    return ("…" if left > 0 else "") + window + ("…" if left + limit < len(text) else "")


class _Accumulator:
    __slots__ = ("count", "first_line", "first_text", "last_line")

    def __init__(self, line: int, text: str) -> None:
        self.count = 1
        self.first_line = line
        self.last_line = line
        self.first_text = text


class LogScanner:
    """Reusable scanner for one signature database (building the prefilter costs ~ms)."""

    def __init__(
        self,
        db: Optional[SignatureDB] = None,
        chunk_size: int = DEFAULT_CHUNK,
        max_segment: int = DEFAULT_MAX_SEGMENT,
    ) -> None:
        self.db = db if db is not None else load_signatures()
        self.chunk_size = max(4096, chunk_size)
        self.max_segment = max(1024, max_segment)
        literals = {lit for sig in self.db.signatures for lit in sig.literals}
        plan = plan_needles(literals)
        # Pivot bytes (in plan order) and the trie pattern of their needles. Each pivot's regex is
        # compiled the first time one of its needles occurs in the input: compiling them all costs
        # milliseconds, and a short dmesg usually holds none of them. The patterns themselves are
        # made here, so that the shipped database's come compiled with it (datacache.py).
        self._pivot_patterns: Dict[bytes, bytes] = {
            pivot.encode("utf-8"): pivot_pattern(needles) for pivot, needles in plan.by_pivot.items()
        }
        self._pivots = tuple(self._pivot_patterns)
        self._pivot_regexes: Dict[bytes, re.Pattern[bytes]] = {}
        # The needles grouped by their first two bytes, for the small-input check: a code family
        # brings ~100 needles (EL00 ... EL89) that share one head, so most of them are skipped
        # with a single search for the head.
        self._pivot_heads: Dict[bytes, Dict[bytes, Tuple[bytes, ...]]] = {}
        for pivot, needles in plan.by_pivot.items():
            heads: Dict[bytes, List[bytes]] = {}
            for needle in needles:
                encoded = needle.encode("utf-8")
                heads.setdefault(encoded[:2], []).append(encoded)
            self._pivot_heads[pivot.encode("utf-8")] = {head: tuple(group) for head, group in heads.items()}
        # Signatures with no usable literal are checked on every line (slow, but correct).
        self._always = tuple(sig for sig in self.db.signatures if not sig.literals)
        # needle -> signatures that need it; a line is checked only against those.
        # Literals in sorted order, not the frozenset's: set order differs between Python versions
        # (3.9 and 3.12) even with one hash seed, and these indexes are pickled into compiled.pickle.
        by_needle: Dict[bytes, List[Signature]] = {}
        for sig in self.db.signatures:
            for lit in sorted(sig.literals):
                for needle in plan.needles_of[lit]:
                    by_needle.setdefault(needle.encode("utf-8"), []).append(sig)
        self._sigs_by_needle: Dict[bytes, Tuple[Signature, ...]] = {k: tuple(v) for k, v in by_needle.items()}
        # A trie regex prefers the longest needle; shorter needles that are prefixes of the
        # matched text must count too (each needle counts as its own prefix).
        position = {needle: i for i, needle in enumerate(by_needle)}
        self._prefixes: Dict[bytes, Tuple[bytes, ...]] = {
            needle: tuple(sorted({needle[:k] for k in range(1, len(needle) + 1)} & position.keys(),
                                 key=position.__getitem__))
            for needle in by_needle
        }
        self._order = {sig.id: i for i, sig in enumerate(self.db.signatures)}

    def pivot_regex(self, pivot: bytes, data: bytes) -> Optional[re.Pattern[bytes]]:
        """The prefilter regex of one pivot byte for searching ``data``; None if it cannot match there.

        The regex (a trie of the pivot's needles) matches exactly those needles, so while it is
        not compiled yet, small input is first checked needle by needle: when none occurs, the
        search would find nothing and the regex need not be built.
        """
        regex = self._pivot_regexes.get(pivot)
        if regex is None:
            if len(data) <= SMALL_INPUT and not self._any_needle_in(pivot, data):
                return None
            regex = self._pivot_regexes[pivot] = re.compile(self._pivot_patterns[pivot])
        return regex

    def _any_needle_in(self, pivot: bytes, data: bytes) -> bool:
        for head, needles in self._pivot_heads[pivot].items():
            if head in data and any(needle in data for needle in needles):
                return True
        return False

    # -- public entry points ------------------------------------------------------------------

    def scan_path(self, path: str, max_bytes: Optional[int] = None, deadline: Optional[float] = None) -> ScanResult:
        with open(path, "rb") as stream:
            return self.scan_stream(stream, path, max_bytes=max_bytes, deadline=deadline)

    def scan_bytes(self, data: bytes, source: str = "<bytes>") -> ScanResult:
        import io

        return self.scan_stream(io.BytesIO(data), source)

    def scan_text(self, text: str, source: str = "<text>") -> ScanResult:
        return self.scan_bytes(text.encode("utf-8", errors="replace"), source)

    def scan_stream(
        self,
        stream: BinaryIO,
        source: str = "<stream>",
        max_bytes: Optional[int] = None,
        deadline: Optional[float] = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> ScanResult:
        """Scan a binary stream to its end, or until ``max_bytes`` / the ``deadline`` (clock time)."""
        run = _Run(self, source)
        started = clock()
        carry = b""
        line_no = 1
        stop_reason = ""
        while True:
            if deadline is not None and clock() > deadline:
                stop_reason = "time budget"
                break
            want = self.chunk_size
            if max_bytes is not None:
                left = max_bytes - run.bytes_read
                if left <= 0:
                    if stream.read(1):
                        stop_reason = "byte budget"
                    break
                want = min(want, left)
            data = stream.read(want)
            if not data:
                break
            if run.bytes_read == 0:
                run.binary = b"\x00" in data[:65536]
            run.bytes_read += len(data)
            buf = carry + data if carry else data
            last_nl = buf.rfind(b"\n")
            if last_nl >= 0:
                block = buf[: last_nl + 1]
                carry = buf[last_nl + 1 :]
                if line_no == 1:
                    block = blank_sample_header(block)
                run.process_block(block, line_no)
                line_no += block.count(b"\n")
            else:
                carry = buf
            carry = run.cut_long_line(carry, line_no)
        if carry and not stop_reason:
            run.process_block(blank_sample_header(carry) if line_no == 1 else carry, line_no)
            line_no += 1
        elif carry:
            line_no += 1
        from ascend_doctor.logscan.incidents import find_incidents

        hits, incidents = find_incidents(run.hits(), run.events, run.markers, complete_events=run.events_complete)
        return ScanResult(
            source=source,
            hits=hits,
            incidents=incidents,
            lines=line_no - 1,
            bytes_read=run.bytes_read,
            matched_lines=run.matched_lines,
            complete=not stop_reason,
            stop_reason=stop_reason,
            long_lines=len(run.long_line_numbers),
            binary=run.binary,
            elapsed_s=clock() - started,
        )


SAMPLE_HEADER_START = b"# source:"
SAMPLE_HEADER_END = b"# ---"
MAX_SAMPLE_HEADER_LINES = 20


def blank_sample_header(block: bytes) -> bytes:
    """``block`` (the start of the input) with an annotated sample's header lines emptied.

    A log copied into a collection starts with a header that says where it came from and what it
    shows (``# source: …``, ``# what: …``, closed by ``# ---``); its ``# what:`` line quotes the very
    messages the signatures look for, and a match there is not in the log. The rule is narrow: only
    when line 1 starts with ``# source:`` and a ``# ---`` line closes the header within 20 lines. The
    lines are emptied, not removed, so line numbers stay those of the file."""
    if not block.startswith(SAMPLE_HEADER_START):
        return block
    lines = block.split(b"\n", MAX_SAMPLE_HEADER_LINES)
    for index, line in enumerate(lines[:MAX_SAMPLE_HEADER_LINES]):
        if line.rstrip(b"\r") == SAMPLE_HEADER_END:
            return b"\n" * (index + 1) + b"\n".join(lines[index + 1:])
        if not line.startswith(b"#"):
            break
    return block


# What the incidents of an input are made from (logscan/incidents.py): every match and every section
# heading, up to these counts (a log with more is judged as one incident).
MAX_EVENTS = 20000
MAX_MARKERS = 2000
# A section of a notes file or ticket: a Markdown heading, or a rule line (---, ===, ***).
_SECTION = re.compile(rb"\n(#{1,6}[ \t][^\n]*|(?:-{3,}|={3,}|\*{3,})[ \t]*\r?)(?=\n|$)")


class _Run:
    """State of one scan."""

    def __init__(self, scanner: LogScanner, source: str) -> None:
        self.scanner = scanner
        self.source = source
        self.bytes_read = 0
        self.binary = False
        # (line, signature id, shown text) of every match, in line order, for the incidents.
        self.events: List[Tuple[int, str, str]] = []
        self.events_complete = True
        self.markers: List[Tuple[int, str]] = []  # (line, text) of section headings
        self.matched_lines = 0
        self._last_matched_line = 0
        self._acc: Dict[str, _Accumulator] = {}
        self.long_line_numbers: Set[int] = set()

    def hits(self) -> List[SignatureHit]:
        if not self._acc:  # (the shipped scanner loads its database only when something matched)
            return []
        by_id = {sig.id: sig for sig in self.scanner.db.signatures}
        return [
            SignatureHit(by_id[sig_id], acc.count, acc.first_line, acc.last_line, acc.first_text)
            for sig_id, acc in self._acc.items()
        ]

    def cut_long_line(self, carry: bytes, line_no: int) -> bytes:
        """Process the head of an over-long line so the carried tail stays bounded."""
        limit = self.scanner.max_segment
        while len(carry) > limit:
            self.long_line_numbers.add(line_no)
            cut = carry.rfind(b"\\n", limit // 2, limit)
            cut = cut + 2 if cut >= 0 else limit
            self.process_block(carry[:cut], line_no)
            carry = carry[cut:]
        return carry

    def process_block(self, block: bytes, first_line: int) -> None:
        """Find candidate lines in a run of whole lines (or one segment) and match them."""
        self._find_markers(block, first_line)
        starts = set()
        for pivot in self.scanner._pivots:
            if pivot not in block:
                continue
            regex = self.scanner.pivot_regex(pivot, block)
            if regex is None:
                continue
            pos = 0
            while True:
                match = regex.search(block, pos)
                if match is None:
                    break
                start = block.rfind(b"\n", 0, match.start()) + 1
                starts.add(start)
                end = block.find(b"\n", match.end())
                if end < 0:
                    break
                pos = end + 1
        if self.scanner._always:
            starts.update(self._all_line_starts(block))
        if not starts:
            return
        line = first_line
        counted_to = 0
        for start in sorted(starts):
            line += block.count(b"\n", counted_to, start)
            counted_to = start
            end = block.find(b"\n", start)
            self._match_line(block[start : end if end >= 0 else len(block)], line)

    def _find_markers(self, block: bytes, first_line: int) -> None:
        """Record the section headings of a block (a newline before them; the block's own first
        line is checked too, since the block starts after a newline)."""
        if len(self.markers) >= MAX_MARKERS:
            return
        counted_to, line = 0, first_line
        for found in _SECTION.finditer(b"\n" + block):
            start = found.start()  # offset in block of the heading's line start (the added \n shifts by 1)
            line += block.count(b"\n", counted_to, start)
            counted_to = start
            self.markers.append((line, found.group(1).decode("utf-8", errors="replace").strip()[:200]))
            if len(self.markers) >= MAX_MARKERS:
                return

    @staticmethod
    def _all_line_starts(block: bytes) -> List[int]:
        starts = [0]
        pos = block.find(b"\n")
        while pos >= 0 and pos + 1 < len(block):
            starts.append(pos + 1)
            pos = block.find(b"\n", pos + 1)
        return starts

    def _match_line(self, raw: bytes, line: int) -> None:
        scanner = self.scanner
        found: Dict[str, Signature] = {}
        for pivot in scanner._pivots:
            if pivot not in raw:
                continue
            regex = scanner.pivot_regex(pivot, raw)
            if regex is None:
                continue
            for match in regex.finditer(raw):
                for needle in scanner._prefixes.get(match.group(), ()):
                    for sig in scanner._sigs_by_needle[needle]:
                        found[sig.id] = sig
        candidates = sorted(found.values(), key=lambda s: scanner._order[s.id])
        candidates.extend(scanner._always)
        if not candidates:
            return
        logical = expand_line(raw.decode("utf-8", errors="replace"))
        families = [sig for sig in candidates if sig.family]
        if families:
            matched_any = self._match_with_families(candidates, families, logical, line)
        else:
            matched_any = False
            for sig in candidates:
                for text in logical:
                    found_at = sig.regex.search(text)
                    if found_at:
                        self._record(sig.id, line, text, found_at.start(), found_at.end())
                        matched_any = True
                        break
        if matched_any and line != self._last_matched_line:
            self.matched_lines += 1
            self._last_matched_line = line

    def _match_with_families(self, candidates: List[Signature], families: List[Signature], logical: List[str],
                             line: int) -> bool:
        """Match one physical line when code families are among the candidates.

        A family (every ``EL****`` code ...) says less than the entry of the code itself, so on
        each logical line it counts only when no other signature matched there: ``EL0004: ...``
        is reported as SIG-DRV-EL0004 alone, an undocumented ``EL0016: ...`` as its family.
        """
        others = [sig for sig in candidates if not sig.family]
        recorded: Set[str] = set()
        matched_any = False
        for text in logical:
            specific_here = False
            for sig in others:
                found_at = sig.regex.search(text)
                if found_at is None:
                    continue
                specific_here = True
                if sig.id not in recorded:
                    recorded.add(sig.id)
                    self._record(sig.id, line, text, found_at.start(), found_at.end())
            if specific_here:
                matched_any = True
                continue
            for sig in families:
                found_at = sig.regex.search(text)
                if found_at is not None:
                    matched_any = True
                    if sig.id not in recorded:
                        recorded.add(sig.id)
                        self._record(sig.id, line, text, found_at.start(), found_at.end())
        return matched_any

    def _record(self, sig_id: str, line: int, text: str, start: int, end: int) -> None:
        if len(self.events) < MAX_EVENTS:
            if not self.events or self.events[-1][:2] != (line, sig_id):
                self.events.append((line, sig_id, shown_text(text, start, end)))
        else:
            self.events_complete = False
        acc = self._acc.get(sig_id)
        if acc is None:
            self._acc[sig_id] = _Accumulator(line, shown_text(text, start, end))
        elif acc.last_line != line:  # a long line cut into segments counts once
            acc.count += 1
            acc.last_line = line


_DEFAULT: Dict[str, LogScanner] = {}
# What a scan reads before a line holds one of the needles or matches a signature without any
# (_always); the rest, and the database itself, is DEFERRED_STATE (_ShippedScanner).
PREFILTER_STATE = frozenset({"chunk_size", "max_segment", "_pivot_patterns", "_pivots", "_pivot_heads", "_always"})
DEFERRED_STATE = frozenset({"db", "_sigs_by_needle", "_prefixes", "_order"})
# What LogScanner() derives from the database, stored with the compiled database (datacache.py).
_COMPILED_STATE = PREFILTER_STATE | (DEFERRED_STATE - {"db"})


def default_scanner() -> LogScanner:
    """The scanner for the shipped database, built once per process."""
    path = default_path()
    scanner = _DEFAULT.get(path)
    if scanner is None:
        scanner = _shipped_scanner(path)
        if scanner is None:
            db = load_signatures(path)
            scanner = _compiled_scanner(db) or LogScanner(db)
        _DEFAULT[path] = scanner
    return scanner


class _ShippedScanner(LogScanner):
    """The scanner of the shipped database made from the prefilter compiled with it, which loads the
    database and the needle indexes (DEFERRED_STATE) the first time a scan asks for them: when a
    line holds a needle, or something matched. A healthy machine's dmesg usually holds none, and
    unpickling them is ~2 ms of a ``check`` (3.11)."""

    def __getattr__(self, name: str) -> Any:  # only attributes not set yet reach here
        if name not in DEFERRED_STATE:
            raise AttributeError(name)
        db = load_signatures(default_path())
        full = _compiled_scanner(db) or LogScanner(db)
        for key in DEFERRED_STATE:
            self.__dict__[key] = getattr(full, key)
        return self.__dict__[name]


def _shipped_scanner(path: str) -> Optional[LogScanner]:
    from ascend_doctor.datacache import scanner_prefilter

    state = scanner_prefilter(path)
    if state is None or set(state) != PREFILTER_STATE:  # compiled by an older scanner
        return None
    scanner = _ShippedScanner.__new__(_ShippedScanner)
    scanner.__dict__.update(state, _pivot_regexes={})
    return scanner


def _compiled_scanner(db: SignatureDB) -> Optional[LogScanner]:
    """``LogScanner(db)`` for the shipped database, from the prefilter compiled with it
    (ascend_doctor/datacache.py): building it costs more than the scan of a short dmesg."""
    from ascend_doctor.datacache import scanner_state

    state = scanner_state(db)
    if state is None or set(state) != _COMPILED_STATE:  # compiled by an older scanner
        return None
    scanner = LogScanner.__new__(LogScanner)
    scanner.__dict__.update(state, db=db, _pivot_regexes={})
    return scanner
