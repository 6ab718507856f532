"""Permission bits and owners of the files MindIE checks before it starts (ASC-CFG-011).

MindIE Server refuses a configuration or weight file that is readable by "other" or owned by
another user than the one running it ("Check Other group permission failed: Current permission is
4, but required no greater than 0"; hiascend MindIE service0348). Read here: MindIE's config.json
(``--config``), each weight folder it names (``modelWeightPath``) or ``--model``, and the entries
at the top of each weight folder. A host that cannot tell the owner (a snapshot outside the model
record of ``snapshot --model``, pasted text) gives ``uid=None``: not recorded, not judged.
"""

from __future__ import annotations

import posixpath
import stat as statmod
from typing import Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.host.base import HostFileError
from ascend_doctor.i18n import gettext as _

MAX_ENTRIES = 4096
ROLE_CONFIG = "MindIE config"
ROLE_WEIGHT_DIR = "weight folder"
ROLE_WEIGHT_FILE = "weight file"


class PathMode(Struct, frozen=True):
    path: str
    role: str  # ROLE_*
    is_dir: bool
    mode: Optional[int]  # permission bits (0o640), None when unknown
    uid: Optional[int]  # owner, None when this host cannot tell

    @property
    def known(self) -> bool:
        return self.mode is not None and self.uid is not None

    def to_dict(self) -> Dict[str, object]:
        return {"path": self.path, "role": self.role, "is_dir": self.is_dir,
                "mode": None if self.mode is None else oct(self.mode), "uid": self.uid}


class FileModes(Struct, frozen=True):
    entries: Tuple[PathMode, ...]
    missing: Tuple[str, ...] = ()  # paths named but absent (ASC-CFG-010 / MDL-001 report those)
    truncated: bool = False

    def to_dict(self) -> Dict[str, object]:
        return {"entries": [e.to_dict() for e in self.entries], "missing": list(self.missing),
                "truncated": self.truncated}


def _stat(facts: Facts, path: str, role: str) -> Optional[PathMode]:
    host = facts.host
    try:
        real = host.realpath(path)
        st = host.stat(real) or host.stat(path)
    except HostFileError:
        return None
    if st is None:
        return None
    return PathMode(path, role, st.is_dir, statmod.S_IMODE(st.mode) if st.uid is not None else None, st.uid)


def _targets(facts: Facts) -> List[Tuple[str, str]]:
    """(path, role) of MindIE's config and each weight folder to look at."""
    out: List[Tuple[str, str]] = []
    config = facts.maybe(Facts.serving_config)
    if config is not None and config.kind == "mindie" and config.ok and facts.options.serving_config:
        out.append((facts.options.serving_config, ROLE_CONFIG))
        out += [(m.weight_path, ROLE_WEIGHT_DIR) for m in config.models if m.weight_path]
    if facts.options.model_dir:
        out.append((facts.options.model_dir, ROLE_WEIGHT_DIR))
    seen: List[Tuple[str, str]] = []
    for path, role in out:
        norm = posixpath.normpath(path)
        if all(norm != p for p, _ in seen):
            seen.append((norm, role))
    return seen


@provider("file_modes", reads=Reads(files=("{config}", "{model}", "{model}/*"), listings=("{model}",)))
def file_modes(facts: Facts) -> FileModes:
    targets = _targets(facts)
    if not targets:
        raise FactUnavailable(_("no MindIE configuration (--config) and no model folder (--model) given"))
    entries: List[PathMode] = []
    missing: List[str] = []
    truncated = False
    for path, role in targets:
        top = _stat(facts, path, role)
        if top is None:
            missing.append(path)
            continue
        entries.append(top)
        if role != ROLE_WEIGHT_DIR or not top.is_dir:
            continue
        try:
            names = facts.host.listdir(path)
        except HostFileError:
            continue
        if len(names) > MAX_ENTRIES:
            names, truncated = names[:MAX_ENTRIES], True
        for name in names:
            child = _stat(facts, posixpath.join(path, name), ROLE_WEIGHT_FILE)
            if child is not None:
                entries.append(child if not child.is_dir else PathMode(child.path, ROLE_WEIGHT_DIR, True, child.mode,
                                                                        child.uid))
    return FileModes(tuple(entries), tuple(missing), truncated)
