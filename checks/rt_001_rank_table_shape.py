"""ASC-RT-001: the rank table is valid JSON of a known layout, with every field its version needs."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, Status
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized
from ascend_doctor.shellcmd import argv, one_line

from ._context import HostCheckContext
from ._rank_table import SRC_HCCL, SRC_MINDIE, SRC_VLLM_PD, config_fix

SHOWN = 20  # problems listed one by one; the rest are counted

CHECK = CheckSpec(
    id="ASC-RT-001",
    title="Rank table readable, with the shape of its version",
    what=("Reads the rank table (--rank-table FILE, else RANK_TABLE_FILE / RANKTABLEFILE / "
          "DISAGGREGATED_PREFILL_RANK_TABLE_PATH), bounded in size and nesting, and checks the layout of its "
          "version: HCCL server_list 1.0/1.2 (status, version, server_count, server_id, device_id, device_ip, "
          "rank_id; super_device_id and super_pod_list on A3), HCCL 2.0 rank_list, vLLM-Ascend "
          "prefill_device_list/decode_device_list. Each problem is named by its JSON path "
          "(server_list[3].device[5].device_ip)."),
    why=("HCCL, MindIE and vLLM-Ascend read the rank table at start-up on every node; a comment copied from a "
         "documentation example, a missing field or a status other than \"completed\" stops the job before "
         "the first collective, often with a message that does not name the file. Sources: " + SRC_HCCL + "; "
         + SRC_MINDIE + "; " + SRC_VLLM_PD),
    fix="Correct the rank table at the JSON paths named; `python3 -m json.tool FILE >/dev/null` checks the syntax.",
    requires=("input:rank_table", "fact:rank_table"),
    tags=("rank-table",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    facts = ctx.facts.rank_table
    shown = one_line(facts.path)  # the path in prose: a newline in it must not start a line of its own
    check_json = argv("python3", "-m", "json.tool", facts.path) + " >/dev/null"  # argv quotes the path
    if facts.table is None:
        yield Finding.fail(_("rank table ({source}) unusable: {error}").format(source=facts.source, error=facts.error),
                           _("Correct {path} (`{command}` names the first syntax error).").format(
                               path=shown, command=check_json),
                           path=facts.path, source=facts.source).with_actions(
            config_fix(_("Make {path} a valid rank table").format(path=shown), facts.path, (check_json,)))
        return
    table = facts.table
    # A value written as a JSON number where HCCL wants a string: one finding that says so for all.
    numbers = [p for p in table.problems if getattr(p.message, "template", "").startswith("is the number")]
    if numbers:
        example = numbers[0]
        value = getattr(example.message, "fields", {}).get("value", "")
        yield Finding.warn(
            _("{count} value(s) written as JSON numbers where the {label} layout wants strings: {paths}").format(
                count=len(numbers), label=table.label, paths=", ".join(p.path for p in numbers[:12])
                + (", ..." if len(numbers) > 12 else "")),
            _("Write each of them as a JSON string, in quotes: {json_path}: \"{value}\" instead of {value}.").format(
                json_path=example.path, value=value),
            paths=[p.path for p in numbers[:50]], file=facts.path).with_actions(
            config_fix(_("Quote the numeric values of {path}").format(path=shown), facts.path))
    others = [p for p in table.problems if p not in numbers]
    for problem in others[:SHOWN]:
        status = Status.FAIL if problem.severity == "error" else Status.WARN
        yield Finding(status, f"{problem.path} {localized(problem.message)}",  # the JSON path, then what is wrong
                      _("Correct {json_path} in {path} ({label} {version} layout).").format(
                          json_path=problem.path, path=shown, label=table.label,
                          version=one_line(table.version or '?')),
                      {"path": problem.path, "file": facts.path}).with_actions(
            config_fix(_("Correct {json_path} in {path}").format(json_path=problem.path, path=shown), facts.path))
    hidden = len(others) - SHOWN
    if hidden > 0:
        worst = Status.FAIL if any(p.severity == "error" for p in others[SHOWN:]) else Status.WARN
        yield Finding(worst, _("... and {count} more problem(s) of the same rank table").format(count=hidden),
                      _("Correct {path}; `ascend-doctor check --format json` lists the first {count}.").format(
                          path=shown, count=SHOWN))
    if not table.problems:
        devices = len(table.devices())
        yield Finding.passed(
            (_("{path} ({source}): {label} version {version}, {servers} server(s), {devices} device(s), status "
               "{status}") if table.servers else
             _("{path} ({source}): {label} version {version}, {devices} device(s), status {status}")).format(
                path=shown, source=facts.source, label=table.label, version=table.version,
                servers=len(table.servers), devices=devices, status=table.status),
            kind=table.kind, sha256=facts.sha256)
