"""Messages are sentences, never a library's raw exception text (UX item 16 of
../shared/research/hostile_inputs.md: "[Errno 17] File exists", "HTTPConnectionPool(...)",
"IncompleteRead(...)", "torch_npu is not in None (Python None)", "1 checks not run")."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time
from pathlib import Path
from typing import Iterator, List

import pytest
import requests
from urllib3.exceptions import ProtocolError, ReadTimeoutError

from ascend_doctor.cli import main
from ascend_doctor.matrix.update import network_message

from .clirunner import make_runner

REPO = Path(__file__).resolve().parent.parent
HEALTHY = REPO / "fixtures" / "healthy-8x910B3"


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return make_runner().invoke(main, list(args), catch_exceptions=False)


def test_row_137_read_timeout_in_words() -> None:
    raw = requests.exceptions.ConnectionError(ReadTimeoutError(None, "/m.yaml", "Read timed out."))  # type: ignore[arg-type]
    message = network_message(raw, "http://user:pw@127.0.0.1:18080/stall_body", 5)
    assert message == "download failed: 127.0.0.1:18080 stopped sending data for 5 s; nothing was changed"


def test_row_145_incomplete_read_in_words() -> None:
    raw = requests.exceptions.ChunkedEncodingError(ProtocolError(
        "Connection broken: IncompleteRead(40226 bytes read, 1000 more expected)"))
    message = network_message(raw, "https://mirror.example.com/m.yaml", 5)
    assert message == ("download interrupted: mirror.example.com closed the connection after 40226 of 41226 bytes; "
                       "nothing was changed")


def test_connection_refused_and_unknown_host_in_words() -> None:
    refused = requests.exceptions.ConnectionError("HTTPConnectionPool(host='127.0.0.1', port=9): Max retries "
                                                  "exceeded (Caused by NewConnectionError(... [Errno 111] "
                                                  "Connection refused))")
    assert network_message(refused, "http://127.0.0.1:9/x", 5) == "download failed: 127.0.0.1:9 refused the connection"
    unknown = requests.exceptions.ConnectionError("... Failed to resolve 'nowhere.invalid' ...")
    assert network_message(unknown, "https://nowhere.invalid/x", 5) == \
        "download failed: cannot resolve the host name nowhere.invalid"


@pytest.fixture()
def half_body_server() -> Iterator[str]:
    """Announces 100 000 bytes, sends 100, then waits (/stall) or closes (/cut)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    listener.settimeout(0.2)
    stop = threading.Event()

    def answer(conn: socket.socket) -> None:
        try:
            request = conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n" + b"#" * 100)
            if b"/stall" in request:
                stop.wait(3)
        except OSError:
            pass
        finally:
            conn.close()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(5)
    listener.close()


def test_row_137_145_matrix_update_errors_are_one_sentence(half_body_server: str, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    start = time.monotonic()
    stalled = invoke("matrix", "update", "--url", half_body_server + "/stall", "--timeout", "0.5")
    assert stalled.exit_code == 3 and time.monotonic() - start < 10
    assert "stopped sending data for 0.5 s" in stalled.output and "HTTPConnectionPool" not in stalled.output
    cut = invoke("matrix", "update", "--url", half_body_server + "/cut", "--timeout", "5")
    assert cut.exit_code == 3 and "IncompleteRead" not in cut.output and "(" not in cut.output.split(":", 2)[-1]
    assert "100" in cut.output  # says how much arrived


def test_one_check_not_run_is_singular() -> None:
    result = invoke("check", "--from", str(HEALTHY), "--select", "ASC-MDL-013")
    assert "Judged 0 of 1 check: 1 needs an input not given" in result.output and "1 checks" not in result.output


def test_row_209_unknown_python_version_is_not_none(tmp_path: Path) -> None:
    snap = tmp_path / "d_types"
    shutil.copytree(HEALTHY, snap)
    (snap / "python.json").write_text(json.dumps({
        "executable": ["x"], "version": 3.10, "path": "notalist",
        "packages": {"torch": 2.1, "torch-npu": None, "": "1", "vllm": {"a": 1}}}))
    result = invoke("check", "--from", str(snap), "--select", "ASC-PY-001", "--format", "json")
    messages: List[str] = [r["message"] for r in json.loads(result.stdout)["results"]]
    assert messages and not any("None" in m for m in messages), messages
