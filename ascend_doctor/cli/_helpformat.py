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
from ascend_doctor.i18n import N_, N_plural
from ascend_doctor.lazy import lazy_re

# Click's own words that appear in --help (click translates them with its own domain, which has
# no Chinese; these are looked up in ours).
CLICK_WORDS = (N_("Usage:"), N_("Options"), N_("Commands"), N_("Arguments"), N_("Show this message and exit."),
               N_("default:"), N_("required"), N_("env var:"))


# Click's own messages for a command line it cannot parse (click 8.x; it looks them up through
# module globals named _ and ngettext, pointed at our catalogue by localize_click_messages).
CLICK_MESSAGES = (
    N_("Error: {message}"), N_("Try '{command} {option}' for help."), N_("Invalid value: {message}"),
    N_("Invalid value for {param_hint}: {message}"), N_("Missing argument"), N_("Missing option"),
    N_("Missing parameter"), N_("Missing {param_type}"), N_("Missing parameter: {param_name}"),
    N_("No such option {name!r}."), N_("No such command {name!r}."), N_("Missing command."),
    N_("Could not open file {filename!r}: {message}"), N_("unknown error"), N_("Aborted!"),
    N_("Option {name!r} does not take a value."), N_("Argument {name!r} takes {nargs} values."),
    N_("{value} is not in the range {range}."), N_("{value!r} is not a valid {number_type}."),
    N_("{value!r} is not a valid boolean. Recognized values: {states}"),
    N_("{name} {filename!r} does not exist."), N_("{name} {filename!r} is a file."),
    N_("{name} {filename!r} is a directory."), N_("{name} {filename!r} is not readable."),
    N_("{name} {filename!r} is not writable."), N_("file"), N_("directory"), N_("path"),
)
CLICK_PLURALS = (
    N_plural("Did you mean {possibility}?", "(Did you mean one of: {possibilities}?)"),
    N_plural("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments."),
    N_plural("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})"),
    N_plural("{value!r} is not {choice}.", "{value!r} is not one of {choices}."),
    N_plural("Takes {nargs} values but 1 was given.", "Takes {nargs} values but {len} were given."),
)


def _click_gettext(message: str) -> str:
    return i18n.gettext(message)


def _click_ngettext(singular: str, plural: str, count: int) -> str:
    return i18n.ngettext(singular, plural, count)


def localize_click_messages() -> None:
    """click's parse errors ("No such option", "Missing option", "Try ... for help.") in the current
    language, looked up in our catalogue (a message it lacks stays click's English). In English our
    lookups return the text unchanged, so patching once is harmless for later English runs."""
    import click.core
    import click.exceptions
    import click.parser
    import click.types

    for module in (click.core, click.exceptions, click.parser, click.types):
        if getattr(module, "_", None) is not None:
            setattr(module, "_", _click_gettext)  # noqa: B010 - click's own module global
        if getattr(module, "ngettext", None) is not None:
            setattr(module, "ngettext", _click_ngettext)  # noqa: B010


class LocalizedHelpFormatter(click.HelpFormatter):
    """click's formatter with its framing words translated and Chinese wrapped by cell width.
    In English every method is click's own."""

    def write_usage(self, prog: str, args: str = "", prefix: Optional[str] = None) -> None:
        if prefix is None and i18n.get_language() != "en":
            prefix = i18n.labelled(i18n.gettext("Usage:"))
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


_EXTRA_RE = lazy_re(r"^(.*?)(\s*)\[([^\[\]]*)\]$", re.S)


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
            parts.append(i18n.labelled(i18n.gettext(label + ':')) + value)
        else:
            parts.append(i18n.gettext(part) if part in CLICK_WORDS else part)
    return f"{match.group(1)}{match.group(2)}[{i18n.joiner('semicolon').join(parts)}]"


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
