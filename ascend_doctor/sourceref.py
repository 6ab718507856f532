"""What a ``source`` may say: a reference a user can open, or the evidence itself.

Every matrix entry and every log signature carries a source that is printed to users (``matrix
show``, ``explain``, ``diagnose``). A user must be able to follow it, so a source is one of:

* a URL: ``https://…`` or ``http://…``;
* a repository and a path in it: ``github.com/Ascend/pytorch COMPATIBILITY.en.md@9e73e70``
  (``host/owner/repo``, a space, the path with an optional ``@revision``, then optional words);
* an explicit marker: ``observed: …`` (what a file or command on a machine shows, so the user can
  check it on theirs) or ``unconfirmed: …`` (no public statement was found either way; used only
  where the entry itself records an unknown).

Project-internal notes (research files, section signs, seed reports, test samples, corpus paths)
are never a source: nobody outside the project can open them. Stdlib only, importable anywhere.
"""

from __future__ import annotations

import re
from typing import Optional, Pattern, Tuple

from ascend_doctor.lazy import lazy_re

OBSERVED = "observed:"
UNCONFIRMED = "unconfirmed:"
MARKERS = (OBSERVED, UNCONFIRMED)

_URL_RE = lazy_re(r"^https?://[^\s/]+\S*")
# host/owner/repo, a space, then a path (optionally @rev); words may follow.
_REPO_PATH_RE = lazy_re(r"^[a-z0-9-]+(?:\.[a-z0-9-]+)+/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+ [^\s]+")

# Words that only make sense inside this project. A user-visible text naming one of them cites
# something the user cannot open.
INTERNAL_CITATION_PATTERNS: Tuple[Tuple[str, Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE)) for name, pattern in (
        ("research notes", r"compat_facts|model_facts|anchors_[a-z0-9]|advice_review|hostile_inputs|"
                           r"house_review|newcomer_review"),
        ("seed report", r"\bseeds?[ _-]?0*\d+\b"),
        ("section sign", r"§"),
        ("test sample", r"tests/|\bfixtures/"),
        ("corpus path", r"\bcorpus\b"),
        ("research folder", r"research/|\.\./shared"),
    )
)


def internal_citation(text: str) -> Optional[str]:
    """The kind of internal note ``text`` cites (``"section sign"`` …), or None."""
    for name, pattern in INTERNAL_CITATION_PATTERNS:
        if pattern.search(text):
            return name
    return None


def source_problem(ref: str) -> Optional[str]:
    """Why ``ref`` is not a source a user can follow, or None when it is."""
    text = ref.strip()
    if not text:
        return "empty source"
    internal = internal_citation(text)
    if internal is not None:
        return f"cites a project-internal {internal}; cite the public page or the evidence instead"
    lowered = text.lower()
    for marker in MARKERS:
        if lowered.startswith(marker):
            if not text[len(marker):].strip():
                return f"'{marker}' must say what was seen or what is missing"
            return None
    if _URL_RE.match(text) or _REPO_PATH_RE.match(text):
        return None
    return ("must be a URL, 'host/owner/repo path[@rev]', or start with "
            "'observed:' or 'unconfirmed:'")
