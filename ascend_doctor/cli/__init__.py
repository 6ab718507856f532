"""The ``ascend-doctor`` command line.

Subcommands live in their own modules and are imported only when used, so that
``ascend-doctor --version`` and ``check`` start fast (see bench/).
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, List, Optional, Tuple

import click

from ascend_doctor.cli._localize import (
    add_lang_option,
    lang_option,
    localize_command,
    start_language,
)
from ascend_doctor.i18n import gettext as _

# name -> (module, attribute, one-line help shown in `ascend-doctor --help`)
SUBCOMMANDS: Dict[str, Tuple[str, str, str]] = {
    "check": ("ascend_doctor.cli.check_cmd", "check", "Grade this machine (or a snapshot) for Ascend deployment."),
    "checks": ("ascend_doctor.cli.catalogue_cmd", "checks", "List every check with its id and title."),
    "explain": ("ascend_doctor.cli.catalogue_cmd", "explain", "Print what a check verifies, why, and how to fix it."),
    "fleet": ("ascend_doctor.cli.fleet_cmd", "fleet", "Merge many nodes' reports: one verdict, the odd node out."),
    "snapshot": ("ascend_doctor.cli.snapshot_cmd", "snapshot", "Capture this machine into a snapshot for support."),
    "matrix": ("ascend_doctor.cli.matrix_cmd", "matrix", "Query, validate and update the compatibility matrix."),
    "diagnose": ("ascend_doctor.cli.diagnose_cmd", "diagnose", "Explain the Ascend errors found in a log or paste."),
    "model": ("ascend_doctor.cli.model_cmd", "model", "Inspect model weights and write/verify manifests."),
    "plan": ("ascend_doctor.cli.plan_cmd", "plan", "Will this model fit, and on how many cards?"),
    "probe": ("ascend_doctor.cli.probe_cmd", "probe", "Grade a serving vLLM/MindIE endpoint: latency, throughput, R1."),
    "report": ("ascend_doctor.cli.report_cmd", "report", "Show a saved JSON report in any format, or diff two."),
    "watch": ("ascend_doctor.cli.watch_cmd", "watch", "Watch the NPUs live; alert on heat, full HBM, idling, leaks."),
}


class LazyGroup(click.Group):
    def make_context(self, info_name: Optional[str], args: List[str], parent: Optional[click.Context] = None,
                     **extra: Any) -> click.Context:
        # The language is known before anything is parsed or printed (--lang anywhere, else the locale).
        start_language(args)
        localize_command(self)  # --help in the chosen language (click's own in English)
        return super().make_context(info_name, args, parent=parent, **extra)

    def list_commands(self, ctx: click.Context) -> List[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Optional[click.Command]:
        entry = SUBCOMMANDS.get(cmd_name)
        if entry is None:
            return None
        module_name, attr, _short = entry
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:  # a missing optional piece must not break the whole CLI
            raise click.ClickException(_("command {name} is unavailable: {error}").format(
                name=repr(cmd_name), error=exc)) from exc
        command: click.Command = getattr(module, attr)
        add_lang_option(command)
        localize_command(command)
        from ascend_doctor import collector

        collector.resume()  # the garbage collector runs again (paused by the console script)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        # Ctrl-C/SIGTERM -> exit 130/143 with children killed; a closed stdout pipe is not an error.
        from ascend_doctor.cli._runtime import command_runtime

        with command_runtime():
            try:
                return super().invoke(ctx)
            except click.ClickException as exc:  # a static usage error reads in the chosen language
                setattr(exc, "message", _(exc.message))  # noqa: B010 - click >= 8.2 types it Final
                raise

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help comes from the table, so --help does not import every subcommand.
        rows = [(name, _(SUBCOMMANDS[name][2])) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _print_version(ctx: click.Context, _param: Any, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from ascend_doctor.versioninfo import version_line  # shared with the console script's fast path

    click.echo(version_line())
    ctx.exit(0)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Print the tool and matrix versions and exit.")
@lang_option
def main() -> None:
    """Is this Ascend NPU server ready for DeepSeek? If not, what exactly is wrong?

    \b
    Examples:
      ascend-doctor check                       # grade this machine
      ascend-doctor check --format json -o r.json
      ascend-doctor check --from snap.tar.gz    # replay a customer's snapshot
      ascend-doctor explain ASC-DRV-001
    """
