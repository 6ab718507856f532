"""ASC-RT-007: the rank table's permissions are ones MindIE accepts (640 or narrower)."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, one_line

from ._context import HostCheckContext
from ._rank_table import SRC_MINDIE, config_fix, loaded

ALLOWED = 0o640
SRC_PERMISSIONS = ("MindIE file permission rules (hiascend mindie_service0348; MindIE-SD "
                   "file_directory_permissions_description.md): configuration files no wider than 640")

CHECK = CheckSpec(
    id="ASC-RT-007",
    title="Rank table permissions 640 or narrower (MindIE)",
    what=("When MindIE is installed and the table is an HCCL server_list table: the file's mode allows nothing "
          "beyond 640 (rw-r-----): no execute bit, no group write, nothing for others. Judged on the file itself "
          "(this machine, or --rank-table FILE), not on a snapshot's copy, which keeps no permissions."),
    why=("MindIE checks the permissions of the files it is given and refuses to start with a wider mode; its "
         "rank table guide says chmod 640. Sources: " + SRC_MINDIE + "; " + SRC_PERMISSIONS),
    fix="chmod 640 <rank table> (on every node)",
    requires=("input:rank_table", "fact:rank_table", "engine:mindie"),
    tags=("rank-table",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.parsers.rank_table import KIND_HCCL

    facts, table = loaded(ctx)
    shown = one_line(facts.path)  # the path in prose: a newline in it must not start a line of its own
    if table.kind != KIND_HCCL:
        raise NotApplicable(_("MindIE reads HCCL server_list tables; this is a {label} table").format(
            label=table.label))
    if facts.mode is None:
        raise NotApplicable(_("the permissions of {path} are not known here: {reason}").format(
            path=shown, reason=facts.mode_note or 'no stat'))
    mode = facts.mode & 0o777
    extra = mode & ~ALLOWED
    if extra:
        command = argv("chmod", "640", facts.path)
        yield Finding.fail(_("{path} has mode {mode}: MindIE accepts at most 0640 (extra bits {extra})").format(
                               path=shown, mode=f"{mode:04o}", extra=f"{extra:04o}"),
                           _("`{command}` (on every node that uses this file).").format(command=command),
                           mode=f"{mode:04o}").with_actions(
            config_fix(_("Restrict the permissions of {path}").format(path=shown), facts.path, (command,)))
        return
    yield Finding.passed(_("{path} has mode {mode} (at most 0640)").format(path=shown, mode=f"{mode:04o}"))
