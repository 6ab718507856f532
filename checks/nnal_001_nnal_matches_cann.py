"""ASC-NNAL-001: NNAL/ATB is installed when an engine needs it, of the same release as CANN."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.facts.origin import require_stated

from ._engines import cann_upgrade_action, engine_canns
from ._stack_help import package_command, same_release

CHECK = CheckSpec(
    id="ASC-NNAL-001",
    title="NNAL/ATB installed and of the CANN release",
    what=("When vLLM-Ascend or MindIE is installed, looks for NNAL under <root>/nnal/atb, reads "
          "latest/version.info ('Ascend-cann-atb : 8.2.RC1') and compares the release with the CANN toolkit's."),
    why=("Both engines run their attention and fused operators through ATB (libatb.so, shipped by NNAL): without "
         "it the engine stops at 'libatb.so: cannot open shared object file' or 'Failed to infer device type' "
         "(vllm-ascend FAQ Q6). NNAL of another release than CANN fails at load with undefined symbols such as "
         "'libtbe_adapter.so: undefined symbol: _ZN3Mki2Dl...' (Ascend/pytorch#99)."),
    fix=("Install NNAL of the toolkit's release: ./Ascend-cann-nnal_<cann version>_linux-<aarch64|x86_64>.run "
         "--install, then `source /usr/local/Ascend/nnal/atb/set_env.sh`."),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    engines = ctx.facts.get("engines")
    needing = [e for e in engines.installed_engines() if e in ("vLLM-Ascend", "MindIE")]
    if not needing:
        raise NotApplicable("neither vLLM-Ascend nor MindIE is installed, so nothing needs NNAL/ATB")
    stack = ctx.facts.get("stack")
    toolkit = stack.active_toolkit(ctx.facts.try_get("env") or {})
    cann = getattr(toolkit, "version", None)
    install = package_command(ctx, "nnal", cann) + "\nsource /usr/local/Ascend/nnal/atb/set_env.sh"
    nnal = ctx.facts.get("nnal")
    who = " and ".join(needing)
    if not nnal.installed:
        require_stated(ctx.facts, "NNAL/ATB (nnal/atb/latest/version.info)")
        yield Finding.fail(
            f"{who} is installed but NNAL/ATB is not (no nnal/atb under "
            f"{', '.join(stack.roots) or '/usr/local/Ascend'}): "
            "the engine will stop at 'libatb.so: cannot open shared object file'.", install, engines=needing)
        return
    if nnal.version_file is None or nnal.version_file.info is None:
        why = nnal.version_file.error if nnal.version_file else "no latest/version.info"
        yield Finding.warn(f"NNAL is installed at {nnal.root} but its version cannot be read ({why}).",
                           "Reinstall NNAL of the toolkit's release:\n" + install, root=nnal.root)
        return
    if cann and same_release(nnal.version, cann) is False:
        pinned = [(engine, want) for engine, want in engine_canns(ctx) if same_release(want, nnal.version)]
        if pinned:
            # NNAL is already the release the engine needs: the toolkit is the one out of step (review row 13);
            # never downgrade NNAL against the engine.
            engine, want = pinned[0]
            action = cann_upgrade_action(ctx, want, f"for {engine}")
            yield Finding.fail(
                f"NNAL/ATB {nnal.full_version} with CANN toolkit {cann}: NNAL already is {engine}'s CANN {want}; the "
                "toolkit is the part out of step (ATB of another release fails at load with undefined symbols).",
                f"Upgrade the toolkit and kernels to CANN {want} (the NNAL stays):\n  " + "\n  ".join(action.commands),
                nnal=nnal.version, cann=cann, engine_cann=want).with_actions(action)
            return
        yield Finding.fail(
            f"NNAL/ATB {nnal.full_version} with CANN toolkit {cann}: ATB of another release fails at load with "
            "undefined symbols (e.g. libtbe_adapter.so: undefined symbol _ZN3Mki2Dl..., Ascend/pytorch#99).",
            "Install the NNAL of the toolkit's release (it replaces `latest`):\n" + install,
            nnal=nnal.version, cann=cann)
        return
    note = f" = CANN {cann}" if cann else " (no CANN toolkit to compare with)"
    yield Finding.passed(f"NNAL/ATB {nnal.full_version} at {nnal.root}{note}, needed by {who}")
