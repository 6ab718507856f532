"""What every fuzzer shares: seeds from the real samples, mutations, and the contract.

A fuzzer is one call::

    test_fuzz_board = fuzz_text(parse_npu_smi_board, samples("npu-smi-other/*board*"),
                                allowed=(NpuSmiParseError,))

It runs the parser on the seeds mutated by hypothesis (cut, spliced, lines repeated or swapped,
characters and long runs inserted, numbers blown up) and on free text, and fails when:

* an exception other than ``allowed`` comes out (a crash, RecursionError, MemoryError...);
* an allowed error's message is not one line (it reaches the user as a one-line error);
* an example takes longer than the profile's deadline, or hangs (a watchdog interrupts it).

The budget (examples per fuzzer, deadline) is the hypothesis profile chosen in tests/conftest.py
with ``ASCEND_DOCTOR_FUZZ=ci|long``.
"""

from __future__ import annotations

import contextlib
import glob
import os
import signal
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple, Type

from hypothesis import given, settings
from hypothesis import strategies as st

from ..samples_util import SAMPLES, sample_body

REPO = SAMPLES.parent.parent
WATCHDOG_SECONDS = 20  # a hang becomes a failure instead of a stuck CI job

# For fuzzers whose examples cost a whole check run: a third of the profile's examples.
slow_examples = settings(max_examples=max(5, settings.default.max_examples // 3))

# Characters parsers care about, to splice into the seeds.
_STRUCTURE = "|+-=:#/\\\"'[]{}(),.;@ \t\n\r\x00\x1b\u3000\ufeff\ufffd"


def samples(*patterns: str) -> List[str]:
    """Bodies of the real samples matching ``patterns`` (globs under tests/samples/)."""
    found: List[str] = []
    for pattern in patterns:
        for path in sorted(glob.glob(str(SAMPLES / pattern))):
            if path.endswith(".txt"):
                found.append(sample_body(os.path.relpath(path, SAMPLES)))
    assert found, f"no samples match {patterns}"
    return found


def repo_text(*rel: str) -> List[str]:
    """Files of the repository (shipped data) used as seeds."""
    return [(REPO / r).read_text(encoding="utf-8") for r in rel]


@st.composite
def mutated(draw: Any, seeds: Sequence[str], max_steps: int = 4) -> str:
    """One seed with a few random edits; every choice is a hypothesis draw, so it shrinks."""
    text = draw(st.sampled_from(list(seeds)))
    for _ in range(draw(st.integers(0, max_steps))):
        if not text:
            text = draw(st.text(max_size=50))
            continue
        start = draw(st.integers(0, len(text)))
        end = draw(st.integers(start, min(len(text), start + 200)))
        kind = draw(st.sampled_from(("cut", "delete", "repeat", "insert", "structure", "lines", "digits",
                                     "long-line")))
        if kind == "cut":
            text = text[:start]
        elif kind == "delete":
            text = text[:start] + text[end:]
        elif kind == "repeat":
            text = text[:end] + text[start:end] * draw(st.integers(2, 50)) + text[end:]
        elif kind == "insert":
            text = text[:start] + draw(st.text(max_size=40)) + text[start:]
        elif kind == "structure":
            text = text[:start] + draw(st.text(alphabet=_STRUCTURE, min_size=1, max_size=20)) + text[end:]
        elif kind == "lines":
            lines = text.splitlines(keepends=True)
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
            if draw(st.booleans()):
                lines.insert(i, lines[j] * draw(st.integers(1, 20)))
            text = "".join(lines)
        elif kind == "digits":
            text = text[:start] + draw(st.sampled_from(("9" * 400, "-1", "1e400", "NaN", "0x1F", "4294967296",
                                                        "1.2.3.4.5.6.7.8", "⑧"))) + text[end:]
        else:
            text = text[:start] + draw(st.sampled_from(("x", " ", "|", "=", "[", "{"))) * 20_000 + text[start:]
    return text


def text_inputs(seeds: Sequence[str]) -> st.SearchStrategy[str]:
    """Seeds as they are, seeds mutated, and free text."""
    return st.one_of(st.sampled_from(list(seeds)), mutated(seeds), st.text(max_size=300))


@contextlib.contextmanager
def watchdog(seconds: int = WATCHDOG_SECONDS) -> Iterator[None]:
    """Interrupt the example after ``seconds`` (a blocking read, an endless loop)."""
    if not hasattr(signal, "SIGALRM"):  # pragma: no cover - not on Linux CI
        yield
        return

    def hung(_signum: int, _frame: Any) -> None:
        raise TimeoutError(f"the example did not finish within {seconds} s (a hang)")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


Errors = Tuple[Type[BaseException], ...]


def check_contract(call: Callable[[], Any], allowed: Errors, one_line: Optional[Errors] = None) -> Any:
    """Run ``call``: a result, or an ``allowed`` error (those in ``one_line``, by default all of
    them, with a one-line message). Anything else propagates and fails the fuzzer."""
    with watchdog():
        try:
            return call()
        except allowed as exc:
            if isinstance(exc, allowed if one_line is None else one_line):
                message = str(exc).strip()
                assert "\n" not in message, f"{type(exc).__name__} message is not one line: {message[:300]!r}"
            return None


def fuzz_text(parse: Callable[[str], Any], seeds: Sequence[str], allowed: Errors = (),
              inputs: Any = None, one_line: Optional[Errors] = None) -> Callable[..., None]:
    """A test: ``parse(text)`` on mutated seeds raises nothing but ``allowed``."""

    @given(text=inputs if inputs is not None else text_inputs(seeds))
    def test(text: str) -> None:
        check_contract(lambda: parse(text), allowed, one_line)

    test.__doc__ = f"fuzz {getattr(parse, '__qualname__', parse)}: only {[e.__name__ for e in allowed]} may come out"
    return test


def fuzz_bytes(parse: Callable[[bytes], Any], seeds: Sequence[bytes],
               allowed: Tuple[Type[BaseException], ...] = ()) -> Callable[..., None]:
    """A test: ``parse(data)`` on mutated seeds (as latin-1 text) and random bytes."""
    as_text = [s.decode("latin-1") for s in seeds]
    strategy = st.one_of(mutated(as_text).map(lambda t: t.encode("latin-1", "replace")),
                         st.binary(max_size=300), st.sampled_from(list(seeds)))
    return fuzz_text(parse, [], allowed, inputs=strategy)  # type: ignore[arg-type]


def write_tree(root: Path, files: Sequence[Tuple[str, bytes]]) -> None:
    """Write ``files`` (relative names) under ``root``, making folders."""
    for name, data in files:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
