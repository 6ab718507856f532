"""Package file names and install commands from the matrix: every chip family x architecture.

Every expected name below is a spelling a public source shows (the source is on the matrix entry;
the comment names it): HDK files spell x86_64 as ``x86-64``, CANN files as ``x86_64``; A3 and A5
HDK packages are ``Atlas-A3-hdk-npu-*`` / ``Atlas-A5-hdk-npu-*``; the A3 ops package has a capital A3.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import pytest

from ascend_doctor.matrix import Matrix, load_matrix
from ascend_doctor.matrix.packages import FIRST_INSTALL, UPGRADE, normalize_arch
from ascend_doctor.matrix.pip import torch_npu_on_pypi, torch_pair, vllm_ascend


@pytest.fixture(scope="module")
def m() -> Matrix:
    return load_matrix()


# (family, arch) -> (hdk driver for the version, hdk firmware, toolkit, kernels 8.3.RC1, ops 8.5.0, nnal 9.1.0)
DRIVER_VERSION = {"A2": "24.1.rc3", "A3": "25.3.rc1.2", "310P": "24.1.rc2", "310B": "24.1.rc2", "910": "23.0.2",
                  "950": "25.7.rc1", "310": "23.0.rc3"}
FIRMWARE = "7.7.0.1.231"
TABLE: Dict[Tuple[str, str], Tuple[str, str, Optional[str], Optional[str]]] = {
    # package_info.js (Ascend/docs), MindSpeed-LLM install guide
    ("A2", "aarch64"): ("Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run",
                        "Ascend-hdk-910b-npu-firmware_{fw}.run",
                        "Ascend-cann-kernels-910b_8.3.RC1_linux-aarch64.run",
                        "Ascend-cann-910b-ops_8.5.0_linux-aarch64.run"),
    ("A2", "x86_64"): ("Ascend-hdk-910b-npu-driver_24.1.rc3_linux-x86-64.run", "Ascend-hdk-910b-npu-firmware_{fw}.run",
                       "Ascend-cann-kernels-910b_8.3.RC1_linux-x86_64.run",
                       "Ascend-cann-910b-ops_8.5.0_linux-x86_64.run"),
    # tilelang-ascend dispatch_combine README, hicann/pypto prepare_env.sh, LLaMA-Factory NPU docs
    ("A3", "aarch64"): ("Atlas-A3-hdk-npu-driver_25.3.rc1.2_linux-aarch64.run", "Atlas-A3-hdk-npu-firmware_{fw}.run",
                        "Atlas-A3-cann-kernels_8.3.RC1_linux-aarch64.run",
                        "Ascend-cann-A3-ops_8.5.0_linux-aarch64.run"),
    ("A3", "x86_64"): ("Atlas-A3-hdk-npu-driver_25.3.rc1.2_linux-x86-64.run", "Atlas-A3-hdk-npu-firmware_{fw}.run",
                       "Atlas-A3-cann-kernels_8.3.RC1_linux-x86_64.run",
                       "Ascend-cann-A3-ops_8.5.0_linux-x86_64.run"),
    ("310P", "aarch64"): ("Ascend-hdk-310p-npu-driver_24.1.rc2_linux-aarch64.run",
                          "Ascend-hdk-310p-npu-firmware_{fw}.run", "Ascend-cann-kernels-310p_8.3.RC1_linux-aarch64.run",
                          "Ascend-cann-310p-ops_8.5.0_linux-aarch64.run"),
    ("310P", "x86_64"): ("Ascend-hdk-310p-npu-driver_24.1.rc2_linux-x86-64.run",
                         "Ascend-hdk-310p-npu-firmware_{fw}.run",
                         "Ascend-cann-kernels-310p_8.3.RC1_linux-x86_64.run",
                         "Ascend-cann-310p-ops_8.5.0_linux-x86_64.run"),
    # Atlas 200I A2 installation guide (Install_01)
    ("310B", "aarch64"): ("Ascend-hdk-310b-npu-driver_24.1.rc2_linux-aarch64.run",
                          "Ascend-hdk-310b-npu-firmware_{fw}.run", "Ascend-cann-kernels-310b_8.3.RC1_linux-aarch64.run",
                          "Ascend-cann-310b-ops_8.5.0_linux-aarch64.run"),
    ("310B", "x86_64"): ("Ascend-hdk-310b-npu-driver_24.1.rc2_linux-x86-64.run",
                         "Ascend-hdk-310b-npu-firmware_{fw}.run",
                         "Ascend-cann-kernels-310b_8.3.RC1_linux-x86_64.run",
                         "Ascend-cann-310b-ops_8.5.0_linux-x86_64.run"),
    # ascend-repo download URLs of HDK 23.0.2.1 (PCI d801)
    ("910", "aarch64"): ("Ascend-hdk-910-npu-driver_23.0.2_linux-aarch64.run", "Ascend-hdk-910-npu-firmware_{fw}.run",
                         "Ascend-cann-kernels-910_8.3.RC1_linux-aarch64.run",
                         "Ascend-cann-910-ops_8.5.0_linux-aarch64.run"),
    ("910", "x86_64"): ("Ascend-hdk-910-npu-driver_23.0.2_linux-x86-64.run", "Ascend-hdk-910-npu-firmware_{fw}.run",
                        "Ascend-cann-kernels-910_8.3.RC1_linux-x86_64.run",
                        "Ascend-cann-910-ops_8.5.0_linux-x86_64.run"),
    # huaweicloud aics_bp_0103 (A5); the 950 has ops packages only
    ("950", "aarch64"): ("Atlas-A5-hdk-npu-driver_25.7.rc1_linux-aarch64.run", "Atlas-A5-hdk-npu-firmware_{fw}.run",
                         None, "Ascend-cann-950-ops_8.5.0_linux-aarch64.run"),
    ("950", "x86_64"): ("Atlas-A5-hdk-npu-driver_25.7.rc1_linux-x86-64.run", "Atlas-A5-hdk-npu-firmware_{fw}.run",
                        None, "Ascend-cann-950-ops_8.5.0_linux-x86_64.run"),
    # mxIndex guide (Ascend310-hdk-npu-*); no ops package is recorded for the 310
    ("310", "aarch64"): ("Ascend310-hdk-npu-driver_23.0.rc3_linux-aarch64.run", "Ascend310-hdk-npu-firmware_{fw}.run",
                         "Ascend-cann-kernels-310_8.3.RC1_linux-aarch64.run", None),
    ("310", "x86_64"): ("Ascend310-hdk-npu-driver_23.0.rc3_linux-x86-64.run", "Ascend310-hdk-npu-firmware_{fw}.run",
                        "Ascend-cann-kernels-310_8.3.RC1_linux-x86_64.run", None),
}


def test_the_table_covers_every_family_and_architecture(m: Matrix) -> None:
    assert {f for f, _ in TABLE} == {family.family for family in m.chip_families}
    assert {a for _, a in TABLE} == {"aarch64", "x86_64"}


@pytest.mark.parametrize(("family", "arch"), sorted(TABLE), ids=[f"{f}-{a}" for f, a in sorted(TABLE)])
def test_file_names_per_family_and_arch(m: Matrix, family: str, arch: str) -> None:
    driver, firmware, kernels, ops = TABLE[(family, arch)]
    pk = m.packages(family, arch)
    assert pk is not None
    assert pk.hdk_driver(DRIVER_VERSION[family]) == driver
    assert pk.hdk_firmware(FIRMWARE) == firmware.format(fw=FIRMWARE)
    assert pk.kernels("8.3.RC1") == kernels
    assert pk.kernels("8.5.0") == ops
    cann_arch = arch  # CANN files keep x86_64 with an underscore
    assert pk.toolkit("8.3.RC1") == f"Ascend-cann-toolkit_8.3.RC1_linux-{cann_arch}.run"
    assert pk.nnal("9.1.0") == f"Ascend-cann-nnal_9.1.0_linux-{cann_arch}.run"
    assert pk.nnae("8.1.RC1") == f"Ascend-cann-nnae_8.1.RC1_linux-{cann_arch}.run"
    for name in filter(None, (pk.hdk_driver(DRIVER_VERSION[family]), pk.toolkit("9.1.0"), pk.kernels("8.5.0"))):
        assert "$(uname" not in name and "<" not in name
    assert "x86_64" not in (pk.hdk_driver(DRIVER_VERSION[family]) or "")  # HDK: x86-64


def test_kernels_before_8_0_rc3_have_no_architecture(m: Matrix) -> None:
    # package_info.js: Ascend-cann-kernels-910b_8.0.RC2_linux.run, ..._8.0.RC3_linux-aarch64.run
    pk = m.packages("A2", "aarch64")
    assert pk is not None
    assert pk.kernels("8.0.RC2") == "Ascend-cann-kernels-910b_8.0.RC2_linux.run"
    assert pk.kernels("8.0.RC3") == "Ascend-cann-kernels-910b_8.0.RC3_linux-aarch64.run"
    a3 = m.packages("A3", "aarch64")
    assert a3 is not None and a3.kernels("8.0.RC2") is None  # no A3 name of that era is recorded


# HDK release -> firmware number, per family (A3 numbers differ from A2's; unknown stays unknown)
FIRMWARE_TABLE = [
    ("A2", "24.1.RC3", "7.5.0.1.129"), ("A2", "24.1.rc3", "7.5.0.1.129"), ("A2", "24.1.RC2", "7.3.0.1.231"),
    ("A2", "25.0.RC1.1", "7.7.0.1.231"), ("A2", "25.0.rc1.1", "7.7.0.1.231"), ("A2", "25.0.RC1", "7.7.0.1.231"),
    ("A3", "25.0.rc1.3", "7.7.0.3.228"), ("A3", "25.0.RC1", "7.7.0.3.228"), ("A3", "25.3.rc1.2", "7.8.0.2.212"),
    ("A3", "24.1.RC3", None), ("A3", "24.1.rc3", None), ("A3", "26.1.0", None),
    ("310P", "24.1.RC2", "7.3.0.1.231"), ("310P", "23.0.RC3", "7.0.0.5.242"),
    ("910", "23.0.2", "7.1.0.4.220"), ("910", "24.1.RC3", None),
    ("A2", "24.1.rc3.7", None),  # a patch build no source names: its firmware may differ
]


@pytest.mark.parametrize(("family", "hdk", "firmware"), FIRMWARE_TABLE)
def test_firmware_for_hdk_per_family(m: Matrix, family: str, hdk: str, firmware: Optional[str]) -> None:
    pk = m.packages(family, "aarch64")
    assert pk is not None and pk.firmware_for_hdk(hdk) == firmware


def test_driver_file_version_comes_from_the_family_table(m: Matrix) -> None:
    a2, a3 = m.packages("A2", "x86_64"), m.packages("A3", "x86_64")
    assert a2 is not None and a3 is not None
    # HDK 25.0.RC1 was published as 25.0.RC1.1 (A2) and 25.0.RC1.3 (A3): the file carries the patch
    assert a2.hdk_driver("25.0.RC1") == "Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-x86-64.run"
    assert a3.hdk_driver("25.0.RC1") == "Atlas-A3-hdk-npu-driver_25.0.rc1.3_linux-x86-64.run"
    assert a3.hdk_driver("25.3.RC1") == "Atlas-A3-hdk-npu-driver_25.3.rc1_linux-x86-64.run"  # pypto prepare_env.sh


@pytest.mark.parametrize("text", ["aarch64", "arm64", "x86_64", "amd64", "x86-64"])
def test_architecture_spellings(text: str) -> None:
    assert normalize_arch(text) in ("aarch64", "x86_64")


def test_unknown_family_or_arch_gives_none(m: Matrix) -> None:
    assert m.packages("H100", "aarch64") is None
    assert m.packages("A2", "riscv64") is None
    assert m.packages("A2", None) is None
    assert m.packages("A5", "aarch64") is not None  # the 950 family's other name


def test_install_order_first_install_and_upgrade(m: Matrix) -> None:
    pk = m.packages("A2", "aarch64")
    assert pk is not None
    first = pk.hdk_install_lines("24.1.RC3", FIRST_INSTALL)
    upgrade = pk.hdk_install_lines("24.1.RC3", UPGRADE)
    driver = "./Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run --full --install-for-all"
    firmware = "./Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run --full"
    assert first == [driver, firmware, "reboot"]  # first install: driver -> firmware, one reboot
    assert upgrade == [firmware, driver, "reboot"]  # upgrade / overwrite: firmware -> driver, one reboot


def test_install_lines_never_invent_a_firmware(m: Matrix) -> None:
    pk = m.packages("A3", "aarch64")
    assert pk is not None
    lines = pk.hdk_install_lines("24.1.RC3", FIRST_INSTALL)
    assert lines[0] == "./Atlas-A3-hdk-npu-driver_24.1.rc3_linux-aarch64.run --full --install-for-all"
    assert lines[1].startswith("# the A3 firmware of HDK 24.1.RC3 is not recorded: ascend-doctor matrix lookup")
    assert not any("<" in line for line in lines)


# -- pip --------------------------------------------------------------------------------------

def test_torch_pair_on_x86_uses_the_cpu_index(m: Matrix) -> None:
    advice = torch_pair(m, "2.10.0", "2.10.0.post4", "x86_64")
    assert advice.lines == ["pip install --extra-index-url https://download.pytorch.org/whl/cpu/ torch==2.10.0 "
                            "torch-npu==2.10.0.post4"]
    assert torch_pair(m, "2.10.0", "2.10.0.post4", "aarch64").lines == [
        "pip install torch==2.10.0 torch-npu==2.10.0.post4"]
    unknown = torch_pair(m, "2.10.0", "2.10.0.post4", None)
    assert any("x86_64" in n and "download.pytorch.org/whl/cpu" in n for n in unknown.notes)


def test_torch_npu_builds_not_on_pypi_say_where_they_are(m: Matrix) -> None:
    assert torch_npu_on_pypi(m, "2.10.0.post4") is True
    for version in ("2.7.1.dev20250724", "2.7.1.post1", "2.8.0.post1", "2.9.0.post1+git4c901a4"):
        assert torch_npu_on_pypi(m, version) is False, version
    assert torch_npu_on_pypi(m, "2.99.0") is None  # newer than the list: cannot say
    dev = torch_pair(m, "2.7.1", "2.7.1.dev20250724", "aarch64")
    # second review P5: dev builds are on the Huawei mirror the vLLM-Ascend guide names, not the CPU index
    assert "--extra-index-url https://mirrors.huaweicloud.com/ascend/repos/pypi" in dev.lines[0]
    assert any("not on PyPI" in n for n in dev.notes)
    post = torch_pair(m, "2.7.1", "2.7.1.post1", "aarch64")
    assert any("not on PyPI" in n and "gitcode.com/Ascend/pytorch/releases" in n for n in post.notes)


def test_vllm_ascend_variant_index_after_0_11_0(m: Matrix) -> None:
    new = vllm_ascend(m, "0.23.0", "0.23.0")
    assert new.lines == ["pip install vllm==0.23.0", "pip install --extra-index-url "
                         "https://mirrors.huaweicloud.com/ascend/repos/pypi/variant vllm-ascend==0.23.0"]
    assert vllm_ascend(m, "0.9.1", "0.9.1").lines[-1] == "pip install vllm-ascend==0.9.1"
