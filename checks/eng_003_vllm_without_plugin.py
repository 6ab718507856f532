"""ASC-ENG-003: a vLLM installed to serve on the NPUs has its vLLM-Ascend plugin."""

from __future__ import annotations

from typing import Any, Iterator, List, Optional

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, FixAction
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext

CHECK = CheckSpec(
    id="ASC-ENG-003",
    title="vLLM is installed together with vLLM-Ascend",
    requires=("engine:vllm",),
    what=("When the target Python has vllm: checks that vllm-ascend is installed too, and names the vLLM-Ascend "
          "release the compatibility matrix pairs with the installed vllm (one complete row: CANN, torch, "
          "torch_npu)."),
    why=("Plain vLLM has no Ascend backend: the NPU platform, attention and operators come from the vllm-ascend "
         "plugin. Without it vLLM finds no accelerator (it falls back to CPU or stops with 'Failed to infer device "
         "type'), however healthy the NPUs are. vLLM-Ascend is released for one vLLM version each (its release "
         "matrix)."),
    fix=("pip install the vllm-ascend release of the installed vllm (`ascend-doctor matrix show vllm-ascend` lists "
         "the pairs), or use the vLLM-Ascend release image (quay.io/ascend/vllm-ascend:<version>; the -310p / -a3 "
         "tags on those chips)."),
    tags=("serving",),
)


def _release_key(version: str) -> Any:
    from packaging.version import InvalidVersion, Version

    try:
        parsed = Version(version)
    except InvalidVersion:
        return (0, Version("0"))
    return (0 if parsed.is_prerelease else 1, parsed)


def pairing_rows(matrix: Any, vllm: str) -> List[Any]:
    """vLLM-Ascend rows whose vllm list holds this vllm version, finals first, newest first."""
    from packaging.version import InvalidVersion, Version

    def same(a: str, b: str) -> bool:
        try:
            return Version(a) == Version(b)
        except InvalidVersion:
            return a.strip() == b.strip()

    rows = [r for r in getattr(matrix, "vllm_ascend_rows", []) if any(same(vllm, v) for v in r.vllm)]
    return sorted(rows, key=lambda r: _release_key(r.version), reverse=True)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.matrix.pip import vllm_ascend as pip_vllm_ascend

    py = ctx.facts.python_env
    vllm = py.package("vllm")
    plugin = py.package("vllm-ascend")
    if plugin:
        yield Finding.passed(_("vllm {vllm} with vllm-ascend {plugin} (ASC-ENG-002 checks that they pair)").format(
                                 vllm=vllm, plugin=plugin),
                             vllm=vllm, vllm_ascend=plugin)
        return
    chip = ctx.facts.maybe(Facts.npu_chip)
    family = getattr(chip, "family", None)
    info = ctx.facts.maybe(Facts.host_info)
    arch = getattr(info, "arch", None)
    rows = pairing_rows(ctx.matrix, vllm or "")
    message = _("vllm {vllm} is installed without vllm-ascend: plain vLLM cannot use the NPUs (no Ascend platform "
                "plugin).").format(vllm=vllm)
    image_note = _image_note(family)
    if rows:
        row = rows[0]
        advice = pip_vllm_ascend(ctx.matrix, None, row.version, arch)
        fix = (_("Install the vLLM-Ascend release of vllm {vllm}: {version} (its row: CANN {cann}, torch {torch}, "
                 "torch_npu {torch_npu}; pip installs the torch_npu it needs):").format(
                     vllm=vllm, version=row.version, cann=row.cann, torch=row.torch, torch_npu=row.torch_npu)
               + "\n  " + "\n  ".join(advice.lines)
               + "".join(f"\n  # {n}" for n in advice.notes) + image_note)
        action: Optional[FixAction] = FixAction("python", _("Install vllm-ascend {version} for vllm {vllm}").format(
                                                    version=row.version, vllm=vllm),
                                                tuple(advice.lines), where="either", target=row.version,
                                                direction="install", subject="vllm-ascend")
        evidence = {"vllm": vllm, "vllm_ascend": row.version, "cann": row.cann, "torch": row.torch,
                    "torch_npu": row.torch_npu}
    else:
        fix = (_("No vLLM-Ascend release in the matrix is made for vllm {vllm}. Pick one complete row "
                 "(`ascend-doctor matrix show vllm-ascend`) and install its vllm and vllm-ascend together, "
                 "e.g.:").format(vllm=vllm) + "\n  "
               + shellcmd.argv("pip", "install", shellcmd.Placeholder("vllm==row's vLLM"),
                               shellcmd.Placeholder("vllm-ascend==row's version")) + image_note)
        action = None
        evidence = {"vllm": vllm}
    finding = Finding.warn(message, fix, **evidence)
    yield finding.with_actions(action) if action is not None else finding


def _image_note(family: Optional[str]) -> str:
    if family == "310P":
        return "\n  # " + _("310P: the default wheel and image carry A2 operators; use the "
                             "quay.io/ascend/vllm-ascend:<version>-310p image or build with SOC_VERSION=ascend310p1 "
                             "(vllm-ascend installation guide)")
    if family == "A3":
        return "\n  # " + _("A3: the release image is quay.io/ascend/vllm-ascend:<version>-a3 (vllm-ascend "
                             "installation guide)")
    return ""
