"""ASC-ENG-005: plugin wheels built against a CANN (DeepEP-Ascend, MindIE Turbo) match the CANN in use."""

from __future__ import annotations

import re
from typing import Dict, Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.lazy import lazy_re
from ascend_doctor.shellcmd import argv, fits, source, with_comment

from ._context import HostCheckContext
from ._stack_help import chip_family, same_release

CHECK = CheckSpec(
    id="ASC-ENG-005",
    title="Plugin wheels built for this CANN (DeepEP-Ascend, MindIE Turbo)",
    what=("Reads the installed versions of the serving plugins the matrix knows (plugin_wheels, mindie_turbo): "
          "a DeepEP-Ascend wheel records the CANN it was compiled against in its version "
          "(1.0.0+<commit>.cann.8.2.rc1.b231); MindIE Turbo is paired with one CANN and vLLM-Ascend release. "
          "Compares them with the CANN toolkit in use and the installed vLLM-Ascend."),
    why=("Both are compiled against one CANN: \"the DeepEP-Ascend.whl package needs to be matched with the "
         "corresponding CANN version\" (https://github.com/sgl-project/sgl-kernel-npu/issues/179), and "
         "\"MindIE Turbo与CANN版本必须配套使用\" (https://www.hiascend.com/document/detail/zh/mindie/230/"
         "AcceleratePlugin/turbodev/mindie-turbo-0005.html). Another CANN fails at import with undefined symbols."),
    fix=("Rebuild DeepEP-Ascend from sgl-project/sgl-kernel-npu with the CANN in use sourced (build.sh -a deepep "
         "for A3, -a deepep2 for A2); install the MindIE Turbo release of this CANN, or uninstall mindie-turbo."),
)

DEEP_EP_REPO = "https://github.com/sgl-project/sgl-kernel-npu.git"
# build.sh's target per chip family (.github/workflows/release_deep_ep_wheel.yml: deepep2 on the 910b image,
# deepep on the a3 image).
DEEP_EP_TARGET = {"A2": "deepep2", "A3": "deepep"}
_INNER_BUILD = lazy_re(r"^b\d+$")


def built_cann(version: str) -> Optional[str]:
    """The CANN release a wheel's local version tag names (``1.0.0+0614abe7.cann.8.2.rc1.b231`` -> ``8.2.RC1``),
    None when the tag names none (wheels built before the CANN was added to the name)."""
    if "+" not in version:
        return None
    parts = version.split("+", 1)[1].lower().split(".")
    if "cann" not in parts:
        return None
    release = [p for p in parts[parts.index("cann") + 1:] if not _INNER_BUILD.match(p)]
    if not release:
        return None
    return ".".join(p.upper() if p.startswith(("rc", "t", "alpha", "beta")) else p for p in release)


def source_urls(sources: Tuple[str, ...]) -> str:
    """The URLs of a matrix row's sources (what follows a URL in parentheses is the row's note)."""
    return ", ".join(s.split(" (", 1)[0] for s in sources)


def _turbo_key(version: str) -> str:
    """2.2.RC1, 2.2rc1 and 2.2.rc1 name one MindIE Turbo release."""
    return re.sub(r"\.(?=[a-z])", "", version.strip().lower())


def _toolkit(ctx: HostCheckContext) -> Tuple[Optional[str], Optional[str]]:
    stack = ctx.facts.maybe(Facts.stack)
    toolkit = stack.active_toolkit(ctx.facts.maybe(Facts.env) or {}) if stack else None
    path = getattr(toolkit, "path", None) or ""
    # set_env.sh sits in the toolkit's root (/usr/local/Ascend/ascend-toolkit/set_env.sh), above <version>/<arch>
    root = path.split("/ascend-toolkit/", 1)[0] + "/ascend-toolkit/set_env.sh" if "/ascend-toolkit/" in path else None
    return getattr(toolkit, "version", None), root


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    py = ctx.facts.maybe(Facts.python_env)
    if py is None:
        raise NotApplicable(_("the target Python could not be inspected"))
    cann, set_env = _toolkit(ctx)
    found = False
    for row in getattr(ctx.matrix, "plugin_wheels", ()):
        version = py.package(row.dist)
        if version:
            found = True
            yield from _wheel(ctx, row, version, cann, set_env)
    turbo = py.package("mindie-turbo")
    if turbo:
        found = True
        yield from _turbo(ctx, turbo, cann, py.package("vllm-ascend"))
    if not found:
        raise NotApplicable(_("no DeepEP-Ascend or MindIE Turbo installed in the target Python"))


def _rebuild_commands(ctx: HostCheckContext, set_env: Optional[str]) -> List[str]:
    family = chip_family(ctx)
    target = DEEP_EP_TARGET.get(family or "")
    commands = [argv("git", "clone", DEEP_EP_REPO), argv("cd", "sgl-kernel-npu")]
    if set_env and fits(set_env, "path"):
        commands.append(source(set_env))
    if target:
        commands.append(with_comment(argv("bash", "build.sh", "-a", target),
                                     _("{family}: build.sh target {target}").format(family=family, target=target)))
    else:
        commands.append(with_comment(argv("bash", "build.sh", "-a", "deepep"),
                                     _("A3; use -a deepep2 on A2 (sgl-kernel-npu release workflow)")))
    commands.append(argv("find", "output", "-name", "deep_ep-*.whl", "-exec", "pip", "install",
                         "--force-reinstall", "{}", "+"))
    return commands


def _wheel(ctx: HostCheckContext, row: object, version: str, cann: Optional[str],
           set_env: Optional[str]) -> Iterator[Finding]:
    dist = getattr(row, "dist", "")
    sources = source_urls(getattr(row, "source", ()))
    built = built_cann(version)
    evidence = {"dist": dist, "version": version, "built_for_cann": built, "cann": cann, "source": sources}
    if built is None:
        commands = _rebuild_commands(ctx, set_env)
        yield Finding.warn(
            _("{dist} {version} does not record the CANN it was built with (wheels name it since "
              "https://github.com/sgl-project/sgl-kernel-npu/pull/178): it may not match CANN {cann}").format(
                dist=dist, version=version, cann=cann or "?"),
            _("Rebuild it with the CANN in use sourced, so its version names that CANN:") + "\n  "
            + "\n  ".join(commands), **evidence).with_actions(
                FixAction("python", _("Rebuild {dist} against CANN {cann}").format(dist=dist, cann=cann or "?"),
                          tuple(commands), where="either", subject=dist)).scoped(dist)
        return
    if cann is None:
        yield Finding.warn(
            _("{dist} {version} was built for CANN {built}, and no CANN toolkit is in use here to compare it "
              "with").format(dist=dist, version=version, built=built),
            _("Install CANN {built} (toolkit, kernels/ops, NNAL) and source its set_env.sh, or rebuild {dist} "
              "against the CANN you install ({source})").format(built=built, dist=dist, source=sources),
            **evidence).scoped(dist)
        return
    if same_release(built, cann):
        yield Finding.passed(_("{dist} {version} was built for CANN {built}, the CANN in use").format(
            dist=dist, version=version, built=built), **evidence).scoped(dist)
        return
    commands = _rebuild_commands(ctx, set_env)
    yield Finding.fail(
        _("{dist} {version} was built for CANN {built} but the CANN in use is {cann} ({source})").format(
            dist=dist, version=version, built=built, cann=cann, source=sources),
        _("Rebuild {dist} against CANN {cann} (or install CANN {built}):").format(dist=dist, cann=cann, built=built)
        + "\n  " + "\n  ".join(commands), **evidence).with_actions(
            FixAction("python", _("Rebuild {dist} against CANN {cann}").format(dist=dist, cann=cann),
                      tuple(commands), where="either", subject=dist)).scoped(dist)


def _turbo(ctx: HostCheckContext, version: str, cann: Optional[str], vllm_ascend: Optional[str]) -> Iterator[Finding]:
    rows = list(getattr(ctx.matrix, "mindie_turbo", ()))
    row = next((r for r in rows if _turbo_key(r.version) == _turbo_key(version)), None)
    uninstall = argv("pip", "uninstall", "-y", "mindie-turbo")
    evidence: Dict[str, object] = {"mindie_turbo": version, "cann": cann, "vllm_ascend": vllm_ascend}
    if row is None:
        yield Finding.warn(
            _("MindIE Turbo {version} is not in the matrix (known: {known})").format(
                version=version, known=", ".join(r.version for r in rows) or "-"),
            _("Check its CANN and vLLM-Ascend pairing in the MindIE Turbo install guide "
              "(https://www.hiascend.com/document/detail/zh/mindie/230/AcceleratePlugin/turbodev/"
              "mindie-turbo-0005.html), or remove it: {command}").format(command=uninstall),
            **evidence).scoped("mindie-turbo")
        return
    sources = source_urls(row.source)
    evidence.update({"wants_cann": row.cann, "wants_vllm_ascend": list(row.vllm_ascend), "source": sources})
    problems: List[str] = []
    if cann and same_release(cann, row.cann) is False:
        problems.append(_("CANN {cann} is in use, MindIE Turbo {version} must be used with CANN {want}").format(
            cann=cann, version=version, want=row.cann))
    if vllm_ascend and row.vllm_ascend and not _vllm_listed(vllm_ascend, row.vllm_ascend):
        problems.append(_("vLLM-Ascend {installed} is installed, MindIE Turbo {version} is paired with vLLM-Ascend "
                          "{want}").format(installed=vllm_ascend, version=version, want=" / ".join(row.vllm_ascend)))
    if not problems:
        yield Finding.passed(_("MindIE Turbo {version} is paired with CANN {cann}{engine} ({source})").format(
            version=version, cann=row.cann, source=sources,
            engine=_(" and vLLM-Ascend {v}").format(v=vllm_ascend) if vllm_ascend else ""),
            **evidence).scoped("mindie-turbo")
        return
    others = [r.version for r in rows if cann and same_release(cann, r.cann)]
    hint = (_("MindIE Turbo {others} is the release for CANN {cann}").format(others=" / ".join(others), cann=cann)
            if others else _("no MindIE Turbo release of the matrix is paired with CANN {cann}").format(cann=cann))
    yield Finding.fail(
        "; ".join(problems) + f" ({sources})",
        _("{hint}: install it from the MindIE download page, or uninstall MindIE Turbo (vLLM-Ascend runs "
          "without it):").format(hint=hint) + "\n  " + uninstall, **evidence).with_actions(
            FixAction("python", _("Uninstall mindie-turbo {version} (not paired with this stack)").format(
                version=version), (uninstall,), where="either", subject="mindie-turbo")).scoped("mindie-turbo")


def _vllm_listed(installed: str, listed: Tuple[str, ...]) -> bool:
    from ascend_doctor.matrix.specs import same_public, try_pypi

    have = try_pypi(installed)
    wanted = [try_pypi(v) for v in listed]
    return have is not None and any(w is not None and same_public(w, have) for w in wanted)
