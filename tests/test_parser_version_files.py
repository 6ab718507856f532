"""Parsers for the Ascend version/install files, tested on the real samples in samples/version-files/.

Samples keep their ``# source:`` header; several hold more than one file (``cat a`` … ``cat b``),
which :func:`split_parts` separates the way a person reading them would: at each ``cat`` line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_doctor.parsers import version_files as vf
from ascend_doctor.parsers.collect_env import parse_collect_env
from ascend_doctor.parsers.version_files import VersionFileError

SAMPLES = Path(__file__).parent / "samples" / "version-files"

PARSERS: Dict[str, Callable[[str], object]] = {
    "driver": vf.parse_driver_version_info,
    "firmware": vf.parse_firmware_version_info,
    "install": vf.parse_ascend_install_info,
    "cann": vf.parse_cann_install_info,
    "cfg": vf.parse_version_cfg,
    "component": vf.parse_component_version_info,
    "colon": vf.parse_colon_version_info,
    "upgrade": vf.parse_upgrade_tool_versions,
}

# sample file -> the parser of each file inside it, in order. () = not a version file at all.
SAMPLE_TABLE: Dict[str, Tuple[str, ...]] = {
    "blog-310B4-ascend_toolkit_install-7.0.RC1.txt": ("cann",),
    "driver-version.info-24.1.rc2.2.txt": ("driver",),
    "etc-ascend_install.info-910-23.0.rc1.txt": ("install",),
    "mindcluster-doc-cann-8.5.0-toolkit-install-aarch64-x86_64.txt": ("cann", "cann"),
    "mindcluster-doc-driver-24.1.rc1-firmware-7.1.0.11.220.txt": ("driver", "firmware"),
    "mindcluster-doc-upgrade-tool-component-versions.txt": ("upgrade",),
    "mindie2.0T3-atb-models-mindie-atb-version.info.txt": ("colon", "colon", "colon"),
    "mindie2.0T3-version.cfg-8.0.T63.txt": ("cfg",),
    "notes-800IA2-cann-toolkit-version.info-8.2.RC1.txt": ("component", "cann"),
    "notes-800IA2-driver-version.info-25.0.rc1.1.txt": ("driver",),
    "notes-800IA2-firmware-version.info-7.7.0.1.231.txt": ("firmware",),
    "notes-800IA2-mindie-version.info-2.1.RC1.txt": ("colon",),
    "notes-800IA2-nnal-atb-version.info-8.2.RC1.txt": ("colon",),
    "notes-800IA2-opp_kernel-version.info-8.2.RC1.txt": ("component",),
    "notes-wings-driver-firmware-25.0.rc1.1-two-fw-ranges.txt": ("driver", "firmware"),
    "toolkit-latest-ls-8.2.RC2-symlinks.txt": (),
    "vllm-ascend-1047-ascend_toolkit_install-8.1.RC1.txt": ("cann",),
    "vllm-ascend-198-ascend_toolkit_install-8.0.0.txt": ("cann",),
    "vllm-ascend-2557-ascend_toolkit_install-8.2.RC1.txt": ("cann",),
    "vllm-ascend-629-version.cfg-8.1.RC1-multi-installed.txt": ("cfg",),
    "vllm-ascend-mooncake-x86_64-ascend_toolkit_install-8.2.RC1.txt": ("cann",),
}

_CAT_LINE = re.compile(r"(?:^|[#$>]\s*)cat\s+\S")


def body(name: str) -> str:
    text = (SAMPLES / name).read_text(encoding="utf-8")
    assert text.startswith("# source:"), f"{name} lost its source header"
    return text.split("# ---\n", 1)[1]


def split_parts(text: str) -> List[str]:
    """One string per file: split at shell lines that ``cat`` a file (those lines dropped)."""
    parts: List[List[str]] = [[]]
    for line in text.splitlines():
        if _CAT_LINE.search(line):
            parts.append([])
        else:
            parts[-1].append(line)
    return ["\n".join(lines) + "\n" for lines in parts if any(line.strip() for line in lines)]


def part(name: str, index: int = 0) -> str:
    return split_parts(body(name))[index]


def test_every_sample_is_in_the_table() -> None:
    assert sorted(p.name for p in SAMPLES.glob("*.txt")) == sorted(SAMPLE_TABLE)


@pytest.mark.parametrize("name", sorted(SAMPLE_TABLE))
def test_sample_parses_with_its_parser_and_no_other(name: str) -> None:
    kinds = SAMPLE_TABLE[name]
    parts = split_parts(body(name))
    if not kinds:  # not a version file: every parser must say so
        for parse in PARSERS.values():
            with pytest.raises(VersionFileError):
                parse(body(name))
        return
    assert len(parts) == len(kinds), parts
    for text, kind in zip(parts, kinds):
        record = PARSERS[kind](text)
        assert record.warnings == (), (kind, record.warnings)  # type: ignore[attr-defined]
        json.dumps(record.to_dict())  # type: ignore[attr-defined]
        for other, parse in PARSERS.items():
            if other != kind:
                with pytest.raises(VersionFileError):
                    parse(text)


# -- driver / firmware -------------------------------------------------------------------------
def test_driver_24_1_rc2_2() -> None:
    drv = vf.parse_driver_version_info(body("driver-version.info-24.1.rc2.2.txt"))
    assert drv.version == "24.1.rc2.2"
    assert drv.package_version == "24.1.rc2.2"
    assert drv.innerversion == "V100R001C18SPC001B233"
    assert drv.ascendhal_version == "7.35.23"
    assert [r.low for r in drv.compatible_version] == [
        "V100R001C30", "V100R001C13", "V100R001C15", "V100R001C17", "V100R001C18"]
    assert all(r.is_single for r in drv.compatible_version)
    assert drv.compatible_version_fw == (("7.0.0", "7.2.99"),)
    assert drv.raw["tsfw_version"] == "1.0"


def test_driver_25_0_rc1_1_and_its_firmware() -> None:
    drv = vf.parse_driver_version_info(body("notes-800IA2-driver-version.info-25.0.rc1.1.txt"))
    fw = vf.parse_firmware_version_info(body("notes-800IA2-firmware-version.info-7.7.0.1.231.txt"))
    assert (drv.version, drv.innerversion) == ("25.0.rc1.1", "V100R001C21SPC002B220")
    assert drv.compatible_version_fw == (("7.0.0", "7.7.99"),)
    assert (fw.version, fw.package_version) == ("7.7.0.1.231", "25.0.rc1.1")
    assert fw.compatible_version_drv == (
        ("23.0.0", "23.0.0."), ("24.0", "24.0."), ("24.1", "24.1."), ("25.0", "25.0."))
    assert vf.driver_accepts_firmware(drv, fw.version) is True
    assert vf.firmware_accepts_driver(fw, drv.version) is True
    assert vf.driver_firmware_compatible(drv, fw) is True


def test_driver_without_package_version_and_old_firmware() -> None:
    name = "mindcluster-doc-driver-24.1.rc1-firmware-7.1.0.11.220.txt"
    drv = vf.parse_driver_version_info(part(name, 0))
    fw = vf.parse_firmware_version_info(part(name, 1))
    assert (drv.version, drv.package_version, drv.ascendhal_version) == ("24.1.rc1", None, "7.35.19")
    assert drv.innerversion == "V100R001C15SPC006B220"
    assert drv.compatible_version_fw == (("7.0.0", "7.2.99"),)
    assert (fw.version, fw.package_version) == ("7.1.0.11.220", "23.0.7")
    assert fw.compatible_version_drv == (("23.0.rc3", "23.0.rc3."), ("23.0.0", "23.0.0."))
    # The firmware does not list driver 24.1.rc1, but the driver accepts firmware 7.1: compatible.
    assert vf.firmware_accepts_driver(fw, drv.version) is False
    assert vf.driver_accepts_firmware(drv, fw.version) is True
    assert vf.driver_firmware_compatible(drv, fw) is True


def test_two_firmware_ranges() -> None:
    name = "notes-wings-driver-firmware-25.0.rc1.1-two-fw-ranges.txt"
    drv = vf.parse_driver_version_info(part(name, 0))
    fw = vf.parse_firmware_version_info(part(name, 1))
    assert drv.compatible_version_fw == (("6.4.0", "6.4.99"), ("7.0.0", "7.7.99"))
    assert len(fw.compatible_version_drv) == 6 and fw.compatible_version_drv[0] == ("23.0.rc2", "23.0.rc2.")
    assert vf.driver_accepts_firmware(drv, "6.4.0.5.100") is True
    assert vf.driver_accepts_firmware(drv, "6.5.0") is False
    assert vf.firmware_accepts_driver(fw, "23.0.rc2") is True


@pytest.mark.parametrize(("driver", "expected"), [
    ("24.1.rc2.2", True), ("24.1.rc3", True), ("24.1.0", True), ("24.1.0.1", True), ("24.1", True),
    ("24.1.RC2", True),  # marketing spelling
    ("23.0.0", True), ("23.0.0.1", True), ("25.0.rc1.1", True),
    ("23.0.7", False), ("23.0.rc3", False), ("24.10.0", False), ("24.2.0", False), ("25.2.0", False),
    ("22.0.4", False),
])
def test_firmware_prefix_ranges(driver: str, expected: bool) -> None:
    fw = vf.parse_firmware_version_info(body("notes-800IA2-firmware-version.info-7.7.0.1.231.txt"))
    assert vf.firmware_accepts_driver(fw, driver) is expected


@pytest.mark.parametrize(("firmware", "expected"), [
    ("7.0.0", True), ("7.2.99", True), ("7.1.0.11.220", True), ("7.2.99.3", True), ("7.2.0.1.100", True),
    ("7.3.0", False), ("6.4.0.1", False), ("7.10.0", False), ("8.0.0", False),
])
def test_driver_firmware_ranges(firmware: str, expected: bool) -> None:
    drv = vf.parse_driver_version_info(body("driver-version.info-24.1.rc2.2.txt"))
    assert vf.driver_accepts_firmware(drv, firmware) is expected


def test_compatibility_unknown_without_ranges() -> None:
    drv = vf.parse_driver_version_info("Version=20.2.0\nrequired_firmware_firmware_version=1.0\n")
    fw = vf.parse_firmware_version_info("Version=1.76.22.3.220\nfirmware_version=1.0\n")
    assert vf.driver_accepts_firmware(drv, "7.1.0") is None
    assert vf.firmware_accepts_driver(fw, "20.2.0") is None
    assert vf.driver_firmware_compatible(drv, fw) is None
    full = vf.parse_driver_version_info(body("driver-version.info-24.1.rc2.2.txt"))
    assert vf.driver_accepts_firmware(full, "not-a-version") is None
    assert vf.driver_accepts_firmware(full, None) is None


def test_code_ranges_and_cann_driver_codes() -> None:
    drv = vf.parse_driver_version_info(body("notes-800IA2-driver-version.info-25.0.rc1.1.txt"))
    cann = vf.parse_cann_install_info(body("vllm-ascend-198-ascend_toolkit_install-8.0.0.txt"))
    assert vf.codes_accept(drv.compatible_version, cann.innerversion) is True  # C20 listed
    assert vf.codes_accept(cann.compatible_version, drv.innerversion) is False  # C21 not listed
    assert vf.cann_driver_codes_compatible(drv.compatible_version, drv.innerversion,
                                           cann.compatible_version, cann.innerversion) is True
    ranged = vf.CodeRange("V100R001C13", "V100R001C19")
    assert ranged.contains("V100R001C17SPC001B100") is True
    assert ranged.contains("V100R001C20") is False
    assert ranged.contains("garbage") is None
    assert ranged.text() == "[V100R001C13,V100R001C19]"
    assert vf.codes_accept((), "V100R001C13") is None


@pytest.mark.parametrize("pair,names", [(vf.CodeRange("V100R001C13", "V100R001C19"), ("low", "high")),
                                        (vf.CfgVersion("7.0.0.5.242", None), ("internal_build", "cann_version"))])
def test_named_pairs_behave_as_the_named_tuples_they_replace(pair: Any, names: Tuple[str, str]) -> None:
    import copy
    import pickle

    from ascend_doctor.parsers.version_text import to_jsonable

    first, second = pair
    assert tuple(getattr(pair, name) for name in names) == (first, second) == pair
    assert pair._asdict() == dict(zip(names, pair))
    assert to_jsonable(pair) == dict(zip(names, pair))  # JSON shows it as the NamedTuple did
    assert repr(pair) == f"{type(pair).__name__}({names[0]}={first!r}, {names[1]}={second!r})"
    for again in (pickle.loads(pickle.dumps(pair)), copy.copy(pair), copy.deepcopy(pair)):
        assert again == pair and type(again) is type(pair)
    assert hash(pair) == hash((first, second))
    assert type(pair)(**dict(zip(names, pair))) == pair  # keyword construction


def test_bracket_range_entries_are_kept_as_pairs() -> None:
    # CANN 8.0.RC3's compatible_version value (compat_facts §1.3), in the sample file's layout
    text = body("vllm-ascend-198-ascend_toolkit_install-8.0.0.txt").replace(
        "compatible_version=[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19],[V100R001C20]",
        "compatible_version=[V100R001C13,V100R001C19],[V100R001C30]")
    info = vf.parse_cann_install_info(text)
    assert info.compatible_version == (("V100R001C13", "V100R001C19"), ("V100R001C30", "V100R001C30"))
    assert info.to_dict()["compatible_version"][0] == {"low": "V100R001C13", "high": "V100R001C19"}


# -- install info --------------------------------------------------------------------------------
def test_etc_ascend_install_info() -> None:
    info = vf.parse_ascend_install_info(part("etc-ascend_install.info-910-23.0.rc1.txt"))
    assert info.driver_install_path == "/usr/local/Ascend"
    assert info.firmware_install_path == "/usr/local/Ascend"
    assert (info.driver_install_type, info.firmware_install_type) == ("full", "full")
    assert (info.user_name, info.user_group) == ("HwHiAiUser", "HwHiAiUser")
    assert info.driver_install_for_all == "yes"
    assert info.driver_dir == "/usr/local/Ascend/driver"
    assert info.install_paths == {"Firmware": "/usr/local/Ascend", "Driver": "/usr/local/Ascend"}


def test_install_info_after_driver_uninstall_has_no_driver_path() -> None:
    text = "\n".join(line for line in part("etc-ascend_install.info-910-23.0.rc1.txt").splitlines()
                     if not line.startswith("Driver_"))
    info = vf.parse_ascend_install_info(text)
    assert info.driver_install_path is None and info.driver_dir is None
    assert info.firmware_install_path == "/usr/local/Ascend"


@pytest.mark.parametrize(("name", "index", "version", "inner", "arch", "path", "home"), [
    ("blog-310B4-ascend_toolkit_install-7.0.RC1.txt", 0, "7.0.RC1", "V100R001C13SPC005B246", "aarch64",
     "/usr/local/Ascend/ascend-toolkit/7.0.RC1/aarch64-linux", "/usr/local/Ascend/ascend-toolkit/7.0.RC1"),
    ("vllm-ascend-198-ascend_toolkit_install-8.0.0.txt", 0, "8.0.0", "V100R001C20SPC001B251", "aarch64",
     "/usr/local/Ascend/ascend-toolkit/8.0.0/aarch64-linux", "/usr/local/Ascend/ascend-toolkit/8.0.0"),
    ("vllm-ascend-1047-ascend_toolkit_install-8.1.RC1.txt", 0, "8.1.RC1", "V100R001C21SPC001B238", "aarch64",
     "/usr/local/Ascend/ascend-toolkit/8.1.RC1/aarch64-linux", "/usr/local/Ascend/ascend-toolkit/8.1.RC1"),
    ("vllm-ascend-2557-ascend_toolkit_install-8.2.RC1.txt", 0, "8.2.RC1", "V100R001C22SPC001B231", "aarch64",
     "/usr/local/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux", "/usr/local/Ascend/ascend-toolkit/8.2.RC1"),
    ("vllm-ascend-mooncake-x86_64-ascend_toolkit_install-8.2.RC1.txt", 0, "8.2.RC1", "V100R001C23B001", "x86_64",
     "/usr/local/Ascend/ascend-toolkit/8.2.RC1/x86_64-linux", "/usr/local/Ascend/ascend-toolkit/8.2.RC1"),
    ("notes-800IA2-cann-toolkit-version.info-8.2.RC1.txt", 1, "8.2.RC1", "V100R001C22SPC001B231", "aarch64",
     "/usr/local/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux", "/usr/local/Ascend/ascend-toolkit/8.2.RC1"),
    ("mindcluster-doc-cann-8.5.0-toolkit-install-aarch64-x86_64.txt", 0, "8.5.0", "V100R001C25SPC001B212",
     "aarch64", "/usr/local/Ascend/cann-8.5.0/aarch64-linux", "/usr/local/Ascend/cann-8.5.0"),
    ("mindcluster-doc-cann-8.5.0-toolkit-install-aarch64-x86_64.txt", 1, "8.5.0", "V100R001C25SPC001B212",
     "x86_64", "/usr/local/Ascend/cann-8.5.0/x86_64-linux", "/usr/local/Ascend/cann-8.5.0"),
])
def test_cann_install_info(name: str, index: int, version: str, inner: str, arch: str, path: str,
                           home: str) -> None:
    info = vf.parse_cann_install_info(part(name, index))
    assert (info.package_name, info.package_kind) == ("Ascend-cann-toolkit", "toolkit")
    assert (info.version, info.innerversion, info.arch, info.os) == (version, inner, arch, "linux")
    assert (info.path, info.home) == (path, home)
    assert info.compatible_version and all(r.is_single for r in info.compatible_version)


def test_cann_arch_taken_from_path_when_missing() -> None:
    text = "\n".join(line for line in body("vllm-ascend-mooncake-x86_64-ascend_toolkit_install-8.2.RC1.txt")
                     .splitlines() if not line.startswith("arch="))
    assert vf.parse_cann_install_info(text).arch == "x86_64"


def test_nnae_install_info() -> None:
    text = body("vllm-ascend-198-ascend_toolkit_install-8.0.0.txt").replace(
        "Ascend-cann-toolkit", "Ascend-cann-nnae").replace("ascend-toolkit/8.0.0", "nnae/8.0.0")
    info = vf.parse_cann_install_info(text)
    assert (info.package_kind, info.home) == ("nnae", "/usr/local/Ascend/nnae/8.0.0")


# -- version.cfg / component version.info --------------------------------------------------------
def test_version_cfg_mindie_image() -> None:
    cfg = vf.parse_version_cfg(body("mindie2.0T3-version.cfg-8.0.T63.txt"))
    assert cfg.cann_version == "8.0.T63"
    assert cfg.running["runtime"] == ("7.6.T13.0.B094", "8.0.T63")
    assert cfg.running["opp_kernel"].internal_build == "7.6.T13.0.B094"
    assert set(cfg.running) == {"runtime", "compiler", "hccl", "opp", "toolkit", "aoe", "ncs", "opp_kernel"}
    assert cfg.upgrade == cfg.running == cfg.installed
    assert cfg.to_dict()["running"]["hccl"] == {"internal_build": "7.6.T13.0.B094", "cann_version": "8.0.T63"}


def test_version_cfg_with_install_history() -> None:
    cfg = vf.parse_version_cfg(body("vllm-ascend-629-version.cfg-8.1.RC1-multi-installed.txt"))
    assert cfg.cann_version == "8.1.RC1"
    assert cfg.installed["runtime"] == ("7.7.T20.0.B210", "8.1.RC1")
    assert cfg.installed_history["runtime"] == (("7.7.T9.0.B057", "8.1.T6"), ("7.7.T20.0.B210", "8.1.RC1"))
    assert len(cfg.installed_history["opp_kernel"]) == 3
    assert cfg.upgrade["opp_kernel"] == ("7.7.T20.0.B210", "8.1.RC1")


def test_version_cfg_most_common_running_version_wins() -> None:
    text = body("mindie2.0T3-version.cfg-8.0.T63.txt").replace(
        "hccl_running_version=[7.6.T13.0.B094:8.0.T63]", "hccl_running_version=[7.5.0.1.129:8.0.RC3]")
    cfg = vf.parse_version_cfg(text)
    assert cfg.cann_version == "8.0.T63"
    assert cfg.running["hccl"].cann_version == "8.0.RC3"


def test_toolkit_component_version_info() -> None:
    info = vf.parse_component_version_info(part("notes-800IA2-cann-toolkit-version.info-8.2.RC1.txt", 0))
    assert (info.version, info.version_dir, info.cann_release) == ("8.2.0.0.201", "8.2.RC1", "8.2.RC1")
    assert info.timestamp == "20250724_194044950"
    assert info.required_packages["opp_kernel"] == ">=7.6, <=8.2"
    assert info.required_packages["runtime"] == "8.2"
    assert len(info.required_packages) == 10


def test_opp_kernel_component_version_info() -> None:
    info = vf.parse_component_version_info(body("notes-800IA2-opp_kernel-version.info-8.2.RC1.txt"))
    assert (info.version, info.cann_release, info.ops_version) == ("8.2.0.0.201", "8.2.RC1", "8.2.0.0.201")
    assert info.raw["adk_version"] == "8.2.0.0.201"
    assert info.required_packages["toolkit"] == ">=7.6, <=8.2"


def test_component_release_when_version_dir_is_a_name() -> None:
    # 9.x packaging writes version_dir=cann and the release in Version= (compat_facts §5.5)
    text = body("notes-800IA2-opp_kernel-version.info-8.2.RC1.txt").replace(
        "Version=8.2.0.0.201", "Version=9.1.0").replace("version_dir=8.2.RC1", "version_dir=cann")
    assert vf.parse_component_version_info(text).cann_release == "9.1.0"
    no_dir = "\n".join(line for line in body("notes-800IA2-opp_kernel-version.info-8.2.RC1.txt").splitlines()
                       if not line.startswith("version_dir"))
    assert vf.parse_component_version_info(no_dir).cann_release is None


# -- key : value files ---------------------------------------------------------------------------
def test_nnal_atb_version_info() -> None:
    info = vf.parse_colon_version_info(body("notes-800IA2-nnal-atb-version.info-8.2.RC1.txt"))
    assert (info.product, info.version, info.full_version) == ("Ascend-cann-atb", "8.2.RC1", "8.2.RC1.B150")
    assert info.platform == "aarch64"
    assert info.branch == "br_release_cann_8.2.RC1_20251226"
    assert info.commit == "f10dc20391d8af04c3f8024aca0e0dfa94d2a0a5"
    assert info.components == {}


def test_mindie_version_info() -> None:
    info = vf.parse_colon_version_info(body("notes-800IA2-mindie-version.info-2.1.RC1.txt"))
    assert (info.product, info.version, info.full_version) == ("Ascend-mindie", "2.1.RC1", "2.1.RC1.B152")
    assert info.components["mindie-sd"] == "2.1.RC1.B152"  # written "mindie-sd:" without a space
    assert set(info.components) == {"mindie-rt", "mindie-torch", "mindie-service", "mindie-llm", "mindie-sd"}


def test_mindie_2_0_t3_image_files() -> None:
    name = "mindie2.0T3-atb-models-mindie-atb-version.info.txt"
    models, mindie, atb = (vf.parse_colon_version_info(part(name, i)) for i in range(3))
    assert (models.product, models.version, models.full_version) == ("ATB-Models", "2.0.T3", "2.0.T3.B010")
    assert models.raw["MindIE-ATB Version"] == ""
    assert models.branch == "master"
    assert models.raw["Time"] == "2025-02-05 03:45:45 PM CST"
    assert (mindie.version, mindie.full_version) == ("2.0.T3", "2.0.T3.B010")
    assert (atb.product, atb.version, atb.full_version) == ("Ascend-cann-atb", "8.0.T63", "8.0.T63.B020")


# -- upgrade-tool -------------------------------------------------------------------------------
def test_upgrade_tool_versions() -> None:
    result = vf.parse_upgrade_tool_versions(body("mindcluster-doc-upgrade-tool-component-versions.txt"))
    assert len(result.components) == 8
    assert result.versions() == ("7.1.0.7.220",)
    assert result.by_device()[7] == {"nve": "7.1.0.7.220", "uefi": "7.1.0.7.220", "imu": "7.1.0.7.220",
                                     "imp": "7.1.0.7.220"}
    assert [c.component_type for c in result.components[:4]] == [0, 3, 8, 9]


# -- tolerance of how the text reached us ------------------------------------------------------
DRIVER = "driver-version.info-24.1.rc2.2.txt"


def _driver_fields(text: str) -> Tuple[object, ...]:
    d = vf.parse_driver_version_info(text)
    return (d.version, d.package_version, d.innerversion, d.compatible_version, d.compatible_version_fw)


@pytest.mark.parametrize("transform", [
    lambda t: t.replace("\n", "\r\n"),
    lambda t: "\ufeff" + t,
    lambda t: "\n".join("        " + line for line in t.splitlines()),  # markdown indentation
    lambda t: "\n".join(line + "   " for line in t.splitlines()),
    lambda t: t.replace("\n", "\n\n"),
    lambda t: "# cat /usr/local/Ascend/driver/version.info\n" + t,
    lambda t: t.replace("Version=24.1.rc2.2", 'Version="24.1.rc2.2"'),
    lambda t: t.replace("=", " = "),
], ids=["crlf", "bom", "indent", "trailing-space", "blank-lines", "comment", "quoted", "spaced-equals"])
def test_driver_tolerates_transport_damage(transform: Callable[[str], str]) -> None:
    original = body(DRIVER)
    assert _driver_fields(transform(original)) == _driver_fields(original)


def test_duplicate_key_last_wins_with_warning() -> None:
    text = body(DRIVER) + "Version=24.1.rc2.3\n"
    drv = vf.parse_driver_version_info(text)
    assert drv.version == "24.1.rc2.3"
    assert any("duplicate key 'Version'" in w for w in drv.warnings)


def test_skipped_lines_leave_warnings() -> None:
    drv = vf.parse_driver_version_info("```shell\n" + body(DRIVER) + "```\n")
    assert drv.version == "24.1.rc2.2"
    assert len(drv.warnings) == 2 and "line 1" in drv.warnings[0]


def test_colon_file_tolerates_crlf_bom_and_indentation() -> None:
    text = "\ufeff" + body("notes-800IA2-nnal-atb-version.info-8.2.RC1.txt").replace("\n", "\r\n")
    info = vf.parse_colon_version_info(text)
    assert (info.version, info.full_version, info.platform) == ("8.2.RC1", "8.2.RC1.B150", "aarch64")


# -- errors --------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(PARSERS))
@pytest.mark.parametrize("text", ["", "   \n\n", "\ufeff", "hello world\n", "\x00\x01\x02ELF\x00",
                                  "# only a comment\n", "\ufffd\ufffd\ufffd\ufffd"])
def test_not_a_version_file(kind: str, text: str) -> None:
    with pytest.raises(VersionFileError):
        PARSERS[kind](text)


@pytest.mark.parametrize("kind", sorted(PARSERS))
def test_non_text_input_is_a_version_file_error(kind: str) -> None:
    with pytest.raises(VersionFileError):
        PARSERS[kind](b"Version=24.1.rc2.2\n")  # type: ignore[arg-type]


def test_error_names_problem_and_first_offending_line() -> None:
    with pytest.raises(VersionFileError) as err:
        vf.parse_driver_version_info("hello\nfoo=bar\n")
    assert str(err.value) == "not a driver version.info: no Version= line (line 1: 'hello')"
    assert (err.value.line_number, err.value.line) == (1, "hello")
    with pytest.raises(VersionFileError, match="empty"):
        vf.parse_driver_version_info("Version=\n")
    with pytest.raises(VersionFileError, match=r"binary data .*line 2"):
        vf.parse_driver_version_info("Version=1.0\n\x7fELF\x02\x01\n")


def test_wrong_kind_is_named() -> None:
    with pytest.raises(VersionFileError, match=r"looks like a firmware version\.info"):
        vf.parse_driver_version_info(body("notes-800IA2-firmware-version.info-7.7.0.1.231.txt"))
    with pytest.raises(VersionFileError, match=r"looks like a driver version\.info"):
        vf.parse_firmware_version_info(body(DRIVER))
    with pytest.raises(VersionFileError, match=r"install\.info"):
        vf.parse_driver_version_info(body("vllm-ascend-198-ascend_toolkit_install-8.0.0.txt"))


# -- property: arbitrary text parses or raises VersionFileError ---------------------------------
_ALL_PARTS = [p for name, kinds in SAMPLE_TABLE.items() for p in split_parts(body(name))]
_FRAGMENTS = st.one_of(
    st.text(max_size=40),
    st.sampled_from(["=", ":", "[", "]", ",", "\n", "\r\n", "\ufeff", "\x00", "Version=", "[7.0.0,7.",
                     "compatible_version=[", "Ascend-x : ", " Version : ", '{"device_id":1, "component":a, '
                     '"version":', "_running_version=[", "9" * 5000]),
)


@st.composite
def mangled_samples(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(_ALL_PARTS))
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(text)))
        cut = draw(st.integers(0, 20))
        text = text[:pos] + draw(_FRAGMENTS) + text[pos + cut:]
    return text


@pytest.mark.parametrize("kind", sorted(PARSERS))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(max_size=300), mangled_samples()))
def test_arbitrary_text_parses_or_raises_version_file_error(kind: str, text: str) -> None:
    try:
        record = PARSERS[kind](text)
    except VersionFileError:
        return
    json.dumps(record.to_dict())  # type: ignore[attr-defined]
    if kind == "driver":
        drv = record
        assert isinstance(drv, vf.DriverVersionInfo)
        vf.driver_accepts_firmware(drv, text[:40])
        for entry in drv.compatible_version:
            entry.contains(text[:40])
    if kind == "firmware":
        assert isinstance(record, vf.FirmwareVersionInfo)
        vf.firmware_accepts_driver(record, text[:40])


# -- collect_env dumps ---------------------------------------------------------------------------
ENV_SAMPLES = Path(__file__).parent / "samples" / "collect-env"

# sample -> (layout, python, torch, torch_npu, vllm, vllm_ascend, cann, npu-smi version)
COLLECT_ENV_TABLE: Dict[str, Tuple[object, ...]] = {
    "llamafactory-docs-env-910B1-hce2-cann8.3.RC1.txt":
        ("llamafactory", "3.11.13", "2.7.1+cpu", None, None, None, "8.3.RC1", None),
    "llamafactory-tutorial-env-910B2-cann8.2.RC1.txt":
        ("llamafactory", "3.11.14", "2.7.1+cpu", None, None, None, "8.2.RC1", None),
    "vllm-3526-kylin-collapsed-localized-lscpu.txt":
        ("collapsed", "3.8.18", "2.1.0", None, None, None, None, None),
    "vllm-ascend-198-collect_env-vllm0.7.1-torchnpu2.5.1.txt":
        ("collect_env", "3.10.15", "2.5.1", "2.5.1.dev20250218", "0.7.1", None, None, None),
    "vllm-ascend-3002-A3-kunpeng5250Y-ubuntu24-torchnpu-dev-cann8.3.RC1-B085.txt":
        ("vllm-ascend", "3.11.13", "2.7.1+cpu", "2.7.1.dev20250911", "0.10.2rc3.dev14+g72fc8aa41",
         "0.10.2rc2.dev13+g99210941a.d20250916", "8.3.RC1", "25.2.0"),
    "vllm-ascend-4148-300IDuo-openEuler-kernel-docker-cann8.3.RC1.txt":
        ("vllm-ascend", "3.11.13", "2.7.1+cpu", "2.7.1", "0.11.0", "0.11.0rc1", "8.3.RC1", "25.2.0"),
    "vllm-ascend-4480-A3-vllm0.11.2-cann8.3.RC2.txt":
        ("vllm-ascend", "3.11.13", "2.7.1+cpu", "2.7.1", "0.11.2", "0.11.0rc1.dev393+g3c9d947d7.d20251124",
         "8.3.RC2", "24.1.rc3.7"),
    "vllm-ascend-6063-300IDuo-upstream-sectioned-collect_env-vllm0.10.0.txt":
        ("vllm-sectioned", "3.11.13", "2.7.1+cpu", "2.7.1.dev20250724", "0.10.0", None, "8.2.RC1", None),
    "vllm-ascend-6509-910B2-vllm0.14.1-cann8.5.0.txt":
        ("vllm-ascend", "3.11.14", "2.9.0+cpu", "2.9.0", "0.14.1", "0.14.0rc1", "8.5.0", "25.5.0"),
}


def env_body(name: str) -> str:
    text = (ENV_SAMPLES / name).read_text(encoding="utf-8")
    assert text.startswith("# source:")
    return text.split("# ---\n", 1)[1]


def test_every_collect_env_sample_is_in_the_table() -> None:
    assert sorted(p.name for p in ENV_SAMPLES.glob("*.txt")) == sorted(COLLECT_ENV_TABLE)


@pytest.mark.parametrize("name", sorted(COLLECT_ENV_TABLE))
def test_collect_env_versions(name: str) -> None:
    env = parse_collect_env(env_body(name))
    assert (env.layout, env.python_version, env.torch_version, env.torch_npu_version, env.vllm_version,
            env.vllm_ascend_version, env.cann_version, env.npu_smi_version) == COLLECT_ENV_TABLE[name]
    json.dumps(env.to_dict())


def test_collect_env_details_new_template() -> None:
    env = parse_collect_env(env_body("vllm-ascend-6509-910B2-vllm0.14.1-cann8.5.0.txt"))
    assert env.os == "Ubuntu 22.04.5 LTS (aarch64)" and env.arch == "aarch64"
    assert env.python_platform == "Linux-4.19.90-2107.6.0.0251.43.oe1.bclinux.aarch64-aarch64-with-glibc2.35"
    assert env.env["ASCEND_TOOLKIT_HOME"] == "/usr/local/Ascend/cann-8.5.0"
    assert env.env["ASCEND_VISIBLE_DEVICES"] == "1,2,3,4,5,6,7,0"
    assert env.env["ASCEND_RUNTIME_OPTIONS"] == ""
    assert env.cann is not None and env.cann.home == "/usr/local/Ascend/cann-8.5.0"
    assert env.cann.innerversion == "V100R001C25SPC001B232"
    assert env.packages["transformers"] == "4.57.6"
    assert env.npu_smi_text is not None and "910B2" in env.npu_smi_text
    assert env.warnings == ()


def test_collect_env_sectioned_and_duplicated_env() -> None:
    env = parse_collect_env(env_body("vllm-ascend-6063-300IDuo-upstream-sectioned-collect_env-vllm0.10.0.txt"))
    assert env.cpu_model == "Kunpeng-920"
    assert env.env["CUDA_VISIBLE_DEVICES"] == "4,5"
    assert any("CUDA_VISIBLE_DEVICES set twice" in w for w in env.warnings)
    assert env.cann is not None and env.cann.innerversion == "V100R001C22SPC001B231"


def test_collect_env_bios_model_name_when_model_name_is_dash() -> None:
    env = parse_collect_env(env_body("vllm-ascend-3002-A3-kunpeng5250Y-ubuntu24-torchnpu-dev-cann8.3.RC1-B085.txt"))
    assert env.cpu_model == "Kunpeng 920 5250Y To be filled by O.E.M. CPU @ 2.0GHz"
    assert env.env["ATB_HOME_PATH"].endswith("cxx_abi_0")


def test_collect_env_llamafactory_bullets() -> None:
    env = parse_collect_env(env_body("llamafactory-tutorial-env-910B2-cann8.2.RC1.txt"))
    assert env.npu_type == "Ascend910B2"
    assert env.labels["deepspeed version"] == "0.16.9"


@pytest.mark.parametrize("text", ["", "hello\n", "\x00\x00", "a=b\n"])
def test_collect_env_rejects_other_text(text: str) -> None:
    with pytest.raises(VersionFileError):
        parse_collect_env(text)


_ENV_BODIES = [env_body(name) for name in sorted(COLLECT_ENV_TABLE)]


@st.composite
def mangled_env(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(_ENV_BODIES))
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(text)))
        text = text[:pos] + draw(_FRAGMENTS) + text[pos + draw(st.integers(0, 200)):]
    return text


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(max_size=300), mangled_env()))
def test_collect_env_parses_or_raises_version_file_error(text: str) -> None:
    try:
        env = parse_collect_env(text)
    except VersionFileError:
        return
    json.dumps(env.to_dict())
