"""The records of the ``vllm_build`` facts, apart from their providers (ascend_doctor/facts/vllm_build.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from msgspec import Struct

from ascend_doctor.parsers.vllm_build_info import VllmBuildInfo


class VllmAscendBuild(Struct, frozen=True):
    version: str  # the installed vllm-ascend distribution
    path: str  # where _build_info.py was read
    info: VllmBuildInfo
