"""deploy/kubernetes: the manifests validate against the Kubernetes schemas (kubernetes-validate, strict,
offline: the package bundles them), and the pods mount exactly what the tool reads on a host, derived
from the fact providers' own Reads declarations (Facts.declared() / fact.reads()), never a copied list."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Dict, Iterator, List, Set, Tuple

import pytest
import yaml

from ascend_doctor.facts import Facts
from ascend_doctor.facts.logs import log_roots

ROOT = Path(__file__).resolve().parent.parent
K8S = ROOT / "deploy" / "kubernetes"
MANIFESTS = sorted(K8S.glob("*.yaml"))
REPORTS = "/var/lib/ascend-doctor/reports"  # the pods' output, not an input

# The variables of the Reads declarations on an Ascend node as the pod sees it: the default install root,
# the CANN log folders of root (the serving user) and the toolkit that set_env.sh points at. {python} and
# {python_site} are the image's own interpreter, and {model}, {config}, {manifest}, {rank_table} inputs of
# a run: none of them is read from the host, so they are left without values (no pattern).
NODE_VARIABLES: Dict[str, List[str]] = {
    "root": ["/usr/local/Ascend"],
    "log_root": list(log_roots({"HOME": "/root"}, [])),
    "env_path": ["/usr/local/Ascend/ascend-toolkit/latest", "/usr/local/Ascend/ascend-toolkit/latest/opp"],
}
# Read from the pod itself, on purpose.
NOT_FROM_HOST_MOUNTS = {
    "/proc": "the kernel's view (hostPID: true shares the host's processes)",
    "/sys": "the host kernel's sysfs, visible in every container",
    "/.dockerenv": "marks the check's own container",
    "/run/.containerenv": "marks the check's own container",
    "/dev": "the NPUs' device nodes: mounted and allowed by the Ascend Docker Runtime (ASCEND_VISIBLE_DEVICES)",
    "/home": "users' CANN logs (/home/*/ascend/log): not mounted by default, add a hostPath for the job's user",
}
# Commands the image brings (util-linux, the shell).
IMAGE_COMMANDS = {"dmesg", "id", "sh"}
# Facts about the image's own interpreter whose reads have no fixed folder ("/**/torch/..."): read in the pod.
IMAGE_FACTS = {"torch_abi": "torch's TorchConfig.cmake, wherever the image's interpreter finds torch"}


def documents() -> Iterator[Tuple[Path, Dict[str, Any]]]:
    for path in MANIFESTS:
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if doc:
                yield path, doc


def pod_specs() -> Iterator[Tuple[str, Dict[str, Any]]]:
    for path, doc in documents():
        spec = doc.get("spec", {}).get("template", {}).get("spec")
        if spec:
            yield f"{path.name}:{doc['kind']}", spec


def host_mounts(spec: Dict[str, Any]) -> Dict[str, str]:
    """mountPath -> hostPath of every hostPath volume, mounted at its own path."""
    volumes = {v["name"]: v["hostPath"]["path"] for v in spec["volumes"] if "hostPath" in v}
    out = {}
    for container in spec["containers"]:
        for mount in container.get("volumeMounts", []):
            host = volumes.get(mount["name"])
            if host is not None:
                assert mount["mountPath"] == host, f"{mount['name']}: mounted at {mount['mountPath']}, not {host}"
                out[host] = mount["name"]
    return out


def static_prefix(pattern: str) -> str:
    """The path before the first segment holding a wildcard."""
    parts: List[str] = []
    for segment in pattern.split("/")[1:]:
        if any(c in segment for c in "*?["):
            break
        parts.append(segment)
    return "/" + "/".join(parts)


def under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def declared_paths() -> Set[str]:
    """The fixed folder of every path any provider reads (files, present paths, listings, tails)."""
    paths: Set[str] = set()
    for name, fact in Facts.declared().items():
        for kind, patterns in fact.reads().patterns(NODE_VARIABLES).items():
            for pattern in patterns:
                prefix = static_prefix(pattern)
                if prefix == "/":
                    assert name in IMAGE_FACTS, f"{name} reads {pattern} ({kind}): no folder to mount"
                    continue
                paths.add(prefix)
    return paths


def declared_commands() -> Dict[str, Set[str]]:
    """Command name -> the absolute paths the providers try for it (empty: looked up on PATH only)."""
    out: Dict[str, Set[str]] = {}
    for fact in Facts.declared().values():
        for argv in fact.reads().argvs(NODE_VARIABLES, npu_ids=[0], chips={0: [0]}, device_ids=[0]):
            out.setdefault(os.path.basename(argv[0]), set())
            if argv[0].startswith("/"):
                out[os.path.basename(argv[0])].add(argv[0])
    return out


def test_manifests_validate_against_the_kubernetes_schemas() -> None:
    kubernetes_validate = pytest.importorskip("kubernetes_validate", reason="kubernetes-validate is a dev dependency")
    version = kubernetes_validate.latest_version()
    kinds = []
    for _path, doc in documents():
        kubernetes_validate.validate(doc, version, strict=True)  # raises with the offending field
        kinds.append(doc["kind"])
    assert sorted(kinds) == ["DaemonSet", "Job", "Namespace"]


def test_every_read_of_the_tool_is_mounted_from_the_host() -> None:
    paths = declared_paths()
    assert "/etc/hccn.conf" in paths and "/usr/local/Ascend/driver/version.info" in paths  # the derivation works
    # The places a binary may be installed (npu-smi: /usr/local/sbin, /usr/local/bin, /usr/bin) are
    # alternatives: one of them is mounted.
    commands = set(declared_commands())
    binaries = {p for p in paths if os.path.basename(p) in commands}
    for name, spec in pod_specs():
        mounts = host_mounts(spec)
        missing = [p for p in sorted(paths - binaries) if not any(under(p, m) for m in mounts)
                   and not any(under(p, own) for own in NOT_FROM_HOST_MOUNTS)]
        assert not missing, f"{name} does not mount what the tool reads: {missing}"
        for command in {os.path.basename(p) for p in binaries}:
            places = [p for p in binaries if os.path.basename(p) == command]
            assert any(under(p, m) for p in places for m in mounts), f"{name} mounts none of {places}"


def test_every_host_mount_is_read_by_the_tool() -> None:
    paths = declared_paths()
    commands = {path for found in declared_commands().values() for path in found}
    for name, spec in pod_specs():
        for mount in host_mounts(spec):
            if mount == REPORTS:
                continue
            used = any(under(p, mount) or under(mount, p) for p in paths | commands)
            assert used, f"{name} mounts {mount}, which no fact provider reads"


def test_every_command_is_found_in_the_pod() -> None:
    commands = declared_commands()
    assert {"npu-smi", "hccn_tool"} <= set(commands)
    # npu-smi's places come from the mount_paths provider's declaration (where the driver installs it).
    npu_smi_places = {p for p in Facts.mount_paths.reads().files if p.endswith("/npu-smi")}
    for name, spec in pod_specs():
        mounts = host_mounts(spec)
        (container,) = spec["containers"]
        path = next(e["value"] for e in container["env"] if e["name"] == "PATH").split(":")
        for command, absolute in commands.items():
            if command in IMAGE_COMMANDS or command.startswith("python"):
                continue
            places = set(absolute) | (npu_smi_places if command == "npu-smi" else set())
            on_path = [f"{d}/{command}" for d in path]
            reachable = [p for p in places | set(on_path) if any(under(p, m) for m in mounts)
                         and (p in absolute or os.path.dirname(p) in path)]
            assert reachable, f"{name}: {command} is neither mounted on PATH nor at one of {sorted(places)}"


def test_job_and_daemonset_share_one_pod() -> None:
    specs = dict(pod_specs())
    daemonset = next(s for n, s in specs.items() if n.endswith("DaemonSet"))
    job = next(s for n, s in specs.items() if n.endswith("Job"))
    assert daemonset["volumes"] == job["volumes"]
    assert daemonset["containers"][0]["volumeMounts"] == job["containers"][0]["volumeMounts"]
    for key in ("nodeSelector", "tolerations", "hostPID", "hostNetwork"):
        assert daemonset[key] == job[key], key
    # The label the Ascend device plugin's DaemonSet selects (see the comment in daemonset.yaml).
    assert daemonset["nodeSelector"] == {"accelerator": "huawei-Ascend910"}


def test_image_installs_without_network_and_collector_is_valid_sh() -> None:
    dockerfile = (K8S / "Dockerfile").read_text(encoding="utf-8")
    assert "pip install --no-index --find-links" in dockerfile
    assert subprocess.run(["sh", "-n", str(K8S / "collect.sh")], check=False).returncode == 0
    assert os.access(K8S / "collect.sh", os.X_OK)


def declared_host_sources() -> Set[str]:
    return {source for fact in Facts.declared().values() for source in fact.reads().host}


def test_pods_run_without_privileges_and_host_namespaces_only_where_a_read_needs_them() -> None:
    """Least privilege: no privileged container, no capability, nothing written on the host but the reports;
    hostPID only because facts read the host's processes, hostNetwork only because they read its listening
    ports, each with the reason written beside it."""
    sources = declared_host_sources()
    for path in MANIFESTS:
        text = path.read_text(encoding="utf-8")
        if "kind: Namespace" in text:
            continue
        for key, source in (("hostPID", "processes"), ("hostNetwork", "listening")):
            line = next(i for i, entry in enumerate(text.splitlines()) if entry.strip().startswith(key + ":"))
            assert text.splitlines()[line - 1].strip().startswith("#"), f"{path.name}: {key} has no reason beside it"
            assert (source in sources) == (f"{key}: true" in text), f"{path.name}: {key} vs the {source} reads"
    for name, spec in pod_specs():
        (container,) = spec["containers"]
        context = container["securityContext"]
        assert context.get("privileged") is False and context.get("allowPrivilegeEscalation") is False, name
        assert context["capabilities"] == {"drop": ["ALL"]}, name
        assert "/dev" not in {v["hostPath"]["path"] for v in spec["volumes"] if "hostPath" in v}, name
        env = {e["name"]: e.get("value") for e in container["env"]}
        assert env.get("ASCEND_VISIBLE_DEVICES"), f"{name}: the NPUs' device nodes come from the Ascend runtime"
        for mount in container["volumeMounts"]:
            assert mount.get("readOnly") is True or mount["mountPath"] == REPORTS, (name, mount["mountPath"])
    # The device nodes the tool looks at are what the runtime provides, nothing else of /dev.
    device_reads = {p for p in declared_paths() if under(p, "/dev")}
    assert device_reads and all(under(p, "/dev") for p in device_reads)
