"""Every host implementation answers every question of the ``Host`` protocol (host/base.py), so that
capture, facts and checks call them directly instead of probing with getattr/hasattr."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import List

import pytest

from ascend_doctor.capture.recorder import CapturingHost
from ascend_doctor.capture.tree import SnapshotTree
from ascend_doctor.host.base import Host
from ascend_doctor.host.live import LiveHost
from ascend_doctor.host.pasted import PastedTextHost
from ascend_doctor.host.rooted import RootedHost
from ascend_doctor.host.snapshot import SnapshotHost


def protocol_members() -> List[str]:
    return sorted(name for name, _value in inspect.getmembers(Host)
                  if not name.startswith("_") and name in vars(Host))


def test_the_protocol_declares_what_facts_ask_of_a_snapshot() -> None:
    members = set(protocol_members())
    assert {"stat", "readlink", "listdir", "read_bytes", "close", "metadata", "captured", "captured_command",
            "captured_disk", "recorded_commands", "recorded_model"} <= members


@pytest.mark.parametrize("cls", [LiveHost, SnapshotHost, PastedTextHost])
def test_each_host_class_defines_every_member(cls: type) -> None:
    missing = [name for name in protocol_members() if not hasattr(cls, name)]
    assert missing == []


def test_delegating_hosts_answer_every_member(tmp_path: Path) -> None:
    live = LiveHost()
    rooted = RootedHost(live, str(tmp_path))
    capturing = CapturingHost(live, SnapshotTree(str(tmp_path / "tree"), live, lambda _path, _kind: False))
    for host in (rooted, capturing):
        missing = [name for name in protocol_members() if not hasattr(host, name)]
        assert missing == []


def test_a_live_machine_covers_every_question_and_records_nothing() -> None:
    live = LiveHost()
    assert live.captured("/etc/hccn.conf") and live.captured_disk("/") and live.captured_command(["npu-smi", "info"])
    assert live.recorded_commands() == [] and not live.recorded_model("/models/x") and dict(live.metadata) == {}
