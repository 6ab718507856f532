"""Grade a merged fleet: the ``fleet`` suite of checks over a :class:`FleetFacts`, into the usual
``Report`` (same statuses, exit codes, renderers and fix plan as ``check``).

The JSON is described by docs/fleet-report-schema.json: ``host.source`` is "fleet", ``facts``
holds the per-node table (``nodes``) and the drift of every compared fact (``drift``). Since it is
an ordinary report, ``report render`` shows a saved one in any format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from ascend_doctor import __version__
from ascend_doctor.checkapi import CheckContext
from ascend_doctor.fleet.facts import FleetFacts
from ascend_doctor.i18n import _
from ascend_doctor.options import RunOptions
from ascend_doctor.report import Report

if TYPE_CHECKING:
    from ascend_doctor.matrix.model import Matrix

SOURCE = "fleet"
MAX_ORIGIN_CHARS = 400


def fleet_report(facts: FleetFacts, matrix: Matrix, matrix_info: Dict[str, Any], options: RunOptions,
                 inputs: Sequence[str], duration_s: float, progress: Optional[Any] = None) -> Report:
    from ascend_doctor.fixplan import build_fix_plan
    from ascend_doctor.runner import run_suite

    ctx = CheckContext(facts=facts, matrix=matrix, options=options)  # checks/_fleet.py: FleetCheckContext
    results = run_suite("fleet", ctx, options, progress)
    report = Report(tool_version=__version__, matrix={k: v for k, v in matrix_info.items() if k != "warnings"},
                    host=fleet_section(facts, inputs), facts=facts.to_dict(), results=results,
                    fail_on=options.fail_on, duration_s=duration_s, notes=_notes(facts, matrix_info))
    report.fix_plan = build_fix_plan(results)
    return report


def fleet_section(facts: FleetFacts, inputs: Sequence[str]) -> Dict[str, Any]:
    """The report's "host": the fleet (how many nodes, from where)."""
    count = len(facts.nodes)
    origin = " ".join(inputs)
    if len(origin) > MAX_ORIGIN_CHARS:
        origin = origin[:MAX_ORIGIN_CHARS - 1] + "…"
    arches = {n.arch for n in facts.readable() if n.arch}
    # The fleet's name in the report, like a host name: the same in every language.
    return {"source": SOURCE, "hostname": f"{count} node{'s' if count != 1 else ''}",
            "arch": arches.pop() if len(arches) == 1 else ("mixed" if arches else None), "kernel": None,
            "os": None, "origin": origin or None, "captured_at": None}


def _notes(facts: FleetFacts, matrix_info: Dict[str, Any]) -> List[str]:
    notes = [str(w) for w in matrix_info.get("warnings", [])]
    if facts.skipped:
        shown = ", ".join(facts.skipped[:3]) + (" ..." if len(facts.skipped) > 3 else "")
        notes.append(_("{count} file(s) in the given folders are neither a report (*.json) nor a snapshot and were "
                       "left out: {files}").format(count=len(facts.skipped), files=shown))
    return notes
