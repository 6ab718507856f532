"""vllm_ascend/_build_info.py (both formats vLLM-Ascend's setup.py has written) -> the chip family it was built for."""

from __future__ import annotations

from ascend_doctor.parsers.vllm_build_info import parse_vllm_build_info, soc_family

from .samples_util import sample_body


def test_both_real_formats_name_the_family() -> None:
    old = parse_vllm_build_info(sample_body("vllm-build-info/soc-version-910b1.txt"))
    assert (old.soc_version, old.device_type, old.family) == ("ASCEND910B1", None, "A2")
    new = parse_vllm_build_info(sample_body("vllm-build-info/device-type-a3.txt"))
    assert (new.device_type, new.family) == ("A3", "A3")


def test_soc_versions_of_each_family_and_hostile_text() -> None:
    assert [soc_family(s) for s in ("ascend910b3", "ascend910_9391", "ascend310p1", "ascend950pr", "910c")] == [
        "A2", "A3", "310P", "950", "A3"]
    assert parse_vllm_build_info("__device_type__ = '_310P'\n").family == "310P"
    assert parse_vllm_build_info("import os; os.system('x')\n" * 10_000).family is None  # never executed
    assert parse_vllm_build_info("__device_type__ = 'Z9'\n").family is None
