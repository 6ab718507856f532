"""``matrix show|lookup|plan`` as text: rich tables, imported only when the text format is chosen.

Text is for a terminal: one table per section, with sources collected as numbered footnotes so
rows stay narrow. The JSON of the same results is ascend_doctor/render/matrix.py's.
"""

from __future__ import annotations

import io
import shutil
from typing import Any, Dict, List, Optional, Sequence, Tuple

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ascend_doctor.matrix.components import COMPONENTS
from ascend_doctor.matrix.lookup import LookupResult
from ascend_doctor.matrix.model import Matrix
from ascend_doctor.matrix.plan import StackPlan
from ascend_doctor.matrix.records import ChipFamily
from ascend_doctor.matrix.verdict import Verdict, VerdictKind

COLUMNS: Dict[str, Tuple[str, ...]] = {
    "hdk_releases": ("version", "note"),
    "cann_releases": ("version", "community", "prerelease", "note"),
    "hdk_cann": ("cann", "hdk", "verdict", "origin", "firmware", "flavor", "products"),
    "hdk_cann_lists": ("product", "cann", "hdk"),
    "hdk_cann_caveats": ("feature", "hdk", "cann", "message"),
    "release_codes": ("side", "version", "innerversion", "compatible_version", "compatible_version_fw"),
    "release_code_alignment": ("code", "cann", "hdk"),
    "firmware_releases": ("firmware", "hdk", "flavor", "compatible_version_drv"),
    "pta_releases": ("pta", "cann"),
    "torch_npu": ("version", "torch", "cann", "branch", "status", "origin"),
    "torch_npu_python": ("torch_npu", "python"),
    "torch_python": ("torch", "python"),
    "torch_npu_cann": ("pta", "cann", "verdict", "uncertain"),
    "torch_npu_runtime_map": ("cann", "torch_npu"),
    "torch_npu_hardware": ("families",),
    "vllm_ascend": ("version", "vllm", "python", "cann", "torch", "torch_npu", "triton_ascend", "mooncake", "status"),
    "vllm_ascend_builds": ("tags", "base_image", "torch", "torch_npu"),
    "vllm_ascend_notes": ("topic", "text"),
    "mindie": ("version", "cann", "hdk", "hdk_as_cann", "pta", "torch", "python"),
    "mindie_images": ("mindie", "family", "image"),
    "mindie_unconfirmed": ("version", "likely_cann"),
    "mindie_motor": ("version", "vllm_ascend", "vllm", "hdk", "mindcluster", "mooncake"),
    "mindspeed": ("version", "pta", "cann", "torch", "python"),
    "mindstudio": ("version", "cann"),
    "mindspore": ("version", "cann"),
    "chip_families": ("family", "description", "dtypes", "engines", "hdk_package", "kernels_package"),
    "chips": ("name", "family", "soc_version", "memory_mb", "aliases"),
    "snapshots": ("repo", "commit", "date"),
    "package_conventions": ("topic", "template", "aarch64", "x86_64", "cann"),
    "hdk_packages": ("family", "hdk", "driver", "firmware"),
    "pip_indexes": ("use", "url", "after"),
    "pypi_releases": ("package", "queried", "versions"),
    "gaps": ("topic", "text"),
}

INFERENCE_NOTE = "inference from release codes"
LEGEND_INFERRED = ("  (inferred) = from the packages' release codes (Innerversion / compatible_version), not from "
                   "a published pairing")
LEGEND_UNCERTAIN = ("  (uncertain) = the source's own wording leaves open whether it means \"runs with\"; checks "
                    "grade it WARN, not PASS")

VERDICT_STYLE = {
    VerdictKind.RECOMMENDED: "bold green",
    VerdictKind.COMPATIBLE: "green",
    VerdictKind.INCOMPATIBLE: "bold red",
    VerdictKind.UNKNOWN: "yellow",
}


# -- text helpers -----------------------------------------------------------------------------

def console(width: Optional[int] = None) -> Tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    if width is None:
        width = shutil.get_terminal_size((120, 40)).columns
    # plain text: the result may go to a file (-o) or a pipe; styles are dropped, layout is kept
    con = Console(file=buffer, width=max(60, width), no_color=True, highlight=False, emoji=False,
                  soft_wrap=False, color_system=None)
    return con, buffer


class Footnotes:
    """Numbers each distinct source once: ``[3]`` in a cell, the URL below the table."""

    def __init__(self) -> None:
        self.items: List[str] = []

    def ref(self, sources: Sequence[str]) -> str:
        refs = []
        for source in sources:
            if source not in self.items:
                self.items.append(source)
            refs.append(str(self.items.index(source) + 1))
        return "[" + ",".join(refs) + "]" if refs else ""

    def render(self, con: Console) -> None:
        for index, source in enumerate(self.items, 1):
            con.print(Text(f"  [{index}] {source}", style="dim"), soft_wrap=True)


def header(m: Matrix) -> Text:
    return Text(f"compatibility matrix {m.version} ({m.date}, {m.origin})", style="bold")


def _cell(value: Any) -> str:
    if value is None or value == () or value == {}:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (list, tuple)):
        return ", ".join(_cell(v) for v in value)
    return str(value)


def _family_cell(row: ChipFamily, column: str) -> str:
    if column == "dtypes":
        marks = {True: "yes", False: "no", "partial": "partial", None: "?"}
        return ", ".join(f"{k} {marks.get(v.supported, '?')}" for k, v in row.dtypes.items())
    if column == "engines":
        return ", ".join(f"{k}: {v.support}" for k, v in row.engines.items())
    if column == "kernels_package" and row.kernels_package is not None:
        pkg = row.kernels_package
        return " / ".join(p for p in (pkg.noarch, pkg.legacy, pkg.ops) if p)
    if column == "hdk_package" and row.hdk_package is not None:
        return f"{row.hdk_package.driver} / {row.hdk_package.firmware}"
    return _cell(getattr(row, column))


def show_to_text(m: Matrix, sections: Optional[Sequence[str]], width: Optional[int] = None) -> str:
    con, buffer = console(width)
    con.print(header(m), soft_wrap=True)
    for warning in m.warnings:
        con.print(Text(f"warning: {warning}", style="yellow"), soft_wrap=True)
    if sections is None:
        table = Table(title="components (ascend-doctor matrix show COMPONENT)", title_justify="left")
        for col in ("component", "rows", "what"):
            table.add_column(col)
        for name, (secs, desc) in COMPONENTS.items():
            table.add_row(name, str(sum(len(m.sections.get(s, [])) for s in secs)), desc)
        con.print(table)
        con.print(Text("Sections can be named directly too (e.g. torch_npu, hdk_cann); `all` shows everything.",
                       style="dim"))
        return buffer.getvalue()
    for section in sections:
        rows = m.sections.get(section, [])
        notes = Footnotes()
        table = Table(title=f"{section} ({len(rows)} rows)", title_justify="left", show_lines=False)
        columns = COLUMNS.get(section, ("source",))
        for col in columns:
            table.add_column(col, overflow="fold")
        table.add_column("note", overflow="fold")
        table.add_column("src", no_wrap=True)
        for row in rows:
            cells = [_family_cell(row, c) if isinstance(row, ChipFamily) else _cell(getattr(row, c, None))
                     for c in columns]
            note = getattr(row, "note", None)
            cells.append(_cell(note) if "note" not in columns else "")
            cells.append(notes.ref(getattr(row, "source", ())))
            table.add_row(*[Text(c) for c in cells])
        con.print(table)
        notes.render(con)
        con.print()
    return buffer.getvalue()


def _verdict_text(verdict: Verdict) -> Text:
    return Text(verdict.label, style=VERDICT_STYLE[verdict.kind])


def lookup_to_text(m: Matrix, results: Sequence[LookupResult], width: Optional[int] = None) -> str:
    con, buffer = console(width)
    con.print(header(m), soft_wrap=True)
    for warning in m.warnings:
        con.print(Text(f"warning: {warning}", style="yellow"), soft_wrap=True)
    for result in results:
        con.print()
        con.print(Text(result.subject, style="bold underline"), soft_wrap=True)
        for name, value in result.facts:
            con.print(Text(f"  {name}: {value}"), soft_wrap=True)
        if not result.answers:
            if result.found:
                con.print(Text("  the matrix pairs nothing with it", style="yellow"), soft_wrap=True)
            continue
        notes = Footnotes()
        table = Table(show_header=True, box=None, pad_edge=False)
        for col in ("component", "version", "verdict", "why", "src"):
            table.add_column(col, overflow="fold", no_wrap=col in ("verdict", "src"))
        for answer in result.answers:
            why = answer.verdict.message
            notes_shown = [n for n in answer.verdict.notes if not n.startswith(INFERENCE_NOTE)]
            if notes_shown:
                why += "  (" + "; ".join(notes_shown) + ")"
            table.add_row(Text(answer.component), Text(answer.version), _verdict_text(answer.verdict), Text(why),
                          Text(notes.ref(answer.verdict.sources)))
        con.print(table)
        notes.render(con)
        if any(a.verdict.inferred for a in result.answers):
            con.print(Text(LEGEND_INFERRED, style="dim"), soft_wrap=True)
        if any(a.verdict.uncertain for a in result.answers):
            con.print(Text(LEGEND_UNCERTAIN, style="dim"), soft_wrap=True)
    return buffer.getvalue()


def plan_to_text(m: Matrix, plan: StackPlan, width: Optional[int] = None) -> str:
    con, buffer = console(width)
    con.print(header(m), soft_wrap=True)
    fixed = ", ".join(f"{k}={v}" for k, v in plan.fixed.items()) or "nothing fixed"
    title = f"Plan for {plan.chip} ({plan.family}) with {plan.engine} ({fixed})"
    con.print(Text(title, style="bold underline"), soft_wrap=True)
    if len(plan.arches) > 1:
        con.print(Text(f"package names for {' and '.join(plan.arches)} (pass --arch to print one)", style="dim"),
                  soft_wrap=True)
    else:
        con.print(Text(f"package names for {plan.arches[0]}", style="dim"), soft_wrap=True)
    versions = Table(box=None, show_header=False, pad_edge=False)
    versions.add_column("part", style="bold")
    versions.add_column("version", overflow="fold")
    for part, version in plan.versions.items():
        versions.add_row(part, version)
    con.print(versions)
    con.print()
    con.print(Text("Install order", style="bold"), soft_wrap=True)
    for index, step in enumerate(plan.steps, 1):
        con.print(Text(f"{index}. {step.title}"), soft_wrap=True)
        for command in step.commands:
            con.print(Text(f"     {command}"), soft_wrap=True)
        if step.note:
            con.print(Text(f"     ({step.note})", style="dim"), soft_wrap=True)
    con.print()
    con.print(Text("Why these versions", style="bold"), soft_wrap=True)
    notes = Footnotes()
    table = Table(box=None, pad_edge=False)
    for col in ("pair", "verdict", "why", "src"):
        table.add_column(col, overflow="fold", no_wrap=col in ("verdict", "src"))
    for name, verdict in plan.pairings:
        table.add_row(Text(name), _verdict_text(verdict), Text(verdict.message), Text(notes.ref(verdict.sources)))
    con.print(table)
    notes.render(con)
    if any(v.inferred for _, v in plan.pairings):
        con.print(Text(LEGEND_INFERRED, style="dim"), soft_wrap=True)
    if plan.notes:
        con.print()
        con.print(Text("Notes", style="bold"), soft_wrap=True)
        for note in plan.notes:
            con.print(Text(f"  - {note}"), soft_wrap=True)
    if plan.skipped:
        con.print()
        con.print(Text(f"Higher releases that did not fit ({len(plan.skipped)}):", style="bold"), soft_wrap=True)
        for line in plan.skipped[:8]:
            con.print(Text(f"  - {line}", style="dim"), soft_wrap=True)
        if len(plan.skipped) > 8:
            more = len(plan.skipped) - 8
            con.print(Text(f"  … and {more} more (--format json lists all)", style="dim"), soft_wrap=True)
    return buffer.getvalue()
