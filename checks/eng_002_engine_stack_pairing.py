"""ASC-ENG-002: each installed engine matches the CANN / torch / torch_npu / vLLM it runs on."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _
from ascend_doctor.parsers.vllm_build_info import scm_commit
from ascend_doctor.shellcmd import Placeholder, argv, chain, export, with_comment

from ._context import HostCheckContext
from ._engines import cann_upgrade_action
from ._support import verdict_finding

CHECK = CheckSpec(
    id="ASC-ENG-002",
    title="Engine paired with its CANN, torch and torch_npu",
    what=("For every engine installed -- vLLM-Ascend (with the vllm it plugs into), MindIE (version.info on disk), "
          "MindSpeed -- asks the compatibility matrix how its release pairs with the CANN toolkit in use, torch, "
          "torch_npu, Python and the driver. Released pairings PASS; merely compatible ones PASS with the "
          "recommended versions noted; documented mismatches FAIL; pairings no source covers WARN. A vLLM-Ascend "
          "built from a commit (a setuptools_scm version such as 0.11.0rc1.dev626+g358194625) WARNs with that "
          "commit and where its verified vLLM commit is written (.github/vllm-main-verified.commit)."),
    why=("vLLM-Ascend is built for one vLLM release and pins torch/torch_npu; MindIE 'must be used with' its CANN "
         "release; MindSpeed lists the CANN and PTA releases it supports. Off-matrix combinations fail at import "
         "('undefined symbol', '_OpNamespace ... has no attribute') or at the first fused operator."),
    fix=("Install one complete row of the engine's release matrix (`ascend-doctor matrix show vllm-ascend` / "
         "`mindie` / `mindspeed`): the vLLM, torch, torch_npu and CANN it was released with."),
)


def _installed(ctx: HostCheckContext) -> List[Tuple[str, str]]:
    engines = ctx.facts.engines
    py = ctx.facts.maybe(Facts.python_env)
    found: List[Tuple[str, str]] = []
    vllm_ascend = py.package("vllm-ascend") if py is not None else None
    if vllm_ascend:
        found.append(("vllm-ascend", vllm_ascend))
    mindie = ctx.facts.maybe(Facts.mindie)
    mindie_version: Optional[str] = getattr(mindie, "version", None) or engines.installed.get("MindIE", {}).get(
        "mindie")
    if mindie_version:
        found.append(("mindie", mindie_version))
    for dist in ("mindspeed", "mindspeed-llm"):
        version = py.package(dist) if py is not None else None
        if version:
            found.append(("mindspeed", version))
            break
    return found


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    installed = _installed(ctx)
    if not installed:
        raise NotApplicable(_("no vLLM-Ascend, MindIE or MindSpeed installed"))
    query = getattr(ctx.matrix, "engine_vs_stack", None)
    if not callable(query):
        raise NotApplicable(_("the compatibility matrix in use has no engine table"))
    py = ctx.facts.maybe(Facts.python_env)
    stack = ctx.facts.maybe(Facts.stack)
    toolkit = stack.active_toolkit(ctx.facts.maybe(Facts.env) or {}) if stack else None
    stack_args = {
        "cann": getattr(toolkit, "version", None),
        "torch": py.package("torch") if py is not None else None,
        "torch_npu": py.package("torch-npu") if py is not None else None,
        "python": getattr(py, "version", None),
        # what runs (npu-smi) when its version.info is unreadable: review row 13 (a 23.0.7 driver under MindIE)
        "driver": ctx.facts.running_stack.driver.effective,
    }
    for engine, version in installed:
        if engine == "vllm-ascend" and scm_commit(version):
            # a build of a vllm-ascend commit, not a release: no row of the matrix describes it
            yield _dev_build(version, py.package("vllm") if py is not None else None)
            continue
        extra = {"vllm": py.package("vllm") if py is not None else None} if engine == "vllm-ascend" else {}
        verdicts = query(engine, version, **stack_args, **extra)
        names = {"vllm-ascend": "vLLM-Ascend", "mindie": "MindIE", "mindspeed": "MindSpeed"}
        for aspect, verdict in verdicts:
            subject = f"{names[engine]} {version} / {aspect}"
            fields = {"aspect": aspect, "engine": names[engine], "version": version, "key": engine}
            if len(installed) > 1 and aspect in ("torch", "torch_npu", "python"):
                fields["others"] = ", ".join(f"{names[e]} {v}" for e, v in installed if e != engine)
                remediation = _("Align {aspect} with {engine} {version}: install one complete row of its release "
                                "matrix (ascend-doctor matrix show {key}). {engine} and {others} need different torch "
                                "releases: give each engine its own environment (venv or image) instead of changing "
                                "this one").format(**fields)
            else:
                remediation = _("Align {aspect} with {engine} {version}: install one complete row of its release "
                                "matrix (ascend-doctor matrix show {key})").format(**fields)
            finding = verdict_finding(verdict, subject, remediation, unknown_status=Status.WARN)
            if finding.status is Status.FAIL and aspect == "vllm" and _post_release_only(extra.get("vllm"), verdict):
                # 0.8.5 vs 0.8.5.post1: a bugfix of the same vLLM line, not a different release (review row 25).
                finding = Finding(Status.WARN, _("{message} (a post-release of the same vLLM line)").format(
                    message=finding.message), finding.remediation, finding.evidence)
            if finding.status is Status.FAIL and aspect == "cann":
                want = _wanted_cann(ctx, engine, version)
                if want:
                    finding = finding.with_actions(cann_upgrade_action(ctx, want, f"{names[engine]} {version}"))
            if finding.status is Status.FAIL and aspect == "driver" and engine == "mindie":
                finding = finding.with_actions(*_mindie_hdk_actions(ctx, version))
            yield finding.scoped(f"{names[engine]} {aspect}")


def _post_release_only(installed: Optional[str], verdict: object) -> bool:
    """The verdict's vLLM and the installed one differ only by a .postN."""
    import re

    from packaging.version import InvalidVersion, Version

    wanted = re.search(r"vLLM (\S+?)(?:,|\s|$)", str(getattr(verdict, "message", "")))
    if not installed or not wanted:
        return False
    try:
        a, b = Version(installed), Version(wanted.group(1))
    except InvalidVersion:
        return False
    return a != b and a.release == b.release and a.pre == b.pre and a.dev == b.dev


def _mindie_hdk_actions(ctx: HostCheckContext, version: str) -> List[FixAction]:
    """Upgrade to an HDK of MindIE's list (the newest it lists; any listed one fixes it)."""
    from ascend_doctor.matrix.engines import find_mindie_row

    from ._hdk import hdk_action, reboot_action
    from ._stack_help import _package_sets

    row = find_mindie_row(ctx.matrix, version)
    if row is None or not row.hdk:
        return []
    sets = _package_sets(ctx)
    listed = [sets[0].driver_file_version(h) or h.lower() for h in row.hdk] if sets else [h.lower() for h in row.hdk]
    accepts = [*listed, *(f"{h.lower()}.*" for h in row.hdk)]
    target = listed[0]
    return [hdk_action(ctx, target, _("Upgrade the HDK (driver + firmware) to {target}, listed by MindIE "
                                      "{version}").format(target=target, version=version), accepts=accepts),
            reboot_action(ctx, _("load the new driver and activate the firmware"))]


def _wanted_cann(ctx: HostCheckContext, engine: str, version: str) -> Optional[str]:
    from ascend_doctor.matrix.engines import find_mindie_row, find_vllm_row

    row = find_mindie_row(ctx.matrix, version) if engine == "mindie" else \
        find_vllm_row(ctx.matrix, version) if engine == "vllm-ascend" else None
    return getattr(row, "cann", None)


VERIFIED_COMMIT_FILE = ".github/vllm-main-verified.commit"


def _dev_build(version: str, vllm: Optional[str]) -> Finding:
    """vLLM-Ascend built from a commit: its main branch is verified with one vLLM commit, which the
    repository names in .github/vllm-main-verified.commit (vllm-ascend#11996, #9672)."""
    commit = scm_commit(version) or ""
    vllm_commit = scm_commit(vllm or "")
    where = f"https://github.com/vllm-project/vllm-ascend/blob/{commit}/{VERIFIED_COMMIT_FILE}"
    installed = (_("vLLM {vllm} (a build of vLLM commit {commit})").format(vllm=vllm, commit=vllm_commit)
                 if vllm_commit else _("vLLM {vllm} (a release)").format(vllm=vllm) if vllm else _("no vLLM"))
    commands = (
        argv("git", "clone", "https://github.com/vllm-project/vllm.git"),
        chain(argv("cd", "vllm"), argv("git", "checkout", Placeholder("commit"))),
        with_comment(chain(export("VLLM_TARGET_DEVICE", "empty"), argv("pip", "install", "-v", "-e", ".")),
                     _("vLLM without its CUDA parts, as the vLLM-Ascend installation guide builds it")),
    )
    return Finding.warn(
        _("vllm-ascend {version} is a build of vllm-ascend commit {commit}, not a release: it is verified with the "
          "vLLM commit its {file} names ({where}; https://github.com/vllm-project/vllm-ascend/issues/11996), and "
          "{installed} is installed").format(version=version, commit=commit, file=VERIFIED_COMMIT_FILE, where=where,
                                             installed=installed),
        _("Open {where} and install vLLM at that commit, or install one released row instead "
          "(ascend-doctor matrix show vllm-ascend):").format(where=where) + "\n  " + "\n  ".join(commands),
        vllm_ascend=version, vllm_ascend_commit=commit, vllm=vllm, vllm_commit=vllm_commit, verified_commit_at=where,
    ).with_actions(FixAction("python", _("Install the vLLM commit vllm-ascend {commit} was verified with").format(
        commit=commit), commands, where="either", subject="vllm")).scoped("vLLM-Ascend vllm")
