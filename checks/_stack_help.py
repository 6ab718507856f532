"""Helpers for the mixed-stack, kernels, NNAL, engine, container, device and host checks.

Not a check (the registry skips ``_`` modules). Texts here are remediation building blocks that
several checks print the same way.
"""

from __future__ import annotations

import posixpath
from typing import Any, Iterable, List, Optional

from ascend_doctor.checkapi import CheckContext
from ascend_doctor.versions import AscendVersion

GIB = 1024 ** 3

# Chip family -> the <chip> word of the HDK and CANN kernels package names
# (compat_facts §6.2: 910B/910B3 -> 910b, 910 -> 910, 310P -> 310p, 310B -> 310b, A3 -> a3).
PACKAGE_CHIP = {"A2": "910b", "A3": "a3", "310P": "310p", "310B": "310b", "910": "910"}
HDK_CHIP = {"A2": "910b", "A3": "910b", "310P": "310p", "310B": "310b", "910": "910"}


def gib(value: Optional[int]) -> str:
    return "?" if value is None else f"{value / GIB:.1f} GiB"


def normalize_arch(arch: Optional[str]) -> Optional[str]:
    """uname -m spellings -> the package spelling (aarch64 / x86_64)."""
    if not arch:
        return None
    lowered = arch.strip().lower()
    return {"arm64": "aarch64", "amd64": "x86_64", "x64": "x86_64"}.get(lowered, lowered)


def machine_arch(ctx: CheckContext) -> Optional[str]:
    info = ctx.facts.try_get("host_info")
    return normalize_arch(getattr(info, "arch", None))


def chip_family(ctx: CheckContext) -> Optional[str]:
    chip = ctx.facts.try_get("npu_chip")
    return getattr(chip, "family", None)


def is_cann_85_or_later(version: Optional[str]) -> bool:
    parsed = AscendVersion.try_parse(version or "")
    return bool(parsed and (parsed.major, parsed.minor) >= (8, 5))


def same_release(a: Optional[str], b: Optional[str]) -> Optional[bool]:
    """True/False when both parse as Ascend versions, None otherwise."""
    va, vb = AscendVersion.try_parse(a or ""), AscendVersion.try_parse(b or "")
    if va is None or vb is None:
        return None
    return va.same_release(vb)


def _matrix_kernels_package(ctx: CheckContext) -> Any:
    lookup = getattr(ctx.matrix, "chip", None)
    if not callable(lookup):
        return None
    npu = ctx.facts.try_get("npu_chip")
    try:
        info = lookup(getattr(npu, "name", "") or "")
    except Exception:  # the matrix names packages when it can; we fall back on our table
        return None
    return getattr(info, "kernels_package", None)


def kernels_package_file(ctx: CheckContext, cann_version: Optional[str]) -> str:
    """The kernels/ops .run file for this chip, CANN release and machine architecture.

    The matrix's chip table gives the file-name templates (``legacy`` for CANN <= 8.3, ``ops``
    for CANN >= 8.5, with ``{cann}`` and ``{arch}``); without it, our own table of chip words.
    """
    version = cann_version or "<cann version>"
    arch = machine_arch(ctx) or "$(uname -m)"
    modern = is_cann_85_or_later(cann_version)
    package = _matrix_kernels_package(ctx)
    template = getattr(package, "ops" if modern else "legacy", None) if package is not None else None
    if isinstance(template, str) and "{cann}" in template:
        return template.replace("{cann}", version).replace("{arch}", arch)
    chip = PACKAGE_CHIP.get(str(chip_family(ctx)), "<chip>")
    if modern:
        return f"Ascend-cann-{chip}-ops_{version}_linux-{arch}.run"
    if chip == "a3":
        return f"Atlas-A3-cann-kernels_{version}_linux-{arch}.run"
    return f"Ascend-cann-kernels-{chip}_{version}_linux-{arch}.run"


def cleanup_sequence(driver_roots: Iterable[str], hdk_chip: str, arch: str,
                     driver_version: Optional[str] = None) -> str:
    """The clean-up that ends a mixed driver/firmware installation (seed 003 §5.1).

    Uninstall every stack completely, install one matching driver+firmware pair, reboot, then
    throw away the graphs and operator binaries compiled against the mixed stack.
    """
    roots = sorted({r.rstrip("/") or "/" for r in driver_roots})
    lines: List[str] = ["# 1. stop every job and container using the NPUs (see `npu-smi info`), then as root:"]
    for root in roots:
        lines.append(f"bash {posixpath.join(root, 'driver/script/uninstall.sh')} --force")
        lines.append(f"bash {posixpath.join(root, 'firmware/script/uninstall.sh')}")
    lines += [
        "rm -f /etc/ascend_install.info   # only if the uninstallers left it behind",
        "reboot",
        "# 2. install ONE driver and the firmware of the SAME Ascend HDK release (the one your CANN pairs with):",
        f"./Ascend-hdk-{hdk_chip}-npu-driver_{driver_version or '<version>'}_linux-{arch}.run --full --install-for-all",
        f"./Ascend-hdk-{hdk_chip}-npu-firmware_<firmware version of that HDK>.run --full",
        "reboot",
        "# 3. rebuild what was compiled against the old stack: clear the operator/graph caches and restart the engine",
        "rm -rf ~/atc_data ./kernel_meta*   # CANN operator compile cache and kernel_meta work files",
    ]
    return "\n".join(lines)


def first(items: Iterable[Any]) -> Optional[Any]:
    for item in items:
        return item
    return None
