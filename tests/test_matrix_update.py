"""``matrix update`` and matrix selection, against a local HTTP server on 127.0.0.1.

Every failure (wrong checksum, oversize, invalid YAML, connection dropped mid-way, slow server,
insecure redirect) must leave the previously installed matrix byte-for-byte intact.
"""

from __future__ import annotations

import hashlib
import http.server
import os
import re
import threading
import time
from pathlib import Path
from typing import Callable, Dict, Iterator, Optional, Tuple

import pytest

from ascend_doctor.cli import main
from ascend_doctor.exitcodes import ExitCode
from ascend_doctor.matrix import MatrixError, load_matrix
from ascend_doctor.matrix.bundle import bundle_text
from ascend_doctor.matrix.meta import shipped_matrix_path, shipped_matrix_version
from ascend_doctor.matrix.update import UpdateError, UpdateFailure, check_url, update_from_file, update_from_url

from .clirunner import make_runner

SHIPPED = shipped_matrix_version()


@pytest.fixture(scope="module")
def bundle() -> str:
    return bundle_text(shipped_matrix_path())


def with_version(text: str, version: str) -> bytes:
    assert f'version: "{SHIPPED}"' in text
    return text.replace(f'version: "{SHIPPED}"', f'version: "{version}"', 1).encode("utf-8")


Route = Callable[[http.server.BaseHTTPRequestHandler], None]


class Server:
    def __init__(self) -> None:
        self.routes: Dict[str, Route] = {}
        routes = self.routes

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                route = routes.get(self.path)
                if route is None:
                    self.send_error(404)
                    return
                route(self)

            def log_message(self, *args: object) -> None:
                pass

        class Quiet(http.server.ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                pass  # clients hanging up mid-body is what several tests do on purpose

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def body(self, path: str, data: bytes, *, declared: Optional[int] = None, send: Optional[int] = None,
             delay: float = 0.0, status: int = 200, headers: Tuple[Tuple[str, str], ...] = ()) -> None:
        def route(handler: http.server.BaseHTTPRequestHandler) -> None:
            handler.send_response(status)
            for name, value in headers:
                handler.send_header(name, value)
            if declared is not None or send is None:
                handler.send_header("Content-Length", str(declared if declared is not None else len(data)))
            handler.send_header("Connection", "close")
            handler.end_headers()
            if delay:
                time.sleep(delay)
            handler.wfile.write(data[:send] if send is not None else data)
            handler.wfile.flush()
            handler.close_connection = True
        self.routes[path] = route

    def close(self) -> None:
        if self.thread.is_alive():
            self.httpd.shutdown()
            self.httpd.server_close()
            self.thread.join(5)


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server()
    yield srv
    srv.close()


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(folder))
    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)
    return folder


def installed(data_dir: Path) -> bytes:
    return (data_dir / "matrix.yaml").read_bytes()


# -- URL policy -------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["https://example.com/m.yaml", "http://127.0.0.1:8000/m.yaml",
                                 "http://localhost/m.yaml", "http://[::1]:9/m.yaml"])
def test_allowed_urls(url: str) -> None:
    check_url(url)


@pytest.mark.parametrize("url", ["http://example.com/m.yaml", "ftp://example.com/m.yaml", "file:///etc/passwd",
                                 "example.com/m.yaml", "https:///nohost", "http://10.0.0.1/m.yaml"])
def test_refused_urls(url: str) -> None:
    with pytest.raises(UpdateError) as info:
        check_url(url)
    assert info.value.failure is UpdateFailure.BAD_REQUEST


# -- the update path --------------------------------------------------------------------------

def test_good_download_installs_and_is_used(server: Server, data_dir: Path, bundle: str) -> None:
    data = with_version(bundle, "2099.1.1")
    server.body("/m.yaml", data)
    result = update_from_url(server.url("/m.yaml"), sha256=hashlib.sha256(data).hexdigest())
    assert result.version == "2099.1.1" and result.previous is None and result.shipped == SHIPPED
    assert installed(data_dir) == data
    assert not [p for p in os.listdir(data_dir) if p.endswith(".part")]
    m = load_matrix()
    assert m.version == "2099.1.1" and m.origin == f"user: {data_dir / 'matrix.yaml'}"
    assert m.cann_vs_driver("8.0.RC3", "24.1.rc2").ok


@pytest.fixture
def previous(data_dir: Path, bundle: str, tmp_path: Path) -> bytes:
    """An update already installed: failures below must leave exactly these bytes."""
    data = with_version(bundle, "2099.1.1")
    source = tmp_path / "prev.yaml"
    source.write_bytes(data)
    update_from_file(str(source))
    return installed(data_dir)


def test_wrong_checksum(server: Server, data_dir: Path, bundle: str, previous: bytes) -> None:
    server.body("/m.yaml", with_version(bundle, "2099.2.2"))
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/m.yaml"), sha256="0" * 64)
    assert info.value.failure is UpdateFailure.REJECTED and "checksum mismatch" in str(info.value)
    assert installed(data_dir) == previous


def test_oversize_declared(server: Server, data_dir: Path, previous: bytes) -> None:
    server.body("/big.yaml", b"#" * (5 * 1024 * 1024 + 1))
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/big.yaml"))
    assert "over the 5 MB limit" in str(info.value)
    assert installed(data_dir) == previous


def test_oversize_streamed_without_length(server: Server, data_dir: Path, previous: bytes) -> None:
    server.body("/big.yaml", b"#" * 300_000, send=300_000)  # close-delimited body, no Content-Length
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/big.yaml"), max_bytes=100_000)
    assert "more than the" in str(info.value)
    assert installed(data_dir) == previous


def test_invalid_yaml(server: Server, data_dir: Path, previous: bytes) -> None:
    server.body("/bad.yaml", b"schema_version: 1\nversion: \"2099.3.3\"\nhdk_releases: [\n")
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/bad.yaml"))
    assert info.value.failure is UpdateFailure.REJECTED
    assert "is invalid: line" in str(info.value) and "YAML syntax error" in str(info.value)
    assert installed(data_dir) == previous


def test_invalid_matrix_content(server: Server, data_dir: Path, bundle: str, previous: bytes) -> None:
    broken = with_version(bundle, "2099.3.3").replace(b'verdict: recommended', b'verdict: maybe', 1)
    server.body("/m.yaml", broken)
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/m.yaml"))
    assert "hdk_cann[" in str(info.value) and "'maybe' is not one of" in str(info.value)
    assert installed(data_dir) == previous


def test_connection_dropped_midway(server: Server, data_dir: Path, bundle: str, previous: bytes) -> None:
    data = with_version(bundle, "2099.4.4")
    server.body("/m.yaml", data, declared=len(data), send=len(data) // 2)
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/m.yaml"))
    assert info.value.failure is UpdateFailure.UNFINISHED and "interrupted" in str(info.value)
    assert installed(data_dir) == previous


def test_slow_server_times_out(server: Server, data_dir: Path, bundle: str, previous: bytes) -> None:
    server.body("/slow.yaml", with_version(bundle, "2099.5.5"), delay=1.5)
    started = time.monotonic()
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/slow.yaml"), timeout=0.3)
    assert time.monotonic() - started < 1.4
    assert info.value.failure is UpdateFailure.UNFINISHED
    assert installed(data_dir) == previous


def test_http_error_and_unreachable(server: Server, data_dir: Path, previous: bytes) -> None:
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/missing.yaml"))
    assert info.value.failure is UpdateFailure.UNFINISHED and "HTTP 404" in str(info.value)
    port = server.httpd.server_address[1]
    server.close()
    with pytest.raises(UpdateError) as info:
        update_from_url(f"http://127.0.0.1:{port}/m.yaml", timeout=1)
    assert info.value.failure is UpdateFailure.UNFINISHED
    assert installed(data_dir) == previous


def test_redirect_to_plain_http_is_refused(server: Server, data_dir: Path, previous: bytes) -> None:
    server.body("/redirect", b"", status=302, headers=(("Location", "http://example.invalid/m.yaml"),))
    with pytest.raises(UpdateError) as info:
        update_from_url(server.url("/redirect"))
    assert "only https://" in str(info.value)
    assert installed(data_dir) == previous


def test_loopback_redirect_is_followed(server: Server, data_dir: Path, bundle: str, previous: bytes) -> None:
    server.body("/redirect", b"", status=301, headers=(("Location", "/m.yaml"),))
    server.body("/m.yaml", with_version(bundle, "2099.6.6"))
    assert update_from_url(server.url("/redirect")).version == "2099.6.6"


def test_not_newer_is_refused_unless_forced(data_dir: Path, bundle: str, tmp_path: Path) -> None:
    same = tmp_path / "same.yaml"
    same.write_bytes(with_version(bundle, SHIPPED))
    with pytest.raises(UpdateError) as info:
        update_from_file(str(same))
    assert "not newer than the shipped" in str(info.value)
    assert not (data_dir / "matrix.yaml").exists()
    assert update_from_file(str(same), force=True).version == SHIPPED
    assert load_matrix().origin == "shipped"  # an equal copy never shadows the shipped matrix


def test_downgrade_of_installed_copy_is_refused(data_dir: Path, bundle: str, tmp_path: Path,
                                                previous: bytes) -> None:
    older = tmp_path / "older.yaml"
    older.write_bytes(with_version(bundle, "2099.0.1"))
    with pytest.raises(UpdateError) as info:
        update_from_file(str(older))
    assert "not newer than the installed 2099.1.1" in str(info.value)
    assert installed(data_dir) == previous


def test_split_matrix_is_not_a_bundle(data_dir: Path) -> None:
    with pytest.raises(UpdateError) as info:
        update_from_file(shipped_matrix_path(), force=True)
    assert "self-contained" in str(info.value)


# -- which matrix a run uses ------------------------------------------------------------------

def test_env_and_explicit_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: str) -> None:
    path = tmp_path / "mine.yaml"
    path.write_bytes(with_version(bundle, "2000.1.1"))
    monkeypatch.setenv("ASCEND_DOCTOR_MATRIX", str(path))
    m = load_matrix()
    assert m.version == "2000.1.1" and m.origin == f"env ASCEND_DOCTOR_MATRIX: {path}"
    assert load_matrix(str(path)).origin == f"file: {path}"


def test_invalid_explicit_matrix_raises(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("schema_version: 1\n", encoding="utf-8")
    with pytest.raises(MatrixError) as info:
        load_matrix(str(path))
    assert str(path) in str(info.value)


def test_broken_user_copy_falls_back_to_shipped(data_dir: Path) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "matrix.yaml").write_text('schema_version: 1\nversion: "2099.9.9"\ndate: [\n', encoding="utf-8")
    m = load_matrix()
    assert m.origin == "shipped"
    assert m.warnings and "ignored the updated matrix" in m.warnings[0]


def test_older_user_copy_is_ignored(data_dir: Path, bundle: str) -> None:
    data_dir.mkdir(parents=True)
    (data_dir / "matrix.yaml").write_bytes(with_version(bundle, "2000.1.1"))
    assert load_matrix().origin == "shipped"


def test_xdg_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_doctor.matrix.meta import user_matrix_path

    monkeypatch.delenv("ASCEND_DOCTOR_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert user_matrix_path() == str(tmp_path / "ascend-doctor" / "matrix.yaml")
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_matrix_path() == str(tmp_path / ".local" / "share" / "ascend-doctor" / "matrix.yaml")


# -- the CLI ----------------------------------------------------------------------------------

def test_cli_update_url_and_file(server: Server, data_dir: Path, bundle: str, tmp_path: Path) -> None:
    data = with_version(bundle, "2099.7.7")
    server.body("/m.yaml", data)
    runner = make_runner()
    result = runner.invoke(main, ["matrix", "update", "--url", server.url("/m.yaml"), "--sha256",
                                  hashlib.sha256(data).hexdigest(), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert '"version": "2099.7.7"' in result.stdout
    bad = runner.invoke(main, ["matrix", "update", "--url", server.url("/m.yaml"), "--sha256", "f" * 64])
    assert bad.exit_code == ExitCode.FINDINGS
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("ascend-doctor: error: checksum mismatch")
    newer = tmp_path / "n.yaml"
    newer.write_bytes(with_version(bundle, "2099.8.8"))
    ok = runner.invoke(main, ["matrix", "update", "--file", str(newer)])
    assert ok.exit_code == 0 and "installed matrix 2099.8.8" in ok.stdout
    shown = runner.invoke(main, ["matrix", "show"])
    date = re.search(r'^date: "([0-9-]+)"', newer.read_text(encoding="utf-8"), re.M)
    assert date is not None
    expected = f"compatibility matrix 2099.8.8 ({date.group(1)}, user: {data_dir / 'matrix.yaml'})"
    assert shown.stdout.splitlines()[0] == expected


def test_cli_update_usage_errors(data_dir: Path) -> None:
    runner = make_runner()
    for args in (["matrix", "update"], ["matrix", "update", "--url", "https://x/m", "--file", "f"],
                 ["matrix", "update", "--url", "http://example.com/m.yaml"],
                 ["matrix", "update", "--file", "x.yaml", "--sha256", "abc"]):
        result = runner.invoke(main, args)
        assert result.exit_code == ExitCode.USAGE, (args, result.output)
        assert result.stderr.startswith("ascend-doctor: error:") and result.stderr.count("\n") == 1
