"""Run the selected checks against one host and collect a Report.

Each check runs in isolation: an unmet precondition gives SKIP, ``NotApplicable`` gives
SKIP, any other exception gives ERROR (with the exception named) and the run goes on.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from ascend_doctor import __version__
from ascend_doctor.checkapi import Check, CheckContext, Finding, FixAction, NotApplicable, Status, SuiteContext
from ascend_doctor.facts import Facts, FactUnavailable
from ascend_doctor.host.base import Host, PathRefused
from ascend_doctor.i18n import N_
from ascend_doctor.i18n import gettext as _
from ascend_doctor.options import RunOptions
from ascend_doctor.registry import load_catalogue, matches
from ascend_doctor.report import Report, Result, needs_fix_plan
from ascend_doctor.requirements import unmet

# Commands most checks need: started together so a hung npu-smi costs one timeout, not several.
PREFETCH_COMMANDS = (("npu-smi", "info"), ("dmesg",))

ProgressFunc = Callable[[str], None]


def run_checks(
    host: Host,
    matrix: Any,
    options: RunOptions,
    matrix_info: Optional[Dict[str, Any]] = None,
    progress: Optional[ProgressFunc] = None,
) -> Report:
    started = time.monotonic()
    facts = Facts(host, options)
    facts.matrix = matrix
    ctx = CheckContext(facts=facts, matrix=matrix, options=options)
    results = run_suite("check", ctx, options, progress,
                        before=lambda: facts.prefetch_commands(PREFETCH_COMMANDS))

    report = Report(
        tool_version=__version__,
        matrix=matrix_info or {},
        host=_host_section(host),
        facts=_facts_section(facts),
        results=results,
        fail_on=options.fail_on,
        duration_s=time.monotonic() - started,
        notes=[str(w) for w in (matrix_info or {}).get("warnings", [])],
    )
    if needs_fix_plan(results):
        from ascend_doctor.fixplan import build_fix_plan, point_findings
        from ascend_doctor.resolve.fixsteps import stack_fix

        try:
            stack = stack_fix(facts, matrix, results)
        except Exception as exc:  # the resolver must never take the report down: the plan goes on without it
            stack = None
            report.notes.append(_("the version plan could not be resolved ({error}); the fix plan is built from "
                                  "the findings alone").format(error=f"{type(exc).__name__}: {exc}"))
        report.fix_plan = build_fix_plan(results, stack)
        report.results = point_findings(results, report.fix_plan, stack)
    return report


def run_suite(suite: str, ctx: SuiteContext[object], options: RunOptions, progress: Optional[ProgressFunc] = None,
              before: Optional[Callable[[], None]] = None) -> List[Result]:
    """Grade every selected check of one suite ("check", "probe", "fleet") against ``ctx``.

    Catalogue load problems become ERROR results; ``before`` runs once when at least one check
    is selected (e.g. to start the slow commands concurrently).
    """
    checks, load_problems = load_catalogue()
    selected = [c for c in checks if c.spec.suite == suite and _selected(c.spec.id, options)]
    results: List[Result] = [
        Result("ASC-CORE-001", N_("Check catalogue loads"), Status.ERROR, problem,
               _("Reinstall ascend-doctor; if it persists, report this line as a bug."))
        for problem in load_problems
    ]
    if selected and before is not None:
        before()
    for check in selected:
        if progress:
            progress(f"{check.spec.id} {_(check.spec.title)}")
        results.extend(_run_one(check, ctx))
    return results


def with_model_from_serving_config(host: Host, options: RunOptions) -> RunOptions:
    """When --config / --vllm-args name a weight directory and --model was not given, check that
    directory too ("the weight path passes the model checks")."""
    if options.model_dir or not (options.serving_config or options.vllm_args):
        return options
    from msgspec import structs

    facts = Facts(host, options)
    for weight_dir in facts.maybe(Facts.serving_weight_dirs) or []:
        if weight_dir.is_dir and weight_dir.has_config:
            return structs.replace(options, model_dir=weight_dir.path)
    return options


def _selected(check_id: str, options: RunOptions) -> bool:
    if options.select and not matches(check_id, options.select):
        return False
    return not (options.ignore and matches(check_id, options.ignore))


def _run_one(check: Check, ctx: SuiteContext[object]) -> List[Result]:
    spec = check.spec
    start = time.monotonic()

    def result(status: Status, message: str, remediation: str = "", evidence: Optional[Dict[str, Any]] = None,
               scope: Optional[str] = None, actions: Tuple[FixAction, ...] = ()) -> Result:
        return Result(spec.id, spec.title, status, message, remediation, evidence or {}, scope,
                      time.monotonic() - start, actions)

    try:
        missing = unmet(spec.requires, ctx)
        if missing is not None:
            # Marked so renderers can fold "you did not ask for this" skips out of the way.
            return [result(Status.SKIP, missing[1], evidence={"precondition": missing[0]})]
        findings = list(check.run(ctx))
    except NotApplicable as exc:
        return [result(Status.SKIP, str(exc) or _("not applicable on this host"),
                       evidence={"see": list(exc.see)} if exc.see else None)]
    except FactUnavailable as exc:
        return [result(Status.SKIP, _("cannot be checked here: {reason}").format(reason=exc.reason))]
    except PathRefused as exc:  # a snapshot whose link leads out of it: the input, not a bug
        return [result(Status.ERROR, _("the snapshot refused a path: {error}").format(error=exc),
                       _("The snapshot holds a symlink or path that leads outside it (edited or damaged?): capture "
                         "it again with `ascend-doctor snapshot -o FILE.tar.gz` on the machine."),
                       {"exception": "PathRefused"})]
    except Exception as exc:
        import traceback  # only a check that failed needs it (start-up)

        tb = traceback.extract_tb(exc.__traceback__)
        where = f"{tb[-1].filename.rsplit('/', 1)[-1]}:{tb[-1].lineno}" if tb else "?"
        return [result(Status.ERROR, _("the check itself failed: {error}").format(error=f"{type(exc).__name__}: {exc}"),
                       _("This is a bug in ascend-doctor, not in your machine; please report it with the JSON report."),
                       {"exception": type(exc).__name__, "where": where})]
    if not findings:
        return [result(Status.ERROR, _("the check produced no result"),
                       _("This is a bug in ascend-doctor; please report it."))]
    out = []
    for finding in findings:
        if not isinstance(finding, Finding):
            out.append(result(Status.ERROR, _("the check yielded {type}, not a Finding").format(
                type=type(finding).__name__)))
            continue
        out.append(result(finding.status, finding.message, finding.remediation, dict(finding.evidence),
                          finding.scope, finding.actions))
    return out


def _host_section(host: Host) -> Dict[str, Any]:
    info = host.info()
    return {
        "source": info.source,
        "hostname": info.hostname,
        "arch": info.arch,
        "kernel": info.kernel,
        "os": info.os,
        "origin": info.origin,
        "captured_at": info.captured_at,
    }


# Facts the report always carries (computed if not already), in the schema's names.
def _facts_section(facts: Facts) -> Dict[str, Any]:
    from ascend_doctor.facts.summary import report_facts

    try:
        return report_facts(facts)
    except Exception as exc:  # the facts section must never sink the report
        return {"error": f"{type(exc).__name__}: {exc}"}
