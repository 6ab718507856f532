"""ASC-NNAL-001: NNAL/ATB is installed when an engine needs it, of the same release as CANN."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import absence_is_evidence, require_stated
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._engines import cann_upgrade_action, engine_canns
from ._stack_help import package_command, same_release

NNAL_SET_ENV = "/usr/local/Ascend/nnal/atb/set_env.sh"

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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    engines = ctx.facts.engines
    needing = [e for e in engines.installed_engines() if e in ("vLLM-Ascend", "MindIE")]
    if not needing:
        raise NotApplicable(_("neither vLLM-Ascend nor MindIE is installed, so nothing needs NNAL/ATB"))
    stack = ctx.facts.stack
    toolkit = stack.active_toolkit(ctx.facts.maybe(Facts.env) or {})
    cann = getattr(toolkit, "version", None)
    if cann:
        install = package_command(ctx, "nnal", cann) + "\n" + shellcmd.source(NNAL_SET_ENV)
    else:
        # second review P17: with the CANN release unknown, the install line keeps its place with a file name
        # to fill in (never a `source` of an NNAL that is not installed)
        arch = (ctx.facts.maybe(Facts.host_info) and getattr(ctx.facts.maybe(Facts.host_info), "arch", None))
        name = ("Ascend-cann-nnal_CANN-release_linux-" + (str(arch) if shellcmd.fits(arch, "package") else "ARCH")
                + ".run")
        install = (shellcmd.comment(_("the NNAL release is the CANN toolkit's; {command} names the file").format(
                       command=shellcmd.argv("ascend-doctor", "matrix", "lookup", "--cann",
                                             shellcmd.Placeholder("CANN release"))))
                   + "\n" + shellcmd.argv("./" + shellcmd.Placeholder(name), "--install")
                   + "\n" + shellcmd.source(NNAL_SET_ENV))
    nnal = ctx.facts.nnal
    who = needing[0] if len(needing) == 1 else _("{first} and {second}").format(first=needing[0], second=needing[1])
    if not nnal.installed:
        require_stated(ctx.facts, _("NNAL/ATB (nnal/atb/latest/version.info)"))
        yield Finding.fail(
            _("{engines} is installed but NNAL/ATB is not (no nnal/atb under {roots}): the engine will stop at "
              "'libatb.so: cannot open shared object file'.").format(
                  engines=who, roots=", ".join(stack.roots) or "/usr/local/Ascend"), install, engines=needing)
        return
    if nnal.version_file is None and not absence_is_evidence(ctx.facts):
        # Pasted text: ATB_HOME_PATH shows NNAL is there; its version.info was not pasted.
        from ascend_doctor.shellcmd import argv

        ask = argv("cat", f"{nnal.root}/latest/version.info")
        yield Finding.info(_("NNAL/ATB is installed ({where}); its version is not in the pasted text").format(
            where=f"ATB_HOME_PATH={nnal.atb_home_path}" if nnal.atb_home_path else nnal.root),
            _("Ask for the output of:") + "\n  " + ask, root=nnal.root)
        return
    if nnal.version_file is None or nnal.version_file.info is None:
        why = nnal.version_file.error if nnal.version_file else _("no latest/version.info")
        yield Finding.warn(_("NNAL is installed at {root} but its version cannot be read ({why}).").format(
                               root=nnal.root, why=why),
                           _("Reinstall NNAL of the toolkit's release:") + "\n" + install, root=nnal.root)
        return
    if cann and same_release(nnal.version, cann) is False:
        pinned = [(engine, want) for engine, want in engine_canns(ctx) if same_release(want, nnal.version)]
        if pinned:
            # NNAL is already the release the engine needs: the toolkit is the one out of step (review row 13);
            # never downgrade NNAL against the engine.
            engine, want = pinned[0]
            action = cann_upgrade_action(ctx, want, engine)
            yield Finding.fail(
                _("NNAL/ATB {nnal} with CANN toolkit {cann}: NNAL already is {engine}'s CANN {wanted}; the toolkit is "
                  "the part out of step (ATB of another release fails at load with undefined symbols).").format(
                      nnal=nnal.full_version, cann=cann, engine=engine, wanted=want),
                _("Upgrade the toolkit and kernels to CANN {wanted} (the NNAL stays):").format(wanted=want)
                + "\n  " + "\n  ".join(action.commands),
                nnal=nnal.version, cann=cann, engine_cann=want).with_actions(action)
            return
        yield Finding.fail(
            _("NNAL/ATB {nnal} with CANN toolkit {cann}: ATB of another release fails at load with undefined symbols "
              "(e.g. libtbe_adapter.so: undefined symbol _ZN3Mki2Dl..., Ascend/pytorch#99).").format(
                  nnal=nnal.full_version, cann=cann),
            _("Install the NNAL of the toolkit's release (it replaces `latest`):") + "\n" + install,
            nnal=nnal.version, cann=cann)
        return
    text = (_("NNAL/ATB {nnal} at {root} = CANN {cann}, needed by {engines}") if cann else
            _("NNAL/ATB {nnal} at {root} (no CANN toolkit to compare with), needed by {engines}"))
    yield Finding.passed(text.format(nnal=nnal.full_version, root=nnal.root, cann=cann, engines=who))
