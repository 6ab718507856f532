"""Every read a run makes is declared by a fact provider (issue 10: declared reads, derived capture).

Each fixture is graded through a host that records every command, file, listing and host source
it is asked for; each must be covered by some provider's ``Reads`` declaration, expanded with the
values of that snapshot's variables. A read nobody declared would be missing from a snapshot taken
on a real machine, which would then grade differently from ``check`` on that machine.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any, Dict, List, Set, Tuple

import pytest
import yaml

from ascend_doctor.capture.declared import Expansion, expansion
from ascend_doctor.facts import Facts, every_fact
from ascend_doctor.facts.reads import Reads, expand, path_matches
from ascend_doctor.facts.variables import read_variables
from ascend_doctor.host.factory import make_host
from ascend_doctor.matrix import load_matrix
from ascend_doctor.options import RunOptions
from ascend_doctor.runner import run_checks

from .recording_host import RecordingHost, attributing_reads

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCENARIOS = sorted(p.parent.name for p in FIXTURES.glob("*/expected.yaml"))
OPTION_OF = {"--model": "model_dir", "--config": "serving_config", "--vllm-args": "vllm_args",
             "--verify": "verify_manifest", "--rank-table": "rank_table"}


def all_declarations() -> Reads:
    merged = Reads()
    for fact in every_fact().values():  # with the facts declared next to their providers
        merged = merged.merged(fact.reads())
    return merged


def options_for(scenario: str) -> RunOptions:
    data = yaml.safe_load((FIXTURES / scenario / "expected.yaml").read_text(encoding="utf-8"))
    args = [str(a).replace("{fixture}", str(FIXTURES / scenario)) for a in data.get("args", [])]
    values: Dict[str, Any] = {}
    for flag, value in zip(args[::2], args[1::2]):
        if flag in OPTION_OF:
            values[OPTION_OF[flag]] = value
    return RunOptions(**values)


def uncovered(reads: Set[Tuple[str, str, Any]], declared: Reads, variables: Dict[str, List[str]],
              ids: Expansion) -> List[str]:
    """The reads no declaration covers. What covers what follows what the capture records:

    * a command: one of the declared commands, expanded (per-NPU ones for every NPU id);
    * a file's content: ``files`` or ``tails`` (the capture copies those);
    * a file's existence, type or link: any kind of path declaration, or an entry of a declared
      listing (the capture records every entry of a listed folder);
    * a listing: ``listings``, or a folder on the way to ``tails`` files (the capture records the
      folders of the log files it keeps).
    """
    patterns = declared.patterns(variables)
    argvs = set(declared.argvs(variables, ids.npu_ids, ids.chips, ids.device_ids))
    content = patterns["files"] + patterns["tails"]
    presence = content + patterns["present"] + patterns["listings"]
    listings = patterns["listings"] + patterns["tails"]
    missing = []
    for provider, kind, what in sorted(reads, key=str):
        if kind == "command":
            ok = tuple(what) in argvs
        elif kind == "file":
            ok = any(path_matches(what, p) for p in content)
        elif kind == "present":
            parent = posixpath.dirname(what.rstrip("/")) or "/"
            ok = any(path_matches(what, p) for p in presence) or any(path_matches(parent, p) for p in listings)
        elif kind == "listing":
            ok = any(path_matches(what, p) for p in listings)
        else:
            ok = what in declared.host
        if not ok:
            missing.append(f"{provider}: {kind} {what}")
    return missing


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_read_of_a_fixture_is_declared(scenario: str) -> None:
    options = options_for(scenario)
    inner = make_host(str(FIXTURES / scenario), 10.0, None)
    host = RecordingHost(inner)
    try:
        with attributing_reads():
            run_checks(host, load_matrix(None), options)  # type: ignore[arg-type]
        facts = Facts(inner, options)
        weight_dirs = [w.path for w in (facts.maybe(Facts.serving_weight_dirs) or [])]
        ids = expansion(facts)  # {npu}, {chip}, {device}: what the fixture's npu-smi shows (A3: 16 dies)
        variables = read_variables(inner, options, weight_dirs)
        # A link in a model folder is followed to report where it leads (HF cache blobs).
        variables["model"] = variables["model"] + _link_targets(inner, variables["model"])
    finally:
        close = getattr(inner, "close", None)
        if callable(close):
            close()
    missing = uncovered(host.reads, all_declarations(), variables, ids)
    assert not missing, "reads no provider declares:\n" + "\n".join(missing)


def _link_targets(host: Any, dirs: List[str]) -> List[str]:
    out: List[str] = []
    for folder in dirs:
        try:
            names = host.listdir(folder)
        except Exception:
            continue
        for name in names:
            target = host.readlink(f"{folder}/{name}")
            if target:
                resolved = host.realpath(f"{folder}/{name}")
                parent = resolved.rsplit("/", 1)[0] or "/"
                if parent not in out:
                    out.append(parent)
    return out


def test_declared_patterns_expand_every_variable() -> None:
    declared = all_declarations()
    variables = {"root": ["/usr/local/Ascend"], "log_root": ["/root/ascend/log"], "env_path": ["/x"],
                 "python": ["/usr/bin/python3"], "python_site": ["/usr/lib/python3/site-packages"],
                 "model": ["/m"], "config": ["/c.json"], "manifest": ["/m.json"]}
    for pattern in (*declared.files, *declared.present, *declared.listings, *declared.tails):
        for expanded in expand(pattern, variables):
            assert "{" not in expanded, pattern
