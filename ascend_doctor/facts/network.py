"""Facts about the NPU's own network: ``hccn_tool`` per device, and ``/etc/hccn.conf``.

``hccn`` runs, for every device, the queries of :data:`QUERIES` (``hccn_tool -i N -link -g``...)
concurrently, each with the run's timeout. The binary is ``hccn_tool`` on PATH, else where the
driver installs it (``/usr/local/Ascend/driver/tools/hccn_tool``), else ``/usr/local/bin``; not
finding it is a fact (``HccnFacts.binary`` is None), not an error. A device whose ``-link -g``
hangs is not asked anything else, so a wedged driver costs one timeout per device, not ten.

The device ids are the NPU ids ``npu-smi info`` lists when each NPU has one chip (Atlas 800
A2, Atlas 800 training): there ``hccn_tool -i`` takes the same id (vllm-ascend
examples/disaggregate_prefill_v1/gen_ranktable.py: device id = card index x chips per card +
chip). NPUs with several chips (A3: two dies per NPU, hccn_tool devices 0-15) are not read yet:
the fact is unavailable with the loop to run by hand.

``snapshot`` records the same commands (``capture_hccn``: one function for both, so a snapshot
grades the network exactly as ``check`` does on the machine).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.fastdataclass import dataclass, field
from ascend_doctor.host.base import CommandResult, CommandStatus, FileMissing, HostFileError
from ascend_doctor.i18n import gettext as _
from ascend_doctor.parsers import hccn as P

Argv = Tuple[str, ...]
HCCN_CONF = "/etc/hccn.conf"
DRIVER_HCCN_TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"
# Where hccn_tool is looked for, in order (PATH first: a container may mount it anywhere on PATH).
HCCN_BINARIES = ("hccn_tool", DRIVER_HCCN_TOOL, "/usr/local/bin/hccn_tool")
# (name in the facts, hccn_tool flag); "link" first: it is the probe every other query waits on.
QUERIES: Tuple[Tuple[str, str], ...] = (
    ("link", "-link"), ("net_health", "-net_health"), ("ip", "-ip"), ("route", "-route"), ("tls", "-tls"),
    ("fec", "-fec"), ("lldp", "-lldp"), ("optical", "-optical"), ("link_stat", "-link_stat"),
    ("status", "-status"),
)
MAX_CONF_BYTES = 1024 * 1024


def query_argv(binary: str, device_id: int, flag: str) -> Argv:
    return (binary, "-i", str(device_id), flag, "-g")


def set_ip_command(device_id: int, address: Optional[str], netmask: Optional[str]) -> str:
    """The command that gives a device its address (hiascend MindCluster toolbox guide
    toolboxug_0142: ``hccn_tool -i devid -ip -s address %s netmask %s``)."""
    from ascend_doctor.shellcmd import argv, shaped

    # The address and mask come from /etc/hccn.conf or hccn_tool: a value that is not an IPv4
    # address is printed as a placeholder, never pasted.
    return argv("hccn_tool", "-i", shaped(str(device_id), "device_id", "N"), "-ip", "-s",
                "address", shaped(address, "ipv4", "address"), "netmask", shaped(netmask, "ipv4", "netmask"))


@dataclass(frozen=True)
class HccnDevice:
    """What hccn_tool says about one device; a query that gave nothing usable is in ``errors``
    (query name -> one line), and ``commands`` names the command line of each query."""

    device_id: int
    link: Optional[str] = None
    net_health: Optional[str] = None
    ip: Optional[P.DeviceIp] = None
    routes: Tuple[P.Route, ...] = ()
    tls: Optional[P.TlsInfo] = None
    fec: Optional[str] = None
    lldp: Optional[P.LldpInfo] = None
    optical: Optional[P.OpticalInfo] = None
    link_stat: Optional[P.LinkStat] = None
    status: Optional[P.NetdevStatus] = None
    errors: Dict[str, str] = field(default_factory=dict)
    commands: Dict[str, str] = field(default_factory=dict)

    @property
    def gateway(self) -> Optional[str]:
        return P.default_gateway(self.routes)

    def to_dict(self) -> Dict[str, Any]:
        return {"device_id": self.device_id, "link": self.link, "net_health": self.net_health,
                "ip": self.ip.to_dict() if self.ip else None, "gateway": self.gateway,
                "tls": self.tls.to_dict() if self.tls else None, "fec": self.fec,
                "lldp": self.lldp.to_dict() if self.lldp else None,
                "optical": self.optical.to_dict() if self.optical else None,
                "link_stat": self.link_stat.to_dict() if self.link_stat else None,
                "status": self.status.to_dict() if self.status else None, "errors": dict(self.errors)}


@dataclass(frozen=True)
class HccnFacts:
    """hccn_tool's view of every device; ``binary`` None when hccn_tool is nowhere to be found."""

    binary: Optional[str]
    devices: Dict[int, HccnDevice]
    searched: Tuple[str, ...] = HCCN_BINARIES

    def to_dict(self) -> Dict[str, Any]:
        return {"binary": self.binary, "searched": list(self.searched),
                "devices": {str(k): v.to_dict() for k, v in sorted(self.devices.items())}}


RunMany = Callable[[List[Argv]], List[CommandResult]]


def run_queries(run_many: RunMany, device_ids: Sequence[int]) -> Tuple[Optional[str], Dict[Argv, CommandResult]]:
    """Find the binary (the first candidate whose ``-link -g`` probes are not "not found") and run
    every query on every device whose probe did not hang. Returns (binary, results by argv)."""
    results: Dict[Argv, CommandResult] = {}
    binary: Optional[str] = None
    for candidate in HCCN_BINARIES:
        probes = [query_argv(candidate, d, "-link") for d in device_ids]
        answers = run_many(probes)
        results.update(zip(probes, answers))
        if any(r.status is not CommandStatus.NOT_FOUND for r in answers):
            binary = candidate
            break
    if binary is None:
        return None, results
    rest = [query_argv(binary, d, flag) for d in device_ids
            if results[query_argv(binary, d, "-link")].status is not CommandStatus.TIMEOUT
            for _, flag in QUERIES[1:]]
    results.update(zip(rest, run_many(rest)))
    return binary, results


def device_ids_from(npu_smi: Any) -> List[int]:
    """hccn_tool device ids: the NPU ids, when every NPU has one chip; FactUnavailable otherwise."""
    devices = list(getattr(npu_smi, "devices", None) or [])
    if not devices:
        raise FactUnavailable("npu-smi lists no NPU to ask hccn_tool about")
    chips: Dict[int, int] = {}
    for device in devices:
        chips[device.npu_id] = chips.get(device.npu_id, 0) + 1
    if any(count > 1 for count in chips.values()):
        total = len(devices)
        raise FactUnavailable(_(
            "each NPU here has several chips ({total} in all); hccn_tool numbers them 0..{last}, which this "
            "version does not read yet: run `for i in $(seq 0 {last}); do hccn_tool -i $i -link -g; "
            "hccn_tool -i $i -net_health -g; hccn_tool -i $i -ip -g; done`").format(total=total, last=total - 1))
    return sorted(chips)


def _failure(result: CommandResult) -> str:
    return result.describe_failure()


def build_device(binary: str, device_id: int, results: Dict[Argv, CommandResult]) -> HccnDevice:
    """Parse one device's answers (pure: results in, record out)."""
    values: Dict[str, Any] = {}
    errors: Dict[str, str] = {}
    commands: Dict[str, str] = {}
    probe = results.get(query_argv(binary, device_id, "-link"))
    for name, flag in QUERIES:
        argv = query_argv(binary, device_id, flag)
        commands[name] = " ".join(argv)
        result = results.get(argv)
        if result is None:
            hung = probe is not None and probe.status is CommandStatus.TIMEOUT
            errors[name] = (f"not asked: `{' '.join(query_argv(binary, device_id, '-link'))}` hung" if hung
                            else "not asked")
            continue
        text = result.stdout
        if name == "ip" and P.is_no_ip(result.stdout + "\n" + result.stderr):
            values["ip"] = P.DeviceIp(missing=True)
            continue
        if not result.ok or not text.strip():
            errors[name] = _failure(result) if not result.ok else f"`{commands[name]}` printed nothing"
            continue
        try:
            values[name] = _PARSERS[name](text)
        except P.HccnParseError as exc:
            errors[name] = str(exc)
    return HccnDevice(device_id, values.get("link"), values.get("net_health"), values.get("ip"),
                      values.get("route", ()), values.get("tls"), values.get("fec"), values.get("lldp"),
                      values.get("optical"), values.get("link_stat"), values.get("status"), errors, commands)


_PARSERS: Dict[str, Callable[[str], Any]] = {
    "link": P.parse_link, "net_health": P.parse_net_health, "ip": P.parse_ip, "route": P.parse_route,
    "tls": P.parse_tls, "fec": P.parse_fec, "lldp": P.parse_lldp, "optical": P.parse_optical,
    "link_stat": P.parse_link_stat, "status": P.parse_status,
}

_PER_NPU = tuple((binary, "-i", "{npu}", flag, "-g") for binary in HCCN_BINARIES for _, flag in QUERIES)


@provider("hccn", reads=Reads(per_npu=_PER_NPU, adaptive=True))
def hccn(facts: Facts) -> HccnFacts:
    """hccn_tool's answers for every device, queried concurrently (see the module docstring)."""
    ids = device_ids_from(facts.maybe(Facts.npu_smi))

    def run_many(argvs: List[Argv]) -> List[CommandResult]:
        facts.prefetch_commands(argvs)
        return [facts.command(argv) for argv in argvs]

    binary, results = run_queries(run_many, ids)
    if binary is None:
        return HccnFacts(None, {})
    return HccnFacts(binary, {i: build_device(binary, i, results) for i in ids})


def capture_hccn(run_many: RunMany, npu_smi_stdout: str) -> List[CommandResult]:
    """The hccn_tool commands ``snapshot`` records: exactly those ``hccn`` runs on this machine."""
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_npu_smi_info

    try:
        ids = device_ids_from(parse_npu_smi_info(npu_smi_stdout))
    except (NpuSmiParseError, FactUnavailable):
        return []
    _binary, results = run_queries(run_many, ids)
    return list(results.values())


# -- /etc/hccn.conf -------------------------------------------------------------------------------


@dataclass(frozen=True)
class HccnConfFacts:
    """``/etc/hccn.conf``: ``present`` False when there is none; ``error`` when it is unusable."""

    path: str
    present: bool
    conf: Optional[P.HccnConf] = None
    error: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "present": self.present, "conf": self.conf.to_dict() if self.conf else None,
                "error": self.error}


@provider("hccn_conf", reads=Reads(files=(HCCN_CONF,)))
def hccn_conf(facts: Facts) -> HccnConfFacts:
    try:
        text = facts.host.read_text(HCCN_CONF, MAX_CONF_BYTES)
    except FileMissing:
        return HccnConfFacts(HCCN_CONF, False)
    except HostFileError as exc:
        return HccnConfFacts(HCCN_CONF, True, error=exc.message)
    except (OSError, UnicodeDecodeError) as exc:
        return HccnConfFacts(HCCN_CONF, True, error=str(exc))
    try:
        return HccnConfFacts(HCCN_CONF, True, P.parse_hccn_conf(text))
    except P.HccnParseError as exc:
        return HccnConfFacts(HCCN_CONF, True, error=str(exc))
