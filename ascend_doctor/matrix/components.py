"""The components ``matrix show`` offers: groups of matrix sections a person asks for by one name.

``resolve_component`` turns what was typed (a component, a section name, a common alias) into the
sections to show; how they are shown is ascend_doctor/render/matrix.py's business.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from ascend_doctor.i18n import N_
from ascend_doctor.matrix.records import SECTIONS

# (descriptions N_-marked: matrix show prints them in the run's language)
COMPONENTS: Dict[str, Tuple[Tuple[str, ...], str]] = {
    "hdk-cann": (("hdk_cann", "hdk_cann_lists", "hdk_cann_caveats"), N_("driver/firmware (HDK) <-> CANN pairings")),
    "releases": (("hdk_releases", "cann_releases", "pta_releases"), N_("known HDK, CANN and PTA releases")),
    "codes": (("release_codes", "release_code_alignment"), N_("Innerversion / compatible_version samples")),
    "firmware": (("firmware_releases",), N_("firmware numbers per HDK and the drivers they accept")),
    "torch-npu": (("torch_npu", "torch_npu_cann", "torch_npu_runtime_map"), N_("torch_npu <-> torch <-> CANN")),
    "python": (("torch_python", "torch_npu_python"), N_("PyTorch / torch_npu <-> Python")),
    "vllm-ascend": (("vllm_ascend", "vllm_ascend_builds", "vllm_ascend_notes", "mindie_turbo", "plugin_wheels"),
                    N_("vLLM-Ascend release matrix")),
    "mindie": (("mindie", "mindie_images", "mindie_unconfirmed", "mindie_motor"), N_("MindIE <-> CANN (<-> HDK, PTA)")),
    "mindspeed": (("mindspeed", "mindstudio", "mindspore"), N_("MindSpeed, MindStudio, MindSpore <-> CANN")),
    "chips": (("chip_families", "chips", "torch_npu_hardware"), N_("chip names, families, memory, dtypes")),
    "packages": (("package_conventions", "hdk_packages", "pip_indexes", "pypi_releases"),
                 N_("package file names, HDK driver/firmware per family, install order, pip indexes")),
    "gaps": (("gaps", "snapshots"), N_("what the sources do not settle; repositories read")),
}


def resolve_component(name: Optional[str]) -> Optional[Tuple[str, ...]]:
    """Section names for a component or section name; None when unknown."""
    if not name:
        return None
    key = name.strip().lower()
    if key == "all":
        return tuple(SECTIONS)
    if key in COMPONENTS:  # a component (chips, mindie …) includes the section of the same name
        return COMPONENTS[key][0]
    if key in SECTIONS:
        return (key,)
    key = key.replace("_", "-")
    if key in COMPONENTS:
        return COMPONENTS[key][0]
    aliases = {"hdk": "hdk-cann", "cann": "hdk-cann", "driver": "hdk-cann", "torch": "torch-npu",
               "vllm": "vllm-ascend", "chip": "chips", "code": "codes", "pip": "packages", "package": "packages"}
    if key in aliases:
        return COMPONENTS[aliases[key]][0]
    return None
