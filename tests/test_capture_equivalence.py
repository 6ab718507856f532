"""A snapshot grades like ``check`` on the machine it was taken on (issue 10: derived capture).

No machine here has an NPU, so each "machine" is one of the scenario fixtures played as a LIVE
host: its files are a real tree under a temporary folder (read through RootedHost, as any chroot),
its commands answer with the recorded outputs (npu-smi, hccn_tool, dmesg...), its environment,
Python and host sources are the recorded ones. On that machine we run ``check`` live, then take a
snapshot with the capture derived from the providers' declarations, then ``check --from`` it:
the results must be identical, and the snapshot must hold nothing the declarations do not cover.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest
from msgspec import structs

from ascend_doctor.capture import declared as D
from ascend_doctor.capture.run import capture_snapshot
from ascend_doctor.facts.reads import path_matches
from ascend_doctor.facts.variables import read_variables
from ascend_doctor.host.base import CommandResult, HostInfo, PythonEnv
from ascend_doctor.host.live import LiveHost
from ascend_doctor.host.rooted import RootedHost
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.matrix import load_matrix
from ascend_doctor.options import RunOptions
from ascend_doctor.runner import run_checks

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
# Machines of different kinds: healthy A2, NPU network, two driver stacks, MindIE, container, logs,
# kernels, 310P, no driver at all, hung npu-smi.
MACHINES = ["healthy-8x910B3", "network-healthy-8x910B3", "network-faults-8x910B3", "mixed-driver-stacks",
            "two-stacks-running-new", "clean-a2-mindie", "container-missing-mounts", "plog-aicore-error",
            "kernels-wrong-chip", "310p3-inference", "no-driver", "npu-smi-hung", "npu-ecc-double-bit",
            "cann-nondefault-path", "atb-abi-mismatch", "torch-npu-other-cann"]


class RecordedMachine(LiveHost):
    """A live host whose commands and host sources are those recorded in a fixture."""

    def __init__(self, fixture: Path) -> None:
        super().__init__(timeout_s=2.0)
        self._snap = SnapshotHost(str(fixture))

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        return self._snap.run(argv, timeout)

    def info(self) -> HostInfo:
        return structs.replace(self._snap.info(), source="live", origin=None)

    def env(self) -> Dict[str, str]:
        return dict(self._snap.env())

    def python_env(self) -> PythonEnv:
        return self._snap.python_env()

    def python_probe(self) -> Tuple[PythonEnv, Dict[str, Any]]:
        env = self._snap.python_env()
        raw: Dict[str, Any] = dict(getattr(self._snap, "_python", None) or {})
        return env, raw

    def memory(self) -> Any:
        return self._snap.memory()

    def cpu_count(self) -> Optional[int]:
        return self._snap.cpu_count()

    def disk_usage(self, path: str) -> Any:
        return self._snap.disk_usage(path)

    def processes(self) -> Any:
        return self._snap.processes()

    def listening_sockets(self) -> Any:
        return self._snap.listening_sockets()


def _machine(fixture: Path, tmp_path: Path) -> Tuple[RecordedMachine, Path]:
    """The fixture's files copied to a private tree (a capture must not depend on the checkout)."""
    root = tmp_path / "machine"
    if (fixture / "files").is_dir():
        shutil.copytree(fixture / "files", root, symlinks=True)
    else:
        root.mkdir()
    logs = fixture / "snapshot.json"
    if logs.is_file():  # keep the logs' recorded ages: they are the machine's file times here
        import json

        times = json.loads(logs.read_text(encoding="utf-8")).get("file_times") or {}
        for host_path, mtime in times.items():
            local = root / host_path.lstrip("/")
            if local.is_file():
                os.utime(local, (mtime, mtime))
    return RecordedMachine(fixture), root


def _graded(host: Any) -> List[Tuple[str, str, str, str]]:
    report = run_checks(host, load_matrix(None), RunOptions(timeout_s=2.0))
    return [(r.id, r.status.value if hasattr(r.status, "value") else str(r.status), r.message, r.remediation)
            for r in report.results]


def _normalise(rows: List[Tuple[str, str, str, str]]) -> List[Tuple[str, str, str, str]]:
    # The one wording that names the origin on purpose: a replayed absence says where it was looked.
    return [(i, s, m.replace("not recorded in this snapshot", "not installed"), r) for i, s, m, r in rows]


@pytest.mark.parametrize("name", MACHINES)
def test_check_live_equals_check_from_its_snapshot(name: str, tmp_path: Path) -> None:
    fixture = FIXTURES / name
    machine, root = _machine(fixture, tmp_path)
    live = _graded(RootedHost(machine, str(root)))
    out = tmp_path / "snap"
    capture_snapshot(str(out) + "/", timeout_s=2.0, host=RecordedMachine(fixture), fs_root=str(root))
    with SnapshotHost(str(out)) as snap:
        replay = _graded(snap)
    replay_rows, live_rows = _normalise(replay), _normalise(live)
    differences = [f"{a}\n   != {b}" for a, b in zip(replay_rows, live_rows) if a != b]
    assert len(replay_rows) == len(live_rows) and not differences, "snapshot != live:\n" + "\n".join(differences)


@pytest.mark.parametrize("name", ["healthy-8x910B3", "clean-a2-mindie"])
def test_a_snapshot_holds_only_declared_paths(name: str, tmp_path: Path) -> None:
    fixture = FIXTURES / name
    machine, root = _machine(fixture, tmp_path)
    # Things no provider reads: a kernel binary, a private key behind a link, a big library.
    (root / "root/.ssh").mkdir(parents=True, exist_ok=True)
    (root / "root/.ssh/id_rsa").write_text("PRIVATE KEY\n")
    lib = root / "usr/local/Ascend/driver/lib64/libunrelated.so"
    lib.parent.mkdir(parents=True, exist_ok=True)
    lib.write_bytes(b"\0" * 4096)
    out = tmp_path / "snap"
    capture_snapshot(str(out) + "/", timeout_s=2.0, host=machine, fs_root=str(root))
    variables = D.machine_variables(read_variables(RootedHost(machine, str(root))))
    declared = D.declarations(False).merged(D.declarations(True))
    patterns = D.expanded(declared, variables)
    content = patterns["files"] + patterns["tails"]
    anywhere = content + patterns["present"] + patterns["listings"]
    files = out / "files"
    with SnapshotHost(str(out)) as snap:  # declared files reached through a recorded link count too
        reachable = {snap.realpath(p) for pattern in content for p in D.glob(snap, pattern, [])}
    for path in files.rglob("*"):
        host_path = "/" + path.relative_to(files).as_posix()
        if path.is_symlink() or path.is_dir():
            continue
        parent = host_path.rsplit("/", 1)[0] or "/"
        covered = host_path in reachable or any(path_matches(host_path, p) for p in anywhere) or \
            any(path_matches(parent, p) for p in patterns["listings"] + patterns["tails"])
        assert covered, f"{host_path} is in the snapshot but no provider declares it"
        if path.stat().st_size:
            assert host_path in reachable or any(path_matches(host_path, p) for p in content), \
                f"{host_path}: content copied undeclared"
    assert not (files / "root/.ssh/id_rsa").exists()
    assert not (files / "usr/local/Ascend/driver/lib64/libunrelated.so").exists()
