"""A click test runner that captures stdout and stderr apart, whichever click is installed.

Python 3.9 gets click 8.1 (the last release for 3.9); newer Pythons get 8.2 or later. The two differ:

* click >= 8.2 always keeps the streams apart: ``result.stdout`` is stdout, ``result.stderr`` is stderr,
  and ``result.output`` is what a terminal would show (both, interleaved). ``mix_stderr`` is gone.
* click 8.1 mixes stderr into stdout by default, and ``result.stderr`` then raises "stderr not separately
  captured". With ``mix_stderr=False`` the streams are apart, but ``result.output`` is stdout alone.

``make_runner()`` gives the 8.2 behaviour on both, except that on 8.1 ``result.output`` is stdout followed
by stderr rather than the two interleaved: tests look for text in it, they do not depend on the order.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any

from click.testing import CliRunner, Result
from packaging.version import Version

# Asked of the installed distribution: click 8.2 deprecates ``click.__version__``.
_CLICK_SEPARATES_STREAMS = Version(version("click")) >= Version("8.2")


class _BothStreamsResult(Result):
    """A click 8.1 result whose ``output`` holds both streams, as it does on click 8.2."""

    @property
    def output(self) -> str:
        return self.stdout + (self.stderr if self.stderr_bytes is not None else "")


class _SeparatingRunner(CliRunner):
    """click 8.1's runner told to keep stderr apart, returning results that read like 8.2's."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(mix_stderr=False, **kwargs)  # type: ignore[call-arg]

    def invoke(self, *args: Any, **kwargs: Any) -> Result:
        result = super().invoke(*args, **kwargs)
        return _BothStreamsResult(  # type: ignore[call-arg]
            runner=result.runner,
            stdout_bytes=result.stdout_bytes,
            stderr_bytes=result.stderr_bytes,
            return_value=result.return_value,
            exit_code=result.exit_code,
            exception=result.exception,
            exc_info=result.exc_info,
        )


def make_runner(**kwargs: Any) -> CliRunner:
    """A ``CliRunner`` (same keyword arguments) whose results have ``stdout``, ``stderr`` and ``output``."""
    if _CLICK_SEPARATES_STREAMS:
        return CliRunner(**kwargs)
    return _SeparatingRunner(**kwargs)
