"""Queries against the shipped matrix, checked against answers read by hand from
research/compat_facts.md (section numbers in the comments)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ascend_doctor.matrix import Matrix, VerdictKind, load_matrix

REC, COMPAT, INCOMPAT, UNKNOWN = (VerdictKind.RECOMMENDED, VerdictKind.COMPATIBLE, VerdictKind.INCOMPATIBLE,
                                  VerdictKind.UNKNOWN)


@pytest.fixture(scope="module")
def m() -> Matrix:
    return load_matrix()


# -- CANN <-> driver (§1) -----------------------------------------------------------------------

def test_quick_install_pairing_works_but_is_not_the_release_pairing(m: Matrix) -> None:
    # §1.2: package_info.js pairs CANN 8.0.RC3 with driver 24.1.rc2 (firmware 7.3.0.1.231): "working
    # pairings chosen for a community quick-install page, not the recommended 1:1 release pairing"
    verdict = m.cann_vs_driver("8.0.RC3", "24.1.rc2")
    assert verdict.kind is COMPAT and not verdict.inferred
    assert verdict.message.startswith("works: the Ascend docs quick-install page installs driver 24.1.RC2 with "
                                      "CANN 8.0.RC3")
    assert any("package_info.js" in s for s in verdict.sources)
    assert any("gpustack/gpustack/issues/755" in s for s in verdict.sources)


def test_patch_driver_spelling_matches_its_release(m: Matrix) -> None:
    assert m.cann_vs_driver("8.0.RC3", "24.1.rc2.2").kind is COMPAT  # npu-smi prints patch builds


def test_community_spelling_reads_as_its_release(m: Matrix) -> None:
    verdict = m.cann_vs_driver("8.0.RC3.beta1", "24.1.RC2")
    assert verdict.kind is COMPAT and verdict.message.startswith("works:")


def test_installer_pairing(m: Matrix) -> None:
    # §1.1: ascend-deployer CANN_8.5.0.json required NPU 25.5.0 ("default": true)
    verdict = m.cann_vs_driver("8.5.0", "25.5.0")
    assert verdict.kind is REC and "ascend-deployer" in verdict.message


def test_official_list_is_compatible(m: Matrix) -> None:
    # §1.1: "CANN 8.5.0 <-> Ascend HDK 25.5.X, 25.3.X, 25.2.X, 25.0.X"
    verdict = m.cann_vs_driver("8.5.0", "25.3.rc1")
    assert verdict.kind is COMPAT and not verdict.inferred
    assert any("canncommercial/850" in s for s in verdict.sources)


def test_official_incompatible_keeps_the_conflicting_release_codes(m: Matrix) -> None:
    verdict = m.cann_vs_driver("8.5.0", "24.1.0")
    assert verdict.kind is INCOMPAT
    assert any("conflicting source" in n and "V100R001C19" in n for n in verdict.notes)
    assert verdict.suggestion == ("CANN 8.5.0 is paired with driver 25.5.0 (recommended; the Ascend installer "
                                  "(ascend-deployer))")


def test_release_codes_make_an_inferred_compatible(m: Matrix) -> None:
    # §1.3: CANN 8.0.RC3 compatible_version [V100R001C13,V100R001C19] covers driver 24.1.rc3 (C19)
    verdict = m.cann_vs_driver("8.0.RC3", "24.1.rc3")
    assert verdict.kind is COMPAT and verdict.inferred
    assert "V100R001C19" in verdict.message
    assert verdict.suggestion and "24.1.RC2" in verdict.suggestion


def test_host_release_codes_are_used(m: Matrix) -> None:
    verdict = m.cann_vs_driver("8.3.RC2", "24.1.rc2.2", cann_innerversion="V100R001C23SPC002B210",
                               cann_compatible=["[V100R001C15]", "[V100R001C18]", "[V100R001C19]"],
                               driver_innerversion="V100R001C18SPC001B233",
                               driver_compatible=["[V100R001C30]", "[V100R001C13]"])
    assert verdict.kind is COMPAT and verdict.inferred
    assert "this host's ascend_toolkit_install.info" in verdict.sources


def test_neither_side_listing_the_other_is_an_inferred_incompatible(m: Matrix) -> None:
    # CANN 7.0.RC1 (C13) accepts C29/C30/C13/R003C10/R003C11; driver 25.3.rc1 (C23) accepts C19..C23
    verdict = m.cann_vs_driver("7.0.RC1", "25.3.rc1")
    assert verdict.kind is INCOMPAT and verdict.inferred
    assert "neither lists the other" in verdict.message


def test_no_evidence_is_unknown_not_incompatible(m: Matrix) -> None:
    verdict = m.cann_vs_driver("9.1.0", "24.1.rc2")
    assert verdict.kind is UNKNOWN
    assert verdict.suggestion == "CANN 9.1.0 is paired with driver 26.1.0 (recommended; official release documentation)"


def test_cann_not_in_matrix(m: Matrix) -> None:
    assert m.cann_vs_driver("8.4.0", "24.1.rc2").message == "CANN 8.4.0 is not in the matrix"
    assert m.cann_vs_driver("garbage", "24.1.rc2").kind is UNKNOWN
    assert m.cann_vs_driver("8.0.RC3", "").kind is UNKNOWN


def test_product_specific_rows(m: Matrix) -> None:
    # §1.1: MindCluster 26.1.0 — CANN 9.1.0 with Atlas 350: HDK 25.7.RC1
    plain = m.cann_vs_driver("9.1.0", "25.7.RC1")
    assert plain.kind is UNKNOWN and any("Atlas 350" in n for n in plain.notes)
    assert m.cann_vs_driver("9.1.0", "25.7.RC1", product="Atlas 350 card").kind is REC


def test_single_cann_product_list_is_a_documented_pairing(m: Matrix) -> None:
    # §1.1 / §4: MindIE 2.1.RC1 — CANN 8.2.RC1 with HDK 25.2.0 / 25.0.RC1 / 24.1.0 / 24.1.RC3 / 24.1.RC2
    verdict = m.cann_vs_driver("8.2.RC1", "24.1.rc3")
    assert verdict.kind is COMPAT and not verdict.inferred
    assert "mindie/21RC1" in verdict.sources[0] and verdict.notes[0].startswith("MindIE 2.1.RC1 version list")


def test_colisting_is_a_note_not_a_verdict(m: Matrix) -> None:
    # MindSDK 7.0.RC1 lists CANN 7.0.1 and HDK 23.0.6 together: a co-existence list, "not a CANN->HDK
    # function" (compat_facts §1.1), so nothing pairs them: unknown, with the listing as a note
    verdict = m.cann_vs_driver("7.0.1", "23.0.6")
    assert verdict.kind is UNKNOWN
    assert any("co-existence list, not a compatibility statement" in n for n in verdict.notes)


# -- driver <-> firmware (§1.2, §1.3, §5.2) ---------------------------------------------------------

def test_firmware_of_the_same_hdk(m: Matrix) -> None:
    verdict = m.driver_vs_firmware("24.1.rc3", "7.5.0.1.129")
    assert verdict.kind is REC


def test_firmware_driver_list_excludes_newer_driver(m: Matrix) -> None:
    # firmware 7.5.0.1.129 compatible_version_drv=[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.]
    verdict = m.driver_vs_firmware("25.0.rc1.1", "7.5.0.1.129")
    assert verdict.kind is INCOMPAT
    assert verdict.suggestion == "driver 25.0.RC1 ships with firmware 7.7.0.1.231"


def test_host_firmware_range(m: Matrix) -> None:
    verdict = m.driver_vs_firmware("23.0.7", "7.3.0.1.231", compatible_version_fw=[("7.0.0", "7.1.99")])
    assert verdict.kind is INCOMPAT and "outside driver 23.0.7's range [7.0.0,7.1.99]" in verdict.message


def test_paired_firmware_wins_over_a_conflicting_range(m: Matrix) -> None:
    # package_info.js pairs 24.1.RC2 with 7.3.0.1.231; driver 24.1.rc2.2 says [7.0.0,7.2.99]: both kept
    verdict = m.driver_vs_firmware("24.1.rc2.2", "7.3.0.1.231", compatible_version_fw=[("7.0.0", "7.2.99")])
    assert verdict.kind is REC and any("conflicting source" in n for n in verdict.notes)


def test_firmware_unknown_and_hdk_numbers(m: Matrix) -> None:
    assert m.driver_vs_firmware("26.1.0", "9.9.9.9.999").kind is UNKNOWN
    assert m.driver_vs_firmware("24.1.rc2", "24.1.RC2").kind is REC
    assert m.driver_vs_firmware("24.1.rc2", "nonsense").kind is UNKNOWN


# -- torch_npu <-> torch <-> CANN <-> Python (§2) ------------------------------------------------

def test_torch_npu_table_row(m: Matrix) -> None:
    # §2.1 historical: 2.1.0.post8 | v2.1.0-6.0.rc3 | 2.1.0 | CANN 8.0.RC3
    assert m.torch_npu_vs_torch("2.1.0.post8", "2.1.0").kind is REC
    assert m.torch_npu_vs_torch("2.1.0.post8", "2.1.0+cpu").kind is REC
    cann = m.torch_npu_vs_cann("2.1.0.post8", "8.0.RC3")
    assert cann.kind is REC and cann.message == ("torch_npu 2.1.0.post8 is released for CANN 8.0.RC3 "
                                                 "(branch v2.1.0-6.0.rc3)")


def test_wrong_torch_for_torch_npu(m: Matrix) -> None:
    verdict = m.torch_npu_vs_torch("2.1.0.post8", "2.2.0")
    assert verdict.kind is INCOMPAT and verdict.suggestion is not None
    # torch is never changed without the torch_npu that goes with it
    assert verdict.suggestion.splitlines()[0] == "pip install torch==2.1.0 torch-npu==2.1.0.post8"


def test_both_post_releases_for_8_0_rc1(m: Matrix) -> None:
    # §2.2 discrepancy note: COMPATIBILITY.en.md 2.1.0.post4, hiascend release note 2.1.0.post3
    assert m.torch_npu_vs_cann("2.1.0.post4", "8.0.RC1").kind is REC
    assert m.torch_npu_vs_cann("2.1.0.post3", "8.0.RC1").kind is REC


def test_published_oddity_is_kept(m: Matrix) -> None:
    assert m.torch_npu_vs_torch("1.5.0.post3", "1.8.1").kind is REC


def test_pta_backward_compat_statement(m: Matrix) -> None:
    verdict = m.torch_npu_vs_cann("2.1.0.post17", "8.0.RC3")
    assert verdict.kind is COMPAT and verdict.notes  # flagged uncertain in the source


def test_other_cann_is_unknown_with_suggestion(m: Matrix) -> None:
    verdict = m.torch_npu_vs_cann("2.1.0.post8", "8.5.0")
    assert verdict.kind is UNKNOWN
    assert verdict.suggestion and "2.9.0 (torch 2.9.0)" in verdict.suggestion


def test_runtime_map_mismatch(m: Matrix) -> None:
    assert m.torch_npu_vs_cann("1.11.0.post2", "6.3.RC2").kind is INCOMPAT
    assert m.torch_npu_vs_cann("1.11.0.post1", "6.3.RC2").kind is REC


def test_dev_builds_from_vllm_rows(m: Matrix) -> None:
    assert m.torch_npu_vs_cann("2.7.1.dev20250724", "8.2.RC1").kind is REC
    assert m.torch_npu_vs_torch("2.7.1.dev20250911", "2.7.1").kind is COMPAT  # naming rule, inferred


def test_python(m: Matrix) -> None:
    assert m.torch_vs_python("2.1.0", "3.11.9").kind is COMPAT
    assert m.torch_vs_python("2.1.0", "3.12.1").kind is INCOMPAT
    assert m.torch_vs_python("2.0.1", "3.10").kind is UNKNOWN  # named, but no Python list published
    assert m.torch_vs_python("1.11.0", "3.7.4").kind is INCOMPAT  # Python3.7(>=3.7.5)
    assert m.torch_npu_vs_python("2.5.1", "3.8").kind is INCOMPAT  # hiascend: 2.5.1 Python 3.9-3.11
    assert m.torch_npu_vs_python("2.1.0.post4", "3.11").kind is INCOMPAT  # 8.0.RC1 branches: 3.8-3.10
    assert m.torch_npu_vs_python("2.12.0", "3.14").kind is COMPAT  # via PyTorch 2.12.0


# -- engines (§3, §4) ---------------------------------------------------------------------------

def test_vllm_ascend_row(m: Matrix) -> None:
    # §3: v0.9.1 | v0.9.1 | >= 3.9, < 3.12 | 8.2.RC1 | 2.5.1 / 2.5.1.post1
    result = dict(m.engine_vs_stack("vllm-ascend", "0.9.1", vllm="0.9.1", cann="8.2.RC1", torch="2.5.1",
                                    torch_npu="2.5.1.post1", python="3.11.4"))
    assert {k: v.kind for k, v in result.items()} == {"vllm": REC, "cann": REC, "torch": REC, "torch_npu": REC,
                                                      "python": REC}


def test_vllm_ascend_mismatches(m: Matrix) -> None:
    result = dict(m.engine_vs_stack("vllm-ascend", "v0.9.1", vllm="0.9.2", cann="8.1.RC1", python="3.12",
                                    driver="24.1.rc2"))
    assert result["vllm"].kind is INCOMPAT
    assert result["cann"].kind is UNKNOWN  # another CANN is undocumented, not forbidden
    assert result["python"].kind is INCOMPAT
    assert result["driver"].message.startswith("vLLM-Ascend 0.9.1 uses CANN 8.2.RC1: ")
    assert any("FULL_AND_PIECEWISE" in n for n in result["driver"].notes)


def test_vllm_ascend_pins(m: Matrix) -> None:
    result = dict(m.engine_vs_stack("vllm-ascend", "0.11.0", torch_npu="2.7.0", torch="2.7.1"))
    assert result["torch_npu"].kind is INCOMPAT  # requirements.txt: torch-npu==2.7.1
    result = dict(m.engine_vs_stack("vllm-ascend", "0.11.0", torch_npu="2.7.1"))
    assert result["torch_npu"].kind is COMPAT  # the pin, while the matrix row says 2.7.1.post1


def test_removed_vllm_ascend_row(m: Matrix) -> None:
    # §3 history: v0.7.3rc1 | v0.7.3 | 3.9 - 3.12 | 8.0.0 | 2.5.1 / 2.5.1.dev20250308
    result = dict(m.engine_vs_stack("vllm-ascend", "0.7.3rc1", cann="8.0.0", torch_npu="2.5.1.dev20250308",
                                    python="3.12"))
    assert result["cann"].kind is REC and result["torch_npu"].kind is REC and result["python"].kind is COMPAT


def test_unknown_engine_version(m: Matrix) -> None:
    result = m.engine_vs_stack("vllm-ascend", "0.11.0rc1.dev393", cann="8.3.RC2")
    assert result[0][0] == "engine" and result[0][1].kind is UNKNOWN
    assert result[0][1].suggestion and "0.11.0rc1" in result[0][1].suggestion
    assert m.engine_vs_stack("tensorrt", "1.0")[0][1].kind is UNKNOWN


def test_mindie(m: Matrix) -> None:
    # §4: MindIE 1.0.RC3 <-> CANN 8.0.RC3; "MindIE与CANN版本必须配套使用"
    assert dict(m.engine_vs_stack("mindie", "1.0.RC3", cann="8.0.RC3"))["cann"].kind is REC
    assert dict(m.engine_vs_stack("mindie", "1.0.RC3", cann="8.0.RC2"))["cann"].kind is INCOMPAT
    # MindIE 3.0.0: HDK "same as CANN 8.5.0"
    driver = dict(m.engine_vs_stack("mindie", "3.0.0", driver="25.5.0"))["driver"]
    assert driver.kind is REC and "HDK as for CANN 8.5.0" in driver.message
    # MindIE 2.1.RC1: abi0 package <-> torch 2.1.0, abi1 package <-> torch 2.6.0
    assert dict(m.engine_vs_stack("mindie", "2.1.RC1.B152", torch="2.6.0"))["torch"].kind is REC
    assert dict(m.engine_vs_stack("mindie", "2.1.RC1", torch="2.5.1"))["torch"].kind is INCOMPAT
    pending = m.engine_vs_stack("mindie", "2.0.RC1", cann="8.1.RC1")
    assert pending[0][1].kind is UNKNOWN and "not confirmed" in pending[0][1].message


def test_mindspeed(m: Matrix) -> None:
    # §4: MindSpeed 2.0.0 <-> CANN 8.0.RC2 … 8.2.RC1, PTA 7.0.0 (= CANN 8.1.RC1)
    assert dict(m.engine_vs_stack("mindspeed", "2.0.0", cann="8.1.RC1"))["cann"].kind is REC
    assert dict(m.engine_vs_stack("mindspeed", "2.0.0", cann="8.0.RC3"))["cann"].kind is COMPAT
    assert dict(m.engine_vs_stack("mindspeed", "2.0.0", cann="7.0.0"))["cann"].kind is UNKNOWN
    assert dict(m.engine_vs_stack("mindspeed", "1.0.0_core_r0.7.0", torch="2.1.0"))["torch"].kind is REC


# -- recommendations and chips (§1, §2, §6) --------------------------------------------------------

def test_recommended_for_cann(m: Matrix) -> None:
    rec = m.recommended_for_cann("8.0.RC3")
    assert rec["driver"] == "24.1.RC2" and rec["firmware"] == "7.3.0.1.231"
    assert rec["torch_npu"] == "2.4.0" and rec["torch"] == "2.4.0" and rec["pta"] == "6.0.rc3"
    assert "2.1.0.post8 (torch 2.1.0)" in rec["torch_npu_all"]
    assert m.recommended_for_cann("8.2.RC1")["driver"] == "25.2.0"  # installer beats quick-install (25.0.RC1)
    assert m.recommended_for_cann("9.9.9") == {}


@pytest.mark.parametrize("name, family", [
    ("910B3", "A2"), ("Ascend910B3", "A2"), ("ascend 910b3", "A2"), ("910B2C", "A2"), ("910B4-1", "A2"),
    ("Ascend910B4-1", "A2"), ("Ascend910", "A3"), ("Ascend910_9392", "A3"), ("910C1", "A3"),
    ("910A", "910"), ("910ProB", "910"), ("910B", "910"), ("310P3", "310P"), ("310Pvir01", "310P"),
    ("310P3vir02", "310P"), ("310B1", "310B"), ("310B4", "310B"), ("Ascend950DT", "950"), ("950PR", "950"),
])
def test_chip_names(m: Matrix, name: str, family: str) -> None:
    info = m.chip(name)
    assert info is not None and info.family == family


def test_chip_details(m: Matrix) -> None:
    b3 = m.chip("910B3")
    assert b3 is not None
    assert b3.memory_mb == (65536,) and b3.soc_version == "Ascend910B3" and b3.soc_enum == 223
    assert b3.dtype_supported("fp8") is False and b3.dtype_supported("bf16") is True
    pk = m.packages(b3.family, "aarch64")
    assert pk is not None
    assert pk.kernels("8.3.RC1") == "Ascend-cann-kernels-910b_8.3.RC1_linux-aarch64.run"
    assert pk.kernels("8.5.0") == "Ascend-cann-910b-ops_8.5.0_linux-aarch64.run"
    assert b3.vllm_ascend_support == "supported" and b3.sources
    b4 = m.chip("910B4")
    assert b4 is not None and b4.memory_mb == (32768, 65536)
    p3 = m.chip("310P3")
    assert p3 is not None and p3.dtype_supported("bf16") is False and p3.vllm_ascend_support == "experimental"
    a3 = m.chip("Ascend910")
    assert a3 is not None and a3.dtype_supported("fp8") is False and a3.dies_per_npu == 2
    assert m.chip("310B1").vllm_ascend_support == "unsupported"  # type: ignore[union-attr]
    first_gen = m.chip("910")  # a family name: the first-generation 910 family, as `matrix show chips` prints it
    assert first_gen is not None and first_gen.is_family and first_gen.family == "910"
    assert m.chip("") is None and m.chip("H100") is None


def test_identity(m: Matrix) -> None:
    assert m.origin == "shipped" and m.version and m.date
    assert m.describe() == f"matrix {m.version} ({m.date}, shipped)"


# -- garbage in: a verdict (usually UNKNOWN) out, never an exception ---------------------------------

VERSIONISH = st.one_of(st.text(max_size=30), st.from_regex(r"[0-9]{1,2}\.[0-9]{1,2}(\.(RC|rc|T)?[0-9]{1,3}){0,3}",
                                                            fullmatch=True))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a=VERSIONISH, b=VERSIONISH)
def test_queries_never_raise(m: Matrix, a: str, b: str) -> None:
    verdicts = [m.cann_vs_driver(a, b, cann_innerversion=a, cann_compatible=[b], driver_compatible=[a]),
                m.driver_vs_firmware(a, b, compatible_version_fw=[(a, b)], firmware_compatible_drv=[(b, a)]),
                m.torch_npu_vs_torch(a, b), m.torch_npu_vs_cann(a, b), m.torch_vs_python(a, b),
                m.torch_npu_vs_python(a, b)]
    for engine in ("vllm-ascend", "mindie", "mindspeed", a):
        verdicts.extend(v for _, v in m.engine_vs_stack(engine, a, cann=b, torch=b, torch_npu=a, vllm=b, python=b,
                                                       driver=a))
    assert all(isinstance(v.kind, VerdictKind) and v.message for v in verdicts)
    assert isinstance(m.recommended_for_cann(a), dict)
    m.chip(a)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chip=st.sampled_from(["910B3", "Ascend910", "310P3", "x"]), driver=VERSIONISH, python=VERSIONISH)
def test_plan_never_raises_unexpectedly(m: Matrix, chip: str, driver: str, python: str) -> None:
    from ascend_doctor.matrix import PlanError
    from ascend_doctor.resolve.plan import make_plan

    try:
        plan = make_plan(m, chip, "vllm-ascend", {"driver": driver, "python": python})
    except PlanError:
        return
    assert plan.versions["driver"] == (driver.strip() or plan.versions["driver"])  # empty = not fixed
