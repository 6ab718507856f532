"""The incidents of one input, each with its own causes, and the context rules of the signatures.

A notes file, a ticket or a long dmesg often holds several separate failures: sections of a notes
file ("## MindIE 1.0 start-up", "---"), runs hours apart, boots of one host. Ranking all their
lines as one chain would make the first failure's cause explain the others. So the matches of a
scan are split where the input says a new story starts:

* a section heading (Markdown ``#`` heading or a ``---``/``===``/``***`` rule) between two matches;
* a gap of more than ``TIME_GAP_S`` between the timestamps of two matches, or kernel time
  (``[  12.345678]``) going backwards (the host booted again).

A part cut off by time alone that holds no specific signature (only generic wrappers) is joined to
the part before it: a lone wrapper is the tail of the failure above it, not a failure of its own.

Within each incident the context rules of the database (``after_any``, ``requires_any``,
``unless_any``, ``overrides``; docs/signatures.md) decide which reading of a line counts: 507899
right after an allocation failure is memory, 507033 without an OPP verification error is a device
that is busy or absent.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from msgspec import Struct
from msgspec.structs import replace

from ascend_doctor.lazy import lazy_re
from ascend_doctor.logscan.hits import SignatureHit, order_hits

TIME_GAP_S = 30 * 60  # a log quiet for longer than this is a new run, not the same failure
_KERNEL_TIME = lazy_re(r"^\s*\[\s*([0-9]+\.[0-9]+)\]")
# 2025-04-08-18:07:20 (plog), 2025-04-08 18:07:20 / 2025-04-08T18:07:20 (ISO, MindIE, Python logging)
_DATE_TIME = lazy_re(r"\b(20[0-9]{2})-([01][0-9])-([0-3][0-9])[-T ]([0-2][0-9]):([0-5][0-9]):([0-5][0-9])")
# vLLM: "INFO 04-08 18:07:20" (no year)
_VLLM_TIME = lazy_re(r"\b(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) ([01][0-9])-([0-3][0-9]) "
                        r"([0-2][0-9]):([0-5][0-9]):([0-5][0-9])\b")

Event = Tuple[int, str, str]  # (line, signature id, shown text)


class Incident(Struct, frozen=True):
    """One separate failure in the input: its lines, why it starts there, and its causes."""

    number: int
    first_line: int
    last_line: int
    hits: Tuple[SignatureHit, ...]  # most specific first, secondary symptoms last
    label: str = ""  # the section heading it falls under, if any
    starts_because: str = ""  # "section", "time gap", "reboot" ("" for the first)

    @property
    def primary(self) -> Optional[SignatureHit]:
        return self.hits[0] if self.hits else None

    def to_dict(self) -> Dict[str, Any]:
        return {
            "number": self.number,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "label": self.label,
            "starts_because": self.starts_because,
            "primary": self.primary.id if self.primary else None,
            "findings": [
                {"id": hit.id, "count": hit.count, "first_line": hit.first_line, "last_line": hit.last_line,
                 "line_text": hit.first_text, "secondary_of": hit.secondary_of, "overridden": hit.overridden}
                for hit in self.hits
            ],
        }


def event_time(text: str) -> Tuple[str, Optional[float]]:
    """The clock of a log line and its time in seconds on that clock: ("kernel", uptime),
    ("wall", seconds), or ("", None) when the line has no timestamp."""
    kernel = _KERNEL_TIME.match(text)
    if kernel:
        return "kernel", float(kernel.group(1))
    found = _DATE_TIME.search(text)
    if found:
        year, month, day, hour, minute, second = (int(part) for part in found.groups())
        return "wall", _seconds(year, month, day, hour, minute, second)
    found = _VLLM_TIME.search(text)
    if found:
        month, day, hour, minute, second = (int(part) for part in found.groups())
        return "wall", _seconds(2000, month, day, hour, minute, second)
    return "", None


def _seconds(year: int, month: int, day: int, hour: int, minute: int, second: int) -> float:
    # Differences only matter, so a day count that ignores month lengths is close enough.
    return ((((year * 12 + month) * 31 + day) * 24 + hour) * 60 + minute) * 60.0 + second


def _groups(events: Sequence[Event], markers: Sequence[Tuple[int, str]]) -> List[Tuple[List[Event], str, str]]:
    """Split the events where a section heading, a time gap or a reboot separates them."""
    groups: List[Tuple[List[Event], str, str]] = []
    marker_index = 0
    label = ""
    last_time: Dict[str, float] = {}
    for event in events:
        line = event[0]
        reason = ""
        while marker_index < len(markers) and markers[marker_index][0] < line:
            label = markers[marker_index][1]
            marker_index += 1
            reason = "section"
        clock, seconds = event_time(event[2])
        if seconds is not None and clock in last_time:
            if clock == "kernel" and seconds + 1.0 < last_time[clock]:
                reason = reason or "reboot"
            elif abs(seconds - last_time[clock]) > TIME_GAP_S:
                reason = reason or "time gap"
        if seconds is not None:
            last_time[clock] = seconds
        if not groups or reason:
            if reason:
                last_time = {clock: seconds} if seconds is not None else {}
            groups.append(([], label, reason if groups else ""))
        groups[-1][0].append(event)
    return groups


def _merge_wrapper_only(groups: List[Tuple[List[Event], str, str]], specific: Dict[str, bool]) -> List[
        Tuple[List[Event], str, str]]:
    """Join a part with no specific signature, cut off by time alone, to the part before it (or
    after it, when first): a lone wrapper is the tail of that failure. A section of its own stays."""
    merged: List[Tuple[List[Event], str, str]] = []
    for events, label, reason in groups:
        wrapper_only = not any(specific.get(sig_id, False) for _, sig_id, _ in events)
        if merged and wrapper_only and reason != "section":
            merged[-1][0].extend(events)
            continue
        if len(merged) == 1 and reason != "section" and not any(
                specific.get(sig_id, False) for _, sig_id, _ in merged[0][0]):
            merged[0] = (merged[0][0] + events, label, "")
            continue
        merged.append((list(events), label, reason if merged else ""))
    return merged


def apply_context(hits: Sequence[SignatureHit]) -> List[SignatureHit]:
    """The hits of one incident after the context rules: entries whose context is missing are
    dropped, entries explained by another one are marked overridden (secondary symptoms)."""
    present = {hit.id: hit for hit in hits}
    kept: List[SignatureHit] = []
    for hit in hits:
        sig = hit.signature
        if sig.after_any and not any(
                ref in present and present[ref].first_line <= hit.first_line for ref in sig.after_any):
            continue
        if sig.requires_any and not any(ref in present for ref in sig.requires_any):
            continue
        if any(ref in present for ref in sig.unless_any):
            continue
        kept.append(hit)
    explained: Dict[str, str] = {}
    for hit in kept:
        for ref in hit.signature.overrides:
            explained.setdefault(ref, hit.id)
    return [replace(hit, overridden=True, secondary_of=explained[hit.id]) if hit.id in explained else hit
            for hit in kept]


def _hits_of(events: Sequence[Event], by_id: Dict[str, SignatureHit]) -> List[SignatureHit]:
    counts: Dict[str, List[Any]] = {}
    for line, sig_id, text in events:
        entry = counts.get(sig_id)
        if entry is None:
            counts[sig_id] = [1, line, line, text]
        else:
            entry[0] += 1
            entry[2] = line
    return [SignatureHit(by_id[sig_id].signature, count, first, last, text)
            for sig_id, (count, first, last, text) in counts.items()]


def _merge(incidents: Sequence[Incident]) -> List[SignatureHit]:
    """The hits of the whole input: each signature once, counted over all incidents; overridden
    only where every incident that holds it explains it."""
    merged: Dict[str, SignatureHit] = {}
    for incident in incidents:
        for hit in incident.hits:
            seen = merged.get(hit.id)
            if seen is None:
                merged[hit.id] = replace(hit, secondary_of=hit.secondary_of if hit.overridden else None)
                continue
            overridden = seen.overridden and hit.overridden
            merged[hit.id] = replace(
                seen, count=seen.count + hit.count, first_line=min(seen.first_line, hit.first_line),
                last_line=max(seen.last_line, hit.last_line), overridden=overridden,
                secondary_of=seen.secondary_of if overridden else None)
    return list(merged.values())


def find_incidents(hits: Sequence[SignatureHit], events: Sequence[Event], markers: Sequence[Tuple[int, str]],
                   complete_events: bool = True) -> Tuple[Tuple[SignatureHit, ...], Tuple[Incident, ...]]:
    """(the hits of the whole input, most specific first; its incidents) from a scan's matches."""
    if not hits:
        return (), ()
    by_id = {hit.id: hit for hit in hits}
    if not complete_events or not events:  # too many matches to keep each one: one incident
        one = order_hits(apply_context(hits))
        return one, (Incident(1, min(h.first_line for h in hits), max(h.last_line for h in hits), one),)
    specific = {hit.id: not hit.signature.generic and not hit.signature.family for hit in hits}
    groups = _merge_wrapper_only(_groups(events, markers), specific)
    if len(groups) == 1:
        one = order_hits(apply_context(hits))
        first, last = min(h.first_line for h in hits), max(h.last_line for h in hits)
        return one, (Incident(1, first, last, one, groups[0][1]),)
    incidents: List[Incident] = []
    for number, (group, label, reason) in enumerate(groups, 1):
        ordered = order_hits(apply_context(_hits_of(group, by_id)))
        incidents.append(Incident(number, group[0][0], group[-1][0], ordered, label, reason))
    # The counts of the whole input are the scan's own (events hold one entry per line and signature).
    merged = [replace(hit, count=by_id[hit.id].count, first_line=by_id[hit.id].first_line,
                      last_line=by_id[hit.id].last_line, first_text=by_id[hit.id].first_text)
              for hit in _merge(incidents)]
    return order_hits(merged), tuple(incidents)
