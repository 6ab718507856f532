"""The ordered difference between what a machine holds and the target stack: one plan of install steps.

Both ``matrix plan`` (nothing installed) and the fix plan of ``check`` are this difference, in the
order a person applies it: HDK (firmware and driver, one reboot last in that block), CANN toolkit,
kernels/ops, NNAL, CANN's Python dependencies in the environment that will run the engine, torch
with torch_npu (once), the engine. Each step's title, commands and reason come from one decision of
the resolver, so they cannot disagree, and a step never undoes another: every version in the plan
is the target's.

Every command is built with ``ascend_doctor.shellcmd`` from words: a version read from the machine
(a kept component) is checked for the shape of a version before it goes into a file name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence

from ascend_doctor import shellcmd
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.resolve.model import INSTALL, KEEP, Pick, TargetStack, joined
from ascend_doctor.resolve.model import VLLM_SOURCE_BUILD as VLLM_SOURCE_BUILD
from ascend_doctor.resolve.model import PlanStep as PlanStep

if TYPE_CHECKING:
    from ascend_doctor.matrix.chips import ChipInfo
    from ascend_doctor.matrix.model import Matrix
    from ascend_doctor.matrix.packages import PackageSet

# CANN's Python dependencies, to install in the environment that runs the engine (a new venv has none of
# them; TBE/aclnn compilation then fails with "No module named 'decorator'").
CANN_PY_DEPS = ("attrs", "numpy", "decorator", "sympy", "cffi", "pyyaml", "pathlib2", "psutil", "protobuf", "scipy",
                "requests", "absl-py", "wheel", "typing_extensions")
CANN_PY_DEPS_SOURCE = ("github.com/vllm-project/vllm-ascend docs/source/installation.md (Install CANN manually: "
                       "pip3 install attrs 'numpy<2.0.0' decorator sympy cffi pyyaml pathlib2 psutil protobuf scipy "
                       "requests absl-py wheel typing_extensions)")
TOOLKIT_ENV = "/usr/local/Ascend/ascend-toolkit/set_env.sh"
NNAL_ENV = "/usr/local/Ascend/nnal/atb/set_env.sh"
VENV = "/opt/ascend-venv"  # a fixed path: no "~" that quoting would stop from expanding
def _v(version: Optional[str]) -> str:
    """A version safe for a file name or a pip pin (a malformed value read from a machine becomes a placeholder)."""
    return shellcmd.shaped(version, "version")


def _dot(name: str, *flags: str) -> str:
    """``./FILE FLAGS``: a .run package run from the folder it was downloaded to."""
    return shellcmd.argv("./" + name, *flags)


def _per_arch(arches: Sequence[str], make: Callable[[str], Optional[str]], what: str) -> List[str]:
    """One line per architecture; a second architecture is labelled as the alternative it is."""
    lines: List[str] = []
    for index, arch in enumerate(arches):
        line = make(arch)
        if line is None:
            lines.append(shellcmd.comment(N_("no {arch} {what} file name is recorded in the matrix").format(
                arch=arch, what=what)))
            continue
        if len(arches) > 1:
            line = shellcmd.with_comment(line, arch if index == 0 else N_("or, on {arch}").format(arch=arch))
        lines.append(line)
    return lines


def stack_steps(m: Matrix, target: TargetStack, chip: Optional[ChipInfo], arches: Sequence[str], *,
                fresh: bool, include: Optional[Sequence[str]] = None) -> List[PlanStep]:
    """The plan from ``target.state`` to ``target``. ``include``: components a finding asks about (the fix
    plan prints a changed component only when the machine has it or a finding is about it)."""
    from ascend_doctor.matrix.packages import PackageSet

    family = chip.family if chip is not None else (target.state.family or "")
    sets = [PackageSet(family, arch, m) for arch in arches]
    wanted = set(include) if include is not None else None
    steps: List[PlanStep] = []

    def changed(component: str) -> Optional[Pick]:
        pick = target.picks.get(component)
        if pick is None or pick.change == KEEP:
            return None
        if wanted is not None and component not in wanted and target.state.get(component) is None:
            return None
        return pick

    steps += _hdk_steps(m, target, family, sets, arches, fresh, changed("hdk"))
    cann = changed("cann")
    cann_target = target.version("cann")
    if cann is not None and cann_target:
        steps.append(PlanStep("cann", Text(N_("Install the CANN toolkit {cann}"), cann=cann_target),
                              tuple(_per_arch(arches, lambda a: _run(sets, a, "toolkit", cann_target), "toolkit")
                                    + [shellcmd.source(TOOLKIT_ENV)]),
                              "either", cann_target, _why(cann, fresh), cann.sources,
                              _cann_note(cann)))
    state = target.state
    # a finding about the kernels (wrong chip, missing) asks for them even at the same release
    if cann_target and ((wanted is not None and "kernels" in wanted) or (
            not _same_release(state.kernels, cann_target) and (cann is not None or state.kernels))):
        kernel_lines = _per_arch(arches, lambda a: _run(sets, a, "kernels", cann_target), "kernels/ops")
        chip_name = chip.name if chip is not None else family
        steps.append(PlanStep("kernels", Text(N_("Install the operator package of CANN {cann} for {chip}"),
                                              cann=cann_target, chip=chip_name),
                              tuple(kernel_lines), "either", cann_target,
                              Text(N_("kernels/ops must be the CANN release's ({cann}) and built for the chip"),
                                   cann=cann_target)))
    if cann_target and ((wanted is not None and "nnal" in wanted) or (
            not _same_release(state.nnal, cann_target) and (cann is not None or state.nnal))):
        steps.append(PlanStep("nnal", Text(N_("Install NNAL {nnal} (ATB, needed for libatb.so)"), nnal=cann_target),
                              tuple(_per_arch(arches, lambda a: _run(sets, a, "nnal", cann_target), "NNAL")
                                    + [shellcmd.source(NNAL_ENV)]),
                              "either", cann_target,
                              Text(N_("NNAL must be the CANN release's ({cann}): ATB of another release fails at "
                                      "load with undefined symbols"), cann=cann_target)))
    python = changed("python")
    torch = changed("torch")
    torch_npu = changed("torch_npu")
    engine = changed("engine")
    x86 = "x86_64" in arches
    pip_first = True
    if fresh or python is not None:
        py = target.version("python") or "3"
        steps.append(PlanStep("python", Text(N_("Use Python {python} in a virtual environment for the engine"),
                                             python=py),
                              (shellcmd.argv(f"python{shellcmd.shaped(py, 'version')}", "-m", "venv", VENV),
                               shellcmd.source(VENV + "/bin/activate")),
                              "either", py, _why(python, fresh) if python else Text(N_("the Python the stack needs"))))
    if fresh or python is not None or (cann is not None and (state.torch or state.engine)):
        lines = []
        if x86 and pip_first:
            lines.append(_cpu_index_line(m, arches))
            pip_first = False
        lines.append(shellcmd.argv("pip", "install", *CANN_PY_DEPS))
        steps.append(PlanStep("cann_deps",
                              Text(N_("Install CANN's Python dependencies in the environment that runs the engine")),
                              tuple(lines), "either", None,
                              Text(N_("a new environment has none of them; operator compilation fails at first use "
                                      "without them")), (CANN_PY_DEPS_SOURCE,)))
    if torch is not None or torch_npu is not None or (fresh and target.version("torch")):
        steps.append(_torch_step(m, target, arches, x86 and pip_first, fresh))
        pip_first = pip_first and not x86
    engine_step = _engine_step(m, target, chip, arches, fresh, engine, torch)
    if engine_step is not None:
        steps.append(engine_step)
    return steps


def _same_release(installed: Optional[str], target: str) -> bool:
    """NNAL 8.2.RC1.B150 and kernels 8.2.RC1 are CANN 8.2.RC1's."""
    from ascend_doctor.resolve.provider import same_ascend

    if not installed:
        return False
    return same_ascend(installed, target) or installed.lower().startswith(target.lower() + ".")


def _cann_note(pick: Pick) -> Optional[str]:
    if pick.current:
        return Text(N_("installs beside CANN {current}; `latest` and set_env.sh then point at the new release. "
                       "Remove {current} only after the new stack works"), current=pick.current)
    return None


def _run(sets: Sequence[PackageSet], arch: str, kind: str, version: str) -> Optional[str]:
    pk = next((p for p in sets if p.arch == arch), None)
    if pk is None:
        return None
    name = getattr(pk, kind)(_v(version))
    return _dot(name, "--install") if name else None


def _cpu_index_line(m: Matrix, arches: Sequence[str]) -> str:
    url = next((r.url for r in m.pip_indexes if r.use == "torch_cpu"), "https://download.pytorch.org/whl/cpu/")
    line = shellcmd.argv("pip", "config", "set", "global.extra-index-url", url)
    if len(arches) > 1:
        return shellcmd.with_comment(line, N_("x86_64 only: every pip step takes torch from the CPU index"))
    return shellcmd.with_comment(line, N_("x86_64: every pip step takes torch from the CPU index, not PyPI's CUDA "
                                           "build"))


def _hdk_steps(m: Matrix, target: TargetStack, family: str, sets: Sequence[PackageSet], arches: Sequence[str],
               fresh: bool, hdk: Optional[Pick]) -> List[PlanStep]:
    from ascend_doctor.matrix.packages import FIRST_INSTALL, UPGRADE, convention_flags, convention_order

    fw = target.firmware
    fw_changes = fw is not None and fw.change != KEEP
    state = target.state
    if hdk is None and not fw_changes:
        if fresh and target.picks.get("hdk") is not None:
            driver = target.version("hdk") or ""
            check = [shellcmd.with_comment(shellcmd.argv("npu-smi", "info"),
                                           N_("the banner shows Version {driver}").format(driver=driver))]
            if fw is not None:
                check.append(shellcmd.with_comment(shellcmd.argv("npu-smi", "info", "-t", "board", "-i", "0"),
                                                   N_("Firmware Version {firmware}, Compatibility OK").format(
                                                       firmware=fw.version)))
            return [PlanStep("hdk", Text(N_("Keep the installed HDK: driver {driver}"), driver=driver), tuple(check),
                             "host", driver,
                             Text(N_("--driver keeps the driver installed on the machine: nothing to install; the "
                                     "rest of the plan is chosen to work with it")))]
        return []
    release = target.version("hdk") or (state.driver or "")
    # the driver as its file and npu-smi spell it (25.0.RC1 -> 25.0.rc1.1 on A2)
    driver = (sets[0].driver_file_version(release) if sets and hdk is not None else None) or release
    fw_file = None
    if fw is not None:
        first = sets[0]
        fw_file = first.hdk_firmware(_v(fw.version))

    def driver_line(arch: str) -> Optional[str]:
        pk = next((p for p in sets if p.arch == arch), None)
        name = pk.hdk_driver(_v(release)) if pk is not None else None
        return _dot(name, *convention_flags(m, "driver").split()) if name else None

    fw_line = _dot(fw_file, *convention_flags(m, "firmware").split()) if fw_file else None
    fw_missing = shellcmd.comment(N_("the {family} firmware of HDK {driver} is not recorded in the matrix: take the "
                                     "firmware .run of the same HDK release from its download page").format(
        family=family, driver=driver))

    def block(mode: str, with_driver: bool, with_firmware: bool) -> List[str]:
        lines: List[str] = []
        for part in convention_order(m, mode):
            if part == "driver" and with_driver:
                lines += _per_arch(arches, driver_line, f"{family} driver")
            elif part == "firmware" and with_firmware:
                lines.append(fw_line if fw_line else fw_missing)
        return lines

    steps: List[PlanStep] = []
    reason = _why(hdk, fresh) if hdk is not None else (_why(fw, fresh) if fw is not None else "")
    sources = (hdk.sources if hdk is not None else ()) + (fw.sources if fw is not None else ())
    if hdk is None:
        # the driver stays: install the firmware of its release, then reboot to activate it
        lines = block(UPGRADE, False, True)
        fw_version = fw.version if fw else ""
        steps.append(PlanStep("hdk", Text(N_("Install the firmware {firmware} of driver {driver}'s HDK release"),
                                          firmware=fw_version, driver=driver),
                              tuple(lines), "host", driver, reason, sources))
        steps.append(PlanStep("reboot", Text(N_("Reboot the host: activate the new firmware")),
                              (shellcmd.argv("reboot"),), "host", None,
                              Text(N_("new firmware becomes active at the next start"))))
        return steps
    with_fw = fw is not None and fw.change != KEEP
    title: str
    if fresh or not state.driver:
        if with_fw and fw is not None:
            title = (Text(N_("Install the NPU driver {driver} and firmware {firmware} of one HDK release, then reboot "
                             "once"), driver=driver, firmware=fw.version) if fresh else
                     Text(N_("Install the NPU driver {driver} and firmware {firmware} of one HDK release"),
                          driver=driver, firmware=fw.version))
        else:
            title = (Text(N_("Install the NPU driver {driver} of one HDK release, then reboot once"), driver=driver)
                     if fresh else Text(N_("Install the NPU driver {driver} of one HDK release"), driver=driver))
        lines = [shellcmd.comment(N_("first install (no Ascend driver on the machine): driver, then firmware"))]
        lines += block(FIRST_INSTALL, True, True)
        if fresh:
            # both paths, each with its one reboot: the plan may be read for a machine that has a driver
            lines.append(shellcmd.argv("reboot"))
            lines.append(shellcmd.comment(N_("upgrade, overwrite install or rollback (a driver is installed): "
                                             "firmware, then driver")))
            lines += block(UPGRADE, True, True)
    else:
        fields = {"current": state.driver, "driver": driver, "firmware": fw.version if fw is not None else ""}
        if hdk.change != "downgrade":
            title = (Text(N_("Upgrade the NPU driver {current} -> {driver} and firmware {firmware} (one HDK release)"),
                          **fields) if with_fw else
                     Text(N_("Upgrade the NPU driver {current} -> {driver} (one HDK release)"), **fields))
        else:
            title = (Text(N_("Roll back the NPU driver {current} -> {driver} and firmware {firmware} (one HDK "
                             "release)"), **fields) if with_fw else
                     Text(N_("Roll back the NPU driver {current} -> {driver} (one HDK release)"), **fields))
        lines = block(UPGRADE, True, with_fw or fw is None)
    note = None
    if fw is None:
        note = Text(N_("the {family} firmware number of HDK {driver} is not recorded in the matrix: the step installs "
                       "the driver; take the firmware of the same release from its download page"),
                    family=family, driver=driver)
    if fresh:
        # a fresh install's HDK block ends with its one reboot
        after = N_("after the reboot: Version {driver}").format(driver=driver)
        lines += [shellcmd.argv("reboot"), shellcmd.with_comment(shellcmd.argv("npu-smi", "info"), after)]
        steps.append(PlanStep("hdk", title, tuple(lines), "host", driver, reason, sources, note))
        return steps
    steps.append(PlanStep("hdk", title, tuple(lines), "host", driver, reason, sources, note))
    reboot_title = (Text(N_("Reboot the host: load the new driver and activate the new firmware")) if with_fw or fresh
                    else Text(N_("Reboot the host: load the new driver")))
    steps.append(PlanStep("reboot", reboot_title,
                          (shellcmd.argv("reboot"),
                           shellcmd.with_comment(shellcmd.argv("npu-smi", "info"),
                                                 N_("after the reboot: Version {driver}").format(driver=driver))),
                          "host", None,
                          Text(N_("a new driver is loaded and new firmware activated at the next start"))))
    return steps


def _why(pick: Pick, fresh: bool) -> str:
    """A step's reason: every requirement in ``matrix plan``; in a report, one message (it is read back)."""
    return pick.reason if fresh or not pick.short else pick.short


def _torch_step(m: Matrix, target: TargetStack, arches: Sequence[str], cpu_index_first: bool,
                fresh: bool = True) -> PlanStep:
    from ascend_doctor.matrix.pip import torch_pair

    torch = target.version("torch") or ""
    torch_npu = target.version("torch_npu") or ""
    arch = arches[0] if len(arches) == 1 else None
    advice = torch_pair(m, _v(torch), _v(torch_npu), arch)
    lines: List[str] = []
    if cpu_index_first:
        lines.append(_cpu_index_line(m, arches))
    lines += advice.lines + [shellcmd.comment(n) for n in advice.notes]
    lines.append(shellcmd.argv("python", "-c", "import torch, torch_npu; print(torch_npu.npu.device_count())"))
    picks = [p for p in (target.picks.get("torch"), target.picks.get("torch_npu")) if p is not None]
    why = joined(list(dict.fromkeys(_why(p, fresh) for p in picks if p.change != KEEP)))
    sources = tuple(s for p in picks for s in p.sources)
    return PlanStep("torch", Text(N_("Install PyTorch {torch} with torch_npu {torch_npu} (one command: never one "
                                     "without the other)"), torch=torch, torch_npu=torch_npu),
                    tuple(lines), "either", torch_npu, why, sources)


def _engine_step(m: Matrix, target: TargetStack, chip: Optional[ChipInfo], arches: Sequence[str], fresh: bool,
                 engine: Optional[Pick], torch: Optional[Pick]) -> Optional[PlanStep]:
    from ascend_doctor.resolve import engine_steps

    key = target.engine
    if key is None:
        return None
    version = target.version("engine")
    if version is None:
        return None
    vllm_changed = target.picks.get("vllm") is not None and target.picks["vllm"].change != KEEP
    if not fresh and engine is None and torch is None and not vllm_changed:
        return None
    return engine_steps.engine_step(m, target, chip, arches, key, version, fresh, torch is not None)


def step_components() -> Dict[str, str]:
    """Which fix-plan component each step kind belongs to (the report's FIX_COMPONENTS)."""
    return {"hdk": "hdk", "reboot": "reboot", "cann": "cann", "kernels": "kernels", "nnal": "nnal",
            "python": "python", "cann_deps": "python", "torch": "python", "engine": "engine"}


__all__ = ["INSTALL", "PlanStep", "stack_steps", "step_components"]
