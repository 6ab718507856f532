"""``/etc/Ascend/ascend_cann_install.info``: where a root install put CANN.

The CANN installers record their install path there (``~/Ascend/ascend_cann_install.info`` for a
non-root user) and install later packages to it; scripts read it with
``grep Install_Path | cut -d= -f2`` or ``grep Toolkit_InstallPath``. A real copy
(tests/samples/install-paths/blog-etc-Ascend-ascend_cann_install.info.txt)::

    Install_Path=/usr/local/Ascend
    Toolkit_InstallPath=/usr/local/Ascend/ascend-toolkit
"""

from __future__ import annotations

import posixpath
from typing import Dict, List, Optional

from msgspec import Struct


class CannInstallPathError(ValueError):
    """The text names no install path."""


class CannInstallPaths(Struct, frozen=True):
    install_path: Optional[str]  # Install_Path: the install root (the folder holding ascend-toolkit/, cann-<v>/)
    toolkit_path: Optional[str]  # Toolkit_InstallPath: <root>/ascend-toolkit
    raw: Dict[str, str]

    def roots(self) -> List[str]:
        """Install roots named by the file (absolute paths only, in file order, no duplicates)."""
        out: List[str] = []
        candidates = [self.install_path]
        if self.toolkit_path:
            toolkit = self.toolkit_path.rstrip("/")
            # <root>/ascend-toolkit (or <root>/ascend-toolkit/<version>): the root is above it.
            parts = toolkit.split("/ascend-toolkit")
            candidates.append(parts[0] if len(parts) > 1 else posixpath.dirname(toolkit))
        for path in candidates:
            path = (path or "").strip().rstrip("/")
            if path.startswith("/") and path not in out:
                out.append(path)
        return out


def parse_cann_install_paths(text: str) -> CannInstallPaths:
    raw: Dict[str, str] = {}
    for line in text.splitlines()[:200]:
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        raw[key.strip()] = value.strip()
    lowered = {k.lower(): v for k, v in raw.items()}
    install = lowered.get("install_path") or next(
        (v for k, v in lowered.items() if k.endswith("install_path") and "toolkit" not in k), None)
    toolkit = lowered.get("toolkit_installpath") or lowered.get("toolkit_install_path")
    if not install and not toolkit:
        raise CannInstallPathError("no Install_Path or Toolkit_InstallPath line")
    return CannInstallPaths(install or None, toolkit or None, raw)
