"""Facts about the NPU's own network: ``hccn_tool`` per device, and ``/etc/hccn.conf``.

``hccn`` runs, for every device, the queries of :data:`QUERIES` (``hccn_tool -i N -link -g``...)
concurrently, each with the run's timeout. The binary is ``hccn_tool`` on PATH, else where the
driver installs it (``/usr/local/Ascend/driver/tools/hccn_tool``), else ``/usr/local/bin``; not
finding it is a fact (``HccnFacts.binary`` is None), not an error. A device whose ``-link -g``
hangs is not asked anything else, so a wedged driver costs one timeout per device, not ten.

The device ids come from what the machine shows, never from a guessed range
(:func:`device_ids_for`): the NPU ids ``npu-smi info`` lists when each NPU has one chip (Atlas 800
A2, Atlas 800 training: there ``hccn_tool -i`` takes the same id); with several chips per NPU (A3:
two dies per NPU, hccn_tool devices 0-15) one id per die: the chip logic ids of ``npu-smi info -m``,
else the Phy-IDs the A3 table prints (vllm-ascend examples/disaggregate_prefill_v1/gen_ranktable.py:
device id = card index x chips per card + chip). A snapshot or a paste without either is read for the
devices its ``hccn_tool -i N`` outputs name; a query it does not hold is "not recorded", not a failure.

``snapshot`` records the same commands (``capture_hccn``: one function for both, so a snapshot
grades the network exactly as ``check`` does on the machine).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.network import HCCN_BINARIES, HccnConfFacts, HccnDevice, HccnFacts
from ascend_doctor.host.base import CommandResult, CommandStatus, FileMissing, HostFileError
from ascend_doctor.i18n import gettext as _
from ascend_doctor.lazy import lazy_re
from ascend_doctor.parsers import hccn as P

Argv = Tuple[str, ...]
HCCN_CONF = "/etc/hccn.conf"
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


def device_ids_from(npu_smi: Any, mapping: Any = None) -> List[int]:
    """hccn_tool device ids from the table (and the chip mapping of ``npu-smi info -m``): the NPU ids
    when every NPU has one chip; one id per die otherwise (the chip logic ids of ``-m``, else the
    A3 table's Phy-IDs); FactUnavailable when neither shows them."""
    devices = list(getattr(npu_smi, "devices", None) or [])
    logic_ids = list(getattr(mapping, "logic_ids", None) or [])
    if not devices:
        if logic_ids:
            return logic_ids
        raise FactUnavailable("npu-smi lists no NPU to ask hccn_tool about")
    chips: Dict[int, int] = {}
    for device in devices:
        chips[device.npu_id] = chips.get(device.npu_id, 0) + 1
    if any(count > 1 for count in chips.values()):
        if len(logic_ids) == len(devices):
            return logic_ids
        phy = [d.chip_phy_id for d in devices]
        if getattr(npu_smi, "layout", None) == "chip-phy-id" and all(p is not None for p in phy) \
                and len(set(phy)) == len(phy):
            return sorted(p for p in phy if p is not None)
        total = len(devices)
        raise FactUnavailable(_(
            "each NPU here has several chips ({total} in all); hccn_tool numbers them 0..{last}, which this "
            "version does not read yet: run `for i in $(seq 0 {last}); do hccn_tool -i $i -link -g; "
            "hccn_tool -i $i -net_health -g; hccn_tool -i $i -ip -g; done`").format(total=total, last=total - 1))
    return sorted(chips)


def _failure(result: CommandResult) -> str:
    return result.describe_failure()


def build_device(binary: str, device_id: int, results: Dict[Argv, CommandResult],
                 recorded: Optional[Callable[[Argv], bool]] = None) -> HccnDevice:
    """Parse one device's answers (pure: results in, record out). ``recorded`` (a replay) tells
    whether a query's missing output means anything: a snapshot's capture ran it, or a paste showed it;
    a query it does not say anything about is left out, not reported as failed."""
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
        if recorded is not None and result.status is CommandStatus.NOT_FOUND and not recorded(argv):
            del commands[name]
            continue  # not in the snapshot or the paste: nothing is known about it, nothing is wrong
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

# ``{device}``: one id per die (facts/reads.py), so an A3 node's 16 dies are all declared.
_PER_NPU = tuple((binary, "-i", "{device}", flag, "-g") for binary in HCCN_BINARIES for _, flag in QUERIES)
# A recorded hccn_tool output: <binary>_-i_<N>_-<query>_-g (facts/npu_views.py lists the stems).
_RECORDED_QUERY = lazy_re(r"^(?:.*_)?hccn_tool_-i_(?P<device>\d{1,4})_-[a-z_]+_-g$")


def device_ids_for(facts: Facts) -> List[int]:
    """The hccn_tool device ids this machine (or its record) shows: see :func:`device_ids_from`; a
    snapshot or a paste without the table or the chip mapping: the devices its hccn_tool outputs name."""
    from ascend_doctor.facts.npu_views import recorded_command_names
    from ascend_doctor.facts.origin import LIVE, origin_kind

    smi = facts.maybe(Facts.npu_smi)
    devices = list(getattr(smi, "devices", None) or [])
    several_chips = len(devices) > len({d.npu_id for d in devices})
    # Live without a table npu-smi is not answering: its -m would not either.
    wanted = several_chips or (not devices and origin_kind(facts) != LIVE)
    mapping = facts.maybe(Facts.npu_mapping) if wanted else None
    try:
        return device_ids_from(smi, mapping)
    except FactUnavailable:
        if devices:
            raise
        recorded = sorted({int(m.group("device")) for m in map(_RECORDED_QUERY.match, recorded_command_names(facts))
                           if m})
        if recorded:
            return recorded
        raise


@provider("hccn", reads=Reads(per_npu=_PER_NPU, adaptive=True))
def hccn(facts: Facts) -> HccnFacts:
    """hccn_tool's answers for every device, queried concurrently (see the module docstring)."""
    from ascend_doctor.facts.origin import LIVE, PASTED_TEXT, command_absence_known, origin_kind

    ids = device_ids_for(facts)

    def run_many(argvs: List[Argv]) -> List[CommandResult]:
        facts.prefetch_commands(argvs)
        return [facts.command(argv) for argv in argvs]

    recorded: Optional[Callable[[Argv], bool]] = None
    if origin_kind(facts) == LIVE:
        binary, results = run_queries(run_many, ids)
    else:
        binary, results = replay_queries(run_many, ids)

        def recorded(argv: Argv) -> bool:
            return command_absence_known(facts, argv)
    if binary is None:
        if origin_kind(facts) == PASTED_TEXT:
            from ascend_doctor.facts.origin import absent_phrase

            # A paste that shows no hccn_tool output says nothing about hccn_tool: not "not installed".
            raise FactUnavailable(_("the hccn_tool outputs (`hccn_tool -i N -link -g`...): {absent}").format(
                absent=absent_phrase(facts)))
        return HccnFacts(None, {})
    return HccnFacts(binary, {i: build_device(binary, i, results, recorded) for i in ids})


def replay_queries(run_many: RunMany, device_ids: Sequence[int]) -> Tuple[Optional[str], Dict[Argv, CommandResult]]:
    """A snapshot or a paste: the binary is the first whose outputs it holds for any query (a paste
    may show ``-ip`` and not ``-link``), and every query of that binary is read (nothing runs)."""
    results: Dict[Argv, CommandResult] = {}
    for candidate in HCCN_BINARIES:
        argvs = [query_argv(candidate, d, flag) for d in device_ids for _, flag in QUERIES]
        answers = run_many(argvs)
        results.update(zip(argvs, answers))
        if any(r.status is not CommandStatus.NOT_FOUND for r in answers):
            return candidate, results
    probes = {query_argv(c, d, "-link") for c in HCCN_BINARIES for d in device_ids}
    return None, {k: v for k, v in results.items() if k in probes}


def capture_hccn(run_many: RunMany, npu_smi_stdout: str, mapping_stdout: str = "") -> List[CommandResult]:
    """The hccn_tool commands ``snapshot`` records: exactly those ``hccn`` runs on this machine."""
    from ascend_doctor.parsers.npu_smi import NpuSmiParseError, parse_npu_smi_info
    from ascend_doctor.parsers.npu_smi_views import parse_npu_smi_mapping

    mapping = None
    if mapping_stdout.strip():
        try:
            mapping = parse_npu_smi_mapping(mapping_stdout)
        except NpuSmiParseError:
            mapping = None
    try:
        ids = device_ids_from(parse_npu_smi_info(npu_smi_stdout), mapping)
    except (NpuSmiParseError, FactUnavailable):
        return []
    _binary, results = run_queries(run_many, ids)
    return list(results.values())


# -- /etc/hccn.conf -------------------------------------------------------------------------------


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
