"""``matrix show|lookup|plan`` as text.

One table per section, with sources collected as numbered footnotes so rows stay narrow. The JSON
of the same results is ascend_doctor/render/matrix.py's. The lines and the borderless tables of
lookup and plan are written without importing rich (render/lines.py: a plain table of our own, one
line a row); ``show``'s bordered tables are rich's.
"""

from __future__ import annotations

import io
import os
import sys
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ascend_doctor.i18n import N_
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n_text import localized
from ascend_doctor.matrix.pairs import LABELS
from ascend_doctor.matrix.records import ChipFamily
from ascend_doctor.matrix.verdict import Verdict, VerdictKind
from ascend_doctor.render.lines import Console, Table, Text, print_table

if TYPE_CHECKING:
    from ascend_doctor.matrix.lookup import LookupResult
    from ascend_doctor.matrix.model import Matrix
    from ascend_doctor.matrix.pairs import PairAnswer
    from ascend_doctor.matrix.plan import StackPlan

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
    "mindie_turbo": ("version", "cann", "vllm_ascend", "vllm", "pta"),
    "plugin_wheels": ("dist", "records", "example"),
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
LEGEND_INFERRED = N_("(inferred) = from the packages' release codes (Innerversion / compatible_version), not from "
                     "a published pairing")
LEGEND_UNCERTAIN = N_("(uncertain) = the source's own wording leaves open whether it means \"runs with\"; checks "
                      "grade it WARN, not PASS")
# Verdict words and column headings as shown (the JSON keeps the English values).
VERDICT_WORDS = {"recommended": N_("recommended"), "compatible": N_("compatible"), "incompatible": N_("incompatible"),
                 "unknown": N_("unknown")}
HEADINGS = {"component": N_("component"), "rows": N_("rows"), "what": N_("what"), "version": N_("version"),
            "verdict": N_("verdict"), "why": N_("why"), "src": N_("src"), "pair": N_("pair"), "note": N_("note")}


def _heading(name: str) -> str:
    return _(HEADINGS[name]) if name in HEADINGS else name

VERDICT_STYLE = {
    VerdictKind.RECOMMENDED: "bold green",
    VerdictKind.COMPATIBLE: "green",
    VerdictKind.INCOMPATIBLE: "bold red",
    VerdictKind.UNKNOWN: "yellow",
}


# -- text helpers -----------------------------------------------------------------------------

def translate_command(command: str) -> str:
    """A command line with its "# ..." comment in the current language (the command never)."""
    from ascend_doctor.i18n import convert_command, get_language

    return command if get_language() == "en" else convert_command(command, "en", get_language())


def terminal_columns() -> int:
    """``shutil.get_terminal_size((120, 40)).columns`` without importing shutil (which imports
    bz2, lzma and fnmatch): $COLUMNS when it is a positive number, else the width of the terminal
    on standard output, else 120. The one case whose answer differs between Python versions, a
    terminal that reports 0 columns, is left to shutil itself."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    stdout: Any = sys.__stdout__
    try:
        columns = os.get_terminal_size(stdout.fileno()).columns
    except (AttributeError, ValueError, OSError):  # no standard output, or not a terminal
        return 120
    if columns > 0:
        return columns
    import shutil

    return shutil.get_terminal_size((120, 40)).columns


def console(width: Optional[int] = None) -> Tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    if width is None:
        width = terminal_columns()
    width = max(60, width)

    def make_rich() -> Any:
        from rich.console import Console

        # plain text: the result may go to a file (-o) or a pipe; styles are dropped, layout is kept
        return Console(file=buffer, width=width, no_color=True, highlight=False, emoji=False, soft_wrap=False,
                       color_system=None)

    return Console(make_rich, buffer, width, plain=True), buffer


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
    return Text(_("compatibility matrix {version} ({date}, {origin})").format(version=m.version, date=m.date,
                                                                            origin=m.origin), style="bold")


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
    from rich.table import Table
    from rich.text import Text as RichText

    from ascend_doctor.matrix.components import COMPONENTS

    con, buffer = console(width)
    con.print(header(m), soft_wrap=True)
    for warning in m.warnings:
        con.print(Text(_("warning: {warning}").format(warning=localized(warning)), style="yellow"), soft_wrap=True)
    if sections is None:
        table = Table(title=_("components (ascend-doctor matrix show COMPONENT)"), title_justify="left")
        for col in ("component", "rows", "what"):
            table.add_column(_heading(col))
        for name, (secs, desc) in COMPONENTS.items():
            table.add_row(name, str(sum(len(m.sections.get(s, [])) for s in secs)), _(desc))
        con.rich.print(table)
        con.print(Text(_("Sections can be named directly too (e.g. torch_npu, hdk_cann); `all` shows everything."),
                       style="dim"))
        return buffer.getvalue()
    for section in sections:
        rows = m.sections.get(section, [])
        notes = Footnotes()
        table = Table(title=_("{section} ({count} rows)").format(section=section, count=len(rows)),
                      title_justify="left", show_lines=False)
        columns = COLUMNS.get(section, ("source",))
        for col in columns:
            table.add_column(col, overflow="fold")
        table.add_column(_heading("note"), overflow="fold")
        table.add_column(_heading("src"), no_wrap=True)
        for row in rows:
            cells = [_family_cell(row, c) if isinstance(row, ChipFamily) else _cell(getattr(row, c, None))
                     for c in columns]
            note = getattr(row, "note", None)
            cells.append(_cell(note) if "note" not in columns else "")
            cells.append(notes.ref(getattr(row, "source", ())))
            table.add_row(*[RichText(c) for c in cells])
        con.rich.print(table)
        notes.render(con)
        con.print()
    return buffer.getvalue()


def _verdict_text(verdict: Verdict) -> Text:
    word = _(VERDICT_WORDS.get(verdict.kind.value, verdict.kind.value))
    if verdict.uncertain:
        label = _("{verdict} (uncertain)").format(verdict=word)
    elif verdict.inferred:
        label = _("{verdict} (inferred)").format(verdict=word)
    else:
        label = word
    return Text(label, style=VERDICT_STYLE[verdict.kind])


def lookup_to_text(m: Matrix, results: Sequence[LookupResult], width: Optional[int] = None, *,
                   pairs: Sequence[PairAnswer] = (), verbose: bool = True) -> str:
    """With pairs (two or more versions asked about): their verdicts first; the tables of everything
    that goes with each version follow only with ``verbose``. A note repeated on several rows of a
    table is printed once, below it, and the rows point to it."""
    con, buffer = console(width)
    con.print(header(m), soft_wrap=True)
    for warning in m.warnings:
        con.print(Text(_("warning: {warning}").format(warning=localized(warning)), style="yellow"), soft_wrap=True)
    said: List[str] = []  # notes the pairs' answers printed: the tables point to them
    if pairs:
        said = _pairs_to_text(con, pairs)
        if not verbose:
            con.print()
            con.print(Text(_("Everything the matrix pairs with each version: -v (JSON: --format json)."),
                           style="dim"), soft_wrap=True)
            return buffer.getvalue()
    for result in results:
        con.print()
        con.print(Text(localized(result.subject), style="bold underline"), soft_wrap=True)
        for name, value in result.facts:
            con.print(Text(f"  {localized(name)}: {localized(value)}"), soft_wrap=True)
        if not result.answers:
            if result.found:
                con.print(Text("  " + _("the matrix pairs nothing with it"), style="yellow"), soft_wrap=True)
            continue
        notes = Footnotes()
        repeated = RepeatedNotes((localized(n) for a in result.answers for n in _notes_shown(a.verdict)), said)
        table = Table(show_header=True)
        for col in ("component", "version", "verdict", "why", "src"):
            table.add_column(_heading(col), no_wrap=col in ("verdict", "src"))
        for answer in result.answers:
            why = localized(answer.verdict.message)
            row_notes = repeated.refer([localized(n) for n in _notes_shown(answer.verdict)])
            if row_notes:
                why += "  (" + "; ".join(row_notes) + ")"
            table.add_row(Text(answer.component), Text(answer.version), _verdict_text(answer.verdict), Text(why),
                          Text(notes.ref(answer.verdict.sources)))
        print_table(con, buffer, table)
        notes.render(con)
        repeated.render(con)
        if any(a.verdict.inferred for a in result.answers):
            con.print(Text("  " + _(LEGEND_INFERRED), style="dim"), soft_wrap=True)
        if any(a.verdict.uncertain for a in result.answers):
            con.print(Text("  " + _(LEGEND_UNCERTAIN), style="dim"), soft_wrap=True)
    return buffer.getvalue()


def _notes_shown(verdict: Verdict) -> List[str]:
    return [n for n in verdict.notes if not n.startswith(INFERENCE_NOTE)]


class RepeatedNotes:
    """Notes that several rows of one table carry: lettered once below the table, the rows say ``note a``.
    A note only one row carries stays in that row."""

    def __init__(self, notes: Iterable[str], said_above: Sequence[str] = ()) -> None:
        counts: Dict[str, int] = {}
        for note in notes:
            counts[note] = counts.get(note, 0) + 1
        self.repeated = {note for note, count in counts.items() if count > 1}
        self.above = set(said_above)
        self.items: List[str] = []

    def refer(self, notes: Sequence[str]) -> List[str]:
        said = []
        for note in notes:
            if note in self.above:
                said.append(_("note above"))
                continue
            if note not in self.repeated:
                said.append(note)
                continue
            if note not in self.items:
                self.items.append(note)
            said.append(_("note {letter}").format(letter=_letter(self.items.index(note))))
        return said

    def render(self, con: Console) -> None:
        for index, note in enumerate(self.items):
            con.print(Text(f"  {_letter(index)}. {note}", style="dim"), soft_wrap=True)


def _letter(index: int) -> str:
    """a, b, ... z, then aa, ab ...: a note's name, apart from the sources' numbers."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[index] if index < len(letters) else letters[index // 26 - 1] + letters[index % 26]


def _pairs_to_text(con: Console, pairs: Sequence[PairAnswer]) -> List[str]:
    """``CANN 8.5.0 with driver 24.1.rc2.2: incompatible``, why, what is supported instead, the notes
    (each once) and the sources."""
    sources = Footnotes()
    said: List[str] = []
    for pair in pairs:
        verdict = pair.verdict
        (first, first_v), (second, second_v) = pair.first, pair.second
        subject = _("{first} {first_version} with {second} {second_version}").format(
            first=LABELS.get(first, first), first_version=first_v, second=LABELS.get(second, second),
            second_version=second_v)
        con.print()
        word = _verdict_text(verdict)
        con.print(Text(f"{subject}: ", style="bold").append(word.plain, VERDICT_STYLE[verdict.kind]), soft_wrap=True)
        ref = sources.ref(verdict.sources)
        con.print(Text(f"  {localized(verdict.message)}" + (f" {ref}" if ref else "")), soft_wrap=True)
        if pair.supported:
            con.print(Text("  " + _("{first} {version} is documented with driver {drivers}").format(
                first=LABELS.get(first, first), version=first_v, drivers=", ".join(pair.supported))), soft_wrap=True)
        if verdict.suggestion and not verdict.ok:
            first_line, *more = localized(verdict.suggestion).splitlines() or [""]
            con.print(Text("  " + _("instead: {suggestion}").format(suggestion=first_line)), soft_wrap=True)
            for text in more:  # a suggestion of several commands: one per line, under the first
                con.print(Text(f"    {text}"), soft_wrap=True)
        for note in _notes_shown(verdict):
            text = localized(note)
            if text in said:
                continue
            said.append(text)
            con.print(Text("  " + _("note: {note}").format(note=text), style="dim"), soft_wrap=True)
    if sources.items:
        con.print()
        sources.render(con)
    if any(p.verdict.inferred for p in pairs):
        con.print(Text("  " + _(LEGEND_INFERRED), style="dim"), soft_wrap=True)
    if any(p.verdict.uncertain for p in pairs):
        con.print(Text("  " + _(LEGEND_UNCERTAIN), style="dim"), soft_wrap=True)
    return said


def plan_to_text(m: Matrix, plan: StackPlan, width: Optional[int] = None) -> str:
    con, buffer = console(width)
    con.print(header(m), soft_wrap=True)
    fixed = ", ".join(f"{k}={v}" for k, v in plan.fixed.items()) or _("nothing fixed")
    title = _("Plan for {chip} ({family}) with {engine} ({fixed})").format(chip=plan.chip, family=plan.family,
                                                                          engine=plan.engine, fixed=fixed)
    con.print(Text(title, style="bold underline"), soft_wrap=True)
    if len(plan.arches) > 1:
        con.print(Text(_("package names for {arches} (pass --arch to print one)").format(
            arches=_(" and ").join(plan.arches)), style="dim"), soft_wrap=True)
    else:
        con.print(Text(_("package names for {arch}").format(arch=plan.arches[0]), style="dim"), soft_wrap=True)
    versions = Table(show_header=False)
    versions.add_column("part", style="bold")
    versions.add_column("version")
    for part, version in plan.versions.items():
        versions.add_row(part, version)
    print_table(con, buffer, versions)
    con.print()
    con.print(Text(_("Install order"), style="bold"), soft_wrap=True)
    for index, step in enumerate(plan.steps, 1):
        con.print(Text(f"{index}. {localized(step.title)}"), soft_wrap=True)
        for command in step.commands:  # a command as it is; the comment after it is read by people
            con.print(Text(f"     {translate_command(command)}"), soft_wrap=True)
        if step.note:
            con.print(Text(f"     ({localized(step.note)})", style="dim"), soft_wrap=True)
    con.print()
    con.print(Text(_("Why these versions"), style="bold"), soft_wrap=True)
    notes = Footnotes()
    table = Table()
    for col in ("pair", "verdict", "why", "src"):
        table.add_column(_heading(col), no_wrap=col in ("verdict", "src"))
    for name, verdict in plan.pairings:
        table.add_row(Text(name), _verdict_text(verdict), Text(localized(verdict.message)),
                      Text(notes.ref(verdict.sources)))
    print_table(con, buffer, table)
    notes.render(con)
    if any(v.inferred for _name, v in plan.pairings):
        con.print(Text("  " + _(LEGEND_INFERRED), style="dim"), soft_wrap=True)
    if plan.notes:
        con.print()
        con.print(Text(_("Notes"), style="bold"), soft_wrap=True)
        for note in plan.notes:
            con.print(Text(f"  - {localized(note)}"), soft_wrap=True)
    if plan.skipped:
        con.print()
        con.print(Text(_("Higher releases that did not fit ({count}):").format(count=len(plan.skipped)), style="bold"),
                  soft_wrap=True)
        for line in plan.skipped[:8]:
            con.print(Text(f"  - {localized(line)}", style="dim"), soft_wrap=True)
        if len(plan.skipped) > 8:
            more = len(plan.skipped) - 8
            con.print(Text("  " + _("… and {count} more (--format json lists all)").format(count=more), style="dim"),
                      soft_wrap=True)
    return buffer.getvalue()
