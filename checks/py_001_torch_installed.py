"""ASC-PY-001: torch and torch_npu are installed in the interpreter that will serve."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, Status
from ascend_doctor.facts.origin import require_stated
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._support import pip_pair_hint

CHECK = CheckSpec(
    id="ASC-PY-001",
    title="torch and torch_npu installed",
    what=("Asks the target interpreter (--python, else $VIRTUAL_ENV/bin/python, else python3) for its installed "
          "distributions, without importing torch."),
    why=("MindIE, vLLM-Ascend and MindSpeed all run on torch + torch_npu. A torch without torch_npu (or a "
         "CUDA/CPU torch pulled in by another package) starts, then finds no NPU."),
    fix="pip install torch==<version> torch-npu==<version> — the pair the matrix gives for your CANN.",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    py = ctx.facts.python_env
    if py.error:
        require_stated(ctx.facts, _("the Python packages"))
        yield Finding(Status.WARN, _("could not inspect the Python interpreter {python}: {error}").format(
                          python=py.executable or "", error=py.error),
                      _("Point ascend-doctor at the interpreter that will serve: ascend-doctor check --python "
                        "/path/to/venv/bin/python"))
        return
    torch = py.package("torch")
    torch_npu = py.package("torch-npu")
    # A snapshot's python.json may lack the executable or version: say "unknown", never "None".
    where = _("in {python} (Python {version})").format(python=py.executable or _("the target Python"),
                                                        version=py.version or _("version unknown"))
    hint = pip_pair_hint(ctx)
    if not (torch and torch_npu):  # a pasted package list that leaves one out says nothing about it
        require_stated(ctx.facts, _("{package} in the Python packages").format(
            package="torch_npu" if torch else "torch"))
    if not torch and not torch_npu:
        yield Finding.fail(_("neither torch nor torch_npu is installed {where}.").format(where=where), hint)
        return
    if not torch_npu:
        yield Finding.fail(_("torch {torch} is installed but torch_npu is not {where}.").format(torch=torch,
                                                                                               where=where),
                           hint, torch=torch)
        return
    if not torch:
        yield Finding.fail(_("torch_npu {torch_npu} is installed without torch {where}.").format(torch_npu=torch_npu,
                                                                                                where=where), hint)
        return
    local = torch.split("+", 1)[1] if "+" in torch else ""
    if local.startswith("cu"):
        yield Finding.fail(_("torch {torch} is a CUDA build {where}; torch_npu needs the CPU build of torch.").format(
                               torch=torch, where=where), hint, torch=torch, torch_npu=torch_npu)
        return
    yield Finding.passed(_("torch {torch} and torch_npu {torch_npu} {where}").format(torch=torch, torch_npu=torch_npu,
                                                                                    where=where),
                         torch=torch, torch_npu=torch_npu)
