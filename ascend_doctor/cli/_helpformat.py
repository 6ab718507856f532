"""``--help`` in another language than English: click's framing words (Usage, Options,
[default: ...], the --help line) translated, and Chinese wrapped by terminal cell width.

Imported only when a command is shown in another language (start-up cost, see bench/); in
English every method below is click's own.
"""

from __future__ import annotations

import re
from typing import Iterable, List, Optional, Tuple

import click

from ascend_doctor import i18n
from ascend_doctor.i18n import N_

# Click's own words that appear in --help (click translates them with its own domain, which has
# no Chinese; these are looked up in ours).
CLICK_WORDS = (N_("Usage:"), N_("Options"), N_("Commands"), N_("Arguments"), N_("Show this message and exit."),
               N_("default:"), N_("required"), N_("env var:"))


class LocalizedHelpFormatter(click.HelpFormatter):
    """click's formatter with its framing words translated and Chinese wrapped by cell width.
    In English every method is click's own."""

    def write_usage(self, prog: str, args: str = "", prefix: Optional[str] = None) -> None:
        if prefix is None and i18n.get_language() != "en":
            prefix = i18n.gettext("Usage:") + " "
        super().write_usage(prog, args, prefix)

    def write_heading(self, heading: str) -> None:
        super().write_heading(i18n.gettext(heading))

    def write_text(self, text: str) -> None:
        if i18n.get_language() == "en":
            super().write_text(text)
            return
        indent = " " * self.current_indent
        self.write("\n\n".join(_wrap_paragraphs(text, self.width - self.current_indent, indent)))
        self.write("\n")

    def write_dl(self, rows: Iterable[Tuple[str, str]], col_max: int = 30, col_spacing: int = 2) -> None:
        if i18n.get_language() == "en":
            super().write_dl(rows, col_max, col_spacing)
            return
        from ascend_doctor.widewrap import cell_width

        rows = [(first, _translate_dl_help(second)) for first, second in rows]
        first_col = min(max((cell_width(first) for first, _ in rows), default=0), col_max) + col_spacing
        for first, second in rows:
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if cell_width(first) <= first_col - col_spacing:
                self.write(" " * (first_col - cell_width(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            width = max(self.width - first_col - self.current_indent - 2, 10)
            lines = "\n\n".join(_wrap_paragraphs(second, width, "")).split("\n")
            self.write(lines[0] + "\n")
            for line in lines[1:]:
                self.write((f"{'':>{first_col + self.current_indent}}{line}" if line else "") + "\n")


class LocalizedContext(click.Context):
    formatter_class = LocalizedHelpFormatter


_EXTRA_RE = re.compile(r"^(.*?)(\s*)\[([^\[\]]*)\]$", re.S)


def _translate_dl_help(text: str) -> str:
    """An option's help column: the help itself was translated on the option; what click adds
    ("[default: 10; required]") and its own "--help" line are translated here."""
    whole = i18n.gettext(text)
    if whole != text:
        return whole
    match = _EXTRA_RE.match(text)
    if not match or (match.group(1) and len(match.group(2)) < 2):
        return text
    parts = []
    for part in match.group(3).split("; "):
        label, sep, value = part.partition(": ")
        if sep and label + ":" in CLICK_WORDS:
            parts.append(f"{i18n.gettext(label + ':')} {value}")
        else:
            parts.append(i18n.gettext(part) if part in CLICK_WORDS else part)
    return f"{match.group(1)}{match.group(2)}[{'; '.join(parts)}]"


def _wrap_paragraphs(text: str, width: int, indent: str) -> List[str]:
    """click's paragraph rules (blank-line separated; a paragraph opened by a ``\\b`` line is kept
    as written) with cell-width wrapping for the others."""
    from ascend_doctor.widewrap import join_lines, wrap

    out: List[str] = []
    for block in re.split(r"\n\s*\n", text.expandtabs().strip("\n")):
        lines = block.split("\n")
        if not lines:
            continue
        if lines[0].strip() == "\b":
            out.append("\n".join(indent + line for line in lines[1:]))
            continue
        extra = " " * (len(lines[0]) - len(lines[0].lstrip()))
        wrapped = wrap(join_lines(lines), max(width - len(extra), 10))
        out.append("\n".join(indent + extra + line for line in wrapped))
    return out
