"""ASC-OPS-002: the installed kernels were built for this machine's chip."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

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


def _image_advice(ctx: CheckContext, chip_name: str, family: str) -> str:
    """Which container image flavour carries this chip's kernels (matrix chip families)."""
    info = ctx.matrix.family(family) if callable(getattr(ctx.matrix, "family", None)) else None
    flavor = getattr(info, "image_flavor", None)
    if not flavor:
        return f"(in a container: use an image built for {chip_name})"
    text = f"(in a container: use the CANN image flavour {flavor!r} (quay.io/ascend/cann:<version>-{flavor}-…)"
    image = getattr(info, "vllm_ascend_image", None)
    if image is not None:
        text += f"; vLLM-Ascend: {image.template.replace('{version}', '<version>')}"
    support = getattr(info, "engines", {}).get("vllm-ascend")
    if support is not None and support.support == "unsupported":
        text += f"; vLLM-Ascend does not support {family} chips"
    return text + ")"


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK (the module is also the
    # "kernels" provider, loaded only when that fact is asked for).
    from ascend_doctor.facts.engines import SOC_FOLDER_BY_FAMILY

    chip = ctx.facts.get("npu_chip")
    family = getattr(chip, "family", None)
    soc = SOC_FOLDER_BY_FAMILY.get(str(family))
    if chip is None or soc is None:
        raise NotApplicable(f"no kernel folder known for chip {getattr(chip, 'name', '?')} (family {family})")
    k = ctx.facts.get("kernels")
    if not k.installed:
        raise NotApplicable("no kernels package installed (ASC-OPS-001)")
    package = kernels_package_file(ctx, k.cann_version)
    fix = package_command(ctx, "kernels", k.cann_version) + "\n" + _image_advice(ctx, chip.name, str(family))
    names = [o.package_name for o in k.ops_packages if o.package_name]
    if soc in k.soc_configs:
        yield Finding.passed(f"kernels for {soc} ({chip.name}) are installed under {k.opp_path}", soc=soc,
                             installed=list(k.soc_configs))
        return
    built_for = sorted(set(k.soc_configs) | set(k.soc_folders))
    if soc in k.soc_folders:
        yield Finding.fail(
            f"{k.opp_path}/built-in/op_impl/ai_core/tbe/kernel/{soc}/ exists but kernel/config/{soc}/"
            "binary_info_config.json does not: an interrupted or partial kernels install (EZ1001 at the first "
            "operator call).", "Reinstall the kernels package:\n  " + fix, soc=soc)
        return
    if built_for:
        yield Finding.fail(
            f"the kernels installed are built for {', '.join(built_for)}, but this machine's chip is {chip.name} "
            f"({soc}): expect 'socversion ... does not match the current device' or EZ1001 binary_info_config.json.",
            fix, soc=soc, installed=built_for)
        return
    if names and package:
        wanted = package.split("_")[0]
        if not any(n.lower() == wanted.lower() for n in names):
            yield Finding.fail(f"ops package {', '.join(names)} is installed, but {chip.name} needs {wanted}.",
                               fix, soc=soc, packages=names)
            return
        yield Finding.passed(f"ops package {', '.join(names)} matches {chip.name}")
        return
    raise NotApplicable(f"the kernel folders under {k.opp_path} could not be listed, so the chip they were "
                        "built for is unknown")
