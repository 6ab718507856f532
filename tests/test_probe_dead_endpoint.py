"""`probe` against an endpoint nothing listens on says the connection error once (ASC-SRV-001's
message), not again in every SKIP and note."""

from __future__ import annotations

import json
import socket

from ascend_doctor.cli import main

from .clirunner import make_runner


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # closed again: nothing listens there


def test_the_connection_error_is_said_once() -> None:
    url = f"http://127.0.0.1:{_closed_port()}"
    result = make_runner().invoke(main, ["probe", url, "--timeout", "3", "--no-progress", "--format", "json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 1
    first = next(r for r in report["results"] if r["id"] == "ASC-SRV-001")
    assert first["status"] == "FAIL" and first["evidence"]["outcome"] == "connect_error"
    error = first["message"].split(" did not answer: ", 1)[1]
    skips = [r for r in report["results"] if r["status"] == "SKIP"]
    assert skips and not any(error[:30] in r["message"] for r in skips)
    assert not any(error[:30] in note for note in report["notes"])
    assert any("ASC-SRV-001" in r["message"] for r in skips)
