"""ASC-CTR-005: a serving container was started with the flags serving needs (what is visible inside)."""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, Status
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import LIVE, absence_is_evidence, absent_phrase, disk_absence_known, origin_kind
from ascend_doctor.i18n import _

from ._context import HostCheckContext

CHECK = CheckSpec(
    id="ASC-CTR-005",
    title="Serving container has 1 GB of /dev/shm, every NPU of the job and the multi-node mounts",
    requires=("container",),
    what=("Inside a container: the size of /dev/shm (Docker gives 64 MB unless --shm-size is set), the /dev/davinciN "
          "nodes against the NPUs the serving configuration uses (MindIE npuDeviceIds, vLLM TP x PP x DP; with "
          "--config / --vllm-args), and for multi-node serving the hccn_tool binary and /etc/hccn.conf mounted "
          "from the host. Host networking (--net=host) cannot be seen from inside and is only named in the fix."),
    why=("MindIE's backend allocates its buffers in /dev/shm and stops at start-up when it is smaller than 1 GB "
         "(\"Shared memory available is not enough\"; MindIE's installation guide asks for >= 1 GB); vLLM's workers "
         "exchange data through shared memory too, and the vLLM-Ascend docs start every container with "
         "--shm-size=1g. A container gets only the NPUs passed with --device, so a job sized for 8 NPUs fails in "
         "a container created with --device /dev/davinci0. Multi-node guides mount hccn_tool and run the container "
         "with --net=host so HCCL can use the host's NPU network (vllm-ascend multi-node tutorials)."),
    fix=("Re-create the container on the host with: docker run --shm-size=1g --device /dev/davinci0 ... "
         "--device /dev/davinciN (every NPU of the job) --device /dev/davinci_manager --device /dev/devmm_svm "
         "--device /dev/hisi_hdc; for multi-node add --net=host -v /usr/local/Ascend/driver/tools/hccn_tool:"
         "/usr/local/Ascend/driver/tools/hccn_tool -v /etc/hccn.conf:/etc/hccn.conf."),
    tags=("serving",),
)

GIB = 1024 ** 3
MIB = 1024 ** 2
MIN_SHM = GIB  # docker run --shm-size=1g, the value of the vLLM-Ascend docs; MindIE asks for >= 1 GB


def _needed_npus(config: object) -> Tuple[Optional[int], str]:
    """How many NPUs the configuration needs in this container, and where the number comes from."""
    if config is None or not getattr(config, "ok", False):
        return None, ""
    kind = getattr(config, "kind", "")
    if kind == "mindie":
        if getattr(config, "multi_node", False):
            return None, ""  # each node's NPUs come from the rank table
        ids = sorted({i for group in getattr(config, "device_ids", ()) for i in group})
        return (max(ids) + 1, f"npuDeviceIds {ids}") if ids else (None, "")
    models = getattr(config, "models", ())
    if kind == "vllm" and models and not getattr(config, "multi_node_hint", False):
        model = models[0]
        need = (model.tp or 1) * (model.pp or 1) * (model.dp or 1)
        return need, f"TP {model.tp or 1} x PP {model.pp or 1} x DP {model.dp or 1}"
    return None, ""


def _mindie(ctx: HostCheckContext, config: object) -> bool:
    if getattr(config, "kind", "") == "mindie":
        return True
    engines = ctx.facts.maybe(Facts.engines)
    return bool(engines is not None and "MindIE" in engines.installed_engines())


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    mounts = ctx.facts.serving_mounts
    nodes = ctx.facts.maybe(Facts.device_nodes)
    config = ctx.facts.maybe(Facts.serving_config)
    mindie = _mindie(ctx, config)
    problems: List[Tuple[Status, str]] = []
    flags: List[str] = []
    notes: List[str] = []

    # /dev/shm
    if mounts.shm_total_bytes is None:
        known = origin_kind(ctx.facts) == LIVE or disk_absence_known(ctx.facts, "/dev/shm")
        notes.append(_("the size of /dev/shm is not known here") if known else
                     _("the size of /dev/shm is {absent}").format(absent=absent_phrase(ctx.facts)))
    elif mounts.shm_total_bytes < MIN_SHM:
        size = f"{mounts.shm_total_bytes / MIB:.0f} MB"
        docker_default = mounts.shm_total_bytes <= 64 * MIB
        if mindie:
            shm = (_("/dev/shm is {size} (Docker's default): MindIE needs at least 1 GB and stops at start-up")
                   if docker_default else
                   _("/dev/shm is {size}: MindIE needs at least 1 GB and stops at start-up"))
        else:
            shm = (_("/dev/shm is {size} (Docker's default): serving engines exchange data through it; the vLLM-Ascend "
                     "docs use --shm-size=1g") if docker_default else
                   _("/dev/shm is {size}: serving engines exchange data through it; the vLLM-Ascend docs use "
                     "--shm-size=1g"))
        problems.append((Status.FAIL if mindie else Status.WARN, shm.format(size=size)))
        flags.append("--shm-size=1g")
    else:
        notes.append(f"/dev/shm {mounts.shm_total_bytes / GIB:.1f} GB")

    # every NPU of the job
    need, basis = _needed_npus(config)
    present = sorted(getattr(nodes, "davinci", ()) or ())
    if need is not None:
        if len(present) < need:
            wanted = present + [i for i in range(need + len(present)) if i not in present][:need - len(present)]
            listed = f" (davinci{', davinci'.join(map(str, present))})" if present else ""
            problems.append((Status.FAIL, _("the configuration uses {need} NPU(s) ({basis}) but this container has "
                                            "{count} /dev/davinciN node(s){listed}").format(
                need=need, basis=basis, count=len(present), listed=listed)))
            flags += [f"--device /dev/davinci{i}" for i in sorted(wanted)]
        else:
            notes.append(_("{count} NPU node(s) for the {need} the configuration uses").format(count=len(present),
                                                                                              need=need))
    elif config is None:
        notes.append(_("NPUs of the job not compared (no --config / --vllm-args; ASC-CTR-003 compares "
                       "ASCEND_VISIBLE_DEVICES with the nodes)"))

    # multi-node mounts
    multi = bool(getattr(config, "multi_node", False) or getattr(config, "multi_node_hint", False))
    live = origin_kind(ctx.facts) == LIVE
    net_note = ""
    if multi and not absence_is_evidence(ctx.facts):
        notes.append(_("hccn_tool / hccn.conf mounts not judged ({absent})").format(absent=absent_phrase(ctx.facts)))
    elif multi:
        multi_flags: List[str] = []
        if mounts.hccn_tool is None:
            where = (_("not at {path}").format(path=mounts.hccn_tool_paths[0]) if live else
                     f"{mounts.hccn_tool_paths[0]}: {absent_phrase(ctx.facts)}")
            problems.append((Status.WARN, _("multi-node serving, but hccn_tool is not in this container ({where}): the "
                                            "NPU network (link, IP, health) cannot be checked from inside").format(
                                                where=where)))
            multi_flags.append("-v /usr/local/Ascend/driver/tools/hccn_tool:/usr/local/Ascend/driver/tools/hccn_tool")
        if not mounts.hccn_conf:
            problems.append((Status.WARN, _("multi-node serving, but /etc/hccn.conf (the NPU network configuration) "
                                            "is not mounted") if live else
                             _("multi-node serving, but /etc/hccn.conf (the NPU network configuration) is not mounted "
                               "({absent})").format(absent=absent_phrase(ctx.facts))))
            multi_flags.append("-v /etc/hccn.conf:/etc/hccn.conf")
        if multi_flags:
            flags += multi_flags + ["--net=host"]
            net_note = ("\n# --net=host: host networking, which the multi-node guides use for HCCL between nodes "
                        "(it cannot be seen from inside a container; keep it if the container already has it)")
        else:
            notes.append(_("hccn_tool and /etc/hccn.conf mounted (host networking, --net=host, cannot be seen from "
                           "inside: make sure the container was started with it)"))

    if not problems:
        yield Finding.passed(_("serving flags visible in this container: {notes}").format(notes="; ".join(notes))
                             if notes else _("nothing to judge"), shm_bytes=mounts.shm_total_bytes, davinci=present)
        return
    worst = Status.FAIL if any(s is Status.FAIL for s, _problem in problems) else Status.WARN
    command = ("docker run \\\n    " + " \\\n    ".join(flags) + " \\\n    ...   # "
               + _("keep the container's other flags") + net_note)
    fix = (_("Re-create the container on the host (the flags of a running container cannot be changed; nothing is "
             "installed inside it):") + "\n" + command)
    if "--shm-size=1g" in flags and mindie:
        fix += "\n" + _("(more than 1g when several MindIE instances share the container)")
    one_line = "docker run " + " ".join(flags) + " ...   # " + _("with the container's other flags")
    action = FixAction("container", _("Re-create the container with the serving flags"), (one_line,), where="host",
                       direction="set")
    yield Finding(worst, "; ".join(p for _status, p in problems) + ".", fix,
                  {"shm_bytes": mounts.shm_total_bytes, "davinci": present, "needed_npus": need,
                   "multi_node": multi, "flags": flags}, None, (action,))
