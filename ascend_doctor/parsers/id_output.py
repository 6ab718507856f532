"""``id``: the user a process runs as, its primary group and every group it is in.

coreutils ``id`` prints ``uid=1101(work) gid=1101(work) groups=1101(work),1000(HwHiAiUser)``
(samples in tests/samples/users/). A name is missing when the number has no entry in the
passwd/group database (a container whose /etc/group does not know the host's gid): ``1000``
then stands alone.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from msgspec import Struct

from ascend_doctor.lazy import lazy_re

_ID = lazy_re(r"\b(?P<key>uid|gid)=(?P<num>\d{1,10})(?:\((?P<name>[^()]{1,256})\))?")
_GROUP = lazy_re(r"(?:^|,)(?P<num>\d{1,10})(?:\((?P<name>[^()]{1,256})\))?")
MAX_GROUPS = 1024


class IdParseError(ValueError):
    """The text is not the output of ``id``."""


class IdInfo(Struct, frozen=True):
    uid: int
    user: Optional[str]
    gid: Optional[int]
    group: Optional[str]
    groups: Tuple[Tuple[int, Optional[str]], ...] = ()  # (gid, name) of every group, primary included

    @property
    def is_root(self) -> bool:
        return self.uid == 0

    def in_group(self, name: str) -> bool:
        wanted = name.strip()
        return any(n == wanted for _, n in self.groups) or self.group == wanted

    def to_dict(self) -> Dict[str, Any]:
        return {"uid": self.uid, "user": self.user, "gid": self.gid, "group": self.group,
                "groups": [{"gid": g, "name": n} for g, n in self.groups]}


def parse_id(text: str) -> IdInfo:
    """The first line holding ``uid=``; IdParseError when there is none or it is malformed.

    Group names may hold blanks (directory groups such as ``domain users``); an SELinux
    ``context=...`` after the groups is ignored."""
    if not isinstance(text, str):
        raise IdParseError(f"expected text, got {type(text).__name__}")
    for line in text.splitlines()[:200]:
        ids = {m.group("key"): m for m in _ID.finditer(line)}
        if "uid" not in ids:
            continue
        uid = int(ids["uid"].group("num"))
        gid_match = ids.get("gid")
        gid = int(gid_match.group("num")) if gid_match else None
        group = gid_match.group("name") if gid_match else None
        groups_text = line.partition("groups=")[2].split(" context=")[0].strip()
        groups = tuple((int(m.group("num")), m.group("name"))
                       for m in list(_GROUP.finditer(groups_text))[:MAX_GROUPS])
        return IdInfo(uid, ids["uid"].group("name"), gid, group, groups)
    raise IdParseError("no 'uid=' line in the output of id")
