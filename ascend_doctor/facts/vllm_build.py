"""The chip family the installed vLLM-Ascend was built for (``vllm_ascend/_build_info.py``).

The file sits in the target interpreter's site-packages, next to the rest of the package; its
parser is ``ascend_doctor.parsers.vllm_build_info``.
"""

from __future__ import annotations

import posixpath
from typing import List

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.engines import _site_candidates
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.vllm_build import VllmAscendBuild
from ascend_doctor.host.base import HostFileError
from ascend_doctor.i18n import gettext as _
from ascend_doctor.parsers.vllm_build_info import MAX_CHARS, parse_vllm_build_info

BUILD_INFO = "vllm_ascend/_build_info.py"


@provider("vllm_ascend_build", reads=Reads(files=("{python_site}/" + BUILD_INFO,), host=("python",)))
def vllm_ascend_build(facts: Facts) -> VllmAscendBuild:
    py = facts.python_env
    version = py.package("vllm-ascend")
    if not version:
        raise FactUnavailable(_("vllm-ascend is not installed in the target Python"))
    exe = py.executable
    tried: List[str] = []
    for candidate in ([exe, facts.host.realpath(exe)] if exe else []):
        for site in _site_candidates(candidate, py.version):
            path = posixpath.join(site, BUILD_INFO)
            if path in tried:
                continue
            tried.append(path)
            try:
                text = facts.host.read_text(path, max_bytes=MAX_CHARS)
            except HostFileError:
                continue
            return VllmAscendBuild(version, path, parse_vllm_build_info(text))
    raise FactUnavailable(_("vllm-ascend {version} is installed but its {file} was not found in the interpreter's "
                            "site-packages").format(version=version, file=BUILD_INFO))
