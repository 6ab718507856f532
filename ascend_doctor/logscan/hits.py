"""One signature found in one input (``SignatureHit``), and the order hits are reported in: what
the scanner produces and the incident grouping (incidents.py) reorders, kept apart so that neither
imports the other back."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

from msgspec import Struct
from msgspec.structs import replace

from ascend_doctor.logscan.signatures import Signature


class SignatureHit(Struct, frozen=True):
    """One signature found in one input: how often, where first/last, and the first line."""

    signature: Signature
    count: int  # physical lines that matched
    first_line: int
    last_line: int
    first_text: str
    # For generic wrappers (ERR99999, EE1001 ...): the most specific signature found with them.
    secondary_of: Optional[str] = None
    # Set when a context rule of another signature found with it explains this one
    # (``overrides`` in signatures.yaml): reported as a secondary symptom of that signature.
    overridden: bool = False

    @property
    def secondary(self) -> bool:
        """Reported after the causes: a generic wrapper, or a line explained by its context."""
        return self.signature.generic or self.overridden

    @property
    def id(self) -> str:
        return self.signature.id

    def to_dict(self) -> Dict[str, Any]:
        sig = self.signature
        return {
            "id": sig.id,
            "title": sig.title,
            "category": sig.category,
            "specificity": sig.specificity,
            "generic": sig.generic,
            "fault": sig.fault,
            "family": sig.family,
            "secondary_of": self.secondary_of,
            "overridden": self.overridden,
            "count": self.count,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "line_text": self.first_text,
            "meaning": sig.meaning,
            "causes": list(sig.causes),
            "check_next": list(sig.check_next),
            "fix": list(sig.fix),
            "source": list(sig.source),
        }


def order_hits(hits: Sequence[SignatureHit]) -> Tuple[SignatureHit, ...]:
    """Most specific first; generic wrappers (and lines explained by their context) last, pointing
    at the most specific cause (an overridden line keeps the signature that explains it)."""

    def key(hit: SignatureHit) -> Tuple[int, int, str]:
        return (-hit.signature.specificity, hit.first_line, hit.signature.id)

    specific = sorted((h for h in hits if not h.secondary), key=key)
    generic = sorted((h for h in hits if h.secondary), key=key)
    if specific:
        top = specific[0].signature.id
        generic = [h if h.overridden and h.secondary_of else replace(h, secondary_of=top) for h in generic]
    return tuple(specific + generic)
