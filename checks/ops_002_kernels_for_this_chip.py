"""ASC-OPS-002: the installed kernels were built for this machine's chip."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import kernels_package_file, package_command

CHECK = CheckSpec(
    id="ASC-OPS-002",
    title="Kernels/ops package built for this chip",
    requires=("npu_devices",),
    what=("Maps the chip npu-smi reports to its SoC folder (A2 ascend910b, A3 ascend910_93, 310P ascend310p, "
          "310B ascend310b, 910 ascend910) and checks that <opp>/built-in/op_impl/ai_core/tbe/kernel/config/<soc>/"
          "binary_info_config.json exists; for CANN >= 8.5 also reads the chip in the ops package name."),
    why=("Kernels are compiled per SoC. A kernels package for another chip (an A2 image on a 310P server) "
         "installs fine and then fails with `EZ1001 ... binary_info_config.json` or `the socversion Ascend910B1 "
         "of bin package does not match the current device socverison Ascend310P3` (vllm-ascend#237, #2725)."),
    fix=("Install the kernels package of this chip: Ascend-cann-kernels-<chip> (<= 8.3) or Ascend-cann-<chip>-ops "
         "(>= 8.5), same CANN release; in containers use the image flavour of the chip (e.g. -310p, -a3)."),
)


def _image_advice(ctx: HostCheckContext, chip_name: str, family: str) -> str:
    """Which container image flavour carries this chip's kernels (matrix chip families)."""
    info = ctx.matrix.family(family) if callable(getattr(ctx.matrix, "family", None)) else None
    flavor = getattr(info, "image_flavor", None)
    if not flavor:
        return _("(in a container: use an image built for {chip})").format(chip=chip_name)
    # One parenthesis around the whole advice: the clauses below go inside it.
    text = _("(in a container: use the CANN image flavour {quoted} (quay.io/ascend/cann:<version>-{flavor}-…)").format(
        quoted=repr(flavor), flavor=flavor)
    image = getattr(info, "vllm_ascend_image", None)
    if image is not None:
        text += f"; vLLM-Ascend: {image.template.replace('{version}', '<version>')}"
    support = getattr(info, "engines", {}).get("vllm-ascend")
    if support is not None and support.support == "unsupported":
        text += _("; vLLM-Ascend does not support {family} chips").format(family=family)
    return text + ")"


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK (the module is also the
    # "kernels" provider, loaded only when that fact is asked for).
    from ascend_doctor.facts.engines import SOC_FOLDER_BY_FAMILY

    chip = ctx.facts.npu_chip
    family = getattr(chip, "family", None)
    soc = SOC_FOLDER_BY_FAMILY.get(str(family))
    if chip is None or soc is None:
        raise NotApplicable(_("no kernel folder known for chip {chip} (family {family})").format(
            chip=getattr(chip, "name", "?"), family=family))
    k = ctx.facts.kernels
    if not k.installed:
        raise NotApplicable(_("no kernels package installed (ASC-OPS-001)"))
    package = kernels_package_file(ctx, k.cann_version)
    fix = package_command(ctx, "kernels", k.cann_version) + "\n" + _image_advice(ctx, chip.name, str(family))
    names = [o.package_name for o in k.ops_packages if o.package_name]
    if soc in k.soc_configs:
        yield Finding.passed(_("kernels for {soc} ({chip}) are installed under {opp}").format(
            soc=soc, chip=chip.name, opp=k.opp_path), soc=soc, installed=list(k.soc_configs))
        return
    built_for = sorted(set(k.soc_configs) | set(k.soc_folders))
    if soc in k.soc_folders:
        yield Finding.fail(
            _("{opp}/built-in/op_impl/ai_core/tbe/kernel/{soc}/ exists but kernel/config/{soc}/binary_info_config.json "
              "does not: an interrupted or partial kernels install (EZ1001 at the first operator call).").format(
                  opp=k.opp_path, soc=soc),
            _("Reinstall the kernels package:") + "\n  " + fix, soc=soc)
        return
    if built_for:
        yield Finding.fail(
            _("the kernels installed are built for {built_for}, but this machine's chip is {chip} ({soc}): expect "
              "'socversion ... does not match the current device' or EZ1001 binary_info_config.json.").format(
                  built_for=", ".join(built_for), chip=chip.name, soc=soc),
            fix, soc=soc, installed=built_for)
        return
    if names and package:
        wanted = package.split("_")[0]
        if not any(n.lower() == wanted.lower() for n in names):
            yield Finding.fail(_("ops package {names} is installed, but {chip} needs {wanted}.").format(
                names=", ".join(names), chip=chip.name, wanted=wanted), fix, soc=soc, packages=names)
            return
        yield Finding.passed(_("ops package {names} matches {chip}").format(names=", ".join(names), chip=chip.name))
        return
    raise NotApplicable(_("the kernel folders under {opp} could not be listed, so the chip they were built for is "
                          "unknown").format(opp=k.opp_path))
