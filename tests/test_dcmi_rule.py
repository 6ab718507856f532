"""The driver<->firmware rule as DCMI computes it (advice review §1), case by case."""

from __future__ import annotations

from ascend_doctor.checks._dcmi import NOK, OK, UNKNOWN, dcmi_compatibility, in_ranges

# driver 24.1.rc3: compatible_version_fw [7.0.0,7.5.99]; firmware 7.7.0.1.231 lists [24.1,24.1.]
DRV_2413_FW = [("7.0.0", "7.5.99")]
FW_7701_DRV = [("23.0", "23.0."), ("24.1", "24.1."), ("25.0", "25.0.")]


def test_firmware_accepted_only_by_its_own_driver_list_is_ok() -> None:
    """Review §1: driver 24.1.rc3 + firmware 7.7.0.1.231 -> npu-smi prints Compatibility OK."""
    verdict = dcmi_compatibility("7.7.0.1.231", "24.1.rc3", DRV_2413_FW, FW_7701_DRV)
    assert verdict.result == OK and "compatible_version_drv" in verdict.by


def test_driver_range_holds_the_firmware() -> None:
    verdict = dcmi_compatibility("7.5.0.1.129", "24.1.rc3", DRV_2413_FW, None)
    assert verdict.result == OK and "compatible_version_fw" in verdict.by


def test_out_of_range_on_both_sides_is_nok() -> None:
    """Review R5: driver 23.0.7 ([7.0.0,7.1.99]) with firmware 7.7 whose list has [23.0.0,23.0.0.]."""
    verdict = dcmi_compatibility("7.7.0.1.231", "23.0.7", [("7.0.0", "7.1.99")], [("23.0.0", "23.0.0.")])
    assert verdict.result == NOK


def test_firmware_below_6_4_is_nok_whatever_the_lists_say() -> None:
    """Review R4."""
    verdict = dcmi_compatibility("6.3.0.1.241", "23.0.rc1", [("6.0.0", "7.9.99")], [("23.0", "23.0.")])
    assert verdict.result == NOK and "6.4" in verdict.by


def test_unreadable_firmware_list_is_unknown() -> None:
    assert dcmi_compatibility("7.7.0.1.231", "24.1.rc3", DRV_2413_FW, None).result == UNKNOWN
    assert dcmi_compatibility(None, "24.1.rc3", DRV_2413_FW, FW_7701_DRV).result == UNKNOWN


def test_string_comparison_with_prefix_bounds() -> None:
    assert in_ranges("24.1.rc3.7", [("24.1", "24.1.")])
    assert not in_ranges("24.10", [("24.1", "24.1.")])
    assert not in_ranges("25.0.rc1", [("24.1", "24.1.")])
    # strcmp, not numbers: DCMI would call 7.10 inside [7.0.0,7.7.99]
    assert in_ranges("7.10.0", [("7.0.0", "7.7.99")])
