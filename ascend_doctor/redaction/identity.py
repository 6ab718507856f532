"""Identity redaction (``--redact``): who and where a machine is, replaced by stable placeholders.

Host names, IPv4/IPv6 and MAC addresses, user names, home folders, serial numbers and PCIe bus
ids become placeholders; one value gets one placeholder throughout one output, so a redacted
report still reads ("NPU 3 at pci-4 is down", "host-1 listens on 192.0.2.1"):

=============  =====================================================================
value          placeholder
=============  =====================================================================
host name      ``host-1``, ``host-2`` ... (a FQDN and its short name share one)
user name      ``user-1`` ...; home folders ``/home/alice`` -> ``/home/user-1``
IPv4           ``192.0.2.1`` ... then ``198.51.100.x``, ``203.0.113.x`` (RFC 5737
               documentation ranges: never a real address), then ``<ipv4-N>``
IPv6           ``2001:db8::1`` ... (RFC 3849 documentation prefix)
MAC            ``02:00:00:00:00:01`` ... (locally administered)
serial number  ``SN-1`` ...
PCIe bus id    ``pci-1`` ... (``0000:c1:00.0`` and lspci's ``c1:00.0`` share one)
=============  =====================================================================

Kept because they carry meaning and identify nobody: ``0.0.0.0``, ``127.x``, ``255.x`` masks,
``::``, ``::1``, the all-zero/broadcast MAC, ``root``, ``localhost`` and the Ascend service
accounts (``HwHiAiUser``...). Versions are never touched: report fields named ``*version*`` and
package versions are skipped, and a dotted quad right after "version", "driver", "firmware",
"CANN", "==" ... is read as a version, not an address.

Host and user names are learned from where a machine states them (the report's host, a
snapshot's ``snapshot.json``, ``HOSTNAME``/``USER``/``HOME`` in ``env.json``, ``uname -a``,
``/home/<name>`` paths) and then replaced wherever they stand as a word, so a user named like
an ordinary word is replaced where that word stands alone too. Secrets are another module's job
(``ascend_doctor/redaction/secrets.py``).
"""

from __future__ import annotations

import enum
import ipaddress
import json
import os
import re
import stat
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Set

from msgspec import Struct, structs

from ascend_doctor.lazy import lazy_re

if TYPE_CHECKING:
    from ascend_doctor.report import Report

KEEP_USERS = frozenset({"root", "nobody", "daemon", "HwHiAiUser", "HwDmUser", "HwBaseUser", "HwSysUser"})
KEEP_HOSTS = frozenset({"localhost", "localhost.localdomain", "localhost4", "localhost6", "(none)", "?"})
USER_VARIABLES = ("USER", "LOGNAME", "SUDO_USER", "USERNAME")
REPORT_NOTE = ("identities redacted (--redact): host names, IP and MAC addresses, user names, home folders, "
               "serial numbers and PCIe bus ids are placeholders (host-1, 192.0.2.1, user-1, pci-1 ...)")
MAX_TREE_FILE_BYTES = 64 * 1024 * 1024

_NAME_CHARS = r"[A-Za-z0-9_.\-]"
_HOME = lazy_re(r"(/home/|/Users/)([A-Za-z0-9_][A-Za-z0-9_.\-]*)")
_ASSIGNED_USER = lazy_re(r"\b(?:USER|LOGNAME|SUDO_USER|USERNAME)=([A-Za-z_][A-Za-z0-9_.\-]*)")
_SERIAL_TEXT = lazy_re(
    r"(?i)(\bserial[ _-]?(?:number|no\.?|num)?\s*[:=]\s*\"?|\"serial(?:_?number)?\"\s*:\s*\")"
    r"([A-Za-z0-9][A-Za-z0-9_\-]{3,})")
_SERIAL_SN = lazy_re(r"(\bSN\s*[:=]\s*)([A-Za-z0-9][A-Za-z0-9_\-]{3,})")
_MAC = lazy_re(r"(?<![\w:.\-])[0-9A-Fa-f]{2}(?P<sep>[:\-])[0-9A-Fa-f]{2}(?:(?P=sep)[0-9A-Fa-f]{2}){4}"
                  r"(?![\w:]|-\w)")
_PCI_FULL = lazy_re(r"(?<![\w:.])([0-9A-Fa-f]{4}):([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7])(?!\w)")
# lspci prints the short form at the start of its lines; elsewhere "12:30.5" is more likely a time.
_PCI_SHORT = lazy_re(r"(?m)^([ \t]*)([0-9A-Fa-f]{2}):([0-9A-Fa-f]{2})\.([0-7])(?=[ \t])")
_IPV6 = lazy_re(r"(?<![\w:.])(?:[0-9A-Fa-f]{0,4}:){2,7}[0-9A-Fa-f]{0,4}(?:%[A-Za-z0-9_.\-]+)?(?![\w:]|\.\d)")
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
# Not inside a longer dotted or dashed token ("5.10.0-182.0.0.95.oe2203sp3" is a kernel release).
_IPV4 = lazy_re(rf"(?<![\w.\-]){_OCTET}(?:\.{_OCTET}){{3}}(?!\w|\.\w|-\w)")
# A dotted quad right after these words (or one word later) is a version ("firmware 7.1.0.11",
# "torch==2.1.0.1", "npu-smi info 21.0.3.1").
# The words start a word: "server 10.155.111.155" is an address, not the version after "ver".
_VERSION_CONTEXT = lazy_re(
    r"(?i)(?:(?<![A-Za-z])(?:version|ver|driver|firmware|cann|toolkit|torch|npu|python|hdk|npu-smi|mindie|vllm"
    r"|release|package|kernel)|==|>=|<=|~=|!=|\bv)(?:\s+[A-Za-z]\w*)?[\s:=_\-\"']{0,4}$")
_DOC_NETS = ("192.0.2.", "198.51.100.", "203.0.113.")
# Report fields whose values are never identities (versions, ids, statuses, times, counts).
# A "summary" is either the status counts (numbers, untouched anyway) or a fix step's sentence, which names
# addresses and nodes ("Set NPU 4's gateway to 29.1.0.1"): redacted like any text.
_VERBATIM_KEY = re.compile(r"(?i)version|^(id|status|packages|started_at|captured_at|date|fail_on|"
                           r"exit_code|duration_s|order|component|where|direction|target|accepts)$")
_SERIAL_KEY = lazy_re(r"(?i)^(serial|serial_?number|sn)$")


class RedactionError(OSError):
    """The snapshot could not be redacted (so it is not written: it must not be shared as it is)."""


class IdentityRedactor:
    """One redaction of one output: learns names, then replaces every identity consistently."""

    def __init__(self) -> None:
        self.hosts: Dict[str, str] = {}  # name -> placeholder (FQDN and short name share one)
        self.users: Set[str] = set()
        self._maps: Dict[str, Dict[str, str]] = {}
        self.files: Dict[str, str] = {}  # a file named after a host ("node07.json") -> "host-3.json"
        self._file_re: Optional[re.Pattern[str]] = None
        self._host_re: Optional[re.Pattern[str]] = None
        self._user_re: Optional[re.Pattern[str]] = None

    # -- learning ---------------------------------------------------------------------------

    def learn_host(self, name: Any) -> None:
        if not isinstance(name, str):
            return
        name = name.strip().rstrip(".")
        if not name or name in KEEP_HOSTS or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", name):
            return
        if _IPV4.fullmatch(name):
            return  # an address: the address rules handle it
        short = name.split(".")[0]
        placeholder = self.hosts.get(name) or self.hosts.get(short) or f"host-{len(set(self.hosts.values())) + 1}"
        self.hosts[name] = placeholder
        if len(short) >= 2 and short not in KEEP_HOSTS:
            self.hosts.setdefault(short, placeholder)
        self._host_re = None

    def learn_host_file(self, file_name: str, host: str) -> None:
        """A file named after a host (``reports/node07.json``): its name becomes the host's placeholder
        with the same suffix, so that a command naming the file still names one (``host-3.json``)."""
        self.learn_host(host)
        placeholder = self.hosts.get(host)
        if placeholder and file_name.startswith(host + ".") and "/" not in file_name:
            self.files[file_name] = placeholder + file_name[len(host):]
            self._file_re = None

    def learn_user(self, name: Any) -> None:
        if not isinstance(name, str):
            return
        name = name.strip()
        if len(name) < 2 or name in KEEP_USERS or not re.fullmatch(_NAME_CHARS + "+", name):
            return
        if re.fullmatch(r"user-\d+", name):
            return  # already a placeholder
        if name not in self.users:
            self.users.add(name)
            self._user_re = None

    def learn_from_text(self, text: str) -> None:
        for match in _HOME.finditer(text):
            self.learn_user(match.group(2))
        for match in _ASSIGNED_USER.finditer(text):
            self.learn_user(match.group(1))

    def learn_from_environment(self, env: Any) -> None:
        if not isinstance(env, dict):
            return
        self.learn_host(env.get("HOSTNAME"))
        for name in USER_VARIABLES:
            self.learn_user(env.get(name))
        home = env.get("HOME")
        if isinstance(home, str):
            self.learn_from_text(home)

    # -- placeholders -----------------------------------------------------------------------

    def placeholder(self, kind: str, key: str) -> str:
        table = self._maps.setdefault(kind, {})
        if key not in table:
            table[key] = self._make(kind, len(table) + 1)
        return table[key]

    @staticmethod
    def _make(kind: str, number: int) -> str:
        if kind == "user":
            return f"user-{number}"
        if kind == "serial":
            return f"SN-{number}"
        if kind == "pci":
            return f"pci-{number}"
        if kind == "mac":
            return f"02:00:00:{(number >> 16) & 0xFF:02x}:{(number >> 8) & 0xFF:02x}:{number & 0xFF:02x}"
        if kind == "ipv6":
            return f"2001:db8::{number:x}"
        if kind == "ipv4":
            net, host = divmod(number - 1, 254)
            if net < len(_DOC_NETS):
                return f"{_DOC_NETS[net]}{host + 1}"
            # A plain word, not "<ipv4-N>": a redacted command stays a valid shell line (no "<" redirection),
            # and a tool given it refuses it rather than reaching a real address.
            return f"ipv4-{number}"
        raise ValueError(kind)

    def user_placeholder(self, name: str) -> str:
        return self.placeholder("user", name)

    # -- replacing --------------------------------------------------------------------------

    def _names_re(self, names: Iterable[str]) -> Optional[re.Pattern[str]]:
        ordered = sorted(set(names), key=len, reverse=True)
        if not ordered:
            return None
        alternatives = "|".join(re.escape(n) for n in ordered)
        # A name is a whole word: not inside a longer name, a path component or an address.
        return re.compile(rf"(?<![\w.\-])(?:{alternatives})(?![\w\-]|\.\w)")

    def names(self, text: str) -> str:
        """Only host and user names and home folders (for file and folder names)."""
        text = _HOME.sub(lambda m: m.group(1) + self._home_user(m.group(2)), text)
        if self._file_re is None and self.files:
            ordered = sorted(self.files, key=len, reverse=True)
            self._file_re = re.compile(rf"(?<![\w.\-])(?:{'|'.join(re.escape(n) for n in ordered)})(?![\w\-.])")
        if self._file_re is not None:
            text = self._file_re.sub(lambda m: self.files[m.group()], text)
        if self._host_re is None and self.hosts:
            self._host_re = self._names_re(self.hosts)
        if self._host_re is not None:
            text = self._host_re.sub(lambda m: self.hosts[m.group()], text)
        users = [u for u in self.users if u not in self.hosts]
        if self._user_re is None and users:
            self._user_re = self._names_re(users)
        if self._user_re is not None:
            text = self._user_re.sub(lambda m: self.user_placeholder(m.group()), text)
        return text

    def _home_user(self, name: str) -> str:
        if name in KEEP_USERS or re.fullmatch(r"user-\d+", name):
            return name
        self.learn_user(name)
        return self.user_placeholder(name)

    def text(self, text: str) -> str:
        """Every identity in free text (command output, a message, a path)."""
        if not text:
            return text
        text = _SERIAL_TEXT.sub(lambda m: m.group(1) + self.placeholder("serial", m.group(2))
                                if _has_digit(m.group(2)) else m.group(), text)
        text = _SERIAL_SN.sub(lambda m: m.group(1) + self.placeholder("serial", m.group(2))
                              if _has_digit(m.group(2)) else m.group(), text)
        text = self.names(text)
        text = _MAC.sub(self._mac, text)
        text = _PCI_FULL.sub(lambda m: self._pci(m.group(1), m.group(2), m.group(3), m.group(4)), text)
        text = _PCI_SHORT.sub(lambda m: m.group(1) + self._pci("0000", m.group(2), m.group(3), m.group(4)), text)
        text = _IPV6.sub(self._ipv6, text)
        return _IPV4.sub(self._ipv4, text)

    def _mac(self, match: re.Match[str]) -> str:
        value = match.group().lower().replace("-", ":")
        if value in ("00:00:00:00:00:00", "ff:ff:ff:ff:ff:ff"):
            return match.group()
        return self.placeholder("mac", value)

    def _pci(self, domain: str, bus: str, device: str, function: str) -> str:
        return self.placeholder("pci", f"{domain}:{bus}:{device}.{function}".lower())

    def _ipv6(self, match: re.Match[str]) -> str:
        candidate = match.group()
        address = candidate.split("%", 1)[0]
        if address.count(":") < 2 or ("::" not in address and address.count(":") != 7):
            return candidate
        if not any(c.isdigit() for c in address):
            return candidate  # "a::b" is C++ more often than an address
        try:
            parsed = ipaddress.IPv6Address(address)
        except ValueError:
            return candidate
        if parsed.is_unspecified or parsed.is_loopback:
            return candidate
        return self.placeholder("ipv6", parsed.compressed)

    def _ipv4(self, match: re.Match[str]) -> str:
        value = match.group()
        first = int(value.split(".", 1)[0])
        if first in (0, 127, 255):
            return value
        line_start = match.string.rfind("\n", 0, match.start()) + 1
        before = match.string[max(line_start, match.start() - 40): match.start()]
        if _VERSION_CONTEXT.search(before):
            return value
        return self.placeholder("ipv4", value)

    # -- structured data --------------------------------------------------------------------

    def learn_from_json(self, data: Any) -> None:
        for value in _strings(data):
            self.learn_from_text(value)

    def json(self, data: Any, key: str = "") -> Any:
        """A JSON value with every identity replaced (keys are kept; see _VERBATIM_KEY)."""
        if isinstance(data, dict):
            return {k: self.json(v, str(k)) for k, v in data.items()}
        if isinstance(data, list):
            return [self.json(v, key) for v in data]
        if isinstance(data, str):
            if _SERIAL_KEY.match(key) and data.strip():
                return self.placeholder("serial", data.strip())
            if _VERBATIM_KEY.search(key):
                return data
            return self.text(data)
        return data


def _has_digit(text: str) -> bool:
    return any(c.isdigit() for c in text)


def _strings(data: Any) -> Iterable[str]:
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


# -- reports ------------------------------------------------------------------------------------


def redact_report_dict(data: Dict[str, Any], redactor: Optional[IdentityRedactor] = None) -> Dict[str, Any]:
    """A report dict (``Report.to_dict()``) with identities replaced; versions and ids kept."""
    redactor = redactor or IdentityRedactor()
    host = data.get("host")
    if isinstance(host, dict):
        redactor.learn_host(host.get("hostname"))
    redactor.learn_from_json(data)
    redacted: Dict[str, Any] = redactor.json(data)
    return redacted


def redact_report(report: Report, redactor: Optional[IdentityRedactor] = None) -> Report:
    """The same report with identities replaced by placeholders, and a note saying so.

    Walks the report's own records (results, their actions, the fix plan, notes, facts, host) in the
    order ``Report.to_dict()`` lists them, each field under its own name as the key, so that every
    value gets the placeholder that ``redact_report_dict`` gives it in the JSON; nothing is turned
    into a dict and read back. ``redactor`` may arrive with names already learned (a fleet's nodes)."""
    redactor = redactor or IdentityRedactor()
    if isinstance(report.host, dict):
        redactor.learn_host(report.host.get("hostname"))
    for value in _record_strings(report):
        redactor.learn_from_text(value)
    redacted: Report = _redact_record(report, redactor)
    redacted.notes.append(REPORT_NOTE)
    return redacted


def _redact_record(record: Any, redactor: IdentityRedactor) -> Any:
    """A copy of the dataclass ``record`` with every field redacted under its field name (the key
    ``to_dict`` writes it under); a list field is always a new list, so that the caller's report
    is left as it was."""
    changes = {name: _redact_field(getattr(record, name), name, redactor) for name in record.__struct_fields__}
    return structs.replace(record, **changes)


def _redact_field(value: Any, key: str, redactor: IdentityRedactor) -> Any:
    from ascend_doctor.jsonutil import jsonable

    if isinstance(value, str):
        return redactor.json(value, key)
    if value is None or isinstance(value, (int, float, enum.Enum)):
        return value  # statuses, counts and durations: never an identity
    if _is_record(value):
        return _redact_record(value, redactor)
    if isinstance(value, (list, tuple)) and all(_is_record(item) for item in value):
        items = [_redact_record(item, redactor) for item in value]
        return tuple(items) if isinstance(value, tuple) else items
    new = redactor.json(jsonable(value), key)
    return tuple(new) if isinstance(value, tuple) else new


def _is_record(value: Any) -> bool:
    return isinstance(value, Struct)


def _record_strings(record: Any) -> Iterable[str]:
    """Every string of a report's records, where redact_report_dict learns names from."""
    from ascend_doctor.jsonutil import jsonable

    for name in record.__struct_fields__:
        value = getattr(record, name)
        if isinstance(value, str):
            yield value
        elif _is_record(value):
            yield from _record_strings(value)
        elif isinstance(value, (list, tuple)) and value and all(_is_record(item) for item in value):
            for item in value:
                yield from _record_strings(item)
        elif isinstance(value, (dict, list, tuple)):
            yield from _strings(jsonable(value))


# -- snapshot trees ---------------------------------------------------------------------------


def redact_snapshot_tree(root: str) -> IdentityRedactor:
    """Redact a snapshot folder in place, before it is archived or shared.

    File contents, file and folder names and symlink targets are rewritten with one
    ``IdentityRedactor``; files keep their times (the log check reads how old a log is).
    ``snapshot.json`` records ``"redacted": ["identity", ...]``. Never follows a symlink, only
    rewrites regular files; raises ``RedactionError`` when a file cannot be redacted.
    """
    redactor = IdentityRedactor()
    _learn_tree(root, redactor)
    for folder, dirs, files in os.walk(root, topdown=False):
        for name in files:
            _redact_entry(os.path.join(folder, name), redactor)
        for name in dirs:
            path = os.path.join(folder, name)
            if os.path.islink(path):
                _redact_entry(path, redactor)
        for name in files + dirs:
            _rename(folder, name, redactor)
    _mark_snapshot(root)
    return redactor


def _read_json(path: str) -> Any:
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_TREE_FILE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return json.load(fh)
    except (OSError, ValueError, RecursionError):
        return None


def _learn_tree(root: str, redactor: IdentityRedactor) -> None:
    meta = _read_json(os.path.join(root, "snapshot.json"))
    if isinstance(meta, dict):
        redactor.learn_host(meta.get("hostname"))
    redactor.learn_from_environment(_read_json(os.path.join(root, "env.json")))
    for stem in ("uname_-a", "hostname"):
        text = _read_small(os.path.join(root, "commands", stem + ".out"))
        words = text.split()
        if stem == "uname_-a" and len(words) > 1:
            redactor.learn_host(words[1])
        elif stem == "hostname" and words:
            redactor.learn_host(words[0])
    for folder, _dirs, files in os.walk(root):
        for name in files:
            redactor.learn_from_text(_read_small(os.path.join(folder, name)))
        redactor.learn_from_text(folder[len(root):])


def _read_small(path: str) -> str:
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_TREE_FILE_BYTES:
            return ""
        with open(path, "rb") as fh:
            data = fh.read(MAX_TREE_FILE_BYTES)
    except OSError:
        return ""
    return "" if b"\x00" in data[:8192] else data.decode("utf-8", errors="replace")


def _redact_entry(path: str, redactor: IdentityRedactor) -> None:
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        target = os.readlink(path)
        new_target = redactor.names(target)
        if new_target != target:
            os.unlink(path)
            os.symlink(new_target, path)
        return
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return
    if st.st_size > MAX_TREE_FILE_BYTES:
        raise RedactionError(f"{path}: {st.st_size} bytes, too large to redact")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as fh:
        data = fh.read(MAX_TREE_FILE_BYTES + 1)
    if b"\x00" in data[:8192]:
        return  # binary: nothing a person would read (captured binaries are empty marker files)
    text = data.decode("utf-8", errors="surrogateescape")
    new = redactor.text(text)
    if new == text:
        return
    tmp = path + ".redact-tmp"
    with open(tmp, "xb") as out:
        out.write(new.encode("utf-8", errors="surrogateescape"))
    os.chmod(tmp, stat.S_IMODE(st.st_mode))
    os.replace(tmp, path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))


def _rename(folder: str, name: str, redactor: IdentityRedactor) -> None:
    new = redactor.names(name)
    if new == name or not new or "/" in new:
        return
    source, target = os.path.join(folder, name), os.path.join(folder, new)
    if os.path.lexists(target):
        raise RedactionError(f"cannot rename {source} to {new}: the name is taken")
    os.rename(source, target)


def _mark_snapshot(root: str) -> None:
    path = os.path.join(root, "snapshot.json")
    meta = _read_json(path)
    if not isinstance(meta, dict):
        return
    marks: List[str] = [m for m in meta.get("redacted") or [] if isinstance(m, str)] \
        if isinstance(meta.get("redacted"), list) else []
    if "identity" not in marks:
        marks.append("identity")
    meta["redacted"] = marks
    tmp = path + ".redact-tmp"
    with open(tmp, "x", encoding="utf-8") as fh:
        fh.write(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
