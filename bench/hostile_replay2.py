"""The second hostile-input review (../shared/research/hostile_inputs_2.md, commit 55a58a7), as data for
bench/hostile_replay.py.

The review made 384 attempts: 154 bulk fixture mutations (every fixture with ``'$(touch …)'`` appended to
every JSON string, or to every path-like JSON string: two modes) and 230 targeted ones, of which the
document gives the area and count of each and a reproduction of every defect. What is made again here:

* the bulk run, both modes, over every fixture of this checkout (the review had 77; ``check --from`` the
  mutated copy with the fixture's own arguments from expected.yaml);
* every listed defect's reproduction (defects 1-13), the minor findings that need no hostile server of
  the review's own (its ``evil.py`` is not in the document), and the deploy review.

The targeted attempts the document describes only by area and count are not made up; the totals
say how many of the 384 were reconstructed.

Printed commands are never run. A payload counts as an INJECTION when the replay's shell reading of a
pasteable command (:func:`payload_runs`) finds its ``touch MARKER`` where a shell would execute it: in
command position, or inside ``$(...)`` or backticks outside single quotes. The review ran them in a
sandbox; reading them gives the same verdict without running anything. A raw ESC byte in text output is a
terminal-escape INJECTION; an exit code that lets a gate pass with nothing judged is EXIT CODE.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Dict, Iterator, List, Sequence, Tuple

import yaml

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
MODEL_FIXTURE = FIXTURES / "w8a8-weights-ready" / "files" / "data" / "models" / "DeepSeek-R1-W8A8"
SHARD1 = "quant_model_weight_w8a8_dynamic-00001-of-00004.safetensors"

# The review's totals (its "Totals" table), the "before" column of the second table.
REVIEW2_TOTALS = {
    "attempts": 384,
    "tracebacks": 0,
    "uncaught": 0,
    "hangs": 0,
    "escapes": 1,
    "leaks": 2,
    "injections": 16,
    "partial": 3,
    "exit_codes": 3,
}
BULK_MODES = ("mass_all", "mass_paths")
# First words of a remediation line that is a command (prose lines are not pasted).
COMMAND_WORDS = frozenset({
    "export", "unset", "pip", "pip3", "hccn_tool", "ascend-doctor", "mv", "mkdir", "chmod", "chown", "usermod",
    "huggingface-cli", "rsync", "source", ".", "for", "cd", "ln", "rm", "sed", "npu-smi", "echo", "cp",
    "systemctl", "reboot", "sudo", "python", "python3", "setfacl", "chgrp", "groupadd", "useradd", "sysctl",
    "modprobe", "docker", "kubectl", "cat", "ls", "find", "tar",
})


# ---------------------------------------------------------------------------------------------
# Reading printed commands as a shell would (nothing is ever run)
# ---------------------------------------------------------------------------------------------

def marker_for(attempt_id: str) -> str:
    return "pwn" + hashlib.sha256(attempt_id.encode()).hexdigest()[:10]


def payload_runs(line: str, marker: str) -> bool:
    """Whether ``touch MARKER`` in this shell text would be executed: at a command position, or inside
    ``$(...)``/backticks that are not within single quotes. Comments end the reading of a line."""
    target = "touch " + marker
    end = line.find(target)
    while end >= 0:
        if _executes_at(line, end):
            return True
        end = line.find(target, end + 1)
    return False


def _executes_at(text: str, index: int) -> bool:
    stack: List[str] = []  # "'", '"', "$(", "`"
    command_start = True  # the next word is a command name
    i = 0
    while i < index:
        c = text[i]
        top = stack[-1] if stack else ""
        if top == "'":
            if c == "'":
                stack.pop()
            i += 1
            continue
        if c == "\\":
            i += 2
            command_start = False
            continue
        if top == '"':
            if c == '"':
                stack.pop()
            elif text.startswith("$(", i):
                stack.append("$(")
                command_start = True
                i += 2
                continue
            elif c == "`":
                stack.append("`")
                command_start = True
            i += 1
            continue
        # unquoted, or inside a substitution (read like unquoted text)
        if c == "'":
            stack.append("'")
            command_start = False
        elif c == '"':
            stack.append('"')
            command_start = False
        elif text.startswith("$(", i):
            stack.append("$(")
            command_start = True
            i += 2
            continue
        elif c == "`":
            if top == "`":
                stack.pop()
            else:
                stack.append("`")
                command_start = True
        elif c == ")" and top == "$(":
            stack.pop()
        elif c == "#" and (i == 0 or text[i - 1] in " \t\n;&|(") and not stack:
            newline = text.find("\n", i)
            if newline < 0 or newline > index:
                return False  # the payload sits in a comment
            i = newline
            command_start = True
        elif c in ";&|\n":
            command_start = True
        elif c in " \t":
            pass
        else:
            command_start = False
        i += 1
    top = stack[-1] if stack else ""
    if top == "'":
        return False
    if "$(" in stack or "`" in stack:
        return "'" not in stack[stack.index("$(" if "$(" in stack else "`"):]
    return command_start and top != '"'


def pasteable(data: Any) -> Iterator[str]:
    """The command lines of a report (JSON): fix commands and fix-plan commands, commands in backticks
    anywhere, and the command lines of remediation text (each also without a leading '# ', which a
    person removes to run a suggested command)."""
    for key, value in _strings_with_keys(data):
        if key == "commands":
            yield from _with_uncommented(value)
        for match in re.finditer(r"`([^`\n]+)`", value):
            yield match.group(1)
        if key in ("remediation", "fix"):
            for line in value.splitlines():
                # a command line, or a command after a colon ("Rename the directory ...: mv 'A' 'B' and ...")
                for tail in [line.strip()] + [part.strip() for part in line.split(": ")[1:]]:
                    words = tail.lstrip("#").strip().split()
                    if words and (words[0] in COMMAND_WORDS or words[0].startswith("./")):
                        yield from _with_uncommented(tail)


def _with_uncommented(line: str) -> Iterator[str]:
    yield line
    stripped = line.lstrip()
    if stripped.startswith("#"):
        yield stripped.lstrip("#").strip()


def _strings_with_keys(data: Any, key: str = "") -> Iterator[Tuple[str, str]]:
    stack: List[Tuple[str, Any]] = [(key, data)]
    while stack:
        name, item = stack.pop()
        if isinstance(item, str):
            yield name, item
        elif isinstance(item, dict):
            stack.extend((str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((name, v) for v in item)


def injected(blob: bytes, marker: str) -> List[str]:
    """The pasteable lines of an output (JSON report, or text) where the marker's payload would run."""
    text = blob.decode("utf-8", errors="replace")
    try:
        lines = list(pasteable(json.loads(text)))
    except ValueError:
        lines = [part for raw in text.splitlines() for part in _with_uncommented(raw.strip())]
        lines += [m.group(1) for m in re.finditer(r"`([^`\n]+)`", text)]
    return [line for line in lines if marker in line and payload_runs(line, marker)]


# ---------------------------------------------------------------------------------------------
# Registering the attempts
# ---------------------------------------------------------------------------------------------

def bulk_fixtures() -> List[Path]:
    return sorted(p for p in FIXTURES.iterdir() if (p / "snapshot.json").is_file() and (p / "expected.yaml").is_file())


def fixture_args(fixture: Path, copy: Path) -> List[str]:
    data = yaml.safe_load((fixture / "expected.yaml").read_text(encoding="utf-8")) or {}
    return [str(a).replace("{fixture}", str(copy)) for a in data.get("args") or []]


def mutate_json_files(folder: Path, payload: str, paths_only: bool) -> int:
    """Append ``payload`` to every string (or every path-like string) of every JSON file; how many."""
    changed = 0
    for path in sorted(folder.rglob("*.json")):
        if path.is_symlink() or not path.is_file() or path.stat().st_size > 8 << 20:
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            continue
        new, count = _mutated(data, payload, paths_only)
        if count:
            path.write_text(json.dumps(new, indent=1, ensure_ascii=False), encoding="utf-8")
            changed += count
    return changed


def _mutated(value: Any, payload: str, paths_only: bool) -> Tuple[Any, int]:
    if isinstance(value, str):
        if paths_only and "/" not in value:
            return value, 0
        return value + payload, 1
    if isinstance(value, dict):
        items = {k: _mutated(v, payload, paths_only) for k, v in value.items()}
        return {k: v for k, (v, _n) in items.items()}, sum(n for _v, n in items.values())
    if isinstance(value, list):
        pairs = [_mutated(v, payload, paths_only) for v in value]
        return [v for v, _n in pairs], sum(n for _v, n in pairs)
    return value, 0


def register(hr: ModuleType) -> None:
    """Add the second review's attempts to ``hr.ATTEMPTS`` (review=2)."""

    def add(row: str, aid: str, command: str, fn: Callable[[Any], None], **kw: Any) -> None:
        hr.ATTEMPTS.append(hr.Attempt(row, aid, command, fn, review=2, **kw))

    def check_injection(a: Any, blob: bytes, marker: str, what: str) -> None:
        lines = injected(blob, marker)
        if lines:
            a.flag("INJECTION", f"{what}: {hr.short(lines[0], 160)}")
        else:
            a.observed = f"no pasteable command runs the payload ({what})"

    def copy_tree(a: Any, source: Path, name: str) -> Path:
        target = a.work / name
        shutil.copytree(source, target, symlinks=True)
        return target

    # -- the bulk mutation run: every fixture, two modes (154 attempts in the review) ----------------------
    for mode in BULK_MODES:
        for fixture in bulk_fixtures():
            aid = f"R2-{mode}-{fixture.name}"

            def bulk(a: Any, fixture: Path = fixture, mode: str = mode, aid: str = aid) -> None:
                marker = marker_for(aid)
                copy = copy_tree(a, fixture, "fx")
                if not mutate_json_files(copy, f"'$(touch {marker})'", mode == "mass_paths"):
                    a.note("no string to mutate")
                run = a.run(["check", "--from", str(copy), *fixture_args(fixture, copy), "--format", "json", "-v"])
                a.expect(run, (0, 1, 3))
                check_injection(a, run.out, marker, "a pasteable command runs the payload")

            what = "every JSON string" if mode == "mass_all" else "every path-like JSON string"
            add(f"2:{mode}:{fixture.name}", aid, f"check --from <{fixture.name}, '$(touch …)' appended to {what}> "
                "--format json -v", bulk)

    # -- defect 1: fleet fix commands embed node-reported values ------------------------------------------
    def fleet_of_snapshots(a: Any, values: Dict[str, Dict[str, str]]) -> Path:
        folder = a.work / "fl3"
        folder.mkdir()
        for name in ("node01", "node02", "node03"):
            node = copy_tree(a, FIXTURES / "fleet-16" / name, f"fl3/{name}")
            env_path = node / "env.json"
            env = json.loads(env_path.read_text(encoding="utf-8"))
            env.update(values.get(name, {}))
            env_path.write_text(json.dumps(env), encoding="utf-8")
        return folder

    def d1_env(variable: str, majority: str, other: str) -> Callable[[Any], None]:
        def fn(a: Any) -> None:
            marker = marker_for(a.attempt.id)
            value = majority.replace("MARK", marker)
            folder = fleet_of_snapshots(a, {"node01": {variable: value}, "node02": {variable: value},
                                            "node03": {variable: other}})
            run = a.run(["fleet", str(folder), "--format", "json"])
            a.expect(run, (0, 1, 3))
            check_injection(a, run.out, marker, f"{variable} from a node's env.json")
        return fn

    add("2:D1a", "R2-D1-hccl-timeout-subst", "fleet fl3/ (HCCL_CONNECT_TIMEOUT=1800$(touch …) on 2 of 3 nodes)",
        d1_env("HCCL_CONNECT_TIMEOUT", "1800$(touch MARK)", "1200"))
    add("2:D1b", "R2-D1-ifname-semicolon", "fleet fl3/ (HCCL_SOCKET_IFNAME=\"eth0;touch …;\" on 2 of 3 nodes)",
        d1_env("HCCL_SOCKET_IFNAME", "eth0;touch MARK;", "eth1"))
    add("2:D1c", "R2-D1-timeout-newline", "fleet fl3/ (HCCL_CONNECT_TIMEOUT=\"1800\\ntouch …\\n#\")",
        d1_env("HCCL_CONNECT_TIMEOUT", "1800\ntouch MARK\n#", "1200"))

    def node_reports(a: Any, edit: Callable[[Dict[str, Any], str], None]) -> Path:
        folder = a.work / "reports"
        folder.mkdir()
        marker = marker_for(a.attempt.id)
        for index, name in enumerate(("node01", "node02", "node03")):
            out = folder / f"{name}.json"
            a.ctx.setup_tool(["check", "--from", str(FIXTURES / "fleet-16" / name), "--format", "json",
                              "-o", str(out)], ok=(0, 1, 3))
            if index < 2:
                data = json.loads(out.read_text(encoding="utf-8"))
                edit(data, marker)
                out.write_text(json.dumps(data), encoding="utf-8")
        return folder

    def d1_report(field: str) -> Callable[[Any], None]:
        def edit(data: Dict[str, Any], marker: str) -> None:
            facts = data["facts"]
            if field == "torch":
                facts["python"]["packages"]["torch"] = f"2.4.0$(touch {marker})"
            else:
                facts["driver_version"] = f"23.0.7$(touch {marker})"

        def fn(a: Any) -> None:
            folder = node_reports(a, edit)
            run = a.run(["fleet", str(folder), "--format", "json"])
            a.expect(run, (0, 1, 3))
            check_injection(a, run.out, marker_for(a.attempt.id), f"{field} from an edited node report")
        return fn

    add("2:D1d", "R2-D1-torch-version", "fleet reports/ (python.packages.torch = 2.4.0$(touch …) on 2 of 3)",
        d1_report("torch"))
    add("2:D1e", "R2-D1-driver-comment", "fleet reports/ (driver_version = 23.0.7$(touch …): a # comment line)",
        d1_report("driver"))

    # -- defect 2: hccn.conf values in hccn_tool commands -----------------------------------------------
    def d2(key: str, value: str) -> Callable[[Any], None]:
        def fn(a: Any) -> None:
            marker = marker_for(a.attempt.id)
            nf = copy_tree(a, FIXTURES / "network-faults-8x910B3", "nf")
            conf = nf / "files" / "etc" / "hccn.conf"
            lines = [line for line in conf.read_text(encoding="utf-8").splitlines()
                     if not line.startswith(key + "=")]
            lines.append(f"{key}={value.replace('MARK', marker)}")
            conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
            run = a.run(["check", "--from", str(nf), "--rank-table", str(nf / "ranktable.json"), "--select",
                         "ASC-NET", "--format", "json"])
            a.expect(run, (0, 1, 3))
            check_injection(a, run.out, marker, f"{key} from hccn.conf")
        return fn

    add("2:D2a", "R2-D2-gateway-semicolon", "check --from nf --select ASC-NET (gateway_0=29.1.0.1;touch …)",
        d2("gateway_0", "29.1.0.1;touch MARK"))
    add("2:D2b", "R2-D2-address-subst", "check --from nf --select ASC-NET (address_1=$(touch …))",
        d2("address_1", "$(touch MARK)"))

    # -- defect 3: a file or host name in a fleet command ------------------------------------------------
    def d3_file(a: Any) -> None:
        marker = marker_for(a.attempt.id)
        folder = a.work / "fl2"
        folder.mkdir()
        for name in ("node01", "node02"):
            a.ctx.setup_tool(["check", "--from", str(FIXTURES / "fleet-16" / name), "--format", "json",
                              "-o", str(folder / f"{name}.json")], ok=(0, 1, 3))
        os.rename(folder / "node02.json", folder / f"n15$(touch {marker}).json")
        run = a.run(["fleet", str(folder), "--format", "json"])
        a.expect(run, (0, 1, 3))
        check_injection(a, run.out, marker, "a report file name")

    add("2:D3a", "R2-D3-report-file-name", "fleet fl2/ (a report named n15$(touch …).json)", d3_file)

    def d3_host(a: Any) -> None:
        marker = marker_for(a.attempt.id)
        snap = copy_tree(a, FIXTURES / "fleet-16" / "node01", "snap")
        meta = json.loads((snap / "snapshot.json").read_text(encoding="utf-8"))
        meta["hostname"] = f"a$(touch {marker})\nb"
        (snap / "snapshot.json").write_text(json.dumps(meta), encoding="utf-8")
        reports = a.work / "reports"
        reports.mkdir()
        a.run(["check", "--from", str(snap), "--format", "json", "-o", str(reports / "%N.json")], main=False)
        made = sorted(p.name for p in reports.iterdir())
        if any("\n" in name or "$(" in name for name in made):
            a.flag("BUG", f"%N made the file name {made[0]!r}")
        run = a.run(["fleet", str(reports), "--format", "json"])
        a.expect(run, (0, 1, 3))
        check_injection(a, run.out, marker, "a host name through %N")

    add("2:D3b", "R2-D3-hostname-percent-n", "check -o reports/%N.json (host name a$(touch …)\\nb), then fleet",
        d3_host)

    # -- defect 4 and 5: model-folder names in ASC-MDL fixes ------------------------------------------------
    def model_copy(a: Any, name: str = "m") -> Path:
        return copy_tree(a, MODEL_FIXTURE, name)

    def d4(via_snapshot: bool) -> Callable[[Any], None]:
        def fn(a: Any) -> None:
            marker = marker_for(a.attempt.id)
            model = model_copy(a)
            shutil.copy(model / SHARD1, model / f"x$(touch {marker})-00009-of-00009.safetensors")
            if via_snapshot:
                archive = a.work / "s.tar.gz"
                a.run(["snapshot", "--model", str(model), "-o", str(archive)], main=False, timeout=120)
                run = a.run(["check", "--from", str(archive), "--model", str(model), "--select", "ASC-MDL",
                             "--format", "json"])
            else:
                run = a.run(["check", "--model", str(model), "--select", "ASC-MDL", "--format", "json"])
            a.expect(run, (0, 1, 3))
            check_injection(a, run.out, marker, "a shard file name")
        return fn

    add("2:D4a", "R2-D4-stray-shard-name", "check --model M --select ASC-MDL (a shard named x$(touch …)-…)",
        d4(False))
    add("2:D4b", "R2-D4-stray-shard-snapshot", "snapshot --model M, then check --from s.tar.gz --model M", d4(True),
        timeout=180.0, slow_ok=120.0)

    def dotted(a: Any, folder_name: str) -> Tuple[Path, str]:
        """dotted-weight-path with the weight folder renamed (in files/ and in the serving config)."""
        dwp = copy_tree(a, FIXTURES / "dotted-weight-path", "dwp")
        old = "/data/models/DeepSeek-V3.1-W8A8"
        new = f"/data/models/{folder_name}"
        os.rename(dwp / "files" / old.lstrip("/"), dwp / "files" / new.lstrip("/"))
        config = dwp / "mindie-config.json"
        config.write_text(config.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
        return dwp, new

    def d5_mdl020(a: Any) -> None:
        marker = marker_for(a.attempt.id)
        dwp, path = dotted(a, f"y$(touch {marker}).V3")
        run = a.run(["check", "--from", str(dwp), "--model", path, "--config", str(dwp / "mindie-config.json"),
                     "--format", "json"])
        a.expect(run, (0, 1, 3))
        check_injection(a, run.out, marker, "the model folder in ASC-MDL-020")

    add("2:D5a", "R2-D5-mdl020-model-path", "check --from dwp --model /data/models/y$(touch …).V3 --config …",
        d5_mdl020)

    def needs_capabilities(reason: str) -> Callable[[Any], None]:
        def fn(a: Any) -> None:
            raise hr.SetupFailed(reason)
        return fn

    add("2:D5b", "R2-D5-mdl013-unreadable-shard",
        "check --model M --verify MANIFEST (an unreadable shard in a folder m'$(touch …)'`touch …`.x)",
        needs_capabilities("needs a shard root cannot read (the review: setpriv dropping dac_override); "
                           "replay as a non-root user"))
    add("2:D5c", "R2-D5-mdl017-unreadable-subfolder",
        "setpriv --bounding-set -dac_override,-dac_read_search check --model M (sub'$(touch …)' unreadable)",
        needs_capabilities("needs a folder root cannot read (setpriv dropping dac_override/dac_read_search)"))

    # -- defect 6: ASC-CFG-004 -------------------------------------------------------------------------------
    def d6(a: Any) -> None:
        marker = marker_for(a.attempt.id)
        dwp, path = dotted(a, f"x'$(touch {marker})'.V3")
        run = a.run(["check", "--from", str(dwp), "--model", path, "--config", str(dwp / "mindie-config.json"),
                     "--select", "ASC-CFG", "--format", "json"])
        a.expect(run, (0, 1, 3))
        check_injection(a, run.out, marker, "the serving config's weight path")

    add("2:D6", "R2-D6-cfg004-weight-path", "check --from dwp --select ASC-CFG (modelWeightPath x'$(touch …)'.V3)",
        d6)

    # -- defect 7: rank-table path, driver group ------------------------------------------------------------
    def d7_rank_table(a: Any) -> None:
        marker = marker_for(a.attempt.id)
        rtf = FIXTURES / "rank-table-faults-8x910B3"  # MindIE installed: ASC-RT-007 grades the file's mode
        table = a.work / f"rank$(touch {marker}).json"
        shutil.copy(rtf / "rank_table.json", table)
        table.chmod(0o644)
        run = a.run(["check", "--from", str(rtf), "--rank-table", str(table), "--select", "ASC-RT",
                     "--format", "json"])
        a.expect(run, (0, 1, 3))
        check_injection(a, run.out, marker, "the rank table's path")

    add("2:D7a", "R2-D7-rank-table-path", "check --from … --rank-table rank$(touch …).json --select ASC-RT",
        d7_rank_table)

    def d7_group(a: Any) -> None:
        marker = marker_for(a.attempt.id)
        fx = copy_tree(a, FIXTURES / "run-user-not-in-group", "fx")
        info = fx / "files" / "etc" / "ascend_install.info"
        text = re.sub(r"(?m)^UserGroup=.*$", f"UserGroup=HwHi$(touch {marker})", info.read_text(encoding="utf-8"))
        info.write_text(text, encoding="utf-8")
        run = a.run(["check", "--from", str(fx), *fixture_args(FIXTURES / "run-user-not-in-group", fx),
                     "--format", "json"])
        a.expect(run, (0, 1, 3))
        check_injection(a, run.out, marker, "the driver's group")

    add("2:D7b", "R2-D7-driver-group", "check --from run-user-not-in-group (UserGroup=HwHi$(touch …))", d7_group)

    # -- defect 8: -o through a symlink ----------------------------------------------------------------------
    def d8(command: str) -> Callable[[Any], None]:
        def fn(a: Any) -> None:
            outside = a.work / "outside"
            outside.mkdir()
            victim = outside / "v3"
            victim.write_text("CTRL\n")
            reports = a.work / "reports"
            reports.mkdir()
            link = reports / "out.json"
            link.symlink_to("../outside/v3")
            report = a.work / "r.json"
            a.ctx.setup_tool(["check", "--from", str(FIXTURES / "fleet-16" / "node01"), "--format", "json",
                              "-o", str(report)], ok=(0, 1, 3))
            args = {
                "check": ["check", "--from", str(FIXTURES / "fleet-16" / "node01"), "--format", "json"],
                "fleet": ["fleet", str(report), "--format", "json"],
                "render": ["report", "render", str(report), "--format", "json"],
                "diff": ["report", "diff", str(report), str(report), "--format", "json"],
                "probe": ["probe", "http://127.0.0.1:1/", "--format", "json"],
            }[command]
            run = a.run([*args, "-o", str(link)])
            if victim.read_text() != "CTRL\n":
                a.flag("ESCAPE", f"`{command} -o LINK` wrote through the link into its target")
            elif run.rc not in (2,):
                a.note(f"exit {run.rc}")
        return fn

    for command in ("check", "fleet", "render", "diff", "probe"):
        add(f"2:D8-{command}", f"R2-D8-output-link-{command}", f"{command} … -o reports/out.json (a link to "
            "../outside/v3)", d8(command))

    # -- defect 9: exit codes that pass a gate with nothing judged ---------------------------------------------
    def d9(args: Sequence[str], allowed: Tuple[int, ...], static: bool = False) -> Callable[[Any], None]:
        def fn(a: Any) -> None:
            argv = list(args)
            with static_server(a.work) if static else contextlib.nullcontext("") as url:
                argv = [url if part == "URL" else part for part in argv]
                run = a.run(argv)
            if run.rc == 0:
                a.flag("EXIT CODE", f"exit 0 with nothing judged: {hr.short(run.summary())}")
            else:
                a.expect(run, allowed)
        return fn

    add("2:D9a", "R2-D9-probe-select-typo-refused", "probe http://127.0.0.1:1/ --select ASC-SRVX --format junit",
        d9(["probe", "http://127.0.0.1:1/", "--select", "ASC-SRVX", "--format", "junit"], (2,)))
    add("2:D9b", "R2-D9-probe-ignore-all", "probe http://127.0.0.1:1/ --ignore ASC",
        d9(["probe", "http://127.0.0.1:1/", "--ignore", "ASC"], (2,)))
    add("2:D9c", "R2-D9-probe-static-server", "probe http://127.0.0.1:PORT/ (python -m http.server)",
        d9(["probe", "URL"], (1, 3), static=True))

    def d9_fleet_select(a: Any) -> None:
        report = a.work / "r.json"
        a.ctx.setup_tool(["check", "--from", str(FIXTURES / "fleet-16" / "node01"), "--format", "json",
                          "-o", str(report)], ok=(0, 1, 3))
        run = a.run(["fleet", str(report), "--select", "ASC-FLT-002"])
        if run.rc == 0:
            a.note("exit 0 while the node is NOT READY: --select chose only ASC-FLT-002 (the review: arguable)")

    add("2:D9d", "R2-D9-fleet-select-hides-node", "fleet a.json --select ASC-FLT-002 (a NOT READY node)",
        d9_fleet_select)

    # -- defect 10: raw terminal escapes ----------------------------------------------------------------------
    esc = "\x1b[2J\x1b]0;PWNT\x07"

    def raw_escape(a: Any, blob: bytes, where: str) -> None:
        if b"\x1b" in blob:
            a.flag("INJECTION", f"a raw ESC reaches the terminal ({where})")

    def d10_render(a: Any) -> None:
        report = a.work / "r.json"
        a.ctx.setup_tool(["check", "--from", str(FIXTURES / "fleet-16" / "node01"), "--format", "json",
                          "-o", str(report)], ok=(0, 1, 3))
        data = json.loads(report.read_text(encoding="utf-8"))
        data["host"]["hostname"] = f"h{esc}x"
        data["results"][0]["message"] = f"\x1b[31mred{esc}"
        report.write_text(json.dumps(data), encoding="utf-8")
        run = a.run(["report", "render", str(report)])
        a.expect(run, (0, 1, 3))
        raw_escape(a, run.out, "report render, text")

    add("2:D10a", "R2-D10-render-escapes", "report render r.json (ESC/OSC in host name and messages)", d10_render)

    def d10_fleet(a: Any) -> None:
        folder = a.work / "reports"
        folder.mkdir()
        for name in ("node01", "node02"):
            out = folder / f"{name}.json"
            a.ctx.setup_tool(["check", "--from", str(FIXTURES / "fleet-16" / name), "--format", "json",
                              "-o", str(out)], ok=(0, 1, 3))
        data = json.loads((folder / "node01.json").read_text(encoding="utf-8"))
        data["host"]["hostname"] = f"node{esc}"
        (folder / "node01.json").write_text(json.dumps(data), encoding="utf-8")
        run = a.run(["fleet", str(folder)])
        a.expect(run, (0, 1, 3))
        raw_escape(a, run.out, "fleet, text")

    add("2:D10b", "R2-D10-fleet-escapes", "fleet reports/ (a host name with ESC/OSC)", d10_fleet)

    def d10_watch(a: Any) -> None:
        smi = a.work / "bin"
        smi.mkdir()
        capture = (FIXTURES / "both-engines" / "commands" / "npu-smi_info.out").read_text(encoding="utf-8")
        capture_file = a.work / "npu-smi.out"
        capture_file.write_text(_with_process_name(capture, f"r{esc}X"), encoding="utf-8")
        script = smi / "npu-smi"
        script.write_text(f"#!/bin/sh\ncat '{capture_file}'\n")
        script.chmod(0o755)
        run = a.run(["watch", "--once"], env=a.ctx.env(path_first=smi))
        a.expect(run, (0, 1, 3))
        raw_escape(a, run.out, "watch --once plain lines")

    add("2:D10c", "R2-D10-watch-process-name", "watch --once (fake npu-smi: a process named r<ESC>[2J<ESC>]0;…)",
        d10_watch)

    # -- defect 11: outputs over the run's inputs ---------------------------------------------------------------
    def d11_watch(option: str) -> Callable[[Any], None]:
        def fn(a: Any) -> None:
            captures = a.work / "rp"
            captures.mkdir()
            source = (FIXTURES / "fleet-16" / "node01" / "commands" / "npu-smi_info.out").read_bytes()
            for n in range(1, 4):
                (captures / f"000{n}.txt").write_bytes(source)
            target = captures / ("0002.txt" if option == "-o" else "0003.txt")
            run = a.run(["watch", "--replay", str(captures), option, str(target)])
            if target.read_bytes() != source:
                a.flag("DATA LOSS", f"watch --replay D {option} D/{target.name} replaced a capture")
            else:
                a.expect(run, (2,), "an input as the output")
        return fn

    add("2:D11a", "R2-D11-watch-output-over-capture", "watch --replay rp -o rp/0002.txt", d11_watch("-o"))
    add("2:D11b", "R2-D11-watch-prometheus-over-capture", "watch --replay rp --prometheus rp/0003.txt",
        d11_watch("--prometheus"))

    def d11_probe(a: Any) -> None:
        same = a.work / "same.json"
        same.write_text('{"saved": "answer"}\n')
        run = a.run(["probe", "http://127.0.0.1:1/", "--save", str(same), "-o", str(same)])
        if same.read_text() != '{"saved": "answer"}\n' and run.rc == 0:
            a.flag("DATA LOSS", "probe --save F -o F: the saved answer was replaced by the report")
        elif run.rc != 2:
            a.note(f"exit {run.rc} (not refused as a usage error)")

    add("2:D11c", "R2-D11-probe-save-is-output", "probe URL --save same.json -o same.json", d11_probe)

    # -- defect 12: snapshot --model copies config.json secrets ---------------------------------------------------
    def d12(redact: bool) -> Callable[[Any], None]:
        def fn(a: Any) -> None:
            model = model_copy(a)
            token = a.plant("hf_" + hr._token(34, "SEKRIT61"), "hf_token in the model's config.json")
            password = a.plant(hr._token(16, "SEKRIT62"), "a password in the config's _name_or_path URL")
            config = json.loads((model / "config.json").read_text(encoding="utf-8"))
            config.update({"hf_token": token, "_name_or_path": f"https://user:{password}@hf.example/x"})
            (model / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
            archive = a.work / "s.tar.gz"
            run = a.run(["snapshot", "--model", str(model), *(["--redact"] if redact else []), "-o", str(archive)],
                        timeout=120)
            a.expect(run, (0,))
            # The generic checks search every file of the work folder (archive members included) for the
            # planted secrets: the model's own config.json is the input, not an output.
            (model / "config.json").unlink()

        return fn

    add("2:D12a", "R2-D12-snapshot-model-secrets", "snapshot --model M -o s.tar.gz (hf_token, URL password)",
        d12(False), timeout=180.0, slow_ok=120.0)
    add("2:D12b", "R2-D12-snapshot-model-secrets-redact", "snapshot --model M --redact -o sr.tar.gz", d12(True),
        timeout=180.0, slow_ok=120.0)

    # -- defect 13: --redact misses addresses in fix text; breaks a fleet command ---------------------------------
    def d13_check(a: Any) -> None:
        nf = FIXTURES / "network-faults-8x910B3"
        run = a.run(["check", "--from", str(nf), "--rank-table", str(nf / "ranktable.json"), "--redact",
                     "--format", "json"])
        a.expect(run, (0, 1, 3))
        if b"29.1.0.1" in run.out:
            a.flag("BUG", "--redact left the gateway 29.1.0.1 in a fix step")
        a.observed = "no address of the machine in the redacted report"

    add("2:D13a", "R2-D13-redact-fix-plan-address", "check --from network-faults-8x910B3 --rank-table … --redact",
        d13_check)

    def d13_fleet(a: Any) -> None:
        folder = a.work / "fl"
        folder.mkdir()
        for number in range(1, 17):
            name = f"node{number:02d}"
            a.ctx.setup_tool(["check", "--from", str(FIXTURES / "fleet-16" / name), "--format", "json",
                              "-o", str(folder / f"{name}.json")], ok=(0, 1, 3))
        run = a.run(["fleet", str(folder), "--redact", "--format", "json"])
        a.expect(run, (0, 1, 3))
        if b"10.155.111." in run.out:
            a.flag("BUG", "fleet --redact left a server address (ASC-FLT-014)")
        data = json.loads(run.out or b"{}")
        renders = [c for step in data.get("fix_plan") or [] for c in step.get("commands") or []
                   if c.startswith("ascend-doctor report render ")]
        if any(not c.endswith(".json") for c in renders):
            a.flag("BUG", f"--redact turned a command into one naming no report: {renders[0]}")
        a.observed = f"no server address; {len(renders)} report render command(s) name host-N.json files"

    add("2:D13b", "R2-D13-fleet-redact", "fleet fl/ --redact (16 reports of fleet-16)", d13_fleet,
        timeout=180.0, slow_ok=120.0)

    # -- minor findings and the deploy review --------------------------------------------------------------------
    def bidi(a: Any) -> None:
        report = a.work / "r.json"
        a.ctx.setup_tool(["check", "--from", str(FIXTURES / "fleet-16" / "node01"), "--format", "json",
                          "-o", str(report)], ok=(0, 1, 3))
        data = json.loads(report.read_text(encoding="utf-8"))
        data["host"]["hostname"] = "node\u202e10edon\u200b"
        report.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        run = a.run(["report", "render", str(report)])
        a.expect(run, (0, 1, 3))
        if "\u202e".encode() in run.out:
            a.note("a bidi override (U+202E) reaches the text output")

    add("2:m1", "R2-minor-bidi-host-name", "report render r.json (U+202E and U+200B in the host name)", bidi)

    def deploy(a: Any) -> None:
        for name in ("daemonset.yaml", "job-indexed.yaml"):
            for doc in yaml.safe_load_all((ROOT / "deploy" / "kubernetes" / name).read_text(encoding="utf-8")):
                spec = ((doc or {}).get("spec") or {}).get("template", {}).get("spec") or {}
                for container in spec.get("containers") or []:
                    if (container.get("securityContext") or {}).get("privileged"):
                        a.flag("BUG", f"{name}: a privileged container")
                for volume in spec.get("volumes") or []:
                    if (volume.get("hostPath") or {}).get("path") == "/dev":
                        a.flag("BUG", f"{name}: the host's /dev mounted")
        a.observed = "deploy files read (no command run)"

    add("2:m2", "R2-deploy-least-privilege", "read deploy/kubernetes/*.yaml (privileged, /dev)", deploy)


def _with_process_name(capture: str, name: str) -> str:
    """An `npu-smi info` capture whose first process row names ``name`` (or with one such row added)."""
    lines = capture.splitlines()
    for index, line in enumerate(lines):
        cells = line.split("|")
        if len(cells) >= 6 and re.fullmatch(r"\s*\d+\s+\d+\s*", cells[1]) and cells[2].strip().isdigit():
            cells[3] = f" {name:<25}"
            lines[index] = "|".join(cells)
            return "\n".join(lines) + "\n"
    return capture


@contextlib.contextmanager
def static_server(folder: Path) -> Iterator[str]:
    """A static web server (what `python -m http.server` gives) on 127.0.0.1: no LLM behind it."""
    www = folder / "www"
    www.mkdir(exist_ok=True)
    (www / "index.html").write_text("<html>hello</html>\n")
    handler = functools.partial(_QuietHandler, directory=str(www))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # the base class's parameter names
        pass


__all__ = ["REVIEW2_TOTALS", "injected", "payload_runs", "register"]
