"""The report as one self-contained HTML page: open it from a ticket or a mail, no network.

Summary, a card per device (health, temperature, power, an HBM bar), the findings with their
fixes and copy buttons, the fix plan, then what passed. Everything is inline: no external
stylesheet, script, font or image. A Content-Security-Policy allows nothing but this page's own
style and script (by hash), so even a report that reached the page unescaped could not run code
or fetch anything. All text from the report is HTML-escaped.
"""

from __future__ import annotations

import base64
import hashlib
import json
from html import escape as _escape
from typing import Dict, List, Optional

from ascend_doctor.checkapi import Status
from ascend_doctor.i18n import N_, get_language
from ascend_doctor.i18n import gettext as _
from ascend_doctor.render.common import (
    area_of,
    area_title,
    clean,
    coverage_sentence,
    device_label,
    devices,
    facts_parts,
    findings,
    folded_line,
    memory_of,
    number,
    questions,
    quiet_results,
    result_name,
    root_cause_sentence,
    run_header,
    split_remediation,
    start_with,
    summary_parts,
    verdict,
    verdict_key,
    where_label,
)
from ascend_doctor.report import Report, Result

# The check whose verdict colours an NPU's memory bar (render knows no checks: only this id).
MEMORY_CHECK = "ASC-DEV-003"

STYLE = """
:root { --fail: #c62828; --error: #8e24aa; --warn: #ef6c00; --info: #1565c0; --pass: #2e7d32;
        --skip: #757575; --line: #d0d7de; --muted: #57606a; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang SC", "Hiragino Sans GB",
       "Microsoft YaHei", "Noto Sans CJK SC", "Source Han Sans SC", "WenQuanYi Micro Hei", sans-serif;
       margin: 0 auto; max-width: 1100px; padding: 24px; color: #1f2328; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 32px; }
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 16px; margin: 8px 0;
          color: var(--muted); }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.msg, .prose, .note, .cause, .machine, .coverage, .fixes, td { overflow-wrap: anywhere; }
.verdict { display: inline-block; font-weight: 700; padding: 4px 12px; border-radius: 6px; color: #fff; }
.verdict-READY { background: var(--pass); }
.verdict-NOT-READY { background: var(--fail); }
.verdict-INCOMPLETE, .verdict-NOT-ENOUGH-TO-JUDGE { background: var(--error); }
.cause { border-left: 4px solid var(--fail); padding: 4px 12px; background: #ffebee; margin: 8px 0; font-weight: 600; }
.follows { color: var(--muted); font-weight: 400; }
.counts { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0; }
.badge { display: inline-block; min-width: 52px; text-align: center; font-weight: 700; font-size: 12px;
         padding: 2px 8px; border-radius: 10px; color: #fff; }
.s-FAIL { background: var(--fail); } .s-ERROR { background: var(--error); } .s-WARN { background: var(--warn); }
.s-INFO { background: var(--info); } .s-PASS { background: var(--pass); } .s-SKIP { background: var(--skip); }
.machine { background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.note { border-left: 4px solid var(--warn); padding: 4px 12px; background: #fff8e1; margin: 8px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 230px), 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; min-width: 0; }
.card h3 { margin: 0 0 6px; font-size: 15px; display: flex; flex-wrap: wrap; justify-content: space-between;
           gap: 0 8px; }
.card h3 > span { min-width: 0; overflow-wrap: anywhere; }
.card .name { color: var(--muted); font-weight: 400; }
.card dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 0 10px; margin: 0; }
.card dt { color: var(--muted); } .card dd { margin: 0; text-align: right; min-width: 0; overflow-wrap: anywhere; }
.health-ok { color: var(--pass); font-weight: 700; } .health-warn { color: var(--warn); font-weight: 700; }
.health-bad { color: var(--fail); font-weight: 700; }
meter { display: block; width: 100%; height: 14px; margin-top: 6px; }
meter::-webkit-meter-bar { background: #eaeef2; border: 0; border-radius: 3px; }
meter::-webkit-meter-optimum-value { background: var(--skip); }
meter.v-PASS::-webkit-meter-optimum-value { background: var(--pass); }
meter.v-WARN::-webkit-meter-optimum-value { background: var(--warn); }
meter.v-FAIL::-webkit-meter-optimum-value { background: var(--fail); }
meter::-moz-meter-bar { background: var(--skip); } meter.v-PASS::-moz-meter-bar { background: var(--pass); }
meter.v-WARN::-moz-meter-bar { background: var(--warn); } meter.v-FAIL::-moz-meter-bar { background: var(--fail); }
.finding { border: 1px solid var(--line); border-left-width: 6px; border-radius: 6px; padding: 10px 14px;
           margin: 12px 0; }
.finding.FAIL { border-left-color: var(--fail); } .finding.ERROR { border-left-color: var(--error); }
.finding.WARN { border-left-color: var(--warn); } .finding.INFO { border-left-color: var(--info); }
.finding h3 { margin: 0 0 6px; font-size: 15px; }
.finding .id { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.area { color: var(--muted); font-size: 12px; }
.msg { white-space: pre-wrap; margin: 4px 0 8px; }
.code { display: flex; flex-direction: column; margin: 6px 0; }
.code .bar { display: flex; justify-content: flex-end; align-items: center; gap: 8px; margin-bottom: 2px; }
.code .where { color: var(--muted); font-size: 12px; margin-right: auto; }
.code pre { margin: 0; }
.prose p { margin: 2px 0; white-space: pre-wrap; }
pre { background: #0d1117; color: #e6edf3; padding: 10px 12px; border-radius: 6px; overflow-x: auto;
      margin: 6px 0; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, "Noto Sans Mono CJK SC",
      "Sarasa Mono SC", monospace; }
button.copy { display: none; }
html.js button.copy { display: inline-block; }
button.copy { font-size: 12px; padding: 1px 8px; cursor: pointer;
              border: 1px solid #8b949e; border-radius: 4px; background: #21262d; color: #e6edf3; }
.label { font-weight: 600; color: var(--muted); }
details pre.evidence { background: var(--bg); color: #1f2328; }
ol.plan > li { margin: 10px 0; }
.plan .where, .plan .fixes { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
""".strip()

SCRIPT = """
document.documentElement.classList.add('js');
document.querySelectorAll('button.copy').forEach(function (button) {
  button.addEventListener('click', function () {
    var target = document.getElementById(button.getAttribute('data-target'));
    if (!target) { return; }
    var text = target.textContent;
    function done() { button.textContent = 'Copied'; setTimeout(function () { button.textContent = 'Copy'; }, 1500); }
    function fallback() {
      var area = document.createElement('textarea');
      area.value = text; document.body.appendChild(area); area.select();
      try { document.execCommand('copy'); done(); } catch (e) { button.textContent = 'Select and copy'; }
      document.body.removeChild(area);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, fallback);
    } else { fallback(); }
  });
});
""".strip()


def esc(text: object) -> str:
    """HTML text or attribute value from untrusted text."""
    return _escape(clean(text), quote=True)


def _csp_hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def content_security_policy(script: str) -> str:
    return ("default-src 'none'; style-src " + _csp_hash(STYLE) + "; script-src " + _csp_hash(script)
            + "; img-src data:; base-uri 'none'; form-action 'none'")


CSP = content_security_policy(SCRIPT)


# The words SCRIPT writes on a copy button, longest first (each is replaced as a quoted JS literal).
_SCRIPT_WORDS = (N_("Select and copy"), N_("Copied"), N_("Copy"))


def page_script() -> str:
    """SCRIPT with its button words in the current language (unchanged in English)."""
    if get_language() == "en":
        return SCRIPT
    script = SCRIPT
    for word in _SCRIPT_WORDS:
        script = script.replace(f"'{word}'", json.dumps(_(word), ensure_ascii=True))
    return script


class _Page:
    def __init__(self) -> None:
        self.parts: List[str] = []
        self.blocks = 0

    def add(self, *html: str) -> None:
        self.parts.extend(html)

    def code(self, text: str, label: str = "", where: str = "") -> None:
        """A <pre> block of commands (nothing else: its copy button copies a shell script), the button
        on a bar above it so that it never covers a command."""
        self.blocks += 1
        block_id = f"code-{self.blocks}"
        place = f'<span class="where">{esc(where)}</span>' if where else ""
        self.add(f'<div class="code"><div class="bar">{place}<button type="button" class="copy" '
                 f'data-target="{block_id}" title="{esc(_("Copy to the clipboard"))}">{esc(label or _("Copy"))}'
                 f'</button></div><pre id="{block_id}">{esc(text.rstrip())}</pre></div>')


def report_to_html(report: Report) -> str:
    page = _Page()
    state = verdict(report)
    host = (report.host or {}).get("hostname") or "?"
    script = page_script()
    lang = "en" if get_language() == "en" else "zh-CN"
    page.add("<!DOCTYPE html>", f'<html lang="{lang}">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f'<meta http-equiv="Content-Security-Policy" content="{content_security_policy(script)}">',
             '<meta name="referrer" content="no-referrer">',
             f"<title>ascend-doctor: {esc(host)}: {esc(state)}</title>",
             f"<style>{STYLE}</style>", "</head>", "<body>")
    _header(page, report, state, host)
    _devices(page, report)
    _nodes(page, report)
    anchors = _findings(page, report)
    _charts(page, report)
    _fix_plan(page, report, anchors)
    _other_checks(page, report)
    page.add("<footer>" + _("Generated by ascend-doctor {version} with compatibility matrix {matrix}, run at "
                            "{time}. This page loads nothing from the network.").format(
        version=esc(report.tool_version), matrix=esc((report.matrix or {}).get("version") or "?"),
        time=esc(report.started_at or "?")) + "</footer>")
    page.add(f"<script>{script}</script>", "</body>", "</html>")
    return "\n".join(page.parts) + "\n"


def _header(page: _Page, report: Report, state: str, host: str) -> None:
    key = verdict_key(report)
    page.add("<header>", "<h1>" + _("ascend-doctor report: {host}").format(host=esc(host)) + "</h1>",
             f'<span class="verdict verdict-{key.replace(" ", "-")}">{esc(state)}</span>'
             ' <span class="label">' + _("exit code {code}").format(code=int(report.exit_code)) + "</span>",
             '<dl class="meta">')
    for label, value in run_header(report):
        page.add(f"<dt>{esc(label)}</dt><dd>{esc(value)}</dd>")
    page.add("</dl>", "</header>", '<section id="summary">', f"<h2>{esc(_('Summary'))}</h2>", '<div class="counts">')
    for status, count in summary_parts(report):
        page.add(f'<span class="badge s-{esc(status)}">{count} {esc(status)}</span>')
    page.add("</div>")
    parts = facts_parts(report)
    if parts:
        page.add(f'<div class="machine">{esc(" · ".join(parts))}</div>')
    sentence, follows = root_cause_sentence(report)
    if sentence:
        page.add(f'<div class="cause" id="root-cause">{esc(sentence)}'
                 + (f'<div class="follows">{esc(_("Follows from it: {names}").format(names=", ".join(follows)))}'
                    "</div>" if follows else "") + "</div>")
    first = start_with(report)
    if first is not None:
        page.add("<p><strong>" + _("Start with {id}").format(id=esc(first.id)) + "</strong>: "
                 f"{esc(first.title)}</p>")
    page.add(f'<p class="coverage">{esc(coverage_sentence(report))}</p>')
    asks = questions(report)
    if asks:
        page.add(f'<div class="label">{esc(_("To judge more, ask for the output of these commands:"))}</div>')
        page.code("\n".join(asks))
    for note in report.notes:
        page.add(f'<div class="note">{esc(note)}</div>')
    page.add("</section>")


def _health_class(health: str) -> str:
    value = health.strip().lower()
    if value == "ok":
        return "health-ok"
    if value in ("warning", "alarm", "general warning", "warn"):
        return "health-warn"
    return "health-bad"


def _devices(page: _Page, report: Report) -> None:
    found = devices(report)
    if not found:
        return
    memory = [r for r in report.results if r.id == MEMORY_CHECK]
    memory_verdicts = {str(r.scope): r.status.value for r in memory if r.scope}
    overall = next((r.status.value for r in memory if not r.scope), "none")
    page.add('<section id="devices">', "<h2>" + _("Devices ({count})").format(count=len(found)) + "</h2>",
             '<div class="cards">')
    for device in found:
        health = clean(device.get("health") or "?")
        page.add('<div class="card">',
                 f'<h3><span>{esc(device_label(device))} <span class="name">{esc(device.get("name") or "")}'
                 f'</span></span><span class="{_health_class(health)}">{esc(health)}</span></h3>', "<dl>")
        temp, power, aicore = (number(device.get(k)) for k in ("temp_c", "power_w", "aicore_pct"))
        page.add(f"<dt>{esc(_('Temperature'))}</dt><dd>{_fmt(temp, ' °C')}</dd>",
                 f"<dt>{esc(_('Power'))}</dt><dd>{_fmt(power, ' W')}</dd>",
                 f"<dt>AI Core</dt><dd>{_fmt(aicore, ' %')}</dd>")
        used, total, label = memory_of(device)
        if total:
            percent = f" ({100 * (used or 0) / total:.0f} %)"
            page.add(f'<dt>{esc(label)}</dt><dd>{_fmt(used, "")} / {_fmt(total, " MB")}{percent}</dd>')
        if device.get("bus_id"):
            page.add(f"<dt>{esc(_('Bus'))}</dt><dd>{esc(device['bus_id'])}</dd>")
        page.add("</dl>")
        if total:
            # The bar's colour is the verdict of the memory check on this NPU, not a threshold of its own.
            state = memory_verdicts.get(f"NPU {device.get('npu_id')} chip {device.get('chip_id')}", overall)
            page.add(f'<meter class="v-{state}" min="0" max="{total:g}" value="{(used or 0):g}" '
                     f'title="{esc(_("{memory} in use").format(memory=label))}">'
                     f"{_fmt(used, '')} / {_fmt(total, ' MB')}</meter>")
        page.add("</div>")
    page.add("</div>", "</section>")


def _nodes(page: _Page, report: Report) -> None:
    """A fleet report's nodes as a table (verdict coloured like a device's health)."""
    from ascend_doctor.render.common import node_row, nodes

    rows = [node_row(n) for n in nodes(report)]
    if not rows:
        return
    heads = (_("Node"), _("Devices"), _("Health"), _("Verdict"), _("Differs from the fleet in"), _("Worst finding"))
    page.add('<section id="nodes">', "<h2>" + esc(_("Nodes ({count})").format(count=len(rows))) + "</h2>",
             "<table>", "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in heads) + "</tr>")
    for name, devices_count, health, state, differs, worst in rows:
        verdict_class = "health-ok" if state == "READY" else "health-bad"
        page.add(f"<tr><td>{esc(name)}</td><td>{esc(devices_count)}</td>"
                 f'<td class="{_health_class(health)}">{esc(health)}</td>'
                 f'<td class="{verdict_class}">{esc(state)}</td><td>{esc(differs)}</td><td>{esc(worst)}</td></tr>')
    page.add("</table>", "</section>")


def _fmt(value: Optional[float], unit: str) -> str:
    if value is None:
        return "?"
    return esc(f"{value:g}{unit}")


def _findings(page: _Page, report: Report) -> Dict[str, str]:
    """Write the findings; return result name -> anchor for the fix plan's links."""
    chosen = findings(report)
    anchors: Dict[str, str] = {}
    page.add('<section id="findings">', "<h2>" + _("Findings ({count})").format(count=len(chosen)) + "</h2>")
    if not chosen:
        page.add(f"<p>{esc(_('No FAIL, ERROR, WARN or INFO results.'))}</p>")
    for number_, result in enumerate(chosen, 1):
        anchor = f"finding-{number_}"
        anchors.setdefault(result_name(result), anchor)
        _finding(page, result, anchor)
    page.add("</section>")
    return anchors


def _finding(page: _Page, result: Result, anchor: str) -> None:
    status = result.status.value
    page.add(f'<article class="finding {status}" id="{anchor}">',
             f'<h3><span class="badge s-{status}">{status}</span> <span class="id">{esc(result.id)}</span> '
             f"{esc(result.title)}" + (f' <span class="area">[{esc(result.scope)}]</span>' if result.scope else "")
             + f' <span class="area">{esc(area_title(area_of(result)))}</span></h3>',
             f'<div class="msg">{esc(result.message)}</div>')
    if result.remediation:
        prose, commands = split_remediation(result)
        page.add(f'<div class="label">{esc(_("Fix"))}</div>')
        if prose:
            page.add('<div class="prose">' + "".join(f"<p>{esc(line)}</p>" for line in prose) + "</div>")
        if commands:
            page.code("\n".join(commands))
    if result.evidence:
        lines = "\n".join(f"{k}: {clean(v)[:500]}" for k, v in result.evidence.items())
        page.add(f'<details><summary>{esc(_("Evidence"))}</summary><pre class="evidence">{esc(lines)}</pre>'
                 "</details>")
    page.add("</article>")


def _charts(page: _Page, report: Report) -> None:
    """Results that carry a chart (``evidence["chart"]``, shape in render/chart_svg.py), as inline SVG."""
    from ascend_doctor.render.chart_svg import chart_svg

    drawn = [(r, chart_svg(r.evidence.get("chart"))) for r in report.results if r.evidence.get("chart")]
    drawn = [(r, svg) for r, svg in drawn if svg]
    if not drawn:
        return
    page.add('<section id="charts">', f"<h2>{esc(_('Charts'))}</h2>")
    for result, svg in drawn:
        page.add(f"<h3>{esc(result_name(result))} {esc(result.title)}</h3>", svg)
    page.add("</section>")


def _fix_plan(page: _Page, report: Report, anchors: Dict[str, str]) -> None:
    if not report.fix_plan:
        return
    page.add('<section id="fix-plan">', f"<h2>{esc(_('Fix plan'))}</h2>",
             f"<p>{esc(_('Apply the steps in this order.'))}</p>", '<ol class="plan">')
    for step in report.fix_plan:
        where = where_label(step.where)
        page.add(f'<li value="{int(step.order)}"><strong>{esc(step.summary)}</strong>'
                 + (f' <span class="where">({esc(where)})</span>' if where else ""))
        if step.commands:
            page.code("\n".join(step.commands))
        if step.fixes:
            links = ", ".join(f'<a href="#{anchors[name]}">{esc(name)}</a>' if name in anchors else esc(name)
                              for name in step.fixes)
            page.add(f'<div class="fixes">{esc(_("fixes:"))} {links}</div>')
        if step.why:
            page.add(f'<div><span class="label">{esc(_("why:"))}</span> {esc(step.why)}</div>')
        if step.alternative:
            page.add(f'<div><span class="label">{esc(_("alternative:"))}</span> {esc(step.alternative)}</div>')
        page.add("</li>")
    page.add("</ol>", "</section>")


def _other_checks(page: _Page, report: Report) -> None:
    shown, folded = quiet_results(report)
    if not shown and not folded:
        return
    passed = sum(1 for r in shown if r.status is Status.PASS)
    skipped = len(shown) - passed + len(folded)  # as the summary counts them: every SKIP
    heads = "".join(f"<th>{esc(_(h))}</th>" for h in ("Status", "Check", "Title", "Result"))
    page.add('<section id="other">', f"<h2>{esc(_('Passed and skipped'))}</h2>",
             "<details><summary>" + esc(_("{passed} passed, {skipped} skipped").format(passed=passed, skipped=skipped))
             + "</summary>", f"<table><thead><tr>{heads}</tr></thead><tbody>")
    for result in shown:
        status = result.status.value
        page.add(f'<tr><td><span class="badge s-{status}">{status}</span></td>'
                 f'<td class="id">{esc(result_name(result))}</td><td>{esc(result.title)}</td>'
                 f'<td class="msg">{esc(result.message)}</td></tr>')
    page.add("</tbody></table></details>")
    if folded:
        page.add(f"<p>{esc(folded_line(folded))}</p>")
    page.add("</section>")
