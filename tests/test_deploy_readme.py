"""deploy/README.md, tested as a person pastes it (issue 25 item 7).

* Every `ascend-doctor` command in it (code blocks, inline code, the commands pdsh runs remotely) parses
  with the real command line: options, choices and subcommands exist.
* Every shell block passes `bash -n`; every deploy file it names exists.
* The Ansible inventory block loads in ansible-inventory (16 hosts in the group the playbook checks) and
  the README's own ansible-playbook line passes --syntax-check with it (skipped without ansible-core).
* The blocks marked `<!-- ci: NAME -->` run for real in bash, with fake `srun`, `pdsh`/`dshbak`,
  `kubectl`, `docker` and `ssh` on the PATH: sixteen fake nodes, each of which is a snapshot of
  fixtures/fleet-16 (`check` on node N is `check --from fixtures/fleet-16/nodeN`, its host name nodeN),
  and the `ascend-doctor fleet` that ends each quick start must find the scenario's planted differences.
  The fake kubectl answers from the manifests it was given (names, labels, the reports' path), so a
  README and manifests that disagree fail here.

Each block runs in a temporary folder holding a copy of deploy/ (the registry block edits the manifests);
the Slurm block's shared file system, /shared, is a folder of the test's.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, NamedTuple, Optional

import click
import pytest
import yaml

from ascend_doctor.cli import main as cli_main

from .fleet_util import invoke

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "deploy" / "README.md"
FLEET16 = ROOT / "fixtures" / "fleet-16"
NODES = [f"node{i:02d}" for i in range(1, 17)]
SHELLS = ("sh", "bash")
QUICK_STARTS = ("kubernetes-job", "kubernetes-daemonset", "slurm", "pdsh")


class Block(NamedTuple):
    lang: str
    text: str
    marker: Optional[str]  # NAME of a `<!-- ci: NAME -->` line just above the fence
    line: int


def readme_blocks() -> List[Block]:
    lines = README.read_text(encoding="utf-8").splitlines()
    blocks: List[Block] = []
    index = 0
    while index < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[index])
        if fence is None:
            index += 1
            continue
        end = lines.index("```", index + 1)
        above = lines[index - 1] if index else ""
        marker = re.match(r"^<!-- ci: ([\w-]+) -->$", above)
        blocks.append(Block(fence.group(1), "\n".join(lines[index + 1:end]) + "\n",
                            marker.group(1) if marker else None, index + 1))
        index = end + 1
    return blocks


BLOCKS = readme_blocks()


def block(marker: str) -> Block:
    (found,) = [b for b in BLOCKS if b.marker == marker]
    return found


def shell_blocks() -> List[Block]:
    return [b for b in BLOCKS if b.lang in SHELLS]


# -- every ascend-doctor command parses --------------------------------------------------------------

LAUNCHERS = ("srun", "sudo", "env")
OPERATORS = ("|", "&&", "||", ";", "&")


def commands_in(text: str) -> Iterator[List[str]]:
    """The argv (after `ascend-doctor`) of every ascend-doctor command in shell text: first in a command, or
    after a launcher and its options (srun --nodes=16 ... ascend-doctor check), and inside a quoted remote
    command (pdsh '...')."""
    for line in text.replace("\\\n", " ").splitlines():
        if line.lstrip().startswith("#"):
            continue
        lexer = shlex.shlex(line.split(" # ")[0], posix=True, punctuation_chars="|&;<>")
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError:
            continue
        segment: List[str] = []
        for token in [*tokens, ";"]:
            if token not in OPERATORS:
                segment.append(token)
                continue
            yield from _segment_commands(segment)
            segment = []


def _segment_commands(words: List[str]) -> Iterator[List[str]]:
    for word in words:
        if " " in word and "ascend-doctor" in word:
            yield from commands_in(word)
    start = 0
    if words and words[0] in LAUNCHERS:
        start = 1
        while start < len(words) and words[start].startswith("-"):
            start += 1
    if start < len(words) and os.path.basename(words[start]) == "ascend-doctor":
        argv = []
        for word in words[start + 1:]:
            if word[:1] in "<>" or word[:2] == "2>":
                break
            argv.append(word)
        yield argv


def inline_commands() -> Iterator[List[str]]:
    prose = re.sub(r"```.*?```", "", README.read_text(encoding="utf-8"), flags=re.S)
    for span in re.findall(r"`([^`]+)`", prose.replace("\n", " ")):
        if "ascend-doctor " in span:
            yield from commands_in(span)


def parse_command_line(argv: List[str]) -> Dict[str, Any]:
    """The parameters click gives the (sub)command of ``argv``; click.UsageError when one does not exist."""
    command: click.Command = cli_main
    context: Optional[click.Context] = None
    name = "ascend-doctor"
    args = list(argv)
    while True:
        try:
            context = command.make_context(name, args, parent=context)
        except click.exceptions.Exit:  # --version
            return {}
        if not isinstance(command, click.Group):
            return dict(context.params)
        rest = [*(context._protected_args if hasattr(context, "_protected_args") else context.protected_args),
                *context.args]
        resolved_name, resolved, args = command.resolve_command(context, rest)
        assert resolved is not None and resolved_name is not None, argv
        name, command = resolved_name, resolved


def every_command() -> List[List[str]]:
    found = [argv for b in shell_blocks() for argv in commands_in(b.text)]
    return found + list(inline_commands())


def test_the_readme_has_a_quick_start_for_every_route() -> None:
    text = README.read_text(encoding="utf-8")
    for heading in ("## Ansible", "## Kubernetes", "## Slurm", "## pdsh"):
        assert heading in text
    for marker in QUICK_STARTS:  # each quick start ends with the merge
        lines = [line for line in block(marker).text.splitlines() if line.startswith("ascend-doctor fleet")]
        assert lines, marker
    assert "ctr -n k8s.io images import" in text and "docker push" in text
    assert "srun --nodes=16 --ntasks-per-node=1" in text and "pdsh -l root -w node[01-16]" in text


def test_every_ascend_doctor_command_parses(capsys: pytest.CaptureFixture[str]) -> None:
    commands = every_command()
    assert len(commands) >= 12
    seen = set()
    inline = list(inline_commands())
    for argv in commands:
        try:
            params = parse_command_line(argv)
        except click.MissingParameter:
            assert argv in inline, argv  # prose names a command without its arguments ("`ascend-doctor fleet`")
            params = {"fmt": "json"}
        except click.UsageError as exc:
            pytest.fail(f"deploy/README.md: ascend-doctor {' '.join(argv)}: {exc}")
        seen.add(argv[0])
        if argv[:1] == ["check"]:
            assert params["fmt"] == "json", argv  # fleet reads JSON reports
    assert {"check", "fleet", "report", "--version"} <= seen


def test_every_shell_block_parses_in_bash() -> None:
    for found in shell_blocks():
        done = subprocess.run(["bash", "-n"], input=found.text, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"deploy/README.md line {found.line}: {done.stderr}"


def test_every_deploy_file_named_exists() -> None:
    text = README.read_text(encoding="utf-8")
    named = set(re.findall(r"deploy/[\w./-]+\.(?:yml|yaml|ini|sh)\b", text))
    named |= set(re.findall(r"deploy/[\w/]+/Dockerfile", text))
    assert len(named) >= 7
    for path in named:
        assert (ROOT / path).is_file(), path
    # Where the playbook leaves the reports and the verdict, as the README says.
    defaults = yaml.safe_load((ROOT / "deploy/ansible/roles/ascend_doctor/defaults/main.yml").read_text("utf-8"))
    assert defaults["ascend_doctor_reports_dir"] == "{{ playbook_dir }}/reports" and "deploy/ansible/reports/" in text
    assert defaults["ascend_doctor_fleet_report"] == "{{ playbook_dir }}/fleet.json"
    assert "deploy/ansible/fleet.json" in text


# -- Ansible ---------------------------------------------------------------------------------------

def ansible_tool(name: str) -> str:
    found = shutil.which(name) or str(Path(sys.executable).parent / name)
    if not os.path.exists(found):
        pytest.skip(f"{name} is not installed (`pip install -e '.[dev]'` brings ansible-core)")
    return found


def ansible_env(tmp_path: Path) -> Dict[str, str]:
    env = dict(os.environ)
    env.update({"ANSIBLE_HOME": str(tmp_path / "ansible-home"), "ANSIBLE_LOCAL_TEMP": str(tmp_path / "ansible-tmp"),
                "ANSIBLE_CONFIG": str(tmp_path / "none.cfg"), "ANSIBLE_NOCOLOR": "1", "HOME": str(tmp_path)})
    return env


def test_the_inventory_and_the_playbook_line_load_in_ansible(tmp_path: Path) -> None:
    (inventory_block,) = [b for b in BLOCKS if b.lang == "ini"]
    inventory = tmp_path / "inventory.ini"
    inventory.write_text(inventory_block.text, encoding="utf-8")
    listed = subprocess.run([ansible_tool("ansible-inventory"), "-i", str(inventory), "--list"], capture_output=True,
                            text=True, env=ansible_env(tmp_path), check=False, timeout=300)
    assert listed.returncode == 0, listed.stderr
    data = json.loads(listed.stdout)
    assert data["ascend"]["hosts"] == NODES
    host = data["_meta"]["hostvars"]["node07"]
    assert host["ascend_doctor_check_args"] == ["--rank-table", "/data/rank_table.json"]  # a list, as argv

    (line,) = [line for b in shell_blocks() for line in b.text.splitlines() if line.startswith("ansible-playbook")]
    argv = [str(inventory) if word == "inventory.ini" else word for word in shlex.split(line)]
    argv[0] = ansible_tool("ansible-playbook")
    checked = subprocess.run([*argv, "--syntax-check"], capture_output=True, text=True, cwd=ROOT,
                             env=ansible_env(tmp_path), check=False, timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- fake tools and fake nodes ----------------------------------------------------------------------

def script(path: Path, body: str) -> None:
    path.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    path.chmod(0o755)


# `ascend-doctor` on a fake node: the node is a snapshot of fleet-16, named after it (check -o %N).
NODE_SHIM = f"""
import os, socket, sys
node = os.environ["FAKE_NODE"]
socket.gethostname = lambda: node  # this fake node's host name
args = sys.argv[1:]
if args[:1] == ["check"]:
    args = ["check", "--from", os.path.join({str(FLEET16)!r}, node), *args[1:]]
from ascend_doctor.cli import main
main(args, prog_name="ascend-doctor")
"""

# `ascend-doctor` on the machine that merges.
MERGER = """
from ascend_doctor.cli import main
main(prog_name="ascend-doctor")
"""

# srun: --nodes=N (-N N), --ntasks-per-node=1; the command runs once per node, all at once; the exit code
# is the highest of the tasks' (as Slurm's srun returns it).
FAKE_SRUN = """
import os, subprocess, sys
args, nodes = sys.argv[1:], None
while args and args[0].startswith("-"):
    option = args.pop(0)
    if option.startswith("--nodes="):
        nodes = int(option.split("=", 1)[1])
    elif option == "-N":
        nodes = int(args.pop(0))
    elif option.startswith("-N"):
        nodes = int(option[2:])
    elif option != "--ntasks-per-node=1":
        sys.exit("fake srun: option not handled: " + option)
assert nodes and args, "fake srun: --nodes and a command are required"
tasks = [subprocess.Popen(args, env=dict(os.environ, FAKE_NODE=f"node{i:02d}",
                                          PATH=os.environ["FAKE_NODE_BIN"] + ":" + os.environ["PATH"]))
         for i in range(1, nodes + 1)]
sys.exit(max(task.wait() for task in tasks))
"""

# pdsh -l USER -w node[01-16] 'command': the command in the node's shell, each output line prefixed with
# "node: ", the nodes' lines interleaved (they arrive as the nodes answer).
FAKE_PDSH = """
import itertools, os, re, subprocess, sys
args, hosts = sys.argv[1:], []
while args and args[0].startswith("-"):
    option = args.pop(0)
    if option == "-w":
        spec = args.pop(0)
        found = re.fullmatch(r"(\\w+)\\[(\\d+)-(\\d+)\\]", spec)
        assert found, "fake pdsh: host list not handled: " + spec
        width = len(found.group(2))
        hosts = [found.group(1) + str(i).zfill(width) for i in range(int(found.group(2)), int(found.group(3)) + 1)]
    elif option == "-l":
        args.pop(0)
    else:
        sys.exit("fake pdsh: option not handled: " + option)
command = " ".join(args)
runs = {host: subprocess.Popen(["bash", "-c", command], stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ, FAKE_NODE=host,
                                        PATH=os.environ["FAKE_NODE_BIN"] + ":" + os.environ["PATH"]))
        for host in hosts}
outputs = {host: run.communicate()[0].splitlines() for host, run in runs.items()}
for lines in itertools.zip_longest(*[[f"{host}: {line}" for line in outputs[host]] for host in hosts]):
    for line in lines:
        if line is not None:
            print(line)
"""

# dshbak -d DIR: each node's lines, without the "node: " prefix, to DIR/node; DIR must exist unless -f.
FAKE_DSHBAK = """
import os, sys
args = sys.argv[1:]
folder = args[args.index("-d") + 1]
if not os.path.isdir(folder):
    if "-f" not in args:
        sys.exit(f"dshbak: Output directory {folder} does not exist")
    os.makedirs(folder)
out = {}
for line in sys.stdin:
    host, _, rest = line.rstrip("\\n").partition(": ")
    out.setdefault(host, []).append(rest)
for host, lines in out.items():
    with open(os.path.join(folder, host), "w", encoding="utf-8") as fh:
        fh.write("\\n".join(lines) + "\\n")
"""

# kubectl, answering from the manifests applied: pods of the applied Job/DaemonSet (one per node), their
# logs (the Job's pods print their report) and `exec -- cat` of the report each DaemonSet pod keeps.
FAKE_KUBECTL = """
import json, os, sys, yaml
state_path = os.environ["FAKE_KUBE_STATE"]
state = json.load(open(state_path)) if os.path.exists(state_path) else {"applied": []}
args = sys.argv[1:]
namespace = "default"
if "-n" in args:
    at = args.index("-n"); namespace = args[at + 1]; del args[at:at + 2]
verb = args[0]
def files():
    return [args[i + 1] for i, a in enumerate(args) if a == "-f"]
def workloads(kind=None):
    return [d for d in state["applied"] if d["kind"] in ("Job", "DaemonSet") and (kind is None or d["kind"] == kind)
            and d["metadata"]["namespace"] == namespace]
def one(kind, name):
    found = [d for d in workloads(kind) if d["metadata"]["name"] == name]
    if not found:
        sys.exit(f"Error from server (NotFound): {kind.lower()}s {name!r} not found in namespace {namespace}")
    return found[0]
def pods():
    out = []
    for doc in workloads():
        count = doc["spec"].get("completions", len(os.environ["FAKE_NODES"].split()))
        for index, node in enumerate(os.environ["FAKE_NODES"].split()[:count]):
            out.append((f"{doc['metadata']['name']}-{index}-x7k2p", node, doc))
    return out
def report(node):
    with open(os.path.join(os.environ["FAKE_REPORTS"], node + ".json"), encoding="utf-8") as fh:
        return fh.read()
if verb == "apply":
    for path in files():
        state["applied"] += [d for d in yaml.safe_load_all(open(path)) if d]
    json.dump(state, open(state_path, "w"))
elif verb == "delete":
    names = {(d["kind"], d["metadata"]["name"]) for path in files() for d in yaml.safe_load_all(open(path)) if d}
    state["applied"] = [d for d in state["applied"] if (d["kind"], d["metadata"]["name"]) not in names]
    json.dump(state, open(state_path, "w"))
elif verb == "wait":
    kind, name = [a for a in args[1:] if not a.startswith("-")][0].split("/")
    assert kind == "job" and "--for=condition=complete" in args, args
    one("Job", name)
elif verb == "rollout":
    kind, name = args[2].split("/")
    assert args[1] == "status" and kind == "daemonset", args
    one("DaemonSet", name)
elif verb == "get" and args[1] == "pods":
    key, value = args[args.index("-l") + 1].split("=")
    assert any(a.startswith("jsonpath=") for a in args) or "-o" in args
    for pod, node, doc in pods():
        if doc["spec"]["template"]["metadata"]["labels"].get(key) == value:
            print(pod, node)
elif verb == "logs":
    pod, node, doc = [p for p in pods() if p[0] == args[1]][0]
    assert doc["kind"] == "Job", "only the Job's pods print their report"
    sys.stdout.write(report(node))
elif verb == "exec":
    pod, node, doc = [p for p in pods() if p[0] == args[1]][0]
    command = args[args.index("--") + 1:]
    mounts = [m["mountPath"] for c in doc["spec"]["template"]["spec"]["containers"] for m in c["volumeMounts"]]
    assert command[0] == "cat" and os.path.dirname(command[1]) in mounts, command
    assert command[1] == f"/var/lib/ascend-doctor/reports/{node}.json", command
    sys.stdout.write(report(node))
else:
    sys.exit("fake kubectl: not handled: " + " ".join(sys.argv[1:]))
"""

# docker (tag, push, save -o) and ssh (records each call and what it was given on stdin).
FAKE_DOCKER = """
import json, os, sys
args = sys.argv[1:]
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps(["docker", *args]) + "\\n")
if args[0] == "save":
    with open(args[args.index("-o") + 1], "wb") as fh:
        fh.write(b"image archive of " + args[1].encode())
"""
FAKE_SSH = """
import json, os, sys
args = sys.argv[1:]
given = sys.stdin.buffer.read() if not sys.stdin.isatty() else b""
with open(os.environ["FAKE_LOG"], "a") as log:
    log.write(json.dumps(["ssh", *args, given.decode(errors="replace")]) + "\\n")
if args[1:6] == ["ctr", "-n", "k8s.io", "images", "ls"]:
    print("docker.io/library/ascend-doctor:0.1.0")
"""


@pytest.fixture(scope="module")
def node_reports(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Each fake node's report, as its pod would write it (check --from its snapshot, JSON)."""
    folder = tmp_path_factory.mktemp("node-reports")
    for node in NODES:
        done = invoke("check", "--from", str(FLEET16 / node), "--format", "json", "-o", str(folder / f"{node}.json"))
        assert done.exit_code in (0, 1), done.stderr
    return folder


class Sandbox(NamedTuple):
    cwd: Path
    env: Dict[str, str]
    log: Path


@pytest.fixture()
def sandbox(tmp_path: Path, node_reports: Path) -> Sandbox:
    bin_dir, node_bin = tmp_path / "bin", tmp_path / "node-bin"
    bin_dir.mkdir()
    node_bin.mkdir()
    for name, body in (("srun", FAKE_SRUN), ("pdsh", FAKE_PDSH), ("dshbak", FAKE_DSHBAK), ("kubectl", FAKE_KUBECTL),
                       ("docker", FAKE_DOCKER), ("ssh", FAKE_SSH), ("ascend-doctor", MERGER)):
        script(bin_dir / name, body)
    script(node_bin / "ascend-doctor", NODE_SHIM)
    cwd = tmp_path / "checkout"
    cwd.mkdir()
    shutil.copytree(ROOT / "deploy", cwd / "deploy")
    log = tmp_path / "calls.log"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "PYTHONPATH": str(ROOT), "HOME": str(tmp_path), "LANG": "C.UTF-8",
           "NO_COLOR": "1", "FAKE_NODE_BIN": str(node_bin), "FAKE_NODES": " ".join(NODES),
           "FAKE_REPORTS": str(node_reports), "FAKE_KUBE_STATE": str(tmp_path / "kube.json"), "FAKE_LOG": str(log)}
    return Sandbox(cwd, env, log)


def run_block(box: Sandbox, text: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", text], cwd=box.cwd, env=box.env, capture_output=True, text=True,
                          timeout=600, check=False)


def assert_fleet_of_fleet16(done: subprocess.CompletedProcess, reports: Path) -> None:
    """The merged verdict of the sixteen fake nodes: every node read, the planted differences found."""
    log = done.stdout + done.stderr
    assert sorted(p.name.split(".")[0] for p in reports.iterdir()) == NODES, log
    assert "host: 16 nodes" in done.stdout, log
    assert "15 nodes on 23.0.7; node05 on 23.0.3" in done.stdout, log  # node05's older driver (ASC-FLT-004)
    assert "node14 on 8.1.RC1" in done.stdout, log  # node14's CANN (ASC-FLT-005)


# -- the quick starts, run --------------------------------------------------------------------------

@pytest.mark.slow
def test_slurm_quick_start_on_sixteen_fake_nodes(sandbox: Sandbox, tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    text = block("slurm").text.replace("/shared/", f"{shared}/")
    done = run_block(sandbox, text)
    assert done.returncode == 1, done.stdout + done.stderr  # the fleet's verdict: fleet-16 has differences
    assert_fleet_of_fleet16(done, shared / "ascend-check" / "reports")


@pytest.mark.slow
def test_pdsh_quick_start_on_sixteen_fake_nodes(sandbox: Sandbox) -> None:
    done = run_block(sandbox, block("pdsh").text)
    assert done.returncode == 1, done.stdout + done.stderr
    reports = sandbox.cwd / "reports"
    assert_fleet_of_fleet16(done, reports)
    assert all(not p.suffix for p in reports.iterdir())  # dshbak names the files after the node alone


def test_kubernetes_job_quick_start(sandbox: Sandbox) -> None:
    done = run_block(sandbox, block("kubernetes-job").text)
    assert done.returncode == 0, done.stdout + done.stderr  # its last command deletes the Job
    assert_fleet_of_fleet16(done, sandbox.cwd / "reports")
    assert json.loads(Path(sandbox.env["FAKE_KUBE_STATE"]).read_text("utf-8"))["applied"] == [
        yaml.safe_load((ROOT / "deploy/kubernetes/namespace.yaml").read_text("utf-8"))]  # the Job is gone


def test_kubernetes_daemonset_quick_start(sandbox: Sandbox) -> None:
    done = run_block(sandbox, block("kubernetes-daemonset").text)
    assert done.returncode == 1, done.stdout + done.stderr
    assert_fleet_of_fleet16(done, sandbox.cwd / "reports")


def calls(box: Sandbox) -> List[List[str]]:
    return [json.loads(line) for line in box.log.read_text("utf-8").splitlines()]


def test_the_image_reaches_every_node_without_a_registry(sandbox: Sandbox) -> None:
    done = run_block(sandbox, block("image-import").text)
    assert done.returncode == 0, done.stdout + done.stderr
    made = calls(sandbox)
    assert made[0] == ["docker", "save", "ascend-doctor:0.1.0", "-o", "ascend-doctor.tar"]
    imports = [c for c in made if c[0] == "ssh" and "import" in c]
    assert [c[1] for c in imports] == [f"root@{node}" for node in NODES]
    assert all(c[2:] == ["ctr", "-n", "k8s.io", "images", "import", "-", "image archive of ascend-doctor:0.1.0"]
               for c in imports)
    # the name containerd gives the archive's image is the one the manifests run, without pulling
    for manifest in ("daemonset.yaml", "job-indexed.yaml"):
        doc = yaml.safe_load((ROOT / "deploy/kubernetes" / manifest).read_text("utf-8"))
        (container,) = doc["spec"]["template"]["spec"]["containers"]
        assert container["image"] == "ascend-doctor:0.1.0" and container["imagePullPolicy"] == "IfNotPresent"


def test_the_registry_block_points_both_manifests_at_the_pushed_image(sandbox: Sandbox) -> None:
    done = run_block(sandbox, block("image-registry").text)
    assert done.returncode == 0, done.stdout + done.stderr
    pushed = "registry.example.com/ascend/ascend-doctor:0.1.0"
    assert ["docker", "push", pushed] in calls(sandbox)
    for manifest in ("daemonset.yaml", "job-indexed.yaml"):
        doc = yaml.safe_load((sandbox.cwd / "deploy/kubernetes" / manifest).read_text("utf-8"))
        (container,) = doc["spec"]["template"]["spec"]["containers"]
        assert container["image"] == pushed, manifest
        # nothing else changed: the least-privilege settings stay as they are
        original = yaml.safe_load((ROOT / "deploy/kubernetes" / manifest).read_text("utf-8"))
        (before,) = original["spec"]["template"]["spec"]["containers"]
        assert {**before, "image": pushed} == container
