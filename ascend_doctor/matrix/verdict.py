"""Verdicts: what the matrix says about one pairing, with the sources that say it.

RECOMMENDED  the release's own pairing (what Huawei ships or installs together)
COMPATIBLE   documented to work (or, with ``inferred``, derived from release codes / naming rules;
             with ``uncertain``, from a statement whose meaning its source leaves open: checks WARN)
INCOMPATIBLE documented not to work
UNKNOWN      the matrix has nothing on it — never the same thing as INCOMPATIBLE
"""

from __future__ import annotations

import enum
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from msgspec import Struct, field

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text


class VerdictKind(str, enum.Enum):
    RECOMMENDED = "recommended"
    COMPATIBLE = "compatible"
    INCOMPATIBLE = "incompatible"
    UNKNOWN = "unknown"

    @property
    def ok(self) -> bool:
        return self in (VerdictKind.RECOMMENDED, VerdictKind.COMPATIBLE)

    def __str__(self) -> str:
        return self.value


class Verdict(Struct, frozen=True):
    kind: VerdictKind
    # English (code and JSON read it); an ascend_doctor.i18n_text.Text, so that a finding can show it
    # translated with localized()
    message: str
    sources: Tuple[str, ...] = ()
    suggestion: Optional[str] = None
    inferred: bool = False  # from release codes or a naming rule, not from a published pairing
    notes: Tuple[str, ...] = ()  # conflicting sources, caveats
    # the source itself is ambiguous ("版本兼容性说明": runs with, or only upgrade-compatible?):
    # shown as "compatible (uncertain)" and graded WARN by the checks, never PASS
    uncertain: bool = False

    @property
    def ok(self) -> bool:
        return self.kind.ok

    @property
    def label(self) -> str:
        """``compatible (uncertain)`` / ``compatible (inferred)`` / ``recommended`` …"""
        if self.uncertain:
            return f"{self.kind.value} (uncertain)"
        return self.kind.value + (" (inferred)" if self.inferred else "")

    def to_dict(self) -> Dict[str, Any]:
        data: Dict[str, Any] = {"verdict": self.kind.value, "message": self.message, "sources": list(self.sources)}
        if self.inferred:
            data["inferred"] = True
        if self.uncertain:
            data["uncertain"] = True
        if self.suggestion:
            data["suggestion"] = self.suggestion
        if self.notes:
            data["notes"] = list(self.notes)
        return data

    def with_prefix(self, prefix: str) -> Verdict:
        """``prefix`` + the message; a ``Text`` prefix ("{name} uses CANN {cann}: ") keeps both translatable."""
        message = Text(N_("{prefix}{message}"), prefix=prefix, message=self.message) if prefix else self.message
        return Verdict(self.kind, message, self.sources, self.suggestion, self.inferred, self.notes, self.uncertain)

    def with_notes(self, notes: Iterable[str]) -> Verdict:
        extra = tuple(n for n in notes if n and n not in self.notes)
        return Verdict(self.kind, self.message, self.sources, self.suggestion, self.inferred, self.notes + extra,
                       self.uncertain)


def unknown(message: str, suggestion: Optional[str] = None, sources: Sequence[str] = ()) -> Verdict:
    return Verdict(VerdictKind.UNKNOWN, message, tuple(sources), suggestion)


# Evidence tiers: a published pairing beats a release-code inference, which beats a co-listing.
TIER_PUBLISHED = 3
TIER_INFERRED = 2
TIER_WEAK = 1


class Evidence(Struct, frozen=True):
    kind: VerdictKind
    message: str
    sources: Tuple[str, ...]
    tier: int = TIER_PUBLISHED
    notes: Tuple[str, ...] = field(default=())
    uncertain: bool = False


def decide(evidence: Sequence[Evidence], unknown_message: str, suggestion: Optional[str] = None) -> Verdict:
    """One verdict from several pieces of evidence.

    The highest tier present decides; within it RECOMMENDED beats INCOMPATIBLE beats COMPATIBLE.
    Evidence pointing the other way (from any tier) is kept as a note with its sources.
    """
    evidence = [e for e in evidence if e.kind is not VerdictKind.UNKNOWN]
    if not evidence:
        return unknown(unknown_message, suggestion)
    top = max(e.tier for e in evidence)
    deciding = [e for e in evidence if e.tier == top]
    chosen: List[Evidence] = []
    for kind in (VerdictKind.RECOMMENDED, VerdictKind.INCOMPATIBLE, VerdictKind.COMPATIBLE):
        chosen = [e for e in deciding if e.kind == kind]
        if chosen:
            break
    winner = chosen[0]
    sources: List[str] = []
    for e in chosen:
        sources.extend(s for s in e.sources if s not in sources)
    notes: List[str] = []
    for e in chosen:
        notes.extend(n for n in e.notes if n not in notes)
    for e in evidence:
        if e.kind.ok != winner.kind.ok:
            where = "; ".join(e.sources)
            note = f"conflicting source: {e.message}" + (f" ({where})" if where else "")
            if note not in notes:
                notes.append(note)
    return Verdict(
        kind=winner.kind,
        message=winner.message,
        sources=tuple(sources),
        suggestion=suggestion if winner.kind != VerdictKind.RECOMMENDED else None,
        inferred=top < TIER_PUBLISHED,
        notes=tuple(notes),
        uncertain=all(e.uncertain for e in chosen),
    )
