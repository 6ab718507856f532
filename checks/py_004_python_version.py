"""ASC-PY-004: the interpreter's Python version is supported by the installed torch."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._support import verdict_finding

CHECK = CheckSpec(
    id="ASC-PY-004",
    title="Python version supported by torch / torch_npu",
    what="Looks up the target interpreter's Python version against the installed torch in the matrix.",
    why="torch and torch_npu wheels exist for a few Python versions each; pip on another version silently "
        "picks an older release or a source build that cannot work.",
    fix="Create the environment with a supported Python (e.g. conda create -n ds python=3.10) and reinstall.",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    py = ctx.facts.python_env
    torch = py.package("torch")
    if not py.version or not torch:
        raise NotApplicable(_("needs the interpreter version and torch (see ASC-PY-001)"))
    verdict = ctx.matrix.torch_vs_python(torch, py.version)
    yield verdict_finding(verdict, _("Python {python} with torch {torch}").format(python=py.version, torch=torch),
                          _("Use a Python version this torch release supports (a new venv/conda env), then "
                            "reinstall torch and torch_npu there."))
