"""How much of the machine a report could judge: the honest part of a verdict.

Every result of a ``check`` report is one of four kinds:

* **judged**: PASS, INFO, WARN or FAIL: the check compared what it saw with the matrix;
* **does not apply**: a SKIP for a fact the run saw (no serving engine installed, not a container,
  another chip family): nothing to judge on this machine;
* **not judged**: a SKIP for data the run did not have (a command not recorded, a file not in the
  pasted text, an input another problem blocks) or an ERROR;
* **not asked for**: a SKIP for an input the user did not give (``--model``, ``--config``...).

Pasted text is no evidence of absence (``facts/origin.py``): there a "does not apply" SKIP whose
fact the text did not state is *not judged*, and its message says what was not in the text rather
than a fact about a machine nobody saw (``rephrase_pasted_skips``).

When fewer than a quarter of the checks that apply (judged + not judged) could be judged and
nothing failed, the verdict is "not enough to judge" (exit 3), never READY. A healthy machine
checked live or from a full snapshot judges well above that line (tests/test_coverage.py holds it
on every fixture); a sparse paste falls below it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Set, Tuple

from msgspec.structs import replace

from ascend_doctor.checkapi import Status
from ascend_doctor.i18n import N_
from ascend_doctor.i18n import gettext as _
from ascend_doctor.lazy import lazy_re

if TYPE_CHECKING:
    from ascend_doctor.result import Result

JUDGED = "judged"
NOT_APPLICABLE = "not_applicable"
NOT_JUDGED = "not_judged"
NOT_ASKED = "not_asked"
KINDS = (JUDGED, NOT_APPLICABLE, NOT_JUDGED, NOT_ASKED)

# Below this share of judged checks among those that apply, "ready" would be a guess.
ENOUGH_TO_JUDGE = 0.25
# Host sources of a machine check (live, snapshot, pasted text): probe and fleet reports have others.
MACHINE_SOURCES = ("live", "snapshot", "pasted-text")
PASTED_TEXT = "pasted-text"

# Inputs given on the command line (runner/requirements.py reports them under these keys).
_INPUT_KEYS = frozenset({"model", "manifest", "serving_config", "config", "rank_table", "input:model",
                         "input:manifest", "input:config", "input:rank_table"})
# Checks that say "nothing given" in their own words (not through a requirement): not asked for
# when no other check of their area was given its input either.
_OWN_NOT_ASKED = {"ASC-MDL-020": "MDL", "ASC-CFG-011": "CFG"}
_CHECK_ID = lazy_re(r"\bASC-[A-Z]+-\d{3}\b")

# A SKIP of a check's own that reports a fact the run saw, and what shows that fact. ``ref_ok``:
# still "does not apply" when the message points at another check (which only says more).
# The sources: "container" (/.dockerenv, cgroups), "packages" (the Python packages), "env" (the
# environment), "cann" (the CANN packages), "files" (/etc/ascend_install.info), "logs" (the CANN
# logs), "hccn" (hccn_tool), "input" (a --model / --config the user gave: always seen).
_OWN_NOT_APPLICABLE: Dict[str, Tuple[str, bool]] = {
    "ASC-CTR-002": ("container", False), "ASC-CTR-003": ("container", False), "ASC-CTR-004": ("env", False),
    "ASC-ENG-001": ("packages", False), "ASC-ENG-002": ("packages", False), "ASC-ENV-010": ("packages", False),
    "ASC-ENV-011": ("packages", False), "ASC-ENV-012": ("packages", False), "ASC-ENV-013": ("packages", False),
    "ASC-NNAL-001": ("packages", False), "ASC-NNAL-002": ("packages", True), "ASC-MIX-005": ("cann", False),
    "ASC-MIX-002": ("files", True), "ASC-LOG-002": ("logs", False), "ASC-FW-001": ("container", False),
    **{f"ASC-NET-00{n}": ("hccn", True) for n in range(1, 10)},
    **{check: ("input", False) for check in ("ASC-MDL-003", "ASC-MDL-004", "ASC-MDL-006", "ASC-MDL-014",
                                             "ASC-MDL-015", "ASC-CFG-004", "ASC-CFG-005", "ASC-CFG-007",
                                             "ASC-CFG-008", "ASC-CFG-009")},
}
# Requirements (runner: evidence "precondition") that test a fact the run saw, and its source.
_REQUIREMENT_SOURCES = {"container": "container", "not-container": "container", "engine": "packages",
                        "family": "npu-smi"}


def classify(results: Sequence[Result], source: Optional[str], facts: Mapping[str, Any]) -> List[str]:
    """The kind of each result (one of ``KINDS``), in order. ``source``: the host's source."""
    stated = _stated_sources(source, facts)
    asked_areas = {_area(r.id) for r in results if r.status is not Status.SKIP or not _input_skip(r)}
    return [_kind(r, stated, asked_areas) for r in results]


def counts(results: Sequence[Result], source: Optional[str], facts: Mapping[str, Any]) -> Dict[str, int]:
    """How many *checks* are of each kind (every kind present, 0 when none). A check with several
    results (one per NPU, per mount) counts once: judged when any of them was."""
    per_check: Dict[str, str] = {}
    for result, kind in zip(results, classify(results, source, facts)):
        before = per_check.get(result.id)
        if before is None or _PRECEDENCE.index(kind) < _PRECEDENCE.index(before):
            per_check[result.id] = kind
    out = {kind: 0 for kind in KINDS}
    for kind in per_check.values():
        out[kind] += 1
    return out


_PRECEDENCE = (JUDGED, NOT_JUDGED, NOT_APPLICABLE, NOT_ASKED)


def too_little_to_judge(results: Sequence[Result], source: Optional[str], facts: Mapping[str, Any]) -> bool:
    """Fewer than a quarter of the checks that apply were judged (machine checks only)."""
    if source not in MACHINE_SOURCES:
        return False
    found = counts(results, source, facts)
    applicable = found[JUDGED] + found[NOT_JUDGED]
    return applicable > 0 and found[JUDGED] < ENOUGH_TO_JUDGE * applicable


def _kind(result: Result, stated: Mapping[str, bool], asked_areas: Set[str]) -> str:
    if result.status is Status.ERROR:
        return NOT_JUDGED
    if result.status is not Status.SKIP:
        return JUDGED
    evidence = result.evidence if isinstance(result.evidence, Mapping) else {}
    if _input_skip(result):
        return NOT_ASKED
    if evidence.get("coverage") in KINDS:  # set by rephrase_pasted_skips
        return str(evidence["coverage"])
    precondition = evidence.get("precondition")
    if isinstance(precondition, str):
        kind = precondition.partition(":")[0]
        fact_source = _REQUIREMENT_SOURCES.get(kind)
        if fact_source is None:
            return NOT_JUDGED  # a fact that could not be established, no NPU listed...
        if kind == "family" and not stated.get("chip"):
            return NOT_JUDGED  # the family is unknown: npu-smi listed no NPU
        return NOT_APPLICABLE if stated.get(fact_source, True) else NOT_JUDGED
    own_area = _OWN_NOT_ASKED.get(result.id)
    if own_area is not None and own_area not in asked_areas:
        return NOT_ASKED
    known = _OWN_NOT_APPLICABLE.get(result.id)
    if known is not None:
        fact_source, ref_ok = known
        if not ref_ok and (_CHECK_ID.search(result.message) or evidence.get("see")):
            return NOT_JUDGED  # blocked by another finding ("no driver installed (ASC-DRV-001 ...)")
        return NOT_APPLICABLE if stated.get(fact_source, True) else NOT_JUDGED
    return NOT_JUDGED


def _input_skip(result: Result) -> bool:
    evidence = result.evidence if isinstance(result.evidence, Mapping) else {}
    return result.status is Status.SKIP and evidence.get("precondition") in _INPUT_KEYS


def _stated_sources(source: Optional[str], facts: Mapping[str, Any]) -> Dict[str, bool]:
    """Which sources of "does not apply" the input showed. Live and snapshot runs looked at all of
    them (a capture records what the probes read); pasted text states only what it contains."""
    chip = facts.get("chip") if isinstance(facts.get("chip"), Mapping) else None
    if source != PASTED_TEXT:
        return {"chip": bool(chip)}
    python = _mapping(facts.get("python"))
    container = _mapping(facts.get("container"))
    packages = _mapping(python.get("packages"))
    # A package list says what is *not* installed only when it is a full one (pip list, collect_env),
    # not the handful an environment summary names.
    listed = len(packages) >= 8 or any(name in packages for name in _ENGINE_PACKAGES)
    return {"chip": bool(chip), "npu-smi": bool(chip), "packages": listed,
            "container": bool(container.get("in_container")), "env": False, "cann": False, "files": False,
            "logs": False, "hccn": False, "input": True}


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


_ENGINE_PACKAGES = ("vllm", "vllm-ascend", "vllm_ascend", "mindie", "torch-npu", "torch_npu")


def _area(check_id: str) -> str:
    parts = check_id.split("-")
    return parts[1] if len(parts) >= 3 else "?"


# What a check of each area reads, as the commands to ask a user for when it was not in the paste
# or not recorded in the snapshot: (check id or area, command, whether `check --from-text` reads its
# output), in the order to ask. Built with shellcmd: commands are data.
def _ask_table(arch: str) -> List[Tuple[Tuple[str, ...], str, bool]]:
    from ascend_doctor.shellcmd import Placeholder, argv, pipe

    npu = Placeholder("npu id")
    # The toolkit's install.info sits in an architecture folder: one of two fixed names, never the text read.
    folder = "x86_64-linux" if arch == "x86_64" else "aarch64-linux"
    env = pipe(argv("env"), argv("grep", "-E", "^(ASCEND|HCCL|ATB|LD_LIBRARY_PATH)"))
    return [
        (("SMI", "DEV", "CTR", "NET", "ASC-DRV-002", "ASC-OPS-002", "ASC-DRV-004"), argv("npu-smi", "info"), True),
        (("DRV", "MIX", "ASC-FW-002"), argv("cat", "/usr/local/Ascend/driver/version.info"), True),
        (("FW", "MIX"), argv("cat", "/usr/local/Ascend/firmware/version.info"), True),
        (("CANN", "OPS", "ARCH", "ASC-ENV-001", "ASC-PY-003"),
         argv("cat", f"/usr/local/Ascend/ascend-toolkit/latest/{folder}/ascend_toolkit_install.info"), True),
        (("ASC-MIX-002",), argv("cat", "/etc/ascend_install.info"), True),
        (("PY", "ENG", "NNAL", "ASC-ENV-010", "ASC-ENV-011", "ASC-ENV-012", "ASC-ENV-013"),
         argv("python3", "-m", "vllm.collect_env"), True),
        (("ENV", "CTR", "NNAL"), env, True),
        (("ASC-FW-003",), argv("npu-smi", "info", "-t", "board", "-i", npu), True),
        (("ASC-DEV-005",), argv("npu-smi", "info", "-t", "ecc", "-i", npu), False),
        (("NET",), argv("hccn_tool", "-i", npu, "-link", "-g"), False),
        (("ASC-DRV-003", "ASC-CFG-011"), argv("id"), False),
        (("ASC-LOG-001",), argv("dmesg"), False),
        (("ASC-SYS-004",), argv("cat", "/sys/kernel/mm/transparent_hugepage/enabled"), False),
        (("ASC-SYS-005",), argv("ulimit", "-n"), False),
    ]


# Ask for this in every case: it records all of the above and more, and `check --from` reads it.
def snapshot_command() -> str:
    from ascend_doctor.shellcmd import Placeholder, argv

    return argv("ascend-doctor", "snapshot", "-o", Placeholder("node.tar.gz"))


def what_to_ask_for(results: Sequence[Result], source: Optional[str], facts: Mapping[str, Any],
                    arch: Optional[str] = None) -> List[str]:
    """The commands whose output would let the not-judged checks judge (for pasted text, only those
    whose output `check --from-text` reads), then `ascend-doctor snapshot`, which records them all.
    None for a live run: there the data is simply not on the machine."""
    if source not in ("snapshot", PASTED_TEXT):
        return []
    table = _ask_table(arch or "")
    # Only what the input lacked: a SKIP another problem blocks (no driver, so no NPU list) is
    # answered by fixing that problem, not by asking for more output.
    absent = {"not recorded in this snapshot", "not in the pasted text", _("not recorded in this snapshot"),
              _("not in the pasted text")}
    wanted: Set[str] = set()
    for result, kind in zip(results, classify(results, source, facts)):
        if kind != NOT_JUDGED or result.status is not Status.SKIP or not any(a in result.message for a in absent):
            continue
        # A check named in the table asks for its own command; the others for their area's.
        named = [command for keys, command, _pasteable in table if result.id in keys]
        wanted.update(named or [command for keys, command, _pasteable in table if _area(result.id) in keys])
    if not wanted:
        return []
    commands = [command for _keys, command, pasteable in table
                if command in wanted and (pasteable or source != PASTED_TEXT)]
    return [*commands, snapshot_command()]


_NOT_IN_PASTE = N_("not in the pasted text: {what}")
_SOURCE_WORDS = {
    "container": N_("whether this runs in a container"), "packages": N_("the installed Python packages"),
    "env": N_("the environment variables"), "cann": N_("the CANN packages installed"),
    "files": N_("/etc/ascend_install.info"), "logs": N_("the CANN logs"), "hccn": N_("hccn_tool's output"),
    "npu-smi": N_("`npu-smi info`"),
}


def rephrase_pasted_skips(results: Sequence[Result], source: Optional[str], facts: Mapping[str, Any]
                          ) -> List[Result]:
    """For pasted text: every SKIP that would state a fact about the machine ("not running inside a
    container", "no serving engine is installed") says instead what the text did not show; the
    check's own words stay in the evidence (``reason_on_a_machine``). Other inputs: unchanged."""
    if source != PASTED_TEXT:
        return list(results)
    stated = _stated_sources(source, facts)
    absent = _("not in the pasted text")
    out: List[Result] = []
    for result, kind in zip(results, classify(results, source, facts)):
        if result.status is not Status.SKIP or kind != NOT_JUDGED or absent in result.message:
            out.append(result)
            continue
        what = _missing_source(result, stated)
        cited = sorted(set(_CHECK_ID.findall(result.message)))
        if what:
            message = _(_NOT_IN_PASTE).format(what=_(_SOURCE_WORDS[what]))
        elif cited:
            message = _("not in the pasted text (see {checks})").format(checks=", ".join(cited))
        else:
            message = absent
        evidence = dict(result.evidence)
        evidence.update({"coverage": NOT_JUDGED, "reason_on_a_machine": result.message})
        out.append(replace(result, message=message, evidence=evidence))
    return out


def _missing_source(result: Result, stated: Mapping[str, bool]) -> Optional[str]:
    precondition = result.evidence.get("precondition") if isinstance(result.evidence, Mapping) else None
    if isinstance(precondition, str):
        found = _REQUIREMENT_SOURCES.get(precondition.partition(":")[0])
        if found == "npu-smi" or precondition == "npus":
            return "npu-smi"
        return found if found in _SOURCE_WORDS and not stated.get(found, True) else None
    known = _OWN_NOT_APPLICABLE.get(result.id)
    if known is not None and not stated.get(known[0], True):
        return known[0]
    if _area(result.id) in ("SMI", "DEV", "NET") and not stated.get("npu-smi"):
        return "npu-smi"
    return None
