"""Keep credentials out of anything we print: URLs with user:pass@, api keys in query strings,
bearer tokens and the --api-key value itself."""

from __future__ import annotations

from typing import Iterable, List, Tuple
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

from ascend_doctor.lazy import lazy_re

MASK = "***"

# Query parameters that carry a secret in the gateways people put in front of vLLM/MindIE.
SECRET_QUERY_KEYS = frozenset({
    "api_key", "apikey", "api-key", "key", "token", "access_token", "auth", "authorization",
    "password", "passwd", "secret", "sig", "signature", "x-api-key",
})

_USERINFO_RE = lazy_re(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/@\s]+)@")
_BEARER_RE = lazy_re(r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/=-]+")
# Secrets shorter than this are not searched for in free text: masking "a" everywhere would
# mangle the message and protect nothing.
_MIN_SECRET_LEN = 4


def redact_url(url: str) -> str:
    """The URL with its user:password@ and any secret-looking query values masked."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return "<unparseable URL>"
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = "&".join(
            f"{quote(k, safe='')}={MASK if k.lower() in SECRET_QUERY_KEYS else quote(v, safe='')}"
            for k, v in pairs)
    if host is None and not netloc:
        return _USERINFO_RE.sub(lambda m: m.group("scheme") + MASK + "@", url)
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def url_secrets(url: str) -> List[str]:
    """The secret pieces of a URL (user, password, secret query values), to mask in free text."""
    found: List[str] = []
    try:
        parts = urlsplit(url)
        for piece in (parts.username, parts.password):
            if piece:
                found.append(piece)
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            if key.lower() in SECRET_QUERY_KEYS and value:
                found.append(value)
    except ValueError:
        pass
    return found


class Redactor:
    """Masks known secrets (and anything shaped like a credential) in text we print or store."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        unique = {s for s in secrets if s and len(s) >= _MIN_SECRET_LEN}
        # Longest first, so that a secret containing another is masked whole.
        self._secrets: Tuple[str, ...] = tuple(sorted(unique, key=len, reverse=True))

    def __call__(self, text: str) -> str:
        return self.redact(text)

    def redact(self, text: str) -> str:
        if not text:
            return text
        for secret in self._secrets:
            if secret in text:
                text = text.replace(secret, MASK)
            quoted = quote(secret, safe="")
            if quoted != secret and quoted in text:
                text = text.replace(quoted, MASK)
        text = _USERINFO_RE.sub(lambda m: m.group("scheme") + MASK + "@", text)
        return _BEARER_RE.sub(lambda m: m.group(1) + " " + MASK, text)
