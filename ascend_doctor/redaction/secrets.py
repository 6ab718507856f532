"""Secrets redaction: THE policy for every output that carries host data (docs/redaction.md).

Snapshots (``env.json``, ``host.json`` command lines, captured files and command outputs),
reports in every format, ``matrix.source.json`` and echoed URLs go through this module. A secret
is recognised in two ways:

* **by name**: environment variables, ``--flags``, ``KEY=VALUE`` pairs, JSON keys and URL query
  parameters whose name says "secret" (:func:`is_secret_name`): the whole value is replaced;
* **by value**, wherever it stands (:func:`redact_text`): credentials in URLs
  (``https://user:pass@host``, also ``user:pass@host:port`` without a scheme), ``Bearer``/
  ``Basic`` credentials and ``Authorization:`` headers, ``--api-key X``/``--token=X`` inside a
  value, ``KEY=VALUE`` secrets and connection strings (``AccountKey=``, ``Password=``), signed
  URL parameters (``sig=``, ``X-Amz-Signature=``, ``token=``), ``"password": "..."`` in JSON
  text, and well-known token shapes (Hugging Face ``hf_``, GitHub ``ghp_``/``github_pat_``,
  GitLab ``glpat-``, AWS ``AKIA...``, OpenAI-style ``sk-``, Slack ``xox?-``, Google ``AIza``,
  npm, PyPI, JWTs, PEM private key blocks).

What support needs is kept: versions, paths, ports, device ids and every ``ASCEND_*``/``HCCL_*``
setting whose name is not a secret name; placeholders (``$HF_TOKEN``, ``${X}``, ``<token>``,
``***``) are left alone, and redacting twice changes nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from msgspec import Struct, structs

from ascend_doctor.lazy import lazy_re

if TYPE_CHECKING:
    from ascend_doctor.report import Report

REDACTED = "<redacted>"

# -- names -------------------------------------------------------------------------------------

# A name is split into parts at "_", "-", "." and lower->upper case changes ("AccountKey" ->
# ACCOUNT, KEY); it is secret when a part is one of these...
_SECRET_PARTS = frozenset({
    "TOKEN", "SECRET", "SECRETS", "PASSWORD", "PASSWORDS", "PASSWD", "PASSPHRASE", "PASS", "PWD", "PAT",
    "AUTH", "AUTHORIZATION", "CREDENTIAL", "CREDENTIALS", "CRED", "CREDS", "JWT", "APIKEY", "KEY", "KEYS",
    "LICENSE", "LICENCE", "COOKIE", "DSN", "SK", "OTP", "SESSIONID", "SAS",
})
# ... or ends with one of these (SSHPASS, GIT_ASKPASS_VALUE, PGPASSWORD, ACCOUNTKEY, HFTOKEN).
_SECRET_SUFFIXES = ("PASS", "PASSWORD", "PASSWD", "PWD", "TOKEN", "SECRET", "APIKEY", "ACCESSKEY", "SECRETKEY",
                    "PRIVATEKEY", "ACCOUNTKEY", "AUTHKEY")
# ... or whose last part is one of these (DB_PW).
_LAST_PARTS = frozenset({"PW"})
# In KEY=VALUE pairs (URL query strings) a signature is a secret too: sig=, X-Amz-Signature=. A
# report's "signature" key (a log signature id) is not.
_SIGNATURE_PARTS = frozenset({"SIG", "SIGNATURE"})
# Names that match the rules above but are not secrets: the shell's current folders.
_NOT_SECRET_NAMES = frozenset({"PWD", "OLDPWD"})
_NAME_PARTS = lazy_re(r"[A-Z]?[a-z0-9]+|[A-Z0-9]+(?![a-z])")


def _parts(name: str) -> List[str]:
    return [p.upper() for chunk in re.split(r"[\W_]+", name) if chunk for p in _NAME_PARTS.findall(chunk)]


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """Whether a variable, flag, key or parameter named ``name`` holds a secret."""
    bare = name.strip().lstrip("-").strip()
    if not bare or bare.upper() in _NOT_SECRET_NAMES:
        return False
    whole = re.sub(r"[\W_]+", "", bare).upper()
    if any(whole.endswith(suffix) for suffix in _SECRET_SUFFIXES):
        return True
    parts = _parts(bare)
    # "_PW" ends a password's name (DB_PW, REDIS_PW); only as the last part: "PW_MODE" is no secret.
    if len(parts) > 1 and parts[-1] in _LAST_PARTS:
        return True
    return any(part in _SECRET_PARTS or part.endswith(_SECRET_SUFFIXES) for part in parts)


# Values that say nothing secret whatever their key: booleans, nulls, the word "value".
_NOT_SECRET_VALUES = frozenset({"true", "false", "none", "null", "(null)", "nil", "yes", "no", "on", "off", "value",
                                "redacted"})


def _is_placeholder(value: str) -> bool:
    """``$HF_TOKEN``, ``${X}``, ``<token>``, ``***``, ``<redacted>``, ``false``, empty: not a secret."""
    text = value.strip().strip("'\"")
    return (not text or text.startswith("$") or (text.startswith("<") and text.endswith(">"))
            or set(text) == {"*"} or text.lower() in _NOT_SECRET_VALUES)


# -- values ------------------------------------------------------------------------------------
#
# Speed matters: captured command outputs and logs are megabytes. Patterns that start with a
# literal ("://", "hf_", "eyJ"...) run over the whole text (the regex engine jumps from one
# occurrence of the literal to the next); the others run only around an occurrence of a
# needle found with str.find ("=", "--", "@", "bearer"...). About 0.1 s per MB of log text.

_PEM = lazy_re(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
               r"(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?=[\"'])|\Z)", re.DOTALL)
# scheme://userinfo@host: the userinfo may be "user:pass", "user" (a token) or ":pass".
_URL_USERINFO = lazy_re(r"://(?P<userinfo>[^/@\s'\"<>]+)@(?=[^\s/@])")


def _shape(literal: str, rest: str, before: str = r"[A-Za-z0-9]") -> Tuple[str, re.Pattern[str]]:
    """``literal`` + ``rest``, not preceded by ``before`` (checked after the literal, so that the
    pattern still starts with the literal and the regex engine can skip to it); with the literal,
    which a text must contain for the pattern to match (a test cheaper than the search)."""
    return literal, lazy_re(re.escape(literal) + f"(?<!{before}{re.escape(literal)})" + rest)


# Well-known token shapes.
_TOKEN_SHAPES: Tuple[Tuple[str, re.Pattern[str]], ...] = (
    _shape("hf_", r"[A-Za-z0-9]{20,}"),  # Hugging Face
    *(_shape(f"gh{kind}_", r"[A-Za-z0-9]{20,}") for kind in "pousr"),  # GitHub
    _shape("github_pat_", r"[A-Za-z0-9_]{20,}"),
    _shape("glpat-", r"[A-Za-z0-9_-]{20,}"),  # GitLab
    *(_shape(prefix, r"[A-Z0-9]{16}(?![A-Za-z0-9])")  # AWS access key ids
      for prefix in ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA")),
    _shape("sk-", r"(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{20,}", r"[\w-]"),  # OpenAI-style
    _shape("sk_live_", r"[A-Za-z0-9]{16,}"), _shape("sk_test_", r"[A-Za-z0-9]{16,}"),  # Stripe-style
    *(_shape(f"xox{kind}-", r"[A-Za-z0-9-]{10,}") for kind in "abposr"),  # Slack
    _shape("AIza", r"[A-Za-z0-9_-]{35}"),  # Google API keys
    _shape("npm_", r"[A-Za-z0-9]{30,}"),  # npm
    _shape("pypi-", r"[A-Za-z0-9_-]{40,}"),  # PyPI
    _shape("eyJ", r"[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", r"[A-Za-z0-9_-]"),  # JWT
)
_SHAPE_HINTS = ("hf_", "gh", "github_pat_", "glpat-", "A", "sk", "xox", "AIza", "npm_", "pypi-", "eyJ")

# Applied to the lines around a needle only.
# user:pass@host[:port] without a scheme (http_proxy=user:pass@proxy:3128).
_BARE_USERINFO = lazy_re(r"(?<![\w/@.:%+-])(?P<user>[\w.%+-]*):(?P<password>[^\s/@:'\"<>]+)@"
                         r"(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*(?::\d{1,5})?)(?![\w@])")
# "Bearer x" anywhere; "Basic x" only when x looks like base64 (not "Basic Information").
_AUTH_SCHEME = lazy_re(r"(?i)\b(?P<scheme>bearer)(?P<sep>[\s_]+)(?P<value>[A-Za-z0-9._~+/=-]{6,})"
                       r"|\b(?P<basic>basic)(?P<bsep>[\s_]+)(?P<bvalue>(?=[A-Za-z0-9+/]*[0-9=+/]"
                       r"|(?-i:(?=[A-Za-z0-9+/]*[a-z])[A-Za-z0-9+/]+[A-Z]))[A-Za-z0-9+/]{8,}=*)")
_AUTH_HEADER = lazy_re(r"(?i)\b(?P<name>(?:proxy-)?authorization|x-api-key|api-key|x-auth-token|cookie)"
                       r"(?P<sep>\s*[:=]\s*)(?P<value>[^\r\n\"']+)")
_JSON_PAIR = lazy_re(r"(?P<key>\"[^\"\\]{1,80}\")(?P<sep>\s*:\s*)(?P<value>\"(?:[^\"\\]|\\.)*\")")
_LINE_RULES: Tuple[Tuple[Tuple[str, ...], re.Pattern[str], str], ...] = (
    (("@",), _BARE_USERINFO, "bare"),
    (("authoriz", "api-key", "x-auth-token", "cookie"), _AUTH_HEADER, "header"),
    (("bearer", "basic"), _AUTH_SCHEME, "scheme"),
    (('":',), _JSON_PAIR, "json"),
)
# Around each "=": KEY=VALUE (connection strings, query strings, env dumps); around each "--":
# --flag value / --flag=value (a command line stored in a variable or printed in a log).
_KEY_REVERSED = lazy_re(r"[ \t]*(?P<key>[\w.-]*[A-Za-z_])(?P<before>.?)", re.DOTALL)
_PAIR_VALUE = lazy_re(r"[ \t]*(?P<value>\"[^\"]*\"|'[^']*'|[^\s&;,#\"'<>]+)")
_FLAG = lazy_re(r"--(?P<name>[A-Za-z][\w.-]*)(?P<sep>=|[ \t]+)(?P<value>\"[^\"]*\"|'[^']*'|[^\s\"']+)")
# The same two rules as single regexes, for texts with very many "=" or "--".
_PAIR = lazy_re(r"(?<![\w.-])(?P<key>[A-Za-z_][\w.-]*)(?P<sep>[ \t]*=[ \t]*)"
                r"(?P<value>\"[^\"]*\"|'[^']*'|[^\s&;,#\"'<>]+)")
_FLAG_ANYWHERE = lazy_re(r"(?<![\w-])--(?P<name>[A-Za-z][\w.-]*)(?P<sep>=|[ \t]+)"
                         r"(?P<value>\"[^\"]*\"|'[^']*'|[^\s\"']+)")
_MANY = 20_000  # needles in one text beyond which a whole-text pass is used


def _keep_quotes(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[0] + REDACTED + value[0]
    return REDACTED


def _line_rule(kind: str, match: re.Match[str]) -> str:
    whole = match.group(0)
    if kind == "bare":
        return whole if _is_placeholder(match.group("password")) else f"{REDACTED}@{match.group('host')}"
    if kind == "header":
        value = match.group("value").strip()
        if _is_placeholder(value) or REDACTED in value:
            return whole
        scheme = value.split(None, 1)[0] if " " in value else ""
        known = scheme.lower() in ("bearer", "basic", "token", "digest", "negotiate")
        return f"{match.group('name')}{match.group('sep')}{scheme + ' ' if known else ''}{REDACTED}"
    if kind == "scheme":
        if match.group("basic"):
            return f"{match.group('basic')}{match.group('bsep')}{REDACTED}"
        if _is_placeholder(match.group("value")):
            return whole
        return f"{match.group('scheme')}{match.group('sep')}{REDACTED}"
    key, sep, value = match.group("key", "sep", "value")  # "json"
    if not is_secret_name(key[1:-1]) or _is_placeholder(value):
        return whole
    return f'{key}{sep}"{REDACTED}"'


def _lines_with(text: str, low: str, needles: Sequence[str]) -> List[Tuple[int, int]]:
    """Sorted, merged (start, end) spans of the lines of ``text`` holding a needle."""
    spans = set()
    for needle in needles:
        at = low.find(needle)
        while at >= 0:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            spans.add((start, end))
            at = low.find(needle, end)
    return sorted(spans)


def _apply_line_rules(text: str) -> str:
    low = text.lower()
    for needles, pattern, kind in _LINE_RULES:
        if not any(n in low for n in needles):
            continue
        # lower() changed the length (rare letters: no spans), or the needles are everywhere (one
        # pass over the whole text is then cheaper than one per line).
        if len(low) != len(text) or sum(low.count(n) for n in needles) > _MANY:
            text = pattern.sub(lambda m, k=kind: _line_rule(k, m), text)  # type: ignore[misc]
            low = text.lower()
            continue
        pieces: List[str] = []
        last = 0
        for start, end in _lines_with(text, low, needles):
            if start < last:
                continue
            line = text[start:end]
            new = pattern.sub(lambda m, k=kind: _line_rule(k, m), line)  # type: ignore[misc]
            if new != line:
                pieces += [text[last:start], new]
                last = end
        if pieces:
            text = "".join(pieces) + text[last:]
            low = text.lower()
    return text


def _pair(key: str, value: str, rest: str) -> bool:
    """Whether ``key=value`` (followed by ``rest``) hides a secret value."""
    secret = is_secret_name(key) or any(part in _SIGNATURE_PARTS for part in _parts(key))
    return secret and not _is_placeholder(value) and REDACTED not in value and not rest.startswith(REDACTED)


def _redact_pairs(text: str) -> str:
    if text.count("=") - 2 * text.count("==") > _MANY:  # one regex pass is cheaper than a step per "="
        return _PAIR.sub(lambda m: m.group(0) if not _pair(m.group("key"), m.group("value"),
                                                           text[m.end():m.end() + len(REDACTED)])
                         else m.group("key") + m.group("sep") + _keep_quotes(m.group("value")), text)
    pieces: List[str] = []
    last = 0
    at = text.find("=")
    while at >= 0:
        if text.startswith("=", at + 1) or (at and text[at - 1] in "=!<>"):  # ==, !=, <=, ======
            while text.startswith("=", at + 1):
                at += 1
            at = text.find("=", at + 1)
            continue
        found = _KEY_REVERSED.match(text[max(last, at - 120):at][::-1]) if at else None
        if found and not re.match(r"[\w.]", found.group("before")):  # "-Dtrust.password=x" counts
            value = _PAIR_VALUE.match(text, at + 1)
            if value and _pair(found.group("key")[::-1], value.group("value"),
                               text[value.end():value.end() + len(REDACTED)]):
                pieces += [text[last:value.start("value")], _keep_quotes(value.group("value"))]
                last = value.end("value")
                at = text.find("=", last)
                continue
        at = text.find("=", at + 1)
    return "".join(pieces) + text[last:] if pieces else text


def _secret_flag(match: re.Match[str]) -> bool:
    value = match.group("value")
    return (is_secret_name(match.group("name")) and not _is_placeholder(value) and REDACTED not in value
            and not (match.group("sep") != "=" and value.startswith("-")))


def _flag_replacement(match: re.Match[str]) -> str:
    if not _secret_flag(match):
        return match.group(0)
    return match.group(0)[:match.start("value") - match.start()] + _keep_quotes(match.group("value"))


def _redact_flags(text: str) -> str:
    if text.count("--") - 2 * text.count("---") > _MANY:  # ("----" separator lines do not count)
        return _FLAG_ANYWHERE.sub(_flag_replacement, text)
    pieces: List[str] = []
    last = 0
    at = text.find("--")
    while at >= 0:
        if text.startswith("-", at + 2):  # a "-----" line
            while text.startswith("-", at + 2):
                at += 1
            at = text.find("--", at + 2)
            continue
        found = _FLAG.match(text, at)
        if found and (at == 0 or not (text[at - 1].isalnum() or text[at - 1] in "-_")) and _secret_flag(found):
            pieces += [text[last:found.start("value")], _keep_quotes(found.group("value"))]
            last = found.end("value")
            at = text.find("--", last)
            continue
        at = text.find("--", at + 2)
    return "".join(pieces) + text[last:] if pieces else text


def redact_text(text: str) -> str:
    """``text`` with every secret this module recognises by value replaced by ``<redacted>``."""
    if not text:
        return text
    if "PRIVATE KEY" in text:
        text = _PEM.sub(REDACTED, text)
    if "://" in text:
        text = _URL_USERINFO.sub(lambda m: m.group(0) if _is_placeholder(m.group("userinfo"))
                                 else f"://{REDACTED}@", text)
    if any(hint in text for hint in _SHAPE_HINTS):
        for literal, shape in _TOKEN_SHAPES:
            if literal in text:
                text = shape.sub(REDACTED, text)
    text = _apply_line_rules(text)
    if "--" in text:
        text = _redact_flags(text)
    if "=" in text:
        text = _redact_pairs(text)
    return text


def redact_value(name: str, value: str) -> str:
    """The value of a variable/key ``name``: wholly redacted when the name is secret."""
    if is_secret_name(name) and not _is_placeholder(value):
        return REDACTED
    return redact_text(value)


def redact_env(env: Mapping[str, str]) -> Dict[str, str]:
    """Environment variables, sorted by name, secrets redacted by name and by value."""
    return {name: redact_value(name, value) for name, value in sorted(env.items())}


def redact_url(url: str) -> str:
    """A URL to echo or store: credentials and secret query parameters redacted."""
    return redact_text(url)


# -- command lines -----------------------------------------------------------------------------

# Programs whose ``-p`` is a password whatever it looks like (``mysql -pSECRET``, ``sshpass -p x``).
_PASSWORD_P_PROGRAMS = frozenset({"mysql", "mysqldump", "mysqladmin", "mariadb", "mariadb-dump", "sshpass",
                                  "smbclient", "mysqlsh"})
_PORTISH = lazy_re(r"^(?:[\w.\[\]:]*:)?\d{1,5}(?:[:-]\d{1,5})*(?:/(?:tcp|udp|sctp))?$")
_USER_FLAGS = frozenset({"-u", "--user", "--proxy-user", "-U"})


def _basename(arg: str) -> str:
    return arg.rsplit("/", 1)[-1]


def _p_value_is_secret(program: str, value: str) -> bool:
    if program in _PASSWORD_P_PROGRAMS:
        return True
    # Elsewhere -p is usually a port (docker -p 8000:8000) or a path (mkdir -p /x): keep those.
    return not (_PORTISH.match(value) or value.startswith(("/", "./", "~")))


def redact_cmdline(args: Sequence[str]) -> List[str]:
    """A process command line with secret arguments redacted (see docs/redaction.md)."""
    program = _basename(args[0]) if args else ""
    out: List[str] = []
    hide_next: Optional[str] = None  # the flag whose value comes next
    for index, arg in enumerate(args):
        if hide_next is not None:
            flag, hide_next = hide_next, None
            if not arg.startswith("-") or (flag == "-p" and program in _PASSWORD_P_PROGRAMS):
                if flag == "-p" and not _p_value_is_secret(program, arg):
                    out.append(redact_text(arg))
                elif flag in _USER_FLAGS:
                    user, colon, _ = arg.partition(":")
                    out.append(f"{user}:{REDACTED}" if colon else arg)
                else:
                    out.append(arg if _is_placeholder(arg) else REDACTED)
                continue
        if index > 0 and arg.startswith("-"):
            name, sep, value = arg.partition("=")
            if sep:
                if (is_secret_name(name) and not _is_placeholder(value)) or (name in _USER_FLAGS and ":" in value):
                    shown = value.split(":", 1)[0] + ":" + REDACTED if name in _USER_FLAGS else REDACTED
                    out.append(f"{name}={shown}")
                else:
                    out.append(redact_text(arg))
                continue
            if arg.startswith("-p") and len(arg) > 2 and not arg.startswith("--") and program in _PASSWORD_P_PROGRAMS:
                out.append("-p" + REDACTED)  # mysql -pSECRET
                continue
            if arg == "-p" or is_secret_name(arg) or arg in _USER_FLAGS:
                hide_next = arg
                out.append(arg)
                continue
        name, sep, value = arg.partition("=")
        if sep and re.fullmatch(r"[A-Za-z_][\w.-]*", name) and is_secret_name(name) and not _is_placeholder(value):
            out.append(f"{name}={REDACTED}")  # env FOO_TOKEN=x cmd
            continue
        out.append(redact_text(arg))
    return out


# -- snapshot trees ----------------------------------------------------------------------------

# Folders of a snapshot whose files are captured text (command outputs, copied files and log
# tails); env.json and host.json are redacted field by field when they are written.
SNAPSHOT_TEXT_FOLDERS = ("commands", "files")
MAX_REDACTED_FILE_BYTES = 64 * 1024 * 1024


def redact_snapshot_files(root: str) -> int:
    """Redact, by value, every regular file under the text folders of the snapshot ``root``;
    return how many files changed. Symlinks are never followed, binary files (NUL bytes) are
    left alone, and a rewritten file keeps its mode and times (the log check reads log ages)."""
    import os
    import stat as statmod

    changed = 0
    pending = [os.path.join(root, name) for name in SNAPSHOT_TEXT_FOLDERS]
    while pending:  # no recursion: depth is whatever the captured tree has
        folder = pending.pop()
        try:
            with os.scandir(folder) as entries:
                found = list(entries)
        except OSError:
            continue
        for entry in found:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if statmod.S_ISDIR(st.st_mode):
                pending.append(entry.path)
            elif statmod.S_ISREG(st.st_mode) and 0 < st.st_size <= MAX_REDACTED_FILE_BYTES:
                changed += _redact_file(entry.path, st)
    return changed


def _redact_file(path: str, st: Any) -> int:
    import os

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        with os.fdopen(os.open(path, flags), "rb") as fh:
            data = fh.read(MAX_REDACTED_FILE_BYTES + 1)
    except OSError:
        return 0
    if b"\0" in data:
        return 0
    text = data.decode("utf-8", "surrogateescape")
    new = redact_text(text)
    if new == text:
        return 0
    with open(path, "wb") as fh:
        fh.write(new.encode("utf-8", "surrogateescape"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    return 1


# -- structured data and reports -----------------------------------------------------------------

_ARGV_KEYS = frozenset({"cmdline", "argv", "args", "command_line"})


def redact_json(data: Any, key: str = "") -> Any:
    """A JSON-like value with secrets redacted: values under secret keys, command lines (lists
    under ``cmdline``/``argv``), and every string by value. Returns new containers."""
    if isinstance(data, str):
        if key and is_secret_name(key) and not _is_placeholder(data):
            return REDACTED
        return redact_text(data)
    if isinstance(data, Mapping):
        return {k: redact_json(v, str(k)) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        if key.lower() in _ARGV_KEYS and all(isinstance(v, str) for v in data):
            return redact_cmdline(list(data))
        return [redact_json(v, key) for v in data]
    return data


def _redact_plain(data: Any, key: str, text: Callable[[str], str]) -> Any:
    """What redact_json gives for the plain JSON value ``data`` (jsonable's dicts, lists, strings),
    strings redacted through ``text`` (a report's memo of redact_text), but ``data`` itself when
    nothing in it changes and otherwise the changed containers only: a report with nothing to hide
    is walked without copying or comparing its facts and evidence."""
    if isinstance(data, str):
        if key and is_secret_name(key) and not _is_placeholder(data):
            new = REDACTED
        else:
            new = text(data)
        return data if new == data else new
    if isinstance(data, Mapping):
        out: Optional[Dict[Any, Any]] = None
        for k, v in data.items():
            new = _redact_plain(v, str(k), text)
            if new is not v:
                if out is None:
                    out = dict(data)
                out[k] = new
        return data if out is None else out
    if isinstance(data, (list, tuple)):
        if key.lower() in _ARGV_KEYS and all(isinstance(v, str) for v in data):
            argv = redact_cmdline(list(data))
            return data if argv == list(data) else argv
        items: Optional[List[Any]] = None
        for index, v in enumerate(data):
            new = _redact_plain(v, key, text)
            if new is not v:
                if items is None:
                    items = list(data)
                items[index] = new
        return data if items is None else items
    return data


def redact_report(report: Report) -> Report:
    """``report`` with secrets redacted in every field (messages, evidence, facts, fix plan...).

    Fields without a secret keep their objects, so a report with nothing to hide is returned
    as it is, and renderers see the same types as before."""
    changed = _redacted_fields(report, _ReportText())
    return structs.replace(report, **changed) if changed else report


# Every literal one of redact_text's rules needs before it can change a text: "PRIVATE KEY", "://",
# each token shape's literal, "--" and "=" as written; the line rules' needles in the lower-cased
# text (as _apply_line_rules looks for them).
_RULE_LITERALS = lazy_re("|".join(re.escape(literal) for literal in (
    "PRIVATE KEY", "://", "--", "=", *(literal for literal, _shape_re in _TOKEN_SHAPES))))
_RULE_NEEDLES = lazy_re("|".join(re.escape(needle) for needles, _rule, _kind in _LINE_RULES for needle in needles))
_SHORT = 4096  # longer texts go straight to redact_text (its str.find scans beat a regex over megabytes)


class _ReportText:
    """redact_text for the strings of one report (some 650 for a healthy machine, half of them
    repeated: check ids, titles, versions), each distinct string redacted once. A short string
    holding none of the literals every rule of redact_text starts from is returned as it is,
    which is what redact_text returns for it (each of its steps is guarded by one of them)."""

    def __init__(self) -> None:
        self.done: Dict[str, str] = {}
        self.literal = _RULE_LITERALS.search
        self.needle = _RULE_NEEDLES.search

    def __call__(self, text: str) -> str:
        found = self.done.get(text)
        if found is None:
            if len(text) < _SHORT and self.literal(text) is None and self.needle(text.lower()) is None:
                found = text
            else:
                found = redact_text(text)
            self.done[text] = found
        return found


def _redacted_fields(record: Any, text: _ReportText) -> Dict[str, Any]:
    from ascend_doctor.jsonutil import jsonable

    changed: Dict[str, Any] = {}
    for name in record.__struct_fields__:
        value = getattr(record, name)
        new = _redacted(value, name, jsonable, text)
        if new is not value:
            changed[name] = new
    return changed


def _redacted(value: Any, name: str, jsonable: Any, text: _ReportText) -> Any:
    """``value`` redacted, or ``value`` itself when it holds no secret."""
    if isinstance(value, str):
        return _redact_plain(value, name, text)
    if value is None or isinstance(value, (int, float)):  # most fields that are not text (bool is an int)
        return value
    if isinstance(value, Struct):
        changed = _redacted_fields(value, text)
        return structs.replace(value, **changed) if changed else value
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, Struct) for v in value):
        items = [_redacted(v, name, jsonable, text) for v in value]
        if all(a is b for a, b in zip(items, value)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    if isinstance(value, (Mapping, list, tuple)):
        plain = jsonable(value)
        new = _redact_plain(plain, name, text)
        if new is plain:
            return value
        return tuple(new) if isinstance(value, tuple) else new
    return value
