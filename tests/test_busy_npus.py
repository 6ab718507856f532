"""Busy NPUs explained, never a kill by default (issue 25, item 4).

Every process npu-smi lists on a busy NPU is named, largest first (none dropped), by its engine when
the name says it; the fix plan finds what started them (their container, unit or job) and never
kills a serving engine. The rule is held over every fixture, then on variants of real samples: the
vLLM-Ascend rank-0 shape of vllm-project/vllm-ascend pull 7107 (small VLLMWorker_TP contexts listed
before the worker that holds the card) and a pasted ticket with vLLM serving.
Assertions are on ids, statuses, evidence and the commands printed.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any, Dict, List, Sequence, Tuple

import pytest
from ascend_doctor.checks import _npu_holders as H

from ascend_doctor.checkapi import Status
from ascend_doctor.cli import main
from ascend_doctor.facts import Facts
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.options import RunOptions
from ascend_doctor.runner import run_checks
from ascend_doctor.shellcmd import words

from .clirunner import make_runner

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SAMPLES = ROOT / "tests" / "samples"
SELECT = ("ASC-DEV-010", "ASC-DEV-011", "ASC-SMI-001")
# A kill of a concrete process: a PID (digits) after kill / pkill / killall, anywhere in a line.
_KILL_A_PID = re.compile(r"\b(?:kill|pkill|killall)\b(?:\s+-\S+)*\s+\d")


def _fixtures() -> List[str]:
    return sorted(p.name for p in FIXTURES.iterdir() if (p / "snapshot.json").is_file())


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASCEND_DOCTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("ASCEND_DOCTOR_MATRIX", raising=False)


def _listed(path: Path) -> Dict[Tuple[int, int], List[Tuple[int, int]]]:
    """npu-smi's process table of a snapshot: (npu, chip) -> [(pid, MB)], as the parser reads it."""
    smi = Facts(SnapshotHost(str(path))).maybe(Facts.npu_smi)
    table: Dict[Tuple[int, int], List[Tuple[int, int]]] = {}
    for p in getattr(smi, "processes", []) or []:
        table.setdefault((p.npu_id, p.chip_id if p.chip_id is not None else 0), []).append((p.pid, p.memory_mb or 0))
    return table


def _scope_key(scope: str) -> Tuple[int, int]:
    numbers = [int(n) for n in re.findall(r"\d+", scope)]
    return numbers[0], numbers[1] if len(numbers) > 1 else 0


def _assert_busy_rule(path: Path) -> List[Any]:
    """The rule, on one snapshot: returns the busy findings it judged."""
    report = run_checks(SnapshotHost(str(path)), None, RunOptions(select=SELECT))
    assert not [r for r in report.results if r.status is Status.ERROR], path.name
    table = _listed(path)
    busy = [r for r in report.results if r.id == "ASC-DEV-010" and r.status is not Status.PASS
            and "processes" in r.evidence]
    for r in busy:
        processes = r.evidence["processes"]
        memory = [p["memory_mb"] or 0 for p in processes]
        assert memory == sorted(memory, reverse=True), (path.name, r.scope)  # largest first
        # none dropped: every row npu-smi lists for that chip is in the finding
        assert sorted(p["pid"] for p in processes) == sorted(pid for pid, _ in table[_scope_key(r.scope or "")])
        assert r.evidence["pids"] == [p["pid"] for p in processes]
        assert r.evidence["held_mb"] == sum(memory)
        # named by the engine when the name says it
        for p in processes:
            kind, engine = H.classify(p["name"])
            if kind == H.SERVING:
                assert p["engine"] == engine and engine in r.evidence["holder_engines"]
        # never a kill of a process in the finding, whatever it is
        assert not _KILL_A_PID.search(r.remediation), (path.name, r.remediation)
        if r.evidence["holder_engines"]:
            assert r.status is Status.FAIL
    # the plan: one step lists every holder in scope and kills none
    for step in report.fix_plan:
        for command in step.commands:
            assert not _KILL_A_PID.search(command), (path.name, command)
    if busy:
        steps = [s for s in report.fix_plan if any(f.startswith("ASC-DEV-010 [") for f in s.fixes)]
        assert len(steps) == 1, path.name
        assert set(steps[0].fixes) >= {f"ASC-DEV-010 [{r.scope}]" for r in busy}
        listed = next(c for c in steps[0].commands if c.startswith("ps "))
        pids = {int(p) for p in list(words(listed))[4].split(",")}
        assert pids == {p["pid"] for r in busy for p in r.evidence["processes"]}
    return busy


@pytest.mark.parametrize("name", _fixtures())
def test_busy_npu_rule_holds_on_every_fixture(name: str) -> None:
    _assert_busy_rule(FIXTURES / name)


def test_the_rule_has_busy_npus_to_judge() -> None:
    """The fixtures hold busy NPUs of vLLM, MindIE, a Ray worker, one job's ranks and unnamed processes."""
    kinds: set[Tuple[str, Any]] = set()
    for name in ("busy-npus-other-container", "vllm-workers-hold-npus", "both-engines",
                 "training-node-reboot-pending"):
        for r in _assert_busy_rule(FIXTURES / name):
            kinds.update((p["kind"], p["engine"]) for p in r.evidence["processes"])
    assert kinds >= {("serving", "vLLM"), ("serving", "MindIE"), ("ray", None), ("ranks", None), ("other", None)}


def test_one_name_on_every_npu_is_one_jobs_ranks_and_gets_no_kill() -> None:
    """MindCluster's eight ``python`` processes, one per NPU: one job, stopped through what launched it."""
    busy = _assert_busy_rule(FIXTURES / "training-node-reboot-pending")
    assert len(busy) == 8 and all(r.evidence["holder_kinds"] == ["ranks"] for r in busy)
    assert not any("kill '<" in r.remediation for r in busy)


def test_kill_is_offered_only_for_a_process_the_user_picks() -> None:
    """An unknown process may be a leftover: the user picks it (a placeholder), the tool never names the pid."""
    unknown = H.Holder(4242, "python", 2000, None, H.OTHER, None, "")
    engine = H.Holder(4243, "VLLMWorker_TP", 30000, None, H.SERVING, "vLLM", "")
    assert "kill '<pid you chose>'" in H.stop_advice([unknown])
    assert "kill '<" not in H.stop_advice([engine])
    assert not any(_KILL_A_PID.search(c) for c in H.lookup_commands([engine, unknown]))


@pytest.mark.parametrize("name, cmdline, want", [
    ("VLLMWorker_TP", "", (H.SERVING, "vLLM")),  # vllm-ascend pull 7107; the gpustat fixture
    ("VLLMWorker_PP", "", (H.SERVING, "vLLM")),  # corpus: A3 26.0.rc1 fixture
    ("EngineCore_DP0", "", (H.SERVING, "vLLM")),  # vLLM's engine core title (vllm-ascend issue logs)
    ("mindie_llm_back", "", (H.SERVING, "MindIE")),  # 15 characters of mindie_llm_backend
    ("mindieservice_d", "", (H.SERVING, "MindIE")),  # 15 characters of mindieservice_daemon
    ("rayWorkerDict", "", (H.RAY, None)),  # the gpustat fixture, next to VLLMWorker_TP
    ("python", "python -m vllm.entrypoints.openai.api_server --model /m", (H.SERVING, "vLLM")),
    ("python", "torchrun --nproc_per_node 8 pretrain_gpt.py", (H.TRAINING, None)),
    ("python3", "python3 -m torch.distributed.run train.py", (H.TRAINING, None)),
    ("python", "", (H.OTHER, None)),  # a name alone says nothing (MindCluster's eight training ranks)
    ("python3.1", "", (H.OTHER, None)),  # vllm-ascend issue 12980: python3.11 cut by the table
    ("", "", (H.OTHER, None)),  # vllm-ascend#3002: npu-smi printed no name
])
def test_process_names_are_classified_as_real_tables_print_them(name: str, cmdline: str,
                                                                 want: Tuple[str, Any]) -> None:
    assert H.classify(name, cmdline) == want


def _rank0_variant(tmp_path: Path) -> Path:
    """vllm-workers-hold-npus with vllm-ascend pull 7107's rank-0 shape: six 107 MB VLLMWorker_TP contexts of
    the other ranks listed on NPU 0 before the worker that holds the card."""
    target = tmp_path / "rank0"
    shutil.copytree(FIXTURES / "vllm-workers-hold-npus", target)
    out = target / "commands" / "npu-smi_info.out"
    text = out.read_text(encoding="utf-8")
    extra = "".join(f"| 0       0                 | {pid:<13} | VLLMWorker_TP            | 107                     |\n"
                    for pid in range(669123, 669129))
    marker = "| 0       0                 | 6513 "
    assert marker in text
    out.write_text(text.replace(marker, extra + marker, 1), encoding="utf-8")
    return target


def test_largest_holder_leads_and_none_is_dropped(tmp_path: Path) -> None:
    snapshot = _rank0_variant(tmp_path)
    busy = _assert_busy_rule(snapshot)
    first = next(r for r in busy if r.scope == "NPU 0 chip 0")
    assert first.evidence["pids"][0] == 33776  # the worker holding 31747 MB, listed last by npu-smi
    assert len(first.evidence["processes"]) == 8
    assert str(33776) in first.message and "33776" in first.message.split(";")[0]
    report = run_checks(SnapshotHost(str(snapshot)), None, RunOptions(select=SELECT))
    step = next(s for s in report.fix_plan if "ASC-DEV-010 [NPU 0 chip 0]" in s.fixes)
    ps = list(words(step.commands[0]))
    assert ps[:4] == ["ps", "-o", "pid,ppid,user,etime,args", "-p"]
    assert ps[4].split(",")[:2] == ["33776", "33777"]  # by the memory each holds in all
    assert len(ps[4].split(",")) == 9


def test_a_pasted_ticket_with_vllm_serving_never_gets_a_kill(tmp_path: Path) -> None:
    """A support engineer pastes a user's npu-smi table while vLLM serves: the plan looks up the service."""
    sample = SAMPLES / "npu-smi-info" / "gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt"
    paste = tmp_path / "ticket.txt"
    paste.write_text(sample.read_text(encoding="utf-8"), encoding="utf-8")
    result = make_runner().invoke(main, ["check", "--from-text", str(paste), "--format", "json",
                                       *[a for s in SELECT for a in ("--select", s)]])
    assert result.exit_code in (0, 1, 3), result.output
    report = json.loads(result.stdout)
    busy = [r for r in report["results"] if r["id"] == "ASC-DEV-010" and r["status"] != "PASS"]
    assert busy and all(r["evidence"]["holder_engines"] == ["vLLM"] for r in busy)
    assert all(r["status"] == "FAIL" for r in busy)
    plan: Sequence[Dict[str, Any]] = report["fix_plan"]
    commands = [c for step in plan for c in step["commands"]]
    assert not any(_KILL_A_PID.search(c) or c.startswith("kill") for c in commands)
    assert any(c.startswith("cat /proc/33776/cgroup") for c in commands)
    for r in busy:  # no kill at all, not even of a process the user would pick: both holders serve
        assert not re.search(r"\bkill\s+('<|\d)", r["remediation"])
