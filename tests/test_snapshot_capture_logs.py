"""Snapshot capture keeps the tails of the newest CANN logs, so ASC-LOG-002 works on a replay."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Dict, Optional, Sequence

import pytest

from ascend_doctor import capture
from ascend_doctor.capture import records as capture_records
from ascend_doctor.cli import main
from ascend_doctor.host.base import CommandResult, CommandStatus
from ascend_doctor.host.live import LiveHost
from ascend_doctor.host.snapshot import SnapshotHost

from .clirunner import make_runner


class _QuietLiveHost(LiveHost):
    """This machine's files, but no commands and a HOME of our choosing."""

    def __init__(self, home: Path) -> None:
        super().__init__(timeout_s=1.0)
        self.home = home

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        return CommandResult(tuple(argv), CommandStatus.NOT_FOUND)

    def env(self) -> Dict[str, str]:
        return {"HOME": str(self.home), "PATH": "/usr/bin"}


def test_newest_logs_are_captured_with_their_age(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capture_records, "MAX_TAIL_BYTES", 4096)
    root = tmp_path / "machine"  # the captured machine's files; its HOME is /home/u
    plog = root / "home/u/ascend/log/debug/plog"
    plog.mkdir(parents=True)
    old = plog / "plog-100_20250101000000000.log"
    old.write_text("[ERROR] RUNTIME ... error code is 507033\n")
    os.utime(old, (1_700_000_000, 1_700_000_000))
    big = plog / "plog-200_20250102000000000.log"
    big.write_text("noise line\n" * 2000 + "Memory_Allocation_Failure(EL0004): Failed to allocate memory.\n")

    out = tmp_path / "snap.tar.gz"
    summary = capture.capture_snapshot(str(out), timeout_s=1.0, host=_QuietLiveHost(Path("/home/u")),
                                       fs_root=str(root))
    assert any("only its last" in note for note in summary.notes)
    machine_path = "/home/u/ascend/log/debug/plog/"
    with SnapshotHost(str(out)) as host:
        tail = host.read_text(machine_path + big.name)
        assert len(tail.encode()) <= 4096 and tail.rstrip().endswith("Failed to allocate memory.")
        stat = host.stat(machine_path + old.name)
        assert stat is not None and int(stat.mtime) == 1_700_000_000
        assert host.metadata["file_times"][machine_path + old.name] == 1_700_000_000

    result = make_runner().invoke(main, ["check", "--from", str(out), "--select", "ASC-LOG-002", "--format", "json"])
    report = json.loads(result.stdout)
    log_results = [r for r in report["results"] if r["id"] == "ASC-LOG-002"]
    assert any("EL0004" in r["message"] or "EL0004" in json.dumps(r["evidence"]) for r in log_results), log_results
