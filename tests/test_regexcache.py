"""ascend_doctor/regexcache.py: the patterns the package build compiles are the ones re compiles.

Each test runs in a child interpreter: installing the compiled patterns changes ``re``'s cache for
the whole process.
"""

from __future__ import annotations

import marshal
import subprocess
import sys
from pathlib import Path

import pytest

from ascend_doctor import regexcache

pytestmark = pytest.mark.skipif(regexcache._engine() is None, reason="this Python's re cache is not filled")

_COMPARE = """
import re, sys, marshal
from ascend_doctor import regexcache
if sys.version_info >= (3, 11):
    from re import _compiler as compiler
else:
    import sre_compile as compiler
engine, table = marshal.loads(open(sys.argv[1], "rb").read())
assert regexcache.install(sys.argv[1]) is True
checked = 0
for kind, pattern, flags in table:
    served = re.compile(pattern, flags)
    fresh = compiler.compile(pattern, flags)
    assert served == fresh and served.groupindex == fresh.groupindex and served.groups == fresh.groups, pattern
    assert served.pattern is pattern or served.pattern == pattern
    checked += 1
print(checked)
"""


def _build(path: Path) -> None:
    subprocess.run([sys.executable, "-m", "ascend_doctor.compiled_data", "--regexes", str(path)], check=True,
                   capture_output=True)


def test_every_compiled_pattern_is_what_re_compiles(tmp_path: Path) -> None:
    path = tmp_path / "regex_cache.marshal"
    _build(path)
    done = subprocess.run([sys.executable, "-c", _COMPARE, str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 100  # the parsers', facts', checks' and matrix' patterns at least


def test_the_log_scanners_patterns_are_compiled_by_the_build(tmp_path: Path) -> None:
    # diagnose compiles the trie pattern of every pivot byte found in its input (several ms)
    from ascend_doctor.logscan.scanner import default_scanner

    path = tmp_path / "regex_cache.marshal"
    _build(path)
    _engine, table = marshal.loads(path.read_bytes())
    scanner = default_scanner()
    patterns = scanner.pivot_patterns()
    assert patterns and all(("bytes", pattern, 0) in table for pattern in patterns)
    assert all(("str", signature.pattern, 0) in table for signature in scanner.db.signatures)


def test_a_file_of_another_python_or_a_damaged_one_is_not_used(tmp_path: Path) -> None:
    path = tmp_path / "regex_cache.marshal"
    path.write_bytes(marshal.dumps(((0, "cpython-00", 0), {("str", "a", 0): (0, b"", 0, {}, ())})))
    program = ("import sys, re\nfrom ascend_doctor import regexcache\n"
               "print(regexcache.install(sys.argv[1]), type(re._cache))")
    for content in (path.read_bytes(), b"damaged"):
        path.write_bytes(content)
        done = subprocess.run([sys.executable, "-c", program, str(path)], capture_output=True, text=True, check=True)
        assert done.stdout.strip() == "False <class 'dict'>"
    missing = subprocess.run([sys.executable, "-c", program, str(tmp_path / "absent")], capture_output=True, text=True,
                             check=True)
    assert missing.stdout.startswith("False")


def test_a_pattern_not_in_the_file_is_compiled_by_re(tmp_path: Path) -> None:
    path = tmp_path / "regex_cache.marshal"
    _build(path)
    program = ("import sys, re\nfrom ascend_doctor import regexcache\nregexcache.install(sys.argv[1])\n"
               "p = re.compile(r'not (?P<in>the) file \\d{3}')\nprint(p.match('not the file 123').group('in'))\n"
               "try:\n    re.compile('(')\nexcept re.error as exc:\n    print('error', exc)")
    done = subprocess.run([sys.executable, "-c", program, str(path)], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == ["the", "error missing ), unterminated subpattern at position 0"]
