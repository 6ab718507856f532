"""ASC-OPS-001: the binary kernels (kernels / ops) package is installed, same release as the toolkit."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import package_command, same_release

CHECK = CheckSpec(
    id="ASC-OPS-001",
    title="Kernels/ops package installed, same release as CANN",
    what=("For the CANN toolkit in use, looks for the binary-kernels package: <cann>/opp_kernel/version.info "
          "(Ascend-cann-kernels-<chip>, CANN <= 8.3), an ascend_ops_install.info (Ascend-cann-<chip>-ops, "
          "CANN >= 8.5) and the per-chip binary_info_config.json under "
          "<opp>/built-in/op_impl/ai_core/tbe/kernel/config/; compares its release with the toolkit's."),
    why=("The toolkit alone holds no precompiled operator binaries. Without them the first aclnn call fails "
         "with `EZ1001 ... Get path and read binary_info_config.json failed, please check if the opp_kernel "
         "package is installed` (vllm-ascend#237); kernels of another release than the toolkit fail to load or "
         "fail the package version check ('Version compatibility check failed')."),
    fix=("Install the kernels package of the toolkit's exact release and this chip: "
         "./Ascend-cann-kernels-<chip>_<cann version>_linux-<aarch64|x86_64>.run --install (CANN 8.0.RC3 to 8.3; "
         "Atlas-A3-cann-kernels_… on A3) or ./Ascend-cann-<chip>-ops_<cann version>_linux-<aarch64|x86_64>.run "
         "--install (CANN >= 8.5; Ascend-cann-A3-ops_… on A3). `ascend-doctor matrix lookup --chip <chip>` names "
         "them."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    k = ctx.facts.kernels
    install = package_command(ctx, "kernels", k.cann_version)
    if not k.installed and not k.tbe_present:
        # Every toolkit has <opp>/built-in/op_impl/ai_core/tbe (its operator implementations): without it
        # this is a snapshot that did not record the operator tree, or a toolkit too broken to judge.
        raise NotApplicable(_("{opp}/built-in/op_impl/ai_core/tbe is not there (not recorded in this snapshot, or a "
                              "broken toolkit: see ASC-CANN-001), so the kernels cannot be judged").format(
                                  opp=k.opp_path))
    if not k.installed:
        yield Finding.fail(
            _("no kernels package for CANN {cann} ({where}): no opp_kernel/version.info, no ascend_ops_install.info "
              "and no binary_info_config.json under {opp}/built-in/op_impl/ai_core/tbe/kernel/config/. The first "
              "operator call will fail with EZ1001 '... binary_info_config.json failed, please check if the "
              "opp_kernel package is installed'.").format(cann=k.cann_version or "?",
                                                           where=k.cann_home or k.opp_path, opp=k.opp_path),
            install + "\nsource /usr/local/Ascend/ascend-toolkit/set_env.sh", cann=k.cann_version)
        return
    kv = k.kernels_version
    if kv and k.cann_version and same_release(kv, k.cann_version) is False:
        yield Finding.fail(
            _("the kernels package is CANN {kernels} but the toolkit is CANN {cann}: operator binaries of another "
              "release than the runtime that loads them.").format(kernels=kv, cann=k.cann_version),
            _("Install the kernels of the toolkit's release (the installer replaces the old ones):")
            + f"\n  {install}",
            kernels=kv, cann=k.cann_version)
        return
    where = k.opp_kernel.path if k.opp_kernel and k.opp_kernel.info else (
        k.ops_packages[0].info_file if k.ops_packages else f"{k.opp_path}/built-in/op_impl/ai_core/tbe/kernel/config")
    if kv:
        yield Finding.passed(_("kernels package CANN {kernels} = toolkit {cann} ({where})").format(
            kernels=kv, cann=k.cann_version, where=where))
    else:
        yield Finding.passed(_("kernels installed ({where}); their release is not recorded, so it could not be "
                               "compared with toolkit {cann}").format(where=where, cann=k.cann_version))
