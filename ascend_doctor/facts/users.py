"""Who runs here: ``id`` of the user running the doctor (run it as the user that will serve).

Used by ASC-DRV-003 (the run user needs the driver's group, HwHiAiUser by default) and
ASC-CFG-011 (MindIE requires its files to be owned by the user that runs it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.i18n import gettext as _

if TYPE_CHECKING:
    from ascend_doctor.parsers.id_output import IdInfo

ID_COMMAND = ("id",)


@provider("run_user", reads=Reads(commands=(ID_COMMAND,)))
def run_user(facts: Facts) -> IdInfo:
    from ascend_doctor.facts.origin import LIVE, absent_phrase, command_absence_known, origin_kind
    from ascend_doctor.host.base import CommandStatus
    from ascend_doctor.parsers.id_output import IdParseError, parse_id

    result = facts.command(ID_COMMAND)
    if result.status is CommandStatus.NOT_FOUND and origin_kind(facts) != LIVE \
            and not command_absence_known(facts, result.argv):
        raise FactUnavailable(_("the output of `id` (the run user): {absent}").format(absent=absent_phrase(facts)))
    if not result.ok:
        raise FactUnavailable(result.describe_failure(), result)
    try:
        return parse_id(result.stdout)
    except IdParseError as exc:
        raise FactUnavailable(_("`id` printed something unexpected: {error}").format(error=exc), result) from exc
