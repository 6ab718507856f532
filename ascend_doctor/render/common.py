"""What the markdown, JUnit and HTML renderers share: the run header, ordering, the facts line.

Every format carries the tool and matrix versions and the time of the run (``run_header``).
Area titles and their order are kept here (AREA_TITLES), so all formats group alike.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ascend_doctor.checkapi import Status
from ascend_doctor.i18n import N_, joiner, ngettext
from ascend_doctor.i18n import gettext as _
from ascend_doctor.report import Report, Result

# The order findings are listed in: what blocks a deployment first.
FINDING_ORDER = (Status.FAIL, Status.ERROR, Status.WARN, Status.INFO)
# SKIPs for inputs the user did not give (--model, --config...): folded into one line.
PRECONDITION_FLAGS = {"model": "--model DIR", "manifest": "--verify MANIFEST",
                      "serving_config": "--config FILE / --vllm-args", "rank_table": "--rank-table FILE"}
WHERE_LABEL = {"host": N_("on the host"), "container": N_("in the container"), "either": ""}
# Areas in the order a person fixes them: devices and driver first, the model last.
# English here; shown through _() (area_title), so every format prints them in the chosen language.
AREA_TITLES = {
    "CORE": N_("ascend-doctor itself"), "SMI": "npu-smi", "DEV": N_("Devices"), "CTR": N_("Containers"),
    "DRV": N_("Driver"), "FW": N_("Firmware"), "MIX": N_("Mixed installations"), "CANN": N_("CANN toolkit"),
    "OPS": N_("Kernels / ops package"), "NNAL": "NNAL / ATB", "ARCH": N_("Architecture"),
    "PY": N_("Python, torch and torch_npu"), "ENG": N_("Serving engines"), "ENV": N_("Environment"),
    "SYS": N_("Host resources"), "LOG": N_("Logs"), "MDL": N_("Model weights"), "CFG": N_("Serving configuration"),
    "SRV": N_("Serving endpoint"), "FLT": N_("Fleet"), "NET": N_("NPU network"), "RT": N_("Rank table"),
}


def clean(text: Any) -> str:
    """Untrusted text with every terminal control made visible (newlines and tabs kept): the
    render boundary's sanitizer (render/sanitize.py)."""
    from ascend_doctor.render.sanitize import visible_lines

    return visible_lines(text)


def one_line(text: Any) -> str:
    """An untrusted value shown on one line: controls and newlines made visible (render/sanitize.py)."""
    from ascend_doctor.render.sanitize import visible

    return visible(text)


def area_of(result: Result) -> str:
    return result.id.split("-")[1] if result.id.count("-") >= 2 else "?"


def _area_titles() -> Dict[str, str]:
    return dict(AREA_TITLES)


def area_title(area: str) -> str:
    return _(_area_titles().get(area, area))


def where_label(where: str) -> str:
    """"on the host" / "in the container" in the current language ("" when either will do)."""
    label = WHERE_LABEL.get(where, "")
    return _(label) if label else ""


def area_rank(area: str) -> int:
    order = list(_area_titles())
    return order.index(area) if area in order else len(order)


def result_name(result: Result) -> str:
    """``ASC-DEV-010 [npu 3]``: the id and the scope, as the fix plan names results."""
    return f"{one_line(result.id)} [{one_line(result.scope)}]" if result.scope else one_line(result.id)


def findings(report: Report) -> List[Result]:
    """FAIL, ERROR, WARN, INFO results: worst first, then in fixing order of their areas."""
    rank = {status: i for i, status in enumerate(FINDING_ORDER)}
    chosen = [r for r in report.results if r.status in rank]
    return sorted(chosen, key=lambda r: (rank[r.status], area_rank(area_of(r)), r.id))


def not_asked_for(result: Result) -> bool:
    return result.status is Status.SKIP and result.evidence.get("precondition") in PRECONDITION_FLAGS


def quiet_results(report: Report) -> Tuple[List[Result], List[Result]]:
    """(PASS and SKIP results worth a line, SKIPs only for inputs that were not given)."""
    shown = [r for r in report.results if r.status in (Status.PASS, Status.SKIP) and not not_asked_for(r)]
    folded = [r for r in report.results if not_asked_for(r)]
    shown.sort(key=lambda r: (area_rank(area_of(r)), r.id))
    return shown, folded


def folded_line(folded: List[Result]) -> str:
    inputs = sorted({str(r.evidence.get("precondition")) for r in folded})
    flags = ", ".join(PRECONDITION_FLAGS.get(i, i) for i in inputs)
    return ngettext("{count} check not run: it needs {flags}, which was not given.",
                    "{count} checks not run: they need {flags}, which was not given.",
                    len(folded)).format(count=len(folded), flags=flags)


def verdict_key(report: Report) -> str:
    """READY, NOT READY, NOT ENOUGH TO JUDGE or INCOMPLETE (English: used in CSS classes and by machines)."""
    code = int(report.exit_code)
    if code == 0:
        return "READY"
    if code == 1:
        return "NOT READY"
    if report.too_little_to_judge() and not any(r.status is Status.ERROR for r in report.results):
        return "NOT ENOUGH TO JUDGE"
    return "INCOMPLETE"


VERDICTS = (N_("READY"), N_("NOT READY"), N_("NOT ENOUGH TO JUDGE"), N_("INCOMPLETE"))


def coverage_sentence(report: Report) -> str:
    """"Judged 27 of 98 checks: 52 do not apply here, 19 could not be judged, ..." (every format)."""
    counts = report.coverage()
    total = sum(counts.values())
    parts = [ngettext("{count} does not apply here", "{count} do not apply here", counts["not_applicable"]).format(
        count=counts["not_applicable"])] if counts["not_applicable"] else []
    if counts["not_judged"]:
        parts.append(ngettext("{count} could not be judged", "{count} could not be judged", counts["not_judged"]
                              ).format(count=counts["not_judged"]))
    if counts["not_asked"]:
        flags = sorted({PRECONDITION_FLAGS.get(str(r.evidence.get("precondition")), "").split(" ")[0]
                        for r in report.results if not_asked_for(r)} - {""})
        parts.append(ngettext("{count} needs an input not given{flags}", "{count} need an input not given{flags}",
                              counts["not_asked"]).format(count=counts["not_asked"],
                                                          flags=joiner("open") + ", ".join(flags) + joiner("close")
                                                          if flags else ""))
    head = ngettext("Judged {judged} of {total} check", "Judged {judged} of {total} checks", total).format(
        judged=counts["judged"], total=total)
    return head + (joiner("colon") + joiner("semicolon").join(parts) if parts else "") + joiner("stop")


def questions(report: Report) -> List[str]:
    """For pasted text and snapshots: the commands to ask for so that more checks can judge."""
    from ascend_doctor.coverage import what_to_ask_for

    host = report.host or {}
    return what_to_ask_for(report.results, host.get("source"), report.facts or {}, host.get("arch"))


def verdict(report: Report) -> str:
    """The verdict in the current language."""
    return _(verdict_key(report))


def summary_parts(report: Report) -> List[Tuple[str, int]]:
    """(status, count) in the order the text summary prints them; INFO only when present."""
    counts = report.summary()
    order = (Status.FAIL, Status.WARN, Status.ERROR, Status.INFO, Status.PASS, Status.SKIP)
    return [(s.value, counts.get(s.value, 0)) for s in order if s is not Status.INFO or counts.get(s.value)]


def run_header(report: Report) -> List[Tuple[str, str]]:
    """Label/value pairs every format prints: tool, matrix, run time, host."""
    matrix = report.matrix or {}
    host = report.host or {}
    rows: List[Tuple[str, str]] = [("ascend-doctor", one_line(report.tool_version))]
    matrix_text = one_line(matrix.get("version") or "?")
    if matrix.get("date"):
        matrix_text += f" ({one_line(matrix['date'])})"
    if matrix.get("origin"):
        matrix_text += f", {one_line(matrix['origin'])}"
    rows.append((_("compatibility matrix"), matrix_text))
    rows.append((_("run at"), one_line(report.started_at or "?")))
    where = one_line(host.get("hostname") or "?")
    details = [one_line(v) for v in (host.get("arch"), host.get("os")) if v]
    if details:
        where += f" ({', '.join(details)})"
    rows.append((_("host"), where))
    if host.get("source") == "snapshot":
        snap = _("snapshot")
        if host.get("origin"):
            snap += f" {one_line(host['origin'])}"
        if host.get("captured_at"):
            snap += _(", captured {time}").format(time=one_line(host["captured_at"]))
        rows.append((_("checked from"), snap))
    return rows


def facts_parts(report: Report) -> List[str]:
    """The machine in one line: chips, npu-smi, driver, firmware, CANN, torch..."""
    facts = report.facts or {}
    parts: List[str] = []
    chip = facts.get("chip") if isinstance(facts.get("chip"), dict) else None
    if chip:
        count = chip.get("chip_count")
        parts.append(f"{one_line(count)}× {one_line(chip.get('name'))}" if count else one_line(chip.get("name")))
    for key, label in (("npu_smi_version", "npu-smi"), ("driver_version", N_("driver")),
                       ("firmware_version", N_("firmware"))):
        if facts.get(key):
            parts.append(f"{_(label)} {one_line(facts[key])}")
    cann = [c for c in facts.get("cann") or [] if isinstance(c, dict) and c.get("kind") == "toolkit"]
    if cann:
        parts.append("CANN " + ", ".join(one_line(c.get("version")) for c in cann))
    python = facts.get("python") if isinstance(facts.get("python"), dict) else None
    if python:
        if python.get("version"):
            parts.append(f"Python {one_line(python['version'])}")
        packages = python.get("packages") if isinstance(python.get("packages"), dict) else {}
        for name in ("torch", "torch-npu", "vllm-ascend", "mindie"):
            if packages.get(name):
                parts.append(f"{name} {one_line(packages[name])}")
    return parts


def devices(report: Report) -> List[Dict[str, Any]]:
    """The device records of the report's facts (malformed entries left out)."""
    found = (report.facts or {}).get("devices") or []
    return [d for d in found if isinstance(d, dict)] if isinstance(found, list) else []


def nodes(report: Report) -> List[Dict[str, Any]]:
    """The per-node table of a fleet report (facts.nodes; malformed entries left out)."""
    found = (report.facts or {}).get("nodes") or []
    return [n for n in found if isinstance(n, dict)] if isinstance(found, list) else []


def node_row(node: Dict[str, Any]) -> Tuple[str, str, str, str, str, str]:
    """(node, devices, health, verdict, differs from the fleet in, worst finding) of one fleet node."""
    devices_count = node.get("devices")
    worst = node.get("worst") if isinstance(node.get("worst"), dict) else None
    if node.get("error"):
        finding = one_line(node["error"])
    elif worst:
        scope = f" [{one_line(worst.get('scope'))}]" if worst.get("scope") else ""
        finding = f"{one_line(worst.get('status'))} {one_line(worst.get('id'))}{scope}: {one_line(worst.get('title'))}"
    else:
        finding = "-"
    differs = node.get("differs")
    listed = ", ".join(one_line(d) for d in differs) if isinstance(differs, list) else ""
    return (one_line(node.get("name") or "?"), one_line(devices_count) if devices_count is not None else "?",
            one_line(node.get("health") or "?"), one_line(node.get("verdict") or "?"), listed or "-", finding)


def number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def memory_of(device: Dict[str, Any]) -> Tuple[Optional[float], Optional[float], str]:
    """(used MB, total MB, label): HBM when the card has it, else the DDR memory (310P)."""
    used, total = number(device.get("hbm_used_mb")), number(device.get("hbm_total_mb"))
    if total:
        return used, total, "HBM"
    used, total = number(device.get("memory_used_mb")), number(device.get("memory_total_mb"))
    return used, total, _("Memory")


def device_label(device: Dict[str, Any]) -> str:
    label = f"NPU {clean(device.get('npu_id', '?'))}"
    if device.get("chip_id") not in (None, 0) or device.get("chip_phy_id") is not None:
        label += " " + _("chip {chip}").format(chip=clean(device.get("chip_id")))
    return label


def split_remediation(result: Result) -> Tuple[List[str], List[str]]:
    """(prose lines, commands) of a finding's fix, for formats that give commands a copy button or
    a fence. A remediation indents its commands (the text report prints it as it is); every other
    line is prose, kept out of the block so that a copied block is a shell script. The commands are
    the remediation's own, never its fix actions': the plan may have chosen another version."""
    lines = clean(result.remediation).split("\n") if result.remediation else []
    commands = [line.strip() for line in lines if line[:1].isspace() and line.strip()]
    prose = [line.strip() for line in lines if line.strip() and not line[:1].isspace()]
    return prose, commands


def start_with(report: Report) -> Optional[Result]:
    """The finding every format names first: the root cause, else what step 1 of the plan fixes."""
    from ascend_doctor.rootcause import find_root_cause
    from ascend_doctor.rootcause import start_with as first

    return first(report, find_root_cause(report))


def root_cause_sentence(report: Report) -> Tuple[str, Tuple[str, ...]]:
    """(the one sentence a report opens with, the findings it explains), or ("", ())."""
    from ascend_doctor.rootcause import find_root_cause

    cause = find_root_cause(report)
    return (cause.sentence(report), cause.follows) if cause is not None else ("", ())
