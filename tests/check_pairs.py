"""Fixture pairs: one small file that proves one check passes on one machine and not on another.

``fixtures/pairs/<check module>.yaml`` names a scenario of ``fixtures/`` as its base and the changes
that make a passing and a failing (WARN, INFO) machine of it; the files a pair writes are the only
difference, so the pair shows what the check looks at::

    # source: <where the values come from>
    check: ASC-SYS-099
    base: clean-a2-mindie
    pass:
      status: PASS
      files: {/proc/sys/kernel/numa_balancing: "0\\n"}
    fail:
      status: INFO
      files: {/proc/sys/kernel/numa_balancing: "1\\n"}

A case may also set ``env`` (variables merged into env.json) and ``remove`` (host paths taken out of
the copy). ``materialise`` writes both machines into a folder; tests/test_check_pairs.py grades them.
This module imports nothing of ascend_doctor, so it can build the pairs of another copy of the
repository (tests/test_architecture_walkthrough.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, Dict, List, Tuple

import yaml

ROOT = Path(__file__).resolve().parent.parent
PAIRS = "fixtures/pairs"
CASES = ("pass", "fail")
BAD_STATUSES = ("FAIL", "WARN", "INFO")


def pair_files(root: Path = ROOT) -> List[Path]:
    folder = root / PAIRS
    return sorted(folder.glob("*.yaml")) if folder.is_dir() else []


def load_pair(path: Path) -> Dict[str, Any]:
    """The pair, with its shape checked (a mistake is a clear assertion, not a KeyError later)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path.name}: a mapping"
    assert isinstance(data.get("check"), str) and isinstance(data.get("base"), str), f"{path.name}: check, base"
    for case in CASES:
        spec = data.get(case)
        assert isinstance(spec, dict), f"{path.name}: {case}: a mapping"
        assert set(spec) <= {"status", "files", "env", "remove"}, f"{path.name}: {case}: unknown keys"
        wanted = ("PASS",) if case == "pass" else BAD_STATUSES
        assert spec.get("status") in wanted, f"{path.name}: {case}: status must be one of {wanted}"
    return data


def materialise(path: Path, target: Path, root: Path = ROOT) -> Dict[str, Tuple[Path, str]]:
    """Both machines of a pair as snapshot folders under ``target``: case -> (folder, expected status)."""
    data = load_pair(path)
    base = root / "fixtures" / data["base"]
    assert (base / "expected.yaml").is_file(), f"{path.name}: base {data['base']} is not a scenario of fixtures/"
    out: Dict[str, Tuple[Path, str]] = {}
    for case in CASES:
        spec = data[case]
        folder = target / f"{path.stem}-{case}"
        shutil.copytree(base, folder, symlinks=True, ignore=shutil.ignore_patterns("expected.yaml"))
        for host_path in spec.get("remove", []):
            _remove(folder / "files" / _relative(host_path))
        for host_path, content in (spec.get("files") or {}).items():
            file = folder / "files" / _relative(host_path)
            _remove(file)
            file.parent.mkdir(parents=True, exist_ok=True)
            file.write_text(str(content), encoding="utf-8")
        if spec.get("env"):
            env_file = folder / "env.json"
            env = json.loads(env_file.read_text(encoding="utf-8")) if env_file.is_file() else {}
            env.update({str(k): str(v) for k, v in spec["env"].items()})
            env_file.write_text(json.dumps(env, indent=1), encoding="utf-8")
        out[case] = (folder, str(spec["status"]))
    return out


def outcomes(root: Path = ROOT) -> Dict[str, List[str]]:
    """check id -> the statuses its pairs prove (for the every-check-passes-and-fails test)."""
    found: Dict[str, List[str]] = {}
    for path in pair_files(root):
        data = load_pair(path)
        found.setdefault(data["check"], []).extend(str(data[case]["status"]) for case in CASES)
    return found


def _relative(host_path: str) -> str:
    parts = [p for p in str(host_path).split("/") if p]
    assert str(host_path).startswith("/") and parts and ".." not in parts, f"not an absolute host path: {host_path}"
    return "/".join(parts)


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)
