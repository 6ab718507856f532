"""``ascend-doctor checks`` and ``ascend-doctor explain``: the catalogue and its docs."""

from __future__ import annotations

import sys
from typing import Optional

import click

from ascend_doctor.cli._common import dump_json, fail, output_options, write_output


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
    if fmt == "json":
        write_output(dump_json([{"id": c.spec.id, "title": c.spec.title, "requires": list(c.spec.requires),
                                 "module": c.module} for c in catalogue]), output)
        return
    width = max((len(c.spec.id) for c in catalogue), default=10)
    lines = [f"{c.spec.id:<{width}}  {c.spec.title}" + (f"  (needs: {', '.join(c.spec.requires)})"
                                                       if c.spec.requires else "") for c in catalogue]
    lines.append(f"\n{len(catalogue)} checks. `ascend-doctor explain ID` tells what one does and how to fix it.")
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
        hint = f" (did you mean {', '.join(close[:5])}?)" if close else " (`ascend-doctor checks` lists them)"
        fail(f"no check with id {check_id!r}{hint}", 2)
    spec = check.spec
    if fmt == "json":
        write_output(dump_json({"id": spec.id, "title": spec.title, "what": spec.what, "why": spec.why,
                                "fix": spec.fix, "requires": list(spec.requires)}), output)
        return
    text = (f"{spec.id}: {spec.title}\n\nWhat it checks\n  {_indent(spec.what)}\n\nWhy it matters\n  "
            f"{_indent(spec.why)}\n\nHow to fix\n  {_indent(spec.fix)}\n")
    if spec.requires:
        text += f"\nRuns when: {', '.join(spec.requires)}\n"
    write_output(text, output)


def _indent(text: str) -> str:
    import textwrap

    return textwrap.dedent(text).strip().replace("\n", "\n  ")
