"""Grade a probe: the ``probe`` suite of checks over a ``ProbeFacts``, into the usual ``Report``
(same statuses, exit codes, renderers and fix plan as ``check``). The JSON is described by
docs/probe-report-schema.json: ``host.source`` is "endpoint" and ``facts`` holds the measurements.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional
from urllib.parse import urlsplit

from ascend_doctor import __version__
from ascend_doctor.checkapi import SuiteContext
from ascend_doctor.endpoint.records import ProbeFacts
from ascend_doctor.i18n import _
from ascend_doctor.options import RunOptions
from ascend_doctor.report import Report

SOURCE = "endpoint"


def probe_report(facts: ProbeFacts, options: RunOptions, duration_s: float,
                 progress: Optional[Any] = None) -> Report:
    from ascend_doctor.fixplan import build_fix_plan
    from ascend_doctor.runner import run_suite

    # A probe judges no matrix: its checks receive a SuiteContext (checks/_probe.py: ProbeCheckContext).
    ctx = SuiteContext(facts=facts, options=options)
    results = run_suite("probe", ctx, options, progress)
    report = Report(tool_version=__version__, matrix={}, host=endpoint_section(facts.settings.url),
                    facts=facts.to_dict(), results=results, fail_on=options.fail_on, duration_s=duration_s,
                    notes=_notes(facts, duration_s))
    report.fix_plan = build_fix_plan(results)
    return report


def endpoint_section(redacted_url: str) -> Dict[str, Any]:
    """The report's "host": what was probed (the URL without credentials)."""
    try:
        netloc = urlsplit(redacted_url).netloc
    except ValueError:
        netloc = ""
    return {"source": SOURCE, "hostname": netloc.rsplit("@", 1)[-1] or None, "arch": None, "kernel": None,
            "os": None, "origin": redacted_url, "captured_at": None}


def _notes(facts: ProbeFacts, duration_s: float) -> List[str]:
    notes = []
    if facts.interrupted:
        notes.append(_("interrupted (Ctrl-C) after {seconds} s: this report grades what was measured until "
                       "then").format(seconds=f"{duration_s:.1f}"))
    elif facts.stopped_because:
        notes.append(_("stopped early: {reason}").format(reason=facts.stopped_because))
    notes.extend(facts.notes)
    return notes
