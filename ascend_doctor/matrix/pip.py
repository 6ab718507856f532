"""pip command lines that install what they name: the right index, torch always with its torch_npu.

One helper for every place that prints a pip command (the PY-/ENG- checks' remediation and
``matrix plan``):

* torch on x86_64 comes from the PyTorch CPU index (PyPI's x86 torch is the CUDA build);
* a torch_npu that is not on PyPI (a ``.dev`` build, a ``+git`` local build, a ``.postN`` that was
  never uploaded) says where it is instead of a ``pip install`` that fails;
* torch is never changed without the torch_npu built for it;
* vLLM-Ascend after 0.11.0 installs from the Ascend "variant" index, as its guide does.

Alternatives are returned as separate blocks and printed with a leading "or".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

from msgspec import Struct
from packaging.version import Version

from ascend_doctor import shellcmd
from ascend_doctor.i18n import N_
from ascend_doctor.matrix.packages import normalize_arch
from ascend_doctor.matrix.specs import try_pypi

if TYPE_CHECKING:
    from ascend_doctor.matrix.tables import MatrixTables

RELEASES_PAGE = "https://gitcode.com/Ascend/pytorch/releases"


class PipAdvice(Struct, frozen=True):
    """Lines to paste; ``notes`` explain an index or where an unpublished build comes from."""

    lines: List[str]
    notes: List[str]

    def text(self) -> str:
        return "\n".join(self.lines + [f"# {n}" for n in self.notes])


def _index(m: MatrixTables, use: str) -> Optional[str]:
    row = next((r for r in m.pip_indexes if r.use == use), None)
    return row.url if row is not None else None


def torch_npu_on_pypi(m: MatrixTables, version: str) -> Optional[bool]:
    """True/False from the recorded PyPI release list; None when it cannot say (a newer release)."""
    wanted = try_pypi(version)
    if wanted is None:
        return None
    if wanted.is_devrelease or wanted.local:
        return False
    row = next((r for r in m.pypi_releases if r.package.lower().replace("_", "-") == "torch-npu"), None)
    if row is None:
        return None
    listed = [v for v in (try_pypi(x) for x in row.versions) if v is not None]
    if any(v == wanted for v in listed):
        return True
    if listed and wanted > max(listed):
        return None  # released after the list was taken
    return False


def torch_pair(m: MatrixTables, torch: str, torch_npu: str, arch: Optional[str] = None) -> PipAdvice:
    """``pip install torch==X torch-npu==Y`` with the indexes this pair needs."""
    machine = normalize_arch(arch)
    notes: List[str] = []
    extra: List[str] = []
    cpu = _index(m, "torch_cpu")
    npu_v = try_pypi(torch_npu)
    on_pypi = torch_npu_on_pypi(m, torch_npu)
    dev = npu_v is not None and npu_v.is_devrelease
    dev_index = _index(m, "torch_npu_dev") if dev else None
    if cpu and machine == "x86_64":
        extra.append(cpu)
        notes.append(N_("x86_64: torch from the PyTorch CPU index (PyPI's x86 torch is the CUDA build)"))
    elif cpu and machine is None and dev_index != cpu:
        notes.append(N_("on x86_64 add --extra-index-url {url} (PyPI's x86 torch is the CUDA build)").format(url=cpu))
    if dev:
        if dev_index and dev_index not in extra:
            extra.append(dev_index)
        notes.append(N_("torch-npu {version} is a development build, not on PyPI: the vLLM-Ascend guide installs "
                        "it from this extra index; the engine's release image already contains it").format(
            version=torch_npu))
    elif on_pypi is False:
        notes.append(N_("torch-npu {version} is not on PyPI: use the engine's release image, or download the "
                        "wheel for your Python from {page}").format(version=torch_npu, page=RELEASES_PAGE))
    indexes = [word for url in extra for word in ("--extra-index-url", url)]
    line = shellcmd.argv("pip", "install", *indexes, "torch==" + torch, "torch-npu==" + torch_npu)
    return PipAdvice([line], notes)


def vllm_ascend(m: MatrixTables, vllm: Optional[str], version: str, arch: Optional[str] = None) -> PipAdvice:
    """``pip install vllm==X`` then ``pip install vllm-ascend==Y`` (with the variant index when needed)."""
    lines: List[str] = []
    notes: List[str] = []
    if vllm:
        lines.append(shellcmd.argv("pip", "install", "vllm==" + vllm))
    row = next((r for r in m.pip_indexes if r.use == "vllm_ascend"), None)
    wanted = try_pypi(version)
    use_variant = row is not None and (row.after is None or (wanted is not None and wanted > Version(row.after)))
    if use_variant and row is not None:
        lines.append(shellcmd.argv("pip", "install", "--extra-index-url", row.url, "vllm-ascend==" + version))
    else:
        lines.append(shellcmd.argv("pip", "install", "vllm-ascend==" + version))
    return PipAdvice(lines, notes)


def alternatives(blocks: Sequence[PipAdvice]) -> str:
    """Blocks joined with an explicit "or" between them (they are alternatives, never steps)."""
    parts: List[str] = []
    for index, block in enumerate(blocks):
        text = block.text()
        if index:
            text = "or:\n" + text
        parts.append(text)
    return "\n".join(parts)
