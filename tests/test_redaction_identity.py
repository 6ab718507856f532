"""`--redact`: identities become stable placeholders; versions, ids and meaning stay."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest

from ascend_doctor import capture
from ascend_doctor.cli import main
from ascend_doctor.host.base import CommandResult, CommandStatus, PythonEnv
from ascend_doctor.host.live import LiveHost
from ascend_doctor.redaction.identity import IdentityRedactor, RedactionError, redact_snapshot_tree

from .clirunner import make_runner
from .samples_util import SAMPLES, sample_body

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

NPU_SMI_8X910B4 = sample_body("npu-smi-info/blog-800IA2-8x910B4-25.0.rc1.1.txt")
INSTALL_LOG_WITH_LSPCI = sample_body("dmesg-and-logs/blog-800IA2-driver-firmware-install-log.txt")
HCCN_CONF = sample_body("hccn/vllm-ascend-2498-etc-hccn.conf-8npu.txt")
HCCN_TOOL = (SAMPLES / "hccn/arthurchiao-hccn_tool-status-hwstats-lldp-ip-route-conf-ping.txt").read_text(
    encoding="utf-8").split("# ---\n", 1)[1]


@pytest.mark.parametrize("text,expected", [
    # addresses
    ("listen on 10.20.30.40:1025", "listen on 192.0.2.1:1025"),
    ("inet6 fe80::a00:27ff:fe4e:66a1/64", "inet6 2001:db8::1/64"),
    ("the NIC's MAC is 08:00:27:4E:66:A1.", "the NIC's MAC is 02:00:00:00:00:01."),
    ("the NIC's MAC is 08-00-27-4e-66-a1", "the NIC's MAC is 02:00:00:00:00:01"),
    # kept: meaning, not identity
    ("bind 0.0.0.0 and 127.0.0.1, mask 255.255.0.0, ::1 and ::",
     "bind 0.0.0.0 and 127.0.0.1, mask 255.255.0.0, ::1 and ::"),
    ("broadcast ff:ff:ff:ff:ff:ff", "broadcast ff:ff:ff:ff:ff:ff"),
    # versions that look like addresses
    ("Version=7.1.0.11", "Version=7.1.0.11"),
    ("npu-smi info 21.0.3.1 on Atlas 200DK", "npu-smi info 21.0.3.1 on Atlas 200DK"),
    ("torch-npu==2.1.0.1", "torch-npu==2.1.0.1"),
    ("kernel 5.10.0-182.0.0.95.oe2203sp3.aarch64", "kernel 5.10.0-182.0.0.95.oe2203sp3.aarch64"),
    ("firmware 7.7.0.1.231", "firmware 7.7.0.1.231"),
    # not addresses
    ("at 2025-11-18-10:35:31.222.032", "at 2025-11-18-10:35:31.222.032"),
    ("c10::Error in at::Tensor and a::b", "c10::Error in at::Tensor and a::b"),
    # serial numbers, but not an error's sequence number
    ("Serial Number : 1024A7BC9Z", "Serial Number : SN-1"),
    ("The error from device(0), serial number is 1, there is",
     "The error from device(0), serial number is 1, there is"),
    # bus ids, full and lspci's short form, one placeholder
    ("| 0000:C1:00.0  |", "| pci-1  |"),
    # home folders
    ("/home/alice/venv/bin/python", "/home/user-1/venv/bin/python"),
    ("/root/venv and /home/HwHiAiUser/x", "/root/venv and /home/HwHiAiUser/x"),
])
def test_text_rules(text: str, expected: str) -> None:
    assert IdentityRedactor().text(text) == expected


def test_one_value_one_placeholder_throughout() -> None:
    redactor = IdentityRedactor()
    redactor.learn_host("node07.corp.example.com")
    redactor.learn_user("alice")
    first = redactor.text("node07 (node07.corp.example.com) 10.0.0.5 alice 0000:c1:00.0 10.0.0.6")
    second = redactor.text("c1:00.0 Processing accelerators\nssh alice@node07 10.0.0.6 then 10.0.0.5")
    assert first == "host-1 (host-1) 192.0.2.1 user-1 pci-1 192.0.2.2"
    assert second == "pci-1 Processing accelerators\nssh user-1@host-1 192.0.2.2 then 192.0.2.1"
    # a name inside a longer name is not that name
    assert redactor.text("node070 and xnode07 and alice2") == "node070 and xnode07 and alice2"


def test_address_placeholders_stay_documentation_addresses() -> None:
    redactor = IdentityRedactor()
    made = [redactor.text(f"peer 10.1.{i // 250}.{i % 250 + 1}") for i in range(800)]
    assert made[0] == "peer 192.0.2.1" and made[253] == "peer 192.0.2.254"
    assert made[254] == "peer 198.51.100.1" and made[508] == "peer 203.0.113.1"
    assert made[762] == "peer ipv4-763"  # a word: a redacted command stays a valid shell line
    assert len(set(made)) == 800


def test_npu_smi_and_lspci_of_one_machine_share_bus_placeholders() -> None:
    redactor = IdentityRedactor()
    table = redactor.text(NPU_SMI_8X910B4)
    listing = redactor.text(INSTALL_LOG_WITH_LSPCI)
    assert "0000:C1:00.0" in NPU_SMI_8X910B4 and "0000:C1:00.0" not in table
    row = next(line for line in listing.splitlines() if "Processing accelerators" in line)
    assert row.startswith("pci-")
    # 8 cards, 8 placeholders, used by both outputs
    placeholders = {f"pci-{n}" for n in range(1, 9)}
    assert all(p in table and p in listing for p in placeholders) and "pci-9" not in table + listing
    # versions in the same texts are untouched
    assert "25.0.rc1.1" in table and "7.7.0.1.231" in listing


def test_hccn_configuration_and_tool_output() -> None:
    redactor = IdentityRedactor()
    conf = redactor.text(HCCN_CONF)
    tool = redactor.text(HCCN_TOOL)
    assert "192.170.100" not in conf and "address_0=192.0.2.1" in conf and "netmask_0=255.255.255.0" in conf
    assert "29.1." not in tool and "ipaddr:192.0.2." in tool and "127.0.0.1" in tool
    assert "Version 8.211 (DX511 V200R021C10SPC600)" in tool


def test_a_fixture_snapshot_redacted_grades_the_same(tmp_path: Path) -> None:
    for name in ("cann-newer-than-driver", "a3-server", "mindie-listen-all-no-https", "310p3-inference"):
        copy = tmp_path / name
        shutil.copytree(FIXTURES / name, copy, symlinks=True)
        before = {p.relative_to(copy): p.stat().st_mtime_ns for p in copy.rglob("*") if p.is_file()}
        redact_snapshot_tree(str(copy))
        assert not any(name in p.read_text(errors="replace") for p in copy.rglob("*") if p.is_file()
                       and p.name not in ("expected.yaml", "SOURCES.md"))
        meta = json.loads((copy / "snapshot.json").read_text())
        assert meta["hostname"] == "host-1" and meta["redacted"] == ["identity"]
        assert meta["kernel"] == json.loads((FIXTURES / name / "snapshot.json").read_text())["kernel"]
        after = {p.relative_to(copy): p.stat().st_mtime_ns for p in copy.rglob("*") if p.is_file()}
        del before[Path("snapshot.json")], after[Path("snapshot.json")]  # rewritten with the "redacted" mark
        assert after == before  # same files, same times (the log check reads how old a log is)
        plain = _statuses(FIXTURES / name)
        assert _statuses(copy) == plain, name


def _statuses(snapshot: Path) -> List[Tuple[str, str]]:
    result = make_runner().invoke(main, ["check", "--from", str(snapshot), "--format", "json"], catch_exceptions=False)
    return sorted((r["id"], r["status"]) for r in json.loads(result.stdout)["results"])


def test_names_links_and_contents_of_a_tree(tmp_path: Path) -> None:
    tree = tmp_path / "snap"
    (tree / "commands").mkdir(parents=True)
    (tree / "files/home/alice/venv/lib").mkdir(parents=True)
    (tree / "snapshot.json").write_text(json.dumps({"format": 1, "hostname": "gpu07.example.net"}))
    (tree / "env.json").write_text(json.dumps({"USER": "alice", "HOME": "/home/alice", "HOSTNAME": "gpu07",
                                               "SUDO_USER": "bob", "PATH": "/home/alice/venv/bin:/usr/bin"}))
    (tree / "python.json").write_text(json.dumps({"executable": "/home/alice/venv/bin/python",
                                                  "path": ["/home/alice/venv/lib"]}))
    (tree / "files/home/alice/venv/lib/TorchConfig.cmake").write_text("set(x /home/alice/venv)\n")
    (tree / "files/home/alice/latest").symlink_to("/home/alice/venv")
    (tree / "commands/npu-smi_info.out").write_text(NPU_SMI_8X910B4)
    (tree / "commands/dev").write_bytes(b"\x00binary gpu07 10.0.0.1")
    redactor = redact_snapshot_tree(str(tree))
    assert redactor.hosts == {"gpu07.example.net": "host-1", "gpu07": "host-1"}
    assert (tree / "files/home/user-1/venv/lib/TorchConfig.cmake").read_text() == "set(x /home/user-1/venv)\n"
    assert os.readlink(tree / "files/home/user-1/latest") == "/home/user-1/venv"
    env = json.loads((tree / "env.json").read_text())
    assert env == {"USER": "user-1", "HOME": "/home/user-1", "HOSTNAME": "host-1", "SUDO_USER": "user-2",
                   "PATH": "/home/user-1/venv/bin:/usr/bin"}
    assert json.loads((tree / "python.json").read_text())["executable"] == "/home/user-1/venv/bin/python"
    assert (tree / "commands/dev").read_bytes() == b"\x00binary gpu07 10.0.0.1"  # binary: left alone
    assert not (tree / "files/home/alice").exists()


def test_a_name_clash_stops_the_redaction(tmp_path: Path) -> None:
    tree = tmp_path / "snap"
    (tree / "files/home/alice").mkdir(parents=True)
    (tree / "files/home/user-1").mkdir(parents=True)
    (tree / "env.json").write_text(json.dumps({"USER": "alice"}))
    with pytest.raises(RedactionError):
        redact_snapshot_tree(str(tree))


class _FakeLive(LiveHost):
    """A machine that answers `npu-smi info` and `uname -a` from real samples (no NPU here)."""

    def __init__(self, answers: Dict[Tuple[str, ...], str]) -> None:
        super().__init__(timeout_s=1.0)
        self.answers = answers

    def run(self, argv: Sequence[str], timeout: Optional[float] = None) -> CommandResult:
        out = self.answers.get(tuple(argv))
        if out is None:
            return CommandResult(tuple(argv), CommandStatus.NOT_FOUND)
        return CommandResult(tuple(argv), CommandStatus.OK, returncode=0, stdout=out)

    def python_probe(self) -> Tuple[PythonEnv, Dict[str, Any]]:
        raw = {"executable": "/home/alice/venv/bin/python", "version": "3.10.14", "packages": {"torch": "2.1.0"}}
        return PythonEnv(raw["executable"], raw["version"], raw["packages"]), raw

    def env(self) -> Dict[str, str]:
        return {"USER": "alice", "HOME": "/home/alice", "HF_TOKEN": "hf_abc"}


def test_capture_with_the_redaction_hook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASCEND_HOME_PATH", raising=False)
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    root = tmp_path / "machine"
    (root / "etc").mkdir(parents=True)
    (root / "etc/hccn.conf").write_text(HCCN_CONF)
    fake = _FakeLive({("npu-smi", "info"): NPU_SMI_8X910B4})
    out = tmp_path / "node07/"
    capture.capture_snapshot(str(out) + "/", timeout_s=1.0, host=fake, fs_root=str(root),
                             finish=redact_snapshot_tree)
    texts = {p: p.read_text(errors="replace") for p in out.rglob("*") if p.is_file()}
    everything = "\n".join(texts.values())
    for identity in ("alice", "192.170.100", "0000:C1:00.0"):
        assert identity not in everything, identity
    assert "hf_abc" not in everything  # the secret redaction still ran
    assert "address_0=192.0.2.1" in texts[out / "files/etc/hccn.conf"]
    assert json.loads((out / "snapshot.json").read_text())["redacted"] == ["identity"]


# -- hostile_inputs_2.md defect 13: --redact in fix steps and fleet fixes; commands stay commands ----------


def _invoke_json(*args: str) -> Dict[str, Any]:
    result = make_runner().invoke(main, [*args, "--format", "json"], catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.output
    data: Dict[str, Any] = json.loads(result.output)
    return data


def _valid_shell(command: str) -> bool:
    """bash -n: the line parses (a "<ipv4-9>" placeholder would be a redirection from a missing file)."""
    bash = shutil.which("bash")
    if bash is None:
        return "<" not in command and ">" not in command
    import subprocess

    return subprocess.run([bash, "-n", "-c", command], capture_output=True, check=False).returncode == 0 \
        and "<ipv4-" not in command


def test_redact_replaces_the_address_in_a_fix_step_summary() -> None:
    fixture = FIXTURES / "network-faults-8x910B3"
    data = _invoke_json("check", "--from", str(fixture), "--rank-table", str(fixture / "ranktable.json"),
                        "--redact")
    text = json.dumps(data)
    assert "29.1.0.1" not in text  # "Set NPU 4's gateway to 29.1.0.1" in the fix plan, before
    assert any("gateway" in step["summary"] for step in data["fix_plan"])
    assert "192.0.2." in text


@pytest.fixture(scope="module")
def fleet_reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fleet") / "fl"
    folder.mkdir()
    for number in range(1, 17):
        name = f"node{number:02d}"
        result = make_runner().invoke(main, ["check", "--from", str(FIXTURES / "fleet-16" / name), "--format", "json",
                                           "-o", str(folder / f"{name}.json")], catch_exceptions=False)
        assert result.exit_code in (0, 1), result.output
    return folder


def test_fleet_redact_leaves_no_address_and_keeps_commands_runnable(fleet_reports: Path) -> None:
    data = _invoke_json("fleet", str(fleet_reports), "--redact")
    text = json.dumps(data)
    for real in ("10.155.111.", "192.170.100.", "node01", "node15"):
        assert real not in text, real  # FLT-014 said "device 7 of server 10.155.111.155"
    commands = [c for step in data["fix_plan"] for c in step["commands"]]
    commands += [c for r in data["results"] for a in r.get("actions") or [] for c in a["commands"]]
    assert commands and all(_valid_shell(c) for c in commands), [c for c in commands if not _valid_shell(c)]
    # `report render fl/node01.json` names a report file still: host-N.json, not the bare placeholder.
    renders = [c for c in commands if c.startswith("ascend-doctor report render ")]
    assert renders and all(c.endswith(".json") and "/host-" in c for c in renders), renders


def test_address_placeholders_past_the_documentation_ranges_are_shell_words() -> None:
    redactor = IdentityRedactor()
    made = [redactor.text(f"hccn_tool -i 0 -ip -s address 10.{n // 250}.{n % 250}.9 netmask 255.255.0.0")
            for n in range(800)]
    assert made[790] == "hccn_tool -i 0 -ip -s address ipv4-791 netmask 255.255.0.0"
    assert all(_valid_shell(line) for line in made[760:])


@pytest.mark.parametrize("text,kept", [
    ("the device 7 of server 10.155.111.155 reports", False),  # "server" is no version word ("ver")
    ("driver 23.0.7.1 and firmware 7.1.0.11", True),
    ("torch==2.1.0.1", True),
])
def test_version_words_start_a_word(text: str, kept: bool) -> None:
    out = IdentityRedactor().text(text)
    assert (out == text) is kept, out
