"""Pasted dumps read whole (issue 22 item 2): the chip of `llamafactory-cli env`, the OS its HCE
kernel names, container hints in the environment, NNAL from ATB_HOME_PATH, `pip list` excerpts,
CANN version files pasted alone at the path their prompt names.

Every input is a real sample of tests/samples/ (source in its header); each assertion below failed
before this change where it says "new".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest

from ascend_doctor.facts import Facts
from ascend_doctor.host.pasted import write_pasted_snapshot
from ascend_doctor.host.snapshot import SnapshotHost
from ascend_doctor.parsers import pasted as P

from .samples_util import SAMPLES
from .test_pasted_text import _report, body


def _by_id(report: Dict[str, Any], check: str) -> List[Dict[str, Any]]:
    return [r for r in report["results"] if r["id"] == check]


def _facts(rel: str, tmp_path: Path) -> Facts:
    write_pasted_snapshot(P.parse_pasted_text(body(rel)), str(tmp_path), rel)
    return Facts(SnapshotHost(str(tmp_path)))


# -- llamafactory-cli env: NPU type and the HCE kernel --------------------------------------------

def test_llamafactory_npu_type_names_the_chip(tmp_path: Path) -> None:  # new
    facts = _facts("collect-env/llamafactory-docs-env-910B1-hce2-cann8.3.RC1.txt", tmp_path)
    chip = facts.npu_chip
    assert chip is not None and (chip.name, chip.family, chip.chip_count) == ("910B1", "A2", 0)
    assert chip.stated_by == "NPU type: Ascend910B1"
    assert facts.maybe(Facts.npu_smi) is None  # no table was pasted: nothing per device is made up


def test_hce_kernel_names_the_os_when_no_os_line(tmp_path: Path) -> None:  # new
    facts = P.summarise(P.parse_pasted_text(body("collect-env/llamafactory-docs-env-910B1-hce2-cann8.3.RC1.txt")))
    assert (facts.os, facts.os_from_kernel, facts.host_os) == ("Huawei Cloud EulerOS 2.0", True,
                                                              "Huawei Cloud EulerOS 2.0")
    report = _report(SAMPLES / "collect-env" / "llamafactory-docs-env-910B1-hce2-cann8.3.RC1.txt", tmp_path)
    assert report["host"]["os"] == "Huawei Cloud EulerOS 2.0"
    (drv4,) = _by_id(report, "ASC-DRV-004")
    assert drv4["status"] != "SKIP"  # judged against the A2 list (was: "the NPU family is not known")


def test_bclinux_kernel_is_not_guessed() -> None:
    facts = P.summarise(P.parse_pasted_text(body("collect-env/llamafactory-tutorial-env-910B2-cann8.2.RC1.txt")))
    assert facts.os is None and facts.host_os is None


def test_os_line_wins_and_container_userland_is_not_the_host_os() -> None:  # new
    facts = P.summarise(P.parse_pasted_text(body("collect-env/vllm-ascend-4480-A3-vllm0.11.2-cann8.3.RC2.txt")))
    assert facts.os == "Ubuntu 22.04.5 LTS"  # the container's userland, as printed
    assert facts.host_os == "Huawei Cloud EulerOS 2.0"  # the host, from its kernel
    assert facts.container_evidence == ["ASCEND_VISIBLE_DEVICES is set in the pasted environment"]


# -- container hints -------------------------------------------------------------------------------

@pytest.mark.parametrize("name, hints", [
    ("vllm-ascend-4148-300IDuo-openEuler-kernel-docker-cann8.3.RC1.txt",
     ("ASCEND_DOCKER_RUNTIME", "ASCEND_VISIBLE_DEVICES")),
    ("vllm-ascend-6509-910B2-vllm0.14.1-cann8.5.0.txt", ("ASCEND_VISIBLE_DEVICES", "ASCEND_RUNTIME_OPTIONS")),
])
def test_container_hints_make_the_paste_a_container(name: str, hints: Any, tmp_path: Path) -> None:  # new
    container = _facts(f"collect-env/{name}", tmp_path).container
    assert container.in_container and container.known
    for hint in hints:
        assert f"{hint} is set in the pasted environment" in container.evidence
    report = _report(SAMPLES / "collect-env" / name, tmp_path / "r")
    (drv4,) = _by_id(report, "ASC-DRV-004")
    assert drv4["status"] == "SKIP"  # the userland OS is not judged as the host's (was PASS)
    # No mount table was pasted: never "not mounted in this container" (FAIL/WARN) from absence.
    assert {r["status"] for r in _by_id(report, "ASC-CTR-002")} == {"SKIP"}
    assert "not in the pasted text" in _by_id(report, "ASC-CTR-002")[0]["message"]
    assert all(r["status"] != "FAIL" for r in _by_id(report, "ASC-DRV-001"))


def test_no_hint_is_not_in_the_paste_never_not_a_container(tmp_path: Path) -> None:  # new
    container = _facts("collect-env/llamafactory-docs-env-910B1-hce2-cann8.3.RC1.txt", tmp_path).container
    assert not container.in_container and not container.known
    report = _report(SAMPLES / "collect-env" / "llamafactory-docs-env-910B1-hce2-cann8.3.RC1.txt", tmp_path / "r")
    for check in ("ASC-CTR-001", "ASC-CTR-002", "ASC-CTR-003", "ASC-CTR-005"):
        (result,) = _by_id(report, check)
        assert result["status"] == "SKIP"
        assert "not in the pasted text" in result["message"], check
        assert "not running inside a container" not in result["message"]
        assert "no Ascend driver" not in result["message"]


def test_a_pasted_dockerenv_line_is_a_container_marker(tmp_path: Path) -> None:  # new
    text = body("collect-env/llamafactory-docs-env-910B1-hce2-cann8.3.RC1.txt") + \
        "-rwxr-xr-x 1 root root 0 Mar  3 11:56 /.dockerenv\n"
    pasted = P.parse_pasted_text(text)
    assert P.KIND_CONTAINER_MARKER in [s.kind for s in pasted.segments]
    write_pasted_snapshot(pasted, str(tmp_path), "paste")
    assert Facts(SnapshotHost(str(tmp_path))).container.in_container
    absent = P.parse_pasted_text("ls: cannot access '/.dockerenv': No such file or directory\n")
    assert not absent.of_kind(P.KIND_CONTAINER_MARKER)


# -- NNAL from ATB_HOME_PATH -----------------------------------------------------------------------

def test_atb_home_path_says_nnal_is_there(tmp_path: Path) -> None:  # new
    name = "vllm-ascend-4148-300IDuo-openEuler-kernel-docker-cann8.3.RC1.txt"
    nnal = _facts(f"collect-env/{name}", tmp_path).nnal
    assert nnal.installed and nnal.root == "/usr/local/Ascend/nnal/atb" and nnal.atb_home_abi == 1
    report = _report(SAMPLES / "collect-env" / name, tmp_path / "r")
    (nnal1,) = _by_id(report, "ASC-NNAL-001")
    assert nnal1["status"] == "INFO" and "not in the pasted text" in nnal1["message"]  # was "not installed"
    assert {r["status"] for r in _by_id(report, "ASC-NNAL-002")} == {"PASS"}


# -- pip list excerpts -----------------------------------------------------------------------------

@pytest.mark.parametrize("rel, want", [
    ("pip-list/vllm-ascend-133-package-version-excerpt.txt",
     {"torch": "2.5.1+cpu", "torch-npu": "2.5.1.dev20250218", "vllm": "0.7.1+empty", "vllm-ascend": "0.7.1rc1"}),
    ("pip-list/vllm-ascend-393-pip-list-no-header-excerpt.txt",
     {"torch": "2.5.1", "torch_npu": "2.5.1.dev20250308", "vllm": "0.7.3", "vllm_ascend": "0.7.3rc1",
      "transformers": "4.50.0"}),
])
def test_pip_list_excerpts_are_packages(rel: str, want: Dict[str, str], tmp_path: Path) -> None:  # new
    pasted = P.parse_pasted_text(body(rel))
    assert [s.kind for s in pasted.segments] == [P.KIND_PIP_LIST]
    py = _facts(rel, tmp_path).python_env
    for name, version in want.items():
        assert py.package(name) == version, name
    # The headings around the list stay unrecognised: prose is not a package.
    assert len(pasted.unrecognised) >= 1


def test_two_words_alone_are_not_a_pip_list() -> None:
    assert not P.parse_pasted_text("Ubuntu 22.04\nKylin V10\n").segments


# -- version files at the path their prompt names --------------------------------------------------

def test_toolkit_version_info_is_read_at_its_path(tmp_path: Path) -> None:  # new
    rel = "version-files/notes-800IA2-cann-toolkit-version.info-8.2.RC1.txt"
    pasted = P.parse_pasted_text(body(rel))
    assert [s.kind for s in pasted.segments] == [P.KIND_CANN_COMPONENT, P.KIND_CANN_INFO]
    write_pasted_snapshot(pasted, str(tmp_path), rel)
    assert (tmp_path / "files/usr/local/Ascend/ascend-toolkit/latest/toolkit/version.info").is_file()
    assert list(tmp_path.glob("files/usr/local/Ascend/ascend-toolkit/*/aarch64-linux/ascend_toolkit_install.info"))


def test_opp_kernel_version_info_alone_is_recognised_not_taken_for_the_toolkit(tmp_path: Path) -> None:  # new
    rel = "version-files/notes-800IA2-opp_kernel-version.info-8.2.RC1.txt"
    pasted = P.parse_pasted_text(body(rel))
    assert [s.kind for s in pasted.segments] == [P.KIND_CANN_COMPONENT] and not pasted.unrecognised
    assert P.summarise(pasted).cann_version is None
    write_pasted_snapshot(pasted, str(tmp_path), rel)
    assert (tmp_path / "files/usr/local/Ascend/ascend-toolkit/latest/opp_kernel/version.info").is_file()


@pytest.mark.parametrize("rel, arch, where", [
    ("version-files/vllm-ascend-mooncake-x86_64-ascend_toolkit_install-8.2.RC1.txt", "x86_64",
     "/usr/local/Ascend/ascend-toolkit/8.2.RC1/x86_64-linux"),
    ("version-files/mindcluster-doc-cann-8.5.0-toolkit-install-aarch64-x86_64.txt", "aarch64",
     "/usr/local/Ascend/cann-8.5.0/aarch64-linux"),
])
def test_toolkit_install_info_at_its_path_with_its_arch(rel: str, arch: str, where: str, tmp_path: Path) -> None:
    pasted = P.parse_pasted_text(body(rel))
    assert P.summarise(pasted).arch == arch
    report = _report(SAMPLES / rel, tmp_path)
    (cann1,) = _by_id(report, "ASC-CANN-001")
    assert cann1["status"] == "PASS" and where in cann1["message"]
