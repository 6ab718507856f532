"""Where samples come from: the replay host, and the sampler that never waits past the timeout."""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import List, Optional, Sequence

import pytest

from ascend_doctor.host.base import CommandResult, CommandStatus, HostInfo
from ascend_doctor.watch import source
from ascend_doctor.watch.model import STATUS_ERROR, STATUS_OK, STATUS_TIMEOUT
from ascend_doctor.watch.source import NPU_SMI_INFO, ReplayClock, ReplayError, ReplayHost, Sampler, replay_files

SAMPLES = Path(__file__).resolve().parent / "samples"
PLANTED = SAMPLES / "watch" / "planted"
GPUSTAT = SAMPLES / "npu-smi-info" / "gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt"


class FakeHost:
    """Answers `npu-smi info` with the given results, in order (the last one repeats)."""

    def __init__(self, results: Sequence[CommandResult], block: Optional[threading.Event] = None) -> None:
        self.results = list(results)
        self.block = block
        self.calls = 0

    def info(self) -> HostInfo:
        return HostInfo(source="fake", hostname="fake-node", arch=None, kernel=None, os=None)

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        self.calls += 1
        if self.block is not None:
            self.block.wait(30)  # a command the host cannot stop (stuck in the kernel)
        return self.results[min(self.calls, len(self.results)) - 1]


def timeout_result() -> CommandResult:
    return CommandResult(NPU_SMI_INFO, CommandStatus.TIMEOUT, duration_s=10.0, timeout_s=10.0,
                         detail="killed after 10 s")


def ok_result(text: str) -> CommandResult:
    return CommandResult(NPU_SMI_INFO, CommandStatus.OK, returncode=0, stdout=text)


def test_a_timeout_from_the_host_is_a_stale_sample_saying_so() -> None:
    sampler = Sampler(FakeHost([timeout_result()]), ReplayClock(1_700_000_000.0), 10.0, "fake-node")
    sample = sampler.take(1)
    assert sample.stale and sample.status == STATUS_TIMEOUT and sample.chips == ()
    assert "did not answer within 10 s" in sample.reason
    assert sample.to_dict()["stale"] is True and sample.to_dict()["chips"] == []


def test_garbage_and_failures_are_stale_samples_not_exceptions() -> None:
    results = [ok_result("dcmi module initialize failed. ret is -8005\n"),
               CommandResult(NPU_SMI_INFO, CommandStatus.OK, returncode=255, stderr="dcmi module initialize failed"),
               CommandResult(NPU_SMI_INFO, CommandStatus.NOT_FOUND, detail="not installed")]
    sampler = Sampler(FakeHost(results), ReplayClock(0.0), 10.0, "n")
    garbage, failed, missing = (sampler.take(i) for i in (1, 2, 3))
    assert garbage.status == STATUS_ERROR and "could not parse npu-smi output" in garbage.reason
    assert failed.status == STATUS_ERROR and "exited with status 255" in failed.reason
    assert missing.status == STATUS_ERROR and sampler.last_status is CommandStatus.NOT_FOUND


def test_a_host_that_never_returns_gives_a_stale_sample_and_no_second_command(monkeypatch) -> None:
    monkeypatch.setattr(source, "GRACE_S", 0.05)
    release = threading.Event()
    host = FakeHost([ok_result(GPUSTAT.read_text())], block=release)
    sampler = Sampler(host, ReplayClock(0.0), 0.1, "n")
    started = time.monotonic()
    first = sampler.take(1)
    second = sampler.take(2)
    assert time.monotonic() - started < 2.0
    assert first.stale and "could not be stopped" in first.reason
    assert second.stale and "from sample 1 is still running" in second.reason
    assert host.calls == 1  # at most one npu-smi outstanding
    release.set()
    deadline = time.monotonic() + 5
    while sampler._busy is not None and sampler._busy.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    third = sampler.take(3)
    assert third.status == STATUS_OK and len(third.chips) == 2 and host.calls == 2


def test_replay_plays_captures_in_name_order_and_strips_the_source_header() -> None:
    host = ReplayHost(str(PLANTED))
    assert len(host) == 14 and host.hostname == "planted"
    assert [os.path.basename(p) for p in host.files][:3] == ["0001.txt", "0002.txt", "0003.txt"]
    first = host.run(["npu-smi", "info"])
    assert first.ok and first.stdout.startswith("+----") and "# source" not in first.stdout
    assert host.run(["npu-smi", "info", "-t", "board"]).status is CommandStatus.NOT_FOUND
    for _ in range(13):
        assert host.run(["npu-smi", "info"]).ok
    assert host.run(["npu-smi", "info"]).status is CommandStatus.ERROR  # nothing left


def test_replay_timeout_files_and_ignored_names(tmp_path: Path) -> None:
    shutil.copy(GPUSTAT, tmp_path / "0001.txt")
    (tmp_path / "0002.timeout").write_text("10\n")
    shutil.copy(GPUSTAT, tmp_path / "0003.txt")
    (tmp_path / "README.md").write_text("notes")
    (tmp_path / ".hidden.txt").write_text("x")
    (tmp_path / "sub.txt").mkdir()
    os.symlink(GPUSTAT, tmp_path / "0004.txt")  # a link to a capture is a capture
    os.mkfifo(tmp_path / "0005.txt")  # a FIFO is not
    host = ReplayHost(str(tmp_path), hostname="lab")
    assert [os.path.basename(p) for p in host.files] == ["0001.txt", "0002.timeout", "0003.txt", "0004.txt"]
    results = [host.run(NPU_SMI_INFO) for _ in range(3)]
    assert [r.status for r in results] == [CommandStatus.OK, CommandStatus.TIMEOUT, CommandStatus.OK]
    assert results[1].timeout_s == 10.0 and host.info().hostname == "lab"


def test_replay_refuses_unusable_folders(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match="no such directory"):
        replay_files(str(tmp_path / "absent"))
    (tmp_path / "f.txt").write_text("x")
    with pytest.raises(ReplayError, match="not a directory"):
        replay_files(str(tmp_path / "f.txt"))
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ReplayError, match=r"no \*\.txt"):
        replay_files(str(empty))


def test_replay_never_reads_a_fifo_or_an_oversized_file(tmp_path: Path) -> None:
    shutil.copy(GPUSTAT, tmp_path / "0001.txt")
    host = ReplayHost(str(tmp_path))
    # Swap the capture for a FIFO after listing: the read must refuse, not block.
    os.unlink(tmp_path / "0001.txt")
    os.mkfifo(tmp_path / "0001.txt")
    result = host.run(NPU_SMI_INFO)
    assert result.status is CommandStatus.ERROR and "not a regular file" in result.detail
    big = tmp_path / "big"
    big.mkdir()
    (big / "0001.txt").write_bytes(b"x" * (source.REPLAY_MAX_FILE_BYTES + 1))
    assert ReplayHost(str(big)).run(NPU_SMI_INFO).status is CommandStatus.ERROR


def test_replay_clock_moves_only_when_the_loop_sleeps() -> None:
    clock = ReplayClock(1000.0)
    clock.sleep(300)
    clock.sleep(-5)
    assert (clock.now(), clock.monotonic()) == (1300.0, 300.0)


def test_sampled_chips_carry_what_the_table_said() -> None:
    sampler = Sampler(ReplayHost(str(PLANTED)), ReplayClock(0.0), 10.0, "planted")
    samples: List = [sampler.take(i) for i in range(1, 9)]
    eighth = samples[-1]
    assert eighth.status == STATUS_OK and eighth.npu_smi_version == "25.0.rc1.2"
    npu0 = eighth.chips[0]
    assert [p.pid for p in npu0.processes] == [6513, 33776, 60575]
    assert npu0.memory_used_pct is not None and round(npu0.memory_used_pct, 1) == 96.0
