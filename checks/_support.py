"""Small helpers shared by check modules (not a check: the registry skips ``_`` modules)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import Finding, FixAction, Status
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized

from ._context import HostCheckContext

if TYPE_CHECKING:
    from ascend_doctor.matrix.verdict import Verdict
    from ascend_doctor.parsers.driver_firmware_info import CodeRange

INSTALL_ROOT = "/usr/local/Ascend"


def verdict_kind(verdict: Verdict) -> str:
    kind = getattr(verdict, "kind", "unknown")
    return str(getattr(kind, "value", kind)).lower()


def verdict_finding(verdict: Verdict, subject: str, remediation: str, unknown_status: Status = Status.WARN,
                    suggestion_prefix: str = "") -> Finding:
    """Map a matrix verdict to a finding.

    recommended -> PASS; compatible -> PASS with the recommended pairing noted; compatible but
    uncertain (the source's wording leaves it open) -> WARN; incompatible -> FAIL; unknown (not in
    the matrix) -> WARN by default: we cannot confirm it, which is not the same as knowing it is wrong.
    """
    kind = verdict_kind(verdict)
    # The matrix keeps its verdicts in English (code reads them); they are shown in the run's language.
    message = localized(getattr(verdict, "message", "") or subject)
    suggestion = getattr(verdict, "suggestion", None)
    suggestion = localized(suggestion) if suggestion else suggestion
    sources = list(getattr(verdict, "sources", ()) or ())
    evidence: Dict[str, object] = {"verdict": kind, "sources": sources}
    said = _("{subject}: {verdict}").format(subject=subject, verdict=message)
    if kind == "recommended":
        return Finding(Status.PASS, said, "", evidence)
    if kind == "compatible" and getattr(verdict, "uncertain", False):
        evidence["uncertain"] = True
        fix = ((_("Only an uncertain statement says this pairing works; the release's own pairing is safer: "
                  "{suggestion}").format(suggestion=suggestion) if suggestion else
                _("Only an uncertain statement says this pairing works; the release's own pairing is safer"))
               + f"\n{remediation}")
        return Finding(Status.WARN, _("{subject}: {verdict} (uncertain)").format(subject=subject, verdict=message),
                       fix.strip(), evidence)
    if kind == "compatible":
        if suggestion:
            said = _("{subject}: {verdict} (recommended: {suggestion})").format(subject=subject, verdict=message,
                                                                               suggestion=suggestion)
        return Finding(Status.PASS, said, "", evidence)
    if kind == "incompatible":
        # ``suggestion_prefix`` ("or, …:") marks the matrix's suggestion as an alternative to the
        # remediation, not a second step to paste after it
        fix = remediation + (f"\n{suggestion_prefix}{suggestion}" if suggestion else "")
        return Finding(Status.FAIL, said, fix.strip(), evidence)
    fix = (_("Not in the compatibility matrix, so it cannot be confirmed either way. {suggestion}. Check the release "
             "notes, or update the matrix: ascend-doctor matrix update --url URL").format(suggestion=suggestion)
           if suggestion else
           _("Not in the compatibility matrix, so it cannot be confirmed either way. Check the release notes, or "
             "update the matrix: ascend-doctor matrix update --url URL"))
    return Finding(unknown_status, said, fix, evidence)


def in_scope(ctx: HostCheckContext, npu_id: int, chip_id: Optional[int]) -> bool:
    """Whether a chip is one this run is about (see facts/scope.py: container and visible-device
    variables). Faults outside the scope are somebody else's and are reported as information."""
    scope = ctx.facts.maybe(Facts.npu_scope)
    return True if scope is None else bool(scope.owns(npu_id, chip_id))


def scope_reason(ctx: HostCheckContext) -> str:
    scope = ctx.facts.maybe(Facts.npu_scope)
    return str(getattr(scope, "reason", "") or "")


def host_arch(ctx: HostCheckContext) -> Optional[str]:
    info = ctx.facts.maybe(Facts.host_info)
    return getattr(info, "arch", None)


def in_container(ctx: HostCheckContext) -> bool:
    info = ctx.facts.maybe(Facts.container)
    return bool(getattr(info, "in_container", False))


def driver_install_hint(ctx: HostCheckContext) -> str:
    """A first install of the HDK the active CANN pairs with, with this chip family's real file
    names for this machine (driver first, then firmware, one reboot); a lookup command when the
    matrix cannot name the release."""
    from ._stack_help import chip_family, hdk_commands

    stack = ctx.facts.maybe(Facts.stack)
    toolkit = stack.active_toolkit(ctx.facts.maybe(Facts.env) or {}) if stack else None
    cann = getattr(toolkit, "version", None)
    family = chip_family(ctx)
    driver = firmware = None
    if cann and family:
        try:
            rec = ctx.matrix.recommended_for_cann(cann, chip=family) or {}
        except Exception:  # the matrix names the release when it can; else the lookup command below
            rec = {}
        driver, firmware = rec.get("driver"), rec.get("firmware")
    if driver:
        lines = hdk_commands(ctx, driver, "first", firmware)
        return (_("Install the driver, then the firmware, of Ascend HDK {driver} (the HDK paired with CANN {cann}), "
                  "and reboot once:").format(driver=driver, cann=cann)
                + "\n" + "\n".join(f"  {line}" for line in lines.splitlines()))
    return (_("Install the driver, then the firmware, of one Ascend HDK release, and reboot once:") + "\n"
            + "\n".join(f"  {line}" for line in hdk_commands(ctx, None).splitlines()))


# What a serving container needs from the host (vllm-ascend docs/source/installation.md "docker run";
# MindIE 2.1.RC2 instg_0026: shared memory of at least 1 GB; compat_facts.md §5.8).
_CONTROL_DEVICES = "--device /dev/davinci_manager --device /dev/devmm_svm --device /dev/hisi_hdc"
_DRIVER_MOUNTS = ("-v /usr/local/dcmi:/usr/local/dcmi -v /usr/local/bin/npu-smi:/usr/local/bin/npu-smi "
                  "-v /usr/local/Ascend/driver/lib64/:/usr/local/Ascend/driver/lib64/ "
                  "-v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info "
                  "-v /etc/ascend_install.info:/etc/ascend_install.info")
_SERVING = ("--shm-size=1g --net=host -v /usr/local/Ascend/driver/tools/hccn_tool:/usr/local/Ascend/driver/tools/"
            "hccn_tool -v /etc/hccn.conf:/etc/hccn.conf")
# Kept for checks that print the mounts alone; the device list comes from job_devices().
CONTAINER_DRIVER_MOUNTS = f"{_CONTROL_DEVICES} {_DRIVER_MOUNTS}"


def job_devices(ctx: HostCheckContext) -> List[int]:
    """The /dev/davinciN numbers of the job: ASCEND_VISIBLE_DEVICES when set, else the NPUs npu-smi
    lists (physical ids on A3), else the device nodes present."""

    visible = ctx.facts.maybe(Facts.visible_devices)
    if visible is not None and visible.visible:
        return sorted(set(visible.visible))
    smi = ctx.facts.maybe(Facts.npu_smi)
    if smi is not None and smi.devices:
        chip = ctx.facts.maybe(Facts.npu_chip)
        # A3 (two dies per NPU) numbers its device nodes by Phy-ID; 310P's "Device" column is no node id.
        by_phy = chip is not None and chip.family == "A3"
        ids = {d.chip_phy_id if by_phy and d.chip_phy_id is not None else d.npu_id for d in smi.devices}
        return sorted(ids)
    nodes = ctx.facts.maybe(Facts.device_nodes)
    return sorted(nodes.davinci) if nodes is not None else []


def container_mount_command(ctx: HostCheckContext, parts: Sequence[str] = ("devices", "driver", "npu-smi", "serving")
                            ) -> str:
    """``docker run`` flags for an Ascend container: every /dev/davinciN of the job (not only davinci0),
    the control devices, the host's driver mounts and, for serving, shared memory, host networking and the
    hccn_tool / hccn.conf mounts that multi-node HCCL needs. Run on the host when re-creating the container."""
    flags: List[str] = []
    devices: List[int] = []
    if "devices" in parts:
        devices = job_devices(ctx)
        # Unknown NPUs: a placeholder, and the note as a shell comment after the command (never in it).
        flags.append(" ".join(f"--device /dev/davinci{n}" for n in devices) if devices else
                     "--device /dev/davinci<N>")
        flags.append(_CONTROL_DEVICES)
    if "driver" in parts or "npu-smi" in parts:
        flags.append(_DRIVER_MOUNTS)
    elif "version" in parts:
        flags.append("-v /usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info "
                     "-v /etc/ascend_install.info:/etc/ascend_install.info")
    if "serving" in parts:
        flags.append(_SERVING)
    command = "docker run " + " ".join(flags) + " <image> ..."
    if "devices" in parts and not devices:
        command += "   # " + _("one --device /dev/davinciN per NPU of the job")
    return command


def code_text(code: CodeRange) -> str:
    """A release-code entry as written in version files: ``[V100R001C19]`` or ``[A,B]``."""
    text = getattr(code, "text", None)
    return str(text()) if callable(text) else str(code)


def pip_pair_action(ctx: HostCheckContext) -> Optional[FixAction]:
    """The torch + torch_npu pair of the active CANN as a fix-plan step (None when the matrix has no pair)."""

    stack = ctx.facts.maybe(Facts.stack)
    toolkit = stack.active_toolkit(ctx.facts.maybe(Facts.env) or {}) if stack else None
    cann = getattr(toolkit, "version", None)
    if not cann:
        return None
    try:
        rec = ctx.matrix.recommended_for_cann(cann) or {}
    except Exception:
        rec = {}
    torch, torch_npu = rec.get("torch"), rec.get("torch_npu")
    if not torch or not torch_npu:
        return None
    from ascend_doctor.matrix.pip import torch_pair

    advice = torch_pair(ctx.matrix, torch, torch_npu, host_arch(ctx))
    return FixAction("python", _("Install torch {torch} with torch_npu {torch_npu}, the pair released for CANN "
                                 "{cann}").format(torch=torch, torch_npu=torch_npu, cann=cann),
                     (advice.lines[0],), where="either", target=torch_npu, direction="set", subject="torch",
                     depends=(f"cann={cann}",))


_PAIR_TO_FILL = shellcmd.argv("pip", "install", shellcmd.Placeholder("torch==x"), shellcmd.Placeholder("torch-npu==y"))


def pip_pair_hint(ctx: HostCheckContext) -> str:
    """`pip install torch==X torch-npu==Y` for the active CANN when the matrix knows the pair, with
    the index it needs on this machine (the PyTorch CPU index on x86_64, where torch_npu dev builds
    come from); torch never without its torch_npu."""
    stack = ctx.facts.maybe(Facts.stack)
    toolkit = stack.active_toolkit(ctx.facts.maybe(Facts.env) or {}) if stack else None
    cann = getattr(toolkit, "version", None)
    if cann:
        try:
            rec = ctx.matrix.recommended_for_cann(cann) or {}
        except Exception:
            rec = {}
        torch, torch_npu = rec.get("torch"), rec.get("torch_npu")
        if torch and torch_npu:
            from ascend_doctor.matrix.pip import torch_pair

            advice = torch_pair(ctx.matrix, torch, torch_npu, host_arch(ctx))
            # The comment after the command is read by people (translated); the "# note" lines stay English.
            return advice.lines[0] + "   # " + _("the pair released for CANN {cann}").format(cann=cann) + "".join(
                f"\n# {note}" for note in advice.notes)
        return shellcmd.with_comment(_PAIR_TO_FILL, _("{command} lists the torch_npu releases for CANN {cann}").format(
            command=shellcmd.argv("ascend-doctor", "matrix", "lookup", "--cann", cann), cann=shellcmd.one_line(cann)))
    return shellcmd.with_comment(_PAIR_TO_FILL, _("ascend-doctor matrix show torch_npu lists the pairs"))
