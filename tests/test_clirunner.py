"""tests/clirunner.py gives the same three streams on click 8.1 (Python 3.9) and click 8.2+."""

from __future__ import annotations

import click

from .clirunner import make_runner


@click.command()
def _speaks_on_both_streams() -> None:
    click.echo("the report")
    click.echo("a warning", err=True)


def test_stdout_and_stderr_are_apart_and_output_has_both() -> None:
    result = make_runner().invoke(_speaks_on_both_streams, [])
    assert result.exit_code == 0
    assert result.stdout == "the report\n"
    assert result.stderr == "a warning\n"
    assert "the report" in result.output and "a warning" in result.output


def test_keyword_arguments_reach_click() -> None:
    @click.command()
    def shows_env() -> None:
        import os

        click.echo(os.environ.get("ASCEND_DOCTOR_TEST_VALUE", ""))

    result = make_runner(env={"ASCEND_DOCTOR_TEST_VALUE": "set"}).invoke(shows_env, [])
    assert result.stdout == "set\n"
