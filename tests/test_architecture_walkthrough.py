"""docs/architecture.md promises that a check reading one new file is four files and one command. This
test takes the page at its word, in a copy of the repository: it writes the page's fact, check and
fixture pair (the blocks marked ``file=...``), runs ``python tools/regenerate.py``, translates the new
messages as the page's ``.po`` block says, runs the command again, and then:

* the files that changed are exactly the four, plus what the command generates;
* the check passes on its pair's passing machine and gives INFO on the other, in English and Chinese;
* ``checks``, ``explain`` and ``snapshot``'s declarations know it.

The copy runs in fresh interpreters whose ``ascend_doctor`` (with its ``checks`` and ``compat_matrix``,
which the package build maps from the top-level folders) is the copy's.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from . import check_pairs

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"
PO = "ascend_doctor/locale/zh/LC_MESSAGES/ascend_doctor.po"
MO = PO[:-3] + ".mo"
GENERATED = {"docs/checks.md", PO, MO}
COPIED = ("ascend_doctor", "checks", "compat_matrix", "tools", "docs", "fixtures/clean-a2-mindie")

# A fresh interpreter with the copy's package: the copy goes first on sys.path, and the two folders
# the build maps into the package (pyproject.toml, package-dir) are mapped the same way.
RUNNER = textwrap.dedent("""
    import importlib.util, runpy, sys
    root, what, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    sys.path.insert(0, root)
    import ascend_doctor
    for sub in ("checks", "compat_matrix"):
        spec = importlib.util.spec_from_file_location(
            "ascend_doctor." + sub, f"{root}/{sub}/__init__.py", submodule_search_locations=[f"{root}/{sub}"])
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        setattr(ascend_doctor, sub, module)
    sys.argv = [what, *args]
    if what == "cli":
        from ascend_doctor.cli import main
        main(args, prog_name="ascend-doctor")
    elif what == "python":
        exec(args[0])
    else:
        runpy.run_path(what, run_name="__main__")
""")


def _blocks() -> List[Tuple[str, str, str]]:
    """(language, file, text) of every block of the page's recipe that names its file."""
    page = PAGE.read_text(encoding="utf-8")
    section = page.split("## Adding a check", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(\w+) file=(\S+)\n(.*?)```", section, flags=re.S)


def _run(copy: Path, what: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RUNNER, str(copy), what, *args], capture_output=True, text=True,
                          timeout=300, cwd=str(copy))


def _digests(root: Path) -> Dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _po_fragment(text: str) -> str:
    """The page's .po block as a fragment the extractor imports (what a translator's edit amounts to)."""
    return 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n' + text


@pytest.mark.slow
def test_the_recipe_of_the_page_adds_a_check_in_four_files_and_one_command(tmp_path: Path) -> None:
    blocks = _blocks()
    files = [name for _lang, name, _text in blocks]
    assert len(files) == len(set(files)) <= 4, f"the recipe touches more than four files: {files}"
    assert PO in files, "the recipe's messages are its fourth file"

    copy = tmp_path / "repo"
    for part in COPIED:
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    before = _digests(copy)

    for _lang, name, text in blocks:  # files 1-3: the fact, the check, the pair
        if name != PO:
            target = copy / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    first = _run(copy, "tools/regenerate.py")
    assert first.returncode == 0, first.stderr
    po_text = (copy / PO).read_text(encoding="utf-8")
    translations = [text for _lang, name, text in blocks if name == PO]
    for msgid in re.findall(r'^msgid "(.+)"$', translations[0], flags=re.M):
        assert msgid[:40] in po_text, f"the command did not add {msgid!r} to the catalogue"

    # File 4: the translations (imported as a fragment, as a translator's edit of the .po), then the command.
    fragment = tmp_path / "translations.po"
    fragment.write_text(_po_fragment(translations[0]), encoding="utf-8")
    translated = _run(copy, "tools/extract_messages.py", "--import", str(fragment))
    assert translated.returncode == 0, translated.stderr
    again = _run(copy, "tools/regenerate.py")
    assert again.returncode == 0, again.stderr
    check = _run(copy, "tools/regenerate.py", "--check")
    assert "ASC-SYS-099" not in check.stderr and "sys_099" not in check.stderr and "numa" not in check.stderr.lower(), \
        check.stderr

    after = _digests(copy)
    changed = {name for name in set(before) | set(after) if before.get(name) != after.get(name)}
    assert changed - GENERATED == set(files) - {PO}, sorted(changed)
    assert "ASC-SYS-099" in (copy / "docs" / "checks.md").read_text(encoding="utf-8")

    # The check on its pair, in English and in Chinese.
    pair = copy / "fixtures" / "pairs" / "sys_099_numa_balancing.yaml"
    machines = check_pairs.materialise(pair, tmp_path / "machines", root=copy)
    for case, (folder, status) in machines.items():
        for lang in ("en", "zh"):
            run = _run(copy, "cli", "check", "--from", str(folder), "--select", "ASC-SYS-099", "--format", "json",
                       "--lang", lang)
            assert run.returncode in (0, 3), (case, lang, run.stderr)
            results = [r for r in json.loads(run.stdout)["results"] if r["id"] == "ASC-SYS-099"]
            assert [r["status"] for r in results] == [status], (case, lang, results)
            if case == "fail":
                assert results[0]["evidence"] == {"numa_balancing": 1}
                if lang == "zh":
                    assert results[0]["message"] == "自动 NUMA 均衡已开启（1）"
    absent = _run(copy, "cli", "check", "--from", str(ROOT / "fixtures" / "clean-a2-mindie"), "--select",
                  "ASC-SYS-099", "--format", "json")
    assert [r["status"] for r in json.loads(absent.stdout)["results"]] == ["SKIP"], absent.stdout

    listing = _run(copy, "cli", "checks", "--format", "json")
    assert "ASC-SYS-099" in [c["id"] for c in json.loads(listing.stdout)], listing.stderr
    explained = _run(copy, "cli", "explain", "ASC-SYS-099")
    assert explained.returncode == 0 and "numa_balancing" in explained.stdout, explained.stderr
    declared = _run(copy, "python", "from ascend_doctor.capture.declared import declarations\n"
                                   "print('/proc/sys/kernel/numa_balancing' in declarations().files)")
    assert declared.stdout.strip() == "True", declared.stderr
