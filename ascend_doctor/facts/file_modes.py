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
from typing import List, Optional, Tuple

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.file_modes import FileModes, PathMode
from ascend_doctor.host.base import HostFileError
from ascend_doctor.i18n import gettext as _

MAX_ENTRIES = 4096
ROLE_CONFIG = "MindIE config"
ROLE_WEIGHT_DIR = "weight folder"
ROLE_WEIGHT_FILE = "weight file"


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
