"""How much of a reply repeats itself: the share of repeated n-grams (pure).

The measure is "seq-rep-n" of Welleck et al., "Neural Text Generation with Unlikelihood
Training" (ICLR 2020, arXiv:1908.04319): 1 - (distinct n-grams / all n-grams) over one reply,
with n = 4. Fluent text scores near 0; a reply that loops over the same phrase approaches 1.
Units are words for space-separated scripts and single characters for CJK text (Chinese has
no spaces, and the seed's replies are Chinese), so a Chinese reply is measured over character
4-grams. Punctuation is ignored.

The threshold a reply is judged against is not from that paper: see
``thresholds.MAX_REPEAT_RATIO`` for the value and why.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.lazy import lazy_re

DEFAULT_N = 4
# Fewer n-grams than this and the ratio says little (a 10-word answer can repeat "of the").
MIN_NGRAMS = 32
# Bound the work on a hostile or runaway reply.
MAX_CHARS = 200_000

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
# Compiled on first use: the Unicode classes take ~10 ms, and only `probe` scores replies.
_UNIT_RE = lazy_re(rf"[{_CJK}]|[^\W_{_CJK}]+(?:['’][^\W_{_CJK}]+)*")
_CJK_RE = lazy_re(rf"[{_CJK}]")


def units(text: str) -> List[str]:
    """Words (lower-cased) and CJK characters, in order."""
    return [u.lower() for u in _UNIT_RE.findall(text[:MAX_CHARS])]


class RepetitionScore(Struct, frozen=True):
    n: int
    units: int
    ngrams: int
    distinct: int
    ratio: Optional[float]  # None when the reply is too short to judge
    top_fragment: str  # the most frequent n-gram
    top_count: int

    @property
    def judged(self) -> bool:
        return self.ratio is not None

    def to_dict(self) -> Dict[str, Any]:
        return {"n": self.n, "units": self.units, "ngrams": self.ngrams, "distinct": self.distinct,
                "ratio": None if self.ratio is None else round(self.ratio, 4),
                "top_fragment": self.top_fragment, "top_count": self.top_count}


def repetition(text: str, n: int = DEFAULT_N, min_ngrams: int = MIN_NGRAMS) -> RepetitionScore:
    if n < 1:
        raise ValueError("n must be at least 1")
    seq = units(text)
    grams = [tuple(seq[i:i + n]) for i in range(len(seq) - n + 1)]
    if not grams:
        return RepetitionScore(n, len(seq), 0, 0, None, "", 0)
    counts = Counter(grams)
    top, top_count = counts.most_common(1)[0]
    ratio = 1.0 - len(counts) / len(grams) if len(grams) >= min_ngrams else None
    return RepetitionScore(n, len(seq), len(grams), len(counts), ratio, _join(top), top_count)


def _join(gram: Tuple[str, ...]) -> str:
    """CJK characters read naturally without spaces; words need them."""
    out = ""
    for unit in gram:
        if out and not (_CJK_RE.fullmatch(unit) and _CJK_RE.fullmatch(out[-1])):
            out += " "
        out += unit
    return out
