"""ASC-ENG-001: MindIE and vLLM(-Ascend) are not installed or running side by side."""

from __future__ import annotations

from typing import Iterator, List, Tuple

from ascend_doctor import shellcmd
from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.facts.engines import engine_of_process_name
from ascend_doctor.i18n import _
from msgspec import structs

from ._context import HostCheckContext

CHECK = CheckSpec(
    id="ASC-ENG-001",
    title="One serving engine per environment",
    what=("Lists the serving engines installed in the target Python (vllm / vllm-ascend, mindie* "
          "distributions) and on disk (<root>/mindie/latest/version.info), and the ones running (MindIE "
          "mindieservice_daemon / mindie_llm_back*, `vllm serve` / VLLMWorker_*); WARNs when MindIE and vLLM are "
          "both installed in one environment or both running."),
    why=("Two engines in one environment interfere, and the errors of two engines fighting over one NPU are "
         "hard to trace: both set ATB_*/ASCEND_* variables, compile into the same "
         "~/atc_data and kernel_meta caches and, unless told otherwise, start on NPU 0."),
    fix=("Give each engine its own container (image) and its own NPUs: `docker run --device /dev/davinciN ...` with "
         "half of the host's NPUs for one and the other half for the other (ASCEND_VISIBLE_DEVICES works only with "
         "the Ascend Docker Runtime), separate caches with "
         "ASCEND_CACHE_PATH / ASCEND_WORK_PATH, or uninstall the one you do not use."),
)


def _describe(engines: object, name: str) -> str:
    installed = getattr(engines, "installed", {}).get(name) or {}
    parts = [f"{dist} {ver}" for dist, ver in installed.items()]
    if name == "MindIE" and getattr(engines, "mindie_on_disk", None):
        parts.append(_("MindIE {version} on disk").format(version=engines.mindie_on_disk))  # type: ignore[attr-defined]
    return ", ".join(parts) or name


def _split(ctx: HostCheckContext) -> str:
    """Two docker run lines giving each engine half of this host's NPUs, by device node (advice review
    row 29: ranges that exist here, and --device, which works without the Ascend Docker Runtime)."""
    from ._support import job_devices

    devices = job_devices(ctx)
    if len(devices) < 2:
        return ("  # this host shows fewer than two NPUs: one engine per host, or one per container with "
                "--device /dev/davinciN each")
    half = len(devices) // 2
    first, second = devices[:half], devices[half:]

    def run(ids: List[int], image: str, label: str) -> str:
        devices = [w for n in ids for w in ("--device", f"/dev/davinci{int(n)}")]
        line = shellcmd.argv("docker", "run", *devices, "--device", "/dev/davinci_manager", "--device",
                             "/dev/devmm_svm", "--device", "/dev/hisi_hdc", "...", shellcmd.Placeholder(image))
        return shellcmd.with_comment(line, _("{engine} on NPU {first}-{last}").format(engine=label, first=int(ids[0]),
                                                                                  last=int(ids[-1])))

    return ("  " + run(first, "mindie image", "MindIE") + "\n"
            "  " + run(second, "vllm-ascend image", "vLLM-Ascend") + "\n"
            "  " + _("(ASCEND_VISIBLE_DEVICES=... instead of --device works only with the Ascend Docker Runtime)"))


def _on_npus(ctx: HostCheckContext) -> List[Tuple[str, int, str]]:
    """(engine, pid, name) of the serving-engine processes npu-smi's process table lists (VLLMWorker_TP,
    mindie_llm_back): they run on the NPUs even where the process list of this view was not captured."""
    smi = ctx.facts.maybe(Facts.npu_smi)
    found: List[Tuple[str, int, str]] = []
    for proc in getattr(smi, "processes", None) or ():
        engine = engine_of_process_name(proc.name or "")
        if engine and all(pid != proc.pid for _e, pid, _n in found):
            found.append((engine, proc.pid, proc.name))
    return found


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    engines = ctx.facts.engines
    installed = engines.installed_engines()
    serving = [e for e in installed if e in ("MindIE", "vLLM-Ascend", "vLLM")]
    running = engines.running_engines()
    on_npus = _on_npus(ctx)
    for engine, _pid, _name in on_npus:
        if engine not in running:
            running.append(engine)
    if not serving and not running:
        raise NotApplicable(_("no serving engine (MindIE, vLLM, vLLM-Ascend) is installed or running"))
    separate = (_("Separate them -- one container per engine, each with its own NPUs and caches:") + "\n" + _split(ctx)
                + "\n  " + shellcmd.export("ASCEND_CACHE_PATH", shellcmd.Placeholder("/data/cache/engine"))
                + "\n  " + shellcmd.export("ASCEND_WORK_PATH", shellcmd.Placeholder("/data/work/engine")) + "\n"
                + _("or remove the one you do not use: pip uninstall -y vllm-ascend vllm  (or MindIE's uninstall "
                    "script under /usr/local/Ascend/mindie/latest)"))
    both_running = "MindIE" in running and "vLLM" in running
    if both_running:
        pids: List[str] = [f"{r.engine} pid {r.pid} ({r.name})" for r in engines.running[:6]]
        pids += [f"{e} pid {pid} ({name}, npu-smi)" for e, pid, name in on_npus
                 if all(pid != r.pid for r in engines.running)][:6 - len(pids)]
        yield Finding.warn(
            _("MindIE and vLLM are both running: {processes}. They compete for NPUs, operator caches and environment "
              "variables.").format(processes="; ".join(pids)),
            _("Stop one of them the way it was started (its container, its systemd unit, its job: cat "
              "/proc/<pid>/cgroup names it), not a worker with kill, unless each has its own NPUs "
              "(ASCEND_VISIBLE_DEVICES / ASCEND_RT_VISIBLE_DEVICES) and caches.") + "\n" + separate,
            running=[structs.asdict(r) for r in engines.running])
    has_mindie = "MindIE" in serving
    has_vllm = "vLLM-Ascend" in serving or "vLLM" in serving
    if has_mindie and has_vllm:
        vllm_name = "vLLM-Ascend" if "vLLM-Ascend" in serving else "vLLM"
        yield Finding.warn(
            _("MindIE ({mindie}) and {vllm} ({vllm_packages}) are installed in one environment: their environment "
              "variables and operator caches interfere, and two engines on one NPU fail in ways that are hard to "
              "trace.").format(mindie=_describe(engines, "MindIE"), vllm=vllm_name,
                                               vllm_packages=_describe(engines, vllm_name)), separate,
            installed=engines.installed)
        return
    if not both_running:
        which = ", ".join(f"{e} ({_describe(engines, e)})" for e in serving) or ", ".join(running)
        yield Finding.passed((_("one serving engine: {engines}; running: {running}") if running else
                              _("one serving engine: {engines}")).format(engines=which, running=", ".join(running)),
                             running=running, on_npus=[{"engine": e, "pid": pid, "name": name}
                                                       for e, pid, name in on_npus])
