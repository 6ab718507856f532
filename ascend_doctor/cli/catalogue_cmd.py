"""``ascend-doctor checks`` and ``ascend-doctor explain``: the catalogue and its docs."""

from __future__ import annotations

import sys
from typing import Optional

import click

from ascend_doctor.cli._common import fail, output_options, write_output
from ascend_doctor.exitcodes import ExitCode
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
    from ascend_doctor.render.catalogue import render_checks

    catalogue, problems = load_catalogue()
    for problem in problems:
        click.echo(f"ascend-doctor: warning: {problem}", err=True)
    write_output(render_checks(catalogue, fmt), output)
    if problems:  # a module that did not load: the list is incomplete, in every format
        sys.exit(int(ExitCode.INCOMPLETE))


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
        fail(_("no check with id {id}").format(id=repr(check_id)) + hint, ExitCode.USAGE)
    from ascend_doctor.render.catalogue import render_explain

    write_output(render_explain(check.spec, fmt), output)
