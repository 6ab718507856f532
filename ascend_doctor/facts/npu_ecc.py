"""``npu-smi info -t ecc -i N`` for every NPU: the memory error counters (ASC-DEV-005)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Tuple

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.npu_ecc import NpuEcc
from ascend_doctor.i18n import gettext as _

if TYPE_CHECKING:
    from ascend_doctor.parsers.npu_smi_ecc import EccInfo


def ecc_command(npu_id: int) -> Tuple[str, ...]:
    return ("npu-smi", "info", "-t", "ecc", "-i", str(npu_id))


@provider("npu_ecc", reads=Reads(per_npu=(("npu-smi", "info", "-t", "ecc", "-i", "{npu}"),)))
def npu_ecc(facts: Facts) -> NpuEcc:
    """The ECC query of every NPU id ``npu-smi info`` lists, run concurrently (each with the timeout)."""
    from ascend_doctor.facts.npu_views import query_ids
    from ascend_doctor.facts.origin import LIVE, absent_phrase, command_absence_known, origin_kind
    from ascend_doctor.host.base import CommandStatus
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError
    from ascend_doctor.parsers.npu_smi_ecc import parse_npu_smi_ecc

    ids = query_ids(facts)  # the table's NPUs; in a snapshot or a paste without one, those it shows
    facts.prefetch_commands([ecc_command(i) for i in ids])
    replayed = origin_kind(facts) != LIVE
    by_npu: Dict[int, EccInfo] = {}
    failures: Dict[int, str] = {}
    not_recorded = []
    for npu_id in ids:
        result = facts.command(ecc_command(npu_id))
        if replayed and result.status is CommandStatus.NOT_FOUND and not command_absence_known(facts, result.argv):
            not_recorded.append(npu_id)  # the capture did not run it: nothing is known, nothing is wrong
            continue
        if not result.ok or not result.stdout.strip():
            failures[npu_id] = result.describe_failure()
            continue
        try:
            by_npu[npu_id] = parse_npu_smi_ecc(result.stdout)
        except NpuSmiParseError as exc:
            failures[npu_id] = f"`{result.command_line}`: {exc}"
    if not by_npu and not failures:
        raise FactUnavailable(_("`npu-smi info -t ecc -i N`: {absent}").format(absent=absent_phrase(facts)))
    return NpuEcc(by_npu, failures, tuple(not_recorded))
