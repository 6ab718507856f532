"""``matrix update``: fetch (or take from a file) a matrix bundle, check it, install it atomically.

Nothing replaces the installed matrix until the new bundle is completely downloaded, within the
size limit, matches the checksum, validates, and is newer than the shipped matrix (unless
forced). A failed or interrupted update leaves the previous file as it was: the bundle is written
to a temporary file in the same folder and moved into place with ``os.replace``.
"""

from __future__ import annotations

import enum
import hashlib
import ipaddress
import json
import os
import tempfile
import time
from typing import Any, Dict, Optional
from urllib.parse import urljoin, urlsplit

from msgspec import Struct

from ascend_doctor.lazy import lazy_re
from ascend_doctor.matrix.loader import MAX_MATRIX_BYTES, load_document
from ascend_doctor.matrix.meta import read_matrix_version, shipped_matrix_path, user_data_dir, user_matrix_path
from ascend_doctor.matrix.select import is_newer

DEFAULT_TIMEOUT = 30.0  # seconds per connect / read; the whole download also has a deadline
TOTAL_DEADLINE_FACTOR = 4
CHUNK = 64 * 1024
MAX_REDIRECTS = 5
LOOPBACK_NAMES = ("localhost",)
SOURCE_FILE = "matrix.source.json"


class UpdateFailure(enum.Enum):
    """Why an update did not happen (the command line maps each to its exit code)."""

    REJECTED = "rejected"  # the bundle was refused: checksum, size, invalid, not newer
    BAD_REQUEST = "bad-request"  # what was asked for cannot be used: a URL not allowed, an unreadable --file
    UNFINISHED = "unfinished"  # the update could not finish: network, server, or the data folder


class UpdateError(Exception):
    """The update did not happen; ``failure`` says which way, the message says why."""

    def __init__(self, message: str, failure: UpdateFailure = UpdateFailure.REJECTED) -> None:
        super().__init__(message)
        self.failure = failure


class UpdateResult(Struct, frozen=True):
    path: str
    version: str
    date: str
    previous: Optional[str]  # version of the copy it replaced, if any
    shipped: Optional[str]
    origin: str  # the URL or file it came from
    sha256: str
    bytes: int

    def to_dict(self) -> Dict[str, Any]:
        return {"installed": self.path, "version": self.version, "date": self.date, "previous": self.previous,
                "shipped": self.shipped, "from": self.origin, "sha256": self.sha256, "bytes": self.bytes}


def check_url(url: str) -> None:
    """HTTPS only; plain HTTP only to the loopback interface (local mirrors and tests)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError as exc:
        raise UpdateError(f"not a URL: {url!r} ({exc})", UpdateFailure.BAD_REQUEST) from exc
    if parts.scheme == "https" and host:
        return
    if parts.scheme == "http" and _is_loopback(host):
        return
    raise UpdateError(f"refusing {url!r}: only https:// URLs are allowed (http:// only for 127.0.0.1, ::1, "
                      "localhost)", UpdateFailure.BAD_REQUEST)


def _is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def download(url: str, *, timeout: float = DEFAULT_TIMEOUT, max_bytes: int = MAX_MATRIX_BYTES) -> bytes:
    """The body of ``url``, refusing oversize, truncated, insecurely redirected or slow downloads."""
    import requests

    deadline = time.monotonic() + timeout * TOTAL_DEADLINE_FACTOR
    current = url
    try:
        with requests.Session() as session:
            for _ in range(MAX_REDIRECTS + 1):
                check_url(current)  # before connecting: a redirect must not leave HTTPS
                response = session.get(current, stream=True, timeout=(timeout, timeout), allow_redirects=False,
                                       headers={"Accept": "application/yaml, text/plain, */*",
                                                "Connection": "close"})
                if not response.is_redirect:
                    break
                current = urljoin(current, response.headers.get("Location", ""))
                response.close()
            else:
                raise UpdateError(f"too many redirects from {url}", UpdateFailure.UNFINISHED)
            with response:
                return _read_body(response, current, timeout, max_bytes, deadline)
    except UpdateError:
        raise
    except requests.exceptions.RequestException as exc:
        raise UpdateError(network_message(exc, current, timeout), UpdateFailure.UNFINISHED) from exc


_INCOMPLETE_READ = lazy_re(r"IncompleteRead\((\d+) bytes read, (\d+) more expected\)")


def network_message(exc: BaseException, url: str, timeout: float) -> str:
    """One sentence for a failed download, instead of the library's text
    ("HTTPConnectionPool(host=..., port=...): Read timed out.", "IncompleteRead(40226 bytes read,
    ...)"). Only the host and port are named: a URL may carry credentials."""
    import requests

    hostname = ""
    where = "the server"
    try:
        parts = urlsplit(url)
        hostname = parts.hostname or ""
        where = hostname or where
        if parts.port:
            where += f":{parts.port}"
    except ValueError:
        pass
    text = " ".join(str(a) for a in getattr(exc, "args", ()) if a) or str(exc)
    if isinstance(exc, requests.exceptions.ConnectTimeout):
        return f"download failed: {where} did not accept the connection within {timeout:g} s"
    if isinstance(exc, requests.exceptions.Timeout) or "timed out" in text.lower():
        return f"download failed: {where} stopped sending data for {timeout:g} s; nothing was changed"
    incomplete = _INCOMPLETE_READ.search(text)
    if incomplete:
        got, more = int(incomplete.group(1)), int(incomplete.group(2))
        return (f"download interrupted: {where} closed the connection after {got} of {got + more} bytes; "
                "nothing was changed")
    if isinstance(exc, requests.exceptions.SSLError):
        return f"download failed: the TLS connection to {where} failed (certificate or protocol problem)"
    if isinstance(exc, (requests.exceptions.ChunkedEncodingError, requests.exceptions.ContentDecodingError)):
        return f"download interrupted: {where} sent a broken response; nothing was changed"
    if isinstance(exc, requests.exceptions.ConnectionError):
        lowered = text.lower()
        if "name or service not known" in lowered or "nodename nor servname" in lowered or \
                "failed to resolve" in lowered or "temporary failure in name resolution" in lowered:
            return f"download failed: cannot resolve the host name {hostname or where}"
        if "connection refused" in lowered:
            return f"download failed: {where} refused the connection"
        return f"download failed: cannot connect to {where}"
    return f"download failed: {type(exc).__name__} talking to {where}"


def _read_body(response: Any, url: str, timeout: float, max_bytes: int, deadline: float) -> bytes:
    limit_mb = max_bytes / (1024 * 1024)
    if response.status_code != 200:
        raise UpdateError(f"download failed: HTTP {response.status_code} from {url}", UpdateFailure.UNFINISHED)
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise UpdateError(f"refusing the download: {int(declared)} bytes is over the {limit_mb:g} MB limit")
    chunks = []
    received = 0
    for chunk in response.iter_content(CHUNK):
        received += len(chunk)
        if received > max_bytes:
            raise UpdateError(f"refusing the download: more than the {limit_mb:g} MB limit")
        if time.monotonic() > deadline:
            raise UpdateError(f"download took longer than {timeout * TOTAL_DEADLINE_FACTOR:g} s; gave up",
                              UpdateFailure.UNFINISHED)
        chunks.append(chunk)
    if declared.isdigit() and received != int(declared):
        raise UpdateError(f"download interrupted: got {received} of {declared} bytes", UpdateFailure.UNFINISHED)
    return b"".join(chunks)


def read_local(path: str, max_bytes: int = MAX_MATRIX_BYTES) -> bytes:
    """A bundle file carried onto this machine: only a regular file is read (a FIFO or device
    named by --file is refused, never waited on), at most ``max_bytes``."""
    from ascend_doctor import safeio

    try:
        return safeio.read_regular(path, max_bytes)
    except safeio.InputTooLarge:
        raise UpdateError(f"refusing {path}: over the {max_bytes // (1024 * 1024)} MB limit") from None
    except OSError as exc:
        raise UpdateError(f"cannot read {path}: {safeio.describe_os_error(exc)}", UpdateFailure.BAD_REQUEST) from None


def install(data: bytes, origin: str, *, sha256: Optional[str] = None, force: bool = False,
            data_dir: Optional[str] = None) -> UpdateResult:
    """Check ``data`` (a bundle) and move it into the user data folder. Raises UpdateError."""
    digest = hashlib.sha256(data).hexdigest()
    if sha256 is not None and digest.lower() != sha256.strip().lower():
        raise UpdateError(f"checksum mismatch: expected sha256 {sha256.strip().lower()}, got {digest}")
    folder = data_dir or user_data_dir()
    target = os.path.join(folder, os.path.basename(user_matrix_path()))
    try:
        os.makedirs(folder, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=".matrix-", suffix=".yaml.part")
    except OSError as exc:
        raise UpdateError(f"cannot write to {folder}: {exc.strerror or exc}", UpdateFailure.UNFINISHED) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it 0600; the matrix is not a secret
        doc = load_document(tmp, allow_include=False)
        if doc.problems or doc.meta is None:
            first = doc.problems[0] if doc.problems else None
            where = f"line {first.line} " if first and first.line else ""
            detail = f"{where}{first.path + ': ' if first and first.path else ''}{first.message if first else ''}"
            more = f" (and {len(doc.problems) - 1} more)" if len(doc.problems) > 1 else ""
            raise UpdateError(f"the new matrix from {origin} is invalid: {detail}{more}; nothing was changed")
        new_version = doc.meta.version
        shipped = read_matrix_version(shipped_matrix_path())
        previous = read_matrix_version(target) if os.path.isfile(target) else None
        if not force:
            if not is_newer(new_version, shipped):
                raise UpdateError(f"matrix {new_version} is not newer than the shipped {shipped}; nothing was "
                                  "changed (use --force to install it anyway)")
            if previous and not is_newer(new_version, previous):
                raise UpdateError(f"matrix {new_version} is not newer than the installed {previous}; nothing was "
                                  "changed (use --force to install it anyway)")
        os.replace(tmp, target)
        _fsync_dir(folder)
    except OSError as exc:
        raise UpdateError(f"cannot install into {folder}: {exc.strerror or exc}", UpdateFailure.UNFINISHED) from exc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    _write_source_note(folder, {"from": origin, "sha256": digest, "version": new_version,
                                "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
    return UpdateResult(target, new_version, doc.meta.date, previous, shipped, origin, digest, len(data))


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_source_note(folder: str, data: Dict[str, Any]) -> None:
    """Where the installed bundle came from (informational; never read to decide anything)."""
    try:
        path = os.path.join(folder, SOURCE_FILE)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=2)
        os.replace(tmp, path)
    except OSError:
        pass


def update_from_url(url: str, *, sha256: Optional[str] = None, force: bool = False,
                    timeout: float = DEFAULT_TIMEOUT, data_dir: Optional[str] = None,
                    max_bytes: int = MAX_MATRIX_BYTES) -> UpdateResult:
    """Download and install; the URL is echoed and stored (matrix.source.json) with its
    credentials and signed parameters redacted (docs/redaction.md), in errors too."""
    from ascend_doctor.redaction.secrets import redact_text, redact_url

    try:
        data = download(url, timeout=timeout, max_bytes=max_bytes)
        return install(data, redact_url(url), sha256=sha256, force=force, data_dir=data_dir)
    except UpdateError as exc:
        raise UpdateError(redact_text(str(exc)), exc.failure) from None


def update_from_file(path: str, *, sha256: Optional[str] = None, force: bool = False,
                     data_dir: Optional[str] = None) -> UpdateResult:
    return install(read_local(path), os.path.abspath(path), sha256=sha256, force=force, data_dir=data_dir)
