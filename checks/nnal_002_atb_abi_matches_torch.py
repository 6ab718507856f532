"""ASC-NNAL-002: the ATB library tree in use (cxx_abi_0/1) matches torch's C++ ABI."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._stack_help import package_command

CHECK = CheckSpec(
    id="ASC-NNAL-002",
    title="ATB C++ ABI (cxx_abi_0/1) matches torch",
    what=("Reads ATB_HOME_PATH (set by nnal/atb/set_env.sh to .../atb/cxx_abi_<n>), checks the folder exists, "
          "and compares n with the ABI torch was built with: _GLIBCXX_USE_CXX11_ABI in torch's "
          "share/cmake/Torch/TorchConfig.cmake, or failing that inferred from the torch version."),
    why=("NNAL ships ATB twice, once per C++ ABI. set_env.sh picks the one matching the torch of the `python3` "
         "on PATH when it is sourced, and cxx_abi_1 when that python3 cannot import torch (sourced before the "
         "venv was activated, or in a Dockerfile before pip install). The wrong tree fails at load with undefined "
         "std::__cxx11 symbols in libatb / libtbe_adapter."),
    fix=("Source the NNAL environment with the ABI of your torch: "
         "source /usr/local/Ascend/nnal/atb/set_env.sh --cxx_abi=$(python3 -c 'import torch; "
         "print(int(torch.compiled_with_cxx11_abi()))')"),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    nnal = ctx.facts.nnal
    if not nnal.installed:
        raise NotApplicable(_("NNAL/ATB is not installed (ASC-NNAL-001 says whether it should be)"))
    torch = ctx.facts.torch_abi
    script = f"{nnal.root}/set_env.sh"
    fix = shellcmd.argv("source", script, f"--cxx_abi={torch.abi}")
    evidence = {"torch_abi": torch.abi, "torch_abi_source": torch.source, "abi_dirs": list(nnal.abi_dirs),
                "ATB_HOME_PATH": nnal.atb_home_path}
    if nnal.abi_dirs and torch.abi not in nnal.abi_dirs:
        yield Finding.fail(
            _("torch uses C++ ABI {abi} ({source}) but NNAL at {root}/latest/atb has only {folders}.").format(
                abi=torch.abi, source=torch.source, root=nnal.root,
                folders=", ".join(f"cxx_abi_{a}" for a in nnal.abi_dirs)),
            _("Reinstall NNAL (both ABI trees are in the package):") + "\n" + package_command(ctx, "nnal", nnal.version)
            + f"\n{fix}", **evidence)
        return
    if not nnal.atb_home_path:
        yield Finding.warn(
            _("ATB_HOME_PATH is not set: {script} has not been sourced in this environment, so engines will not find "
              "libatb.so.").format(script=script), f"{fix}\necho '{fix}' >> ~/.bashrc", **evidence)
        return
    if nnal.atb_home_exists is False:
        yield Finding.fail(_("ATB_HOME_PATH={path} does not exist.").format(path=nnal.atb_home_path), fix, **evidence)
        return
    if nnal.atb_home_abi is None:
        yield Finding.warn(_("ATB_HOME_PATH={path} names no cxx_abi_0/1 folder.").format(path=nnal.atb_home_path), fix,
                           **evidence)
        return
    if nnal.atb_home_abi != torch.abi:
        status = Status.WARN if torch.inferred else Status.FAIL
        yield Finding(status,
                      _("ATB_HOME_PATH uses cxx_abi_{atb_abi} but torch {torch} is ABI {abi} ({source}): libatb will "
                        "fail to load with undefined std::__cxx11 symbols.").format(
                          atb_abi=nnal.atb_home_abi, torch=torch.torch_version or "", abi=torch.abi,
                          source=torch.source), fix, evidence)
        return
    yield Finding.passed(_("ATB cxx_abi_{atb_abi} matches torch ABI {abi} ({source})").format(
        atb_abi=nnal.atb_home_abi, abi=torch.abi, source=torch.source), **evidence)
