"""``ascend-doctor checks`` and ``ascend-doctor explain``: the catalogue and its docs."""

from __future__ import annotations

import sys
from typing import Optional

import click

from ascend_doctor.cli._common import dump_json, fail, output_options, write_output
from ascend_doctor.i18n import gettext as _


@click.command("checks")
@output_options
def checks(fmt: str, output: Optional[str]) -> None:
    """List every check: id, title and what it needs.

    \b
    Example:
      ascend-doctor checks
      ascend-doctor checks --format json
    """
    from ascend_doctor.registry import load_catalogue

    catalogue, problems = load_catalogue()
    for problem in problems:
        click.echo(f"ascend-doctor: warning: {problem}", err=True)
    # Check texts are English in checks/ and translated here, where they are shown (docs/i18n.md).
    if fmt == "json":
        write_output(dump_json([{"id": c.spec.id, "title": _(c.spec.title), "requires": list(c.spec.requires),
                                 "module": c.module} for c in catalogue]), output)
        return
    width = max((len(c.spec.id) for c in catalogue), default=10)
    needs = _("needs:")
    lines = [f"{c.spec.id:<{width}}  {_(c.spec.title)}" + (f"  ({needs} {', '.join(c.spec.requires)})"
                                                          if c.spec.requires else "") for c in catalogue]
    lines.append("\n" + _("{count} checks. `ascend-doctor explain ID` tells what one does and how to fix it.").format(
        count=len(catalogue)))
    write_output("\n".join(lines), output)
    if problems:
        sys.exit(3)


@click.command("explain")
@click.argument("check_id")
@output_options
def explain(check_id: str, fmt: str, output: Optional[str]) -> None:
    """Print what a check verifies, why it matters and how to fix what it reports.

    \b
    Example:
      ascend-doctor explain ASC-DRV-001
    """
    from ascend_doctor.registry import all_checks, find_check

    check = find_check(check_id)
    if check is None:
        close = [c.spec.id for c in all_checks() if c.spec.id.startswith(check_id.upper()[:7])]
        hint = (_(" (did you mean {ids}?)").format(ids=", ".join(close[:5])) if close
                else _(" (`ascend-doctor checks` lists them)"))
        fail(_("no check with id {id}").format(id=repr(check_id)) + hint, 2)
    spec = check.spec
    # The spec's English is the msgid: translated here, at the point of display.
    title, what, why, fix = _(spec.title), _(spec.what), _(spec.why), _(spec.fix)
    if fmt == "json":
        write_output(dump_json({"id": spec.id, "title": title, "what": what, "why": why,
                                "fix": fix, "requires": list(spec.requires)}), output)
        return
    text = (f"{spec.id}: {title}\n\n{_('What it checks')}\n  {_indent(what)}\n\n{_('Why it matters')}\n  "
            f"{_indent(why)}\n\n{_('How to fix')}\n  {_indent(fix)}\n")
    if spec.requires:
        text += "\n" + _("Runs when:") + f" {', '.join(spec.requires)}\n"
    write_output(text, output)


def _indent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip().replace("\n", "\n  ")
