"""ASC-ENG-004: the installed vLLM-Ascend (and so its image) was built for the chips it sees."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, export, shaped, with_comment

from ._context import HostCheckContext
from ._stack_help import chip_family

CHECK = CheckSpec(
    id="ASC-ENG-004",
    title="vLLM-Ascend built for this chip (A2 / A3 / 310P image flavour)",
    requires=("engine:vllm-ascend", "npus", "fact:vllm_ascend_build"),
    what=("Reads vllm_ascend/_build_info.py in the target Python's site-packages, which vLLM-Ascend's setup.py "
          "writes at build time (__soc_version__ in older releases, __device_type__ in newer ones), and compares "
          "the chip family it was built for with the family of the chips `npu-smi info` lists."),
    why=("vLLM-Ascend compiles its custom kernels for one SOC_VERSION: the A2 image with ascend910b1, the -a3 "
         "image with ascend910_9391, the -310p image with ascend310p1 (vLLM-Ascend FAQ 21, "
         "https://docs.vllm.ai/projects/ascend/en/latest/faqs.html). A2 images \"only work on a2 machines\" "
         "(https://github.com/vllm-project/vllm-ascend/issues/3386); a wheel built for another family fails its "
         "device-type check at start or runs kernels compiled for other silicon."),
    fix=("Use the image of this chip's family (quay.io/ascend/vllm-ascend:<version> for A2, <version>-a3 for A3, "
         "<version>-310p for 300I Duo), or rebuild vllm-ascend from source with SOC_VERSION set for this chip."),
)

IMAGE_SUFFIX = {"A2": "", "A3": "-a3", "310P": "-310p"}
# The first release each flavour's image tag is seen for on quay.io/ascend/vllm-ascend (v0.9.1rc1-310p in
# vllm-ascend issue reports; v0.11.0-a3 in public Dockerfiles): older releases get no `docker pull` line.
IMAGE_SINCE = {"A2": "0.7.3", "A3": "0.11.0", "310P": "0.9.1rc1"}
SOC_VERSION = {"A2": "ascend910b1", "A3": "ascend910_9391", "310P": "ascend310p1"}  # vLLM-Ascend FAQ 21


def _at_least(version: str, since: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version) >= Version(since)
    except InvalidVersion:
        return False


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    build = ctx.facts.vllm_ascend_build
    chips = chip_family(ctx)
    built_for = build.info.family
    evidence = {"vllm_ascend": build.version, "build_info": build.path, **build.info.to_dict(), "chips": chips}
    if built_for is None:
        raise NotApplicable(_("{path} names no chip family this check knows ({detail})").format(
            path=build.path, detail=build.info.device_type or build.info.soc_version or _("empty")))
    if chips is None:
        raise NotApplicable(_("the chips npu-smi lists are of no family this check knows"))
    if built_for == chips:
        yield Finding.passed(_("vllm-ascend {version} was built for {family} and the chips are {family}").format(
            version=build.version, family=chips), **evidence)
        return
    container = ctx.facts.maybe(Facts.container)
    in_container = bool(container is not None and container.in_container)
    version = shaped(build.version, "version")
    suffix = IMAGE_SUFFIX.get(chips)
    commands = []
    if suffix is not None and _at_least(build.version, IMAGE_SINCE[chips]):
        commands.append(with_comment(argv("docker", "pull", "quay.io/ascend/vllm-ascend:v" + version + suffix),
                                     _("on the host: the image for {family} chips").format(family=chips)))
    soc = SOC_VERSION.get(chips)
    if soc is not None:
        commands.append(with_comment(export("SOC_VERSION", soc),
                                     _("or rebuild from source for this chip (vLLM-Ascend FAQ 21)")))
        commands.append(argv("pip", "install", "--no-binary", "vllm-ascend", "vllm-ascend==" + version))
    remediation = _("vllm-ascend {version} was built for {built} ({detail}) but the chips here are {family}: "
                    "use the {family} image, or rebuild for this chip:").format(
                        version=build.version, built=built_for,
                        detail=build.info.device_type or build.info.soc_version, family=chips)
    yield Finding.fail(
        _("vllm-ascend {version} was built for {built} chips ({path}), these are {family}{where}").format(
            version=build.version, built=built_for, path=build.path, family=chips,
            where=_(" (inside a container: the image's flavour)") if in_container else ""),
        remediation + "\n  " + "\n  ".join(commands), **evidence,
    ).with_actions(FixAction("python", _("Install vllm-ascend built for {family}").format(family=chips),
                             tuple(commands), where="host" if in_container else "either",
                             subject="vllm-ascend"))
