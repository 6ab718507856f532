"""``hccn_tool`` outputs and ``/etc/hccn.conf``: the NPU's own RoCE network, device by device.

Every format here is taken from a published capture (copies in ``tests/samples/hccn/``):

* ``-link -g`` ``link status: UP``; ``-net_health -g`` ``net health status: Success``;
  ``-fec -g`` ``fec mode: rs FEC mode`` (MindCluster fault-collection bundle, yuanrong doc);
* ``-ip -g`` ``ipaddr:``/``netmask:`` lines, or the error printed when no address was ever set:
  ``Get ipconf failed, because no ip was preset there!`` (yuanrong connector doc);
* ``-tls -g`` the ``dev_id:0, tls switch[0](0:disable, 1:enable), ...`` line (MindCluster bundle,
  collected there through ``| grep switch``: the other lines of the full output are ignored);
* ``-optical -g`` ``key : value`` lines under ``optical info:`` (MindCluster bundle);
* ``-link_stat -g`` ``[device N]`` prefixed lines with the link change records (MindCluster);
* ``-lldp -g`` TLV blocks, ``-route -g`` a ``route``-style table and ``-status -g`` ethtool's
  ``Settings for ethN:`` listing (ArthurChiao's 910B1 notes);
* ``/etc/hccn.conf`` ``key_N=value`` lines, N the device id (vllm-ascend#2498, ArthurChiao).

``hccn_tool -gateway -g`` and ``-ip_rule`` have no published capture, so they are not parsed:
the gateway is read from the default row of ``-route -g`` and from ``gateway_N`` of hccn.conf.

Parsers are pure: text in, a record out, :class:`HccnParseError` (a ``ValueError``) with one line
saying what was expected when the text is not the output asked for.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.lazy import lazy_re

if TYPE_CHECKING:
    import ipaddress


# What hccn_tool prints for `-ip -g` on a device whose address was never configured.
NO_IP_TEXT = "Get ipconf failed, because no ip was preset there!"
MAX_LINES = 20_000  # more lines than any real output has: the rest is ignored


class HccnParseError(ValueError):
    """The text is not the hccn_tool output that was asked for."""


def _lines(text: str) -> List[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:MAX_LINES]


def _excerpt(text: str) -> str:
    first = next((line.strip() for line in _lines(text) if line.strip()), "")
    return repr(first[:80]) if first else "nothing"


def _single_value(text: str, label: str, command: str) -> str:
    """The value of the one ``<label>: value`` line an hccn_tool query prints."""
    pattern = re.compile(r"^\s*" + re.escape(label) + r"\s*:\s*(\S.*?)\s*$", re.IGNORECASE)
    for line in _lines(text):
        match = pattern.match(line)
        if match:
            return match.group(1)
    raise HccnParseError(f"`hccn_tool {command}` printed {_excerpt(text)}, not a '{label}: ...' line")


def parse_link(text: str) -> str:
    """``-link -g``: the link state as printed (``UP``, ``DOWN``)."""
    return _single_value(text, "link status", "-link -g")


def parse_net_health(text: str) -> str:
    """``-net_health -g``: the health of the detection path as printed (``Success``, ``Init``...)."""
    return _single_value(text, "net health status", "-net_health -g")


def parse_fec(text: str) -> str:
    """``-fec -g``: the FEC mode as printed (``rs FEC mode``)."""
    return _single_value(text, "fec mode", "-fec -g")


# -- -ip -g --------------------------------------------------------------------------------------


class DeviceIp(Struct, frozen=True):
    """A device's address from ``-ip -g``. ``missing`` when hccn_tool says none was ever set."""

    address: Optional[str] = None
    netmask: Optional[str] = None
    missing: bool = False

    @property
    def valid(self) -> bool:
        """Both values are IPv4 dotted quads and the mask is a real netmask."""
        return is_ipv4(self.address) and is_netmask(self.netmask)

    def to_dict(self) -> Dict[str, Any]:
        return {"address": self.address, "netmask": self.netmask, "missing": self.missing}


def is_no_ip(text: str) -> bool:
    """Whether an output (stdout or stderr) is hccn_tool's "no address configured" error."""
    return "no ip was preset" in text.lower()


def parse_ip(text: str) -> DeviceIp:
    """``-ip -g``: ``ipaddr:`` and ``netmask:`` lines, or the no-address error."""
    if is_no_ip(text):
        return DeviceIp(missing=True)
    values: Dict[str, str] = {}
    for line in _lines(text):
        key, sep, value = line.partition(":")
        if sep and key.strip().lower() in ("ipaddr", "netmask"):
            values[key.strip().lower()] = value.strip()
    if "ipaddr" not in values:
        raise HccnParseError(f"`hccn_tool -ip -g` printed {_excerpt(text)}, not 'ipaddr:' and 'netmask:' lines")
    return DeviceIp(values["ipaddr"] or None, values.get("netmask") or None)


def is_ipv4(value: Optional[str]) -> bool:
    if not value or not re.fullmatch(r"\d{1,3}(\.\d{1,3}){3}", value):
        return False
    import ipaddress  # here, as below: a run that reads no address does without it

    try:
        ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return True


def is_netmask(value: Optional[str]) -> bool:
    if not is_ipv4(value):
        return False
    import ipaddress

    bits = int(ipaddress.IPv4Address(value))
    inverted = (~bits) & 0xFFFFFFFF
    return (inverted & (inverted + 1)) == 0  # ones then zeros


def network_of(address: Optional[str], netmask: Optional[str]) -> Optional[ipaddress.IPv4Network]:
    """The subnet an address lies in, or None when either value is not usable."""
    if not is_ipv4(address) or not is_netmask(netmask):
        return None
    import ipaddress

    return ipaddress.IPv4Network(f"{address}/{netmask}", strict=False)


# -- -route -g -----------------------------------------------------------------------------------


class Route(Struct, frozen=True):
    destination: str
    gateway: str
    genmask: str
    flags: str
    iface: str

    def to_dict(self) -> Dict[str, Any]:
        return {"destination": self.destination, "gateway": self.gateway, "genmask": self.genmask,
                "flags": self.flags, "iface": self.iface}


_ROUTE_HEADER = ("destination", "gateway", "genmask", "flags")


def parse_route(text: str) -> Tuple[Route, ...]:
    """``-route -g``: the device's routing table (``Routing table:``, a header, one row a route)."""
    routes: List[Route] = []
    header_seen = False
    for line in _lines(text):
        cells = line.split()
        if not cells:
            continue
        if tuple(c.lower() for c in cells[:4]) == _ROUTE_HEADER:
            header_seen = True
            continue
        if not header_seen:
            continue
        if len(cells) < 8:
            continue  # not a row (a note, a cut line)
        routes.append(Route(cells[0], cells[1], cells[2], cells[3], cells[7]))
    if not header_seen:
        raise HccnParseError(f"`hccn_tool -route -g` printed {_excerpt(text)}, not a routing table")
    return tuple(routes)


def default_gateway(routes: Tuple[Route, ...]) -> Optional[str]:
    """The gateway of the default route (``default``/``0.0.0.0`` with the G flag), if any."""
    for route in routes:
        if route.destination in ("default", "0.0.0.0") and "G" in route.flags and is_ipv4(route.gateway):
            return route.gateway
    return None


# -- -tls -g -------------------------------------------------------------------------------------


class TlsInfo(Struct, frozen=True):
    """The ``tls switch[...]`` line of ``-tls -g``: 0 disabled, 1 enabled."""

    switch: int
    dev_id: Optional[int] = None
    preconfigured: Optional[int] = None
    alarm_days: Optional[int] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"switch": self.switch, "dev_id": self.dev_id, "preconfigured": self.preconfigured,
                "alarm_days": self.alarm_days}


def _bracket_int(line: str, label: str) -> Optional[int]:
    match = re.search(re.escape(label) + r"\s*\[\s*(\d{1,9})\s*\]", line, re.IGNORECASE)
    return int(match.group(1)) if match else None


def parse_tls(text: str) -> TlsInfo:
    """``-tls -g``: the switch line (the other lines of the full output are not needed)."""
    for line in _lines(text):
        switch = _bracket_int(line, "tls switch")
        if switch is None:
            continue
        dev = re.search(r"dev_id\s*:\s*(\d{1,9})", line, re.IGNORECASE)
        return TlsInfo(switch, int(dev.group(1)) if dev else None, _bracket_int(line, "tls preconfigured"),
                       _bracket_int(line, "tls alarm time threshold"))
    raise HccnParseError(f"`hccn_tool -tls -g` printed {_excerpt(text)}, without a 'tls switch[N]' line")


# -- -optical -g ---------------------------------------------------------------------------------


_NUMBER_UNIT = lazy_re(r"^(-?\d+(?:\.\d+)?)\s*([A-Za-z]*)$")


class OpticalReading(Struct, frozen=True):
    """A reading with the thresholds the module reports for it (values in the printed unit)."""

    name: str
    value: float
    unit: str
    low: Optional[float]
    high: Optional[float]

    @property
    def in_range(self) -> bool:
        return (self.low is None or self.value >= self.low) and (self.high is None or self.value <= self.high)

    def to_dict(self) -> Dict[str, Any]:
        return {"name": self.name, "value": self.value, "unit": self.unit, "low": self.low, "high": self.high}


class OpticalInfo(Struct, frozen=True):
    """``-optical -g``: every ``key : value`` line as printed, with the presence and readings."""

    fields: Tuple[Tuple[str, str], ...]
    present_text: Optional[str]

    @property
    def present(self) -> Optional[bool]:
        """Whether a module is plugged in; None when the output does not say."""
        if self.present_text is None:
            return None
        text = self.present_text.lower()
        return not ("not" in text or "absent" in text)

    def value(self, key: str) -> Optional[str]:
        want = _norm_key(key)
        return next((v for k, v in self.fields if _norm_key(k) == want), None)

    def readings(self) -> List[OpticalReading]:
        """Readings that have a "<name> Low/High Thres" pair (Tx Power / TxPower..., Vcc, Temp...)."""
        numbers: Dict[str, Tuple[str, float, str]] = {}
        for key, raw in self.fields:
            match = _NUMBER_UNIT.match(raw.strip())
            if match:
                numbers[_norm_key(key)] = (key, float(match.group(1)), match.group(2))
        out: List[OpticalReading] = []
        for norm, (key, value, unit) in numbers.items():
            if norm.endswith("thres"):
                continue
            bases = [norm] + (["temp"] if norm == "temperature" else [])
            low = high = None
            for base in bases:
                low = low if low is not None else _threshold(numbers, base + "lowthres")
                high = high if high is not None else _threshold(numbers, base + "highthres")
            if low is not None or high is not None:
                out.append(OpticalReading(key, value, unit, low, high))
        return out

    def flags(self) -> Dict[str, int]:
        """The ``... Flag : 0x..`` values (loss of signal / lock per lane bit)."""
        out: Dict[str, int] = {}
        for key, raw in self.fields:
            if key.lower().endswith("flag"):
                try:
                    out[key] = int(raw.strip(), 16 if raw.strip().lower().startswith("0x") else 10)
                except ValueError:
                    continue
        return out

    def to_dict(self) -> Dict[str, Any]:
        return {"present": self.present, "present_text": self.present_text, "fields": dict(self.fields)}


def _norm_key(key: str) -> str:
    return re.sub(r"[^a-z0-9]", "", key.lower())


def _threshold(numbers: Dict[str, Tuple[str, float, str]], key: str) -> Optional[float]:
    found = numbers.get(key)
    return found[1] if found else None


def parse_optical(text: str) -> OpticalInfo:
    """``-optical -g``: ``optical info:`` then ``key : value`` lines."""
    fields: List[Tuple[str, str]] = []
    header = False
    for line in _lines(text):
        stripped = line.strip()
        if stripped.lower().startswith("optical info"):
            header = True
            continue
        key, sep, value = stripped.partition(":")
        if sep and key.strip() and value.strip():
            fields.append((key.strip(), value.strip()))
    if not header and not fields:
        raise HccnParseError(f"`hccn_tool -optical -g` printed {_excerpt(text)}, not 'optical info:'")
    present = next((v for k, v in fields if _norm_key(k) == "present"), None)
    return OpticalInfo(tuple(fields), present)


# -- -lldp -g ------------------------------------------------------------------------------------


class LldpInfo(Struct, frozen=True):
    """``-lldp -g``: the switch port the NIC is cabled to, TLV by TLV (lines as printed)."""

    tlvs: Tuple[Tuple[str, Tuple[str, ...]], ...]

    def tlv(self, name: str) -> Tuple[str, ...]:
        want = name.lower()
        return next((lines for n, lines in self.tlvs if n.lower() == want), ())

    def _tagged(self, tlv: str, tag: str) -> Optional[str]:
        for line in self.tlv(tlv):
            key, sep, value = line.partition(":")
            if sep and key.strip().lower() == tag.lower() and value.strip():
                return value.strip()
        return None

    @property
    def chassis_id(self) -> Optional[str]:
        return self._tagged("Chassis ID TLV", "MAC")

    @property
    def port_ifname(self) -> Optional[str]:
        return self._tagged("Port ID TLV", "Ifname")

    @property
    def management_ipv4(self) -> Optional[str]:
        return self._tagged("Management Address TLV", "IPv4")

    @property
    def system_description(self) -> str:
        return " ".join(line for line in self.tlv("System Description TLV") if line.strip())

    @property
    def max_frame_size(self) -> Optional[int]:
        for line in self.tlv("Maximum Frame Size TLV"):
            if line.strip().isdigit():
                return int(line.strip())
        return None

    def to_dict(self) -> Dict[str, Any]:
        return {"port_ifname": self.port_ifname, "chassis_id": self.chassis_id,
                "management_ipv4": self.management_ipv4, "system_description": self.system_description,
                "max_frame_size": self.max_frame_size}


def parse_lldp(text: str) -> LldpInfo:
    """``-lldp -g``: a line ``<Name> TLV`` at the start of a line opens a TLV; the lines after it
    (indented, or not: the system description runs over several) belong to it."""
    tlvs: List[Tuple[str, List[str]]] = []
    for line in _lines(text):
        if not line.strip():
            continue
        if not line[:1].isspace() and line.rstrip().endswith(" TLV"):
            tlvs.append((line.strip(), []))
        elif tlvs:
            tlvs[-1][1].append(line.strip())
    if not tlvs:
        raise HccnParseError(f"`hccn_tool -lldp -g` printed {_excerpt(text)}, no LLDP TLV")
    return LldpInfo(tuple((name, tuple(lines)) for name, lines in tlvs))


# -- -link_stat -g -------------------------------------------------------------------------------


class LinkStat(Struct, frozen=True):
    """``-link_stat -g``: how often the link came up, and the recorded changes (newest first)."""

    current_time: Optional[str]
    link_up_count: Optional[int]
    records: Tuple[Tuple[str, str], ...]  # (time as printed, "LINK UP" / "LINK DOWN")

    def to_dict(self) -> Dict[str, Any]:
        return {"current_time": self.current_time, "link_up_count": self.link_up_count,
                "records": [list(r) for r in self.records]}


_DEVICE_PREFIX = lazy_re(r"^\s*\[device\s+\d+\]")
_LINK_RECORD = lazy_re(r"^\s*(\S.*?)\s{2,}(LINK\s+\S+)\s*$", re.IGNORECASE)


def parse_link_stat(text: str) -> LinkStat:
    current: Optional[str] = None
    count: Optional[int] = None
    records: List[Tuple[str, str]] = []
    seen = False
    for line in _lines(text):
        prefix = _DEVICE_PREFIX.match(line)
        if not prefix:
            continue
        seen = True
        rest = line[prefix.end():]
        key, sep, value = rest.partition(":")
        label = key.strip().lower()
        if sep and label == "current time":
            current = value.strip() or None
        elif sep and label == "link up count":
            count = int(value.strip()) if value.strip().isdigit() else None
        elif sep and label == "link change records":
            continue
        else:
            record = _LINK_RECORD.match(rest)
            if record:
                records.append((record.group(1), " ".join(record.group(2).upper().split())))
    if not seen:
        raise HccnParseError(f"`hccn_tool -link_stat -g` printed {_excerpt(text)}, no '[device N]' lines")
    return LinkStat(current, count, tuple(records))


# -- -status -g ----------------------------------------------------------------------------------


class NetdevStatus(Struct, frozen=True):
    """``-status -g``: ethtool's listing for the device's NIC (``Settings for eth3:``)."""

    interface: Optional[str]
    settings: Tuple[Tuple[str, Tuple[str, ...]], ...]

    def setting(self, name: str) -> Tuple[str, ...]:
        want = name.lower()
        return next((values for key, values in self.settings if key.lower() == want), ())

    @property
    def speed_mbps(self) -> Optional[int]:
        for value in self.setting("Speed"):
            match = re.match(r"(\d+)\s*Mb/s", value)
            if match:
                return int(match.group(1))
        return None

    @property
    def link_detected(self) -> Optional[bool]:
        values = self.setting("Link detected")
        return values[0].lower().startswith("yes") if values else None

    def to_dict(self) -> Dict[str, Any]:
        return {"interface": self.interface, "speed_mbps": self.speed_mbps, "link_detected": self.link_detected,
                "settings": {key: list(values) for key, values in self.settings}}


_SETTINGS_FOR = lazy_re(r"Settings for\s+(\S+?)\s*:")
_SETTING_KEY = lazy_re(r"^[A-Za-z][A-Za-z0-9 ()/_-]*$")  # "Supported link modes", "Speed"


def parse_status(text: str) -> NetdevStatus:
    """``-status -g``: ``Key: value`` lines; a line without a key continues the previous value."""
    interface: Optional[str] = None
    settings: List[Tuple[str, List[str]]] = []
    for line in _lines(text):
        if not line.strip():
            continue
        head = _SETTINGS_FOR.search(line)
        if head and interface is None:
            interface = head.group(1)
            continue
        if interface is None:
            continue
        key, sep, value = line.strip().partition(":")
        if sep and _SETTING_KEY.match(key):
            settings.append((key.strip(), [value.strip()] if value.strip() else []))
        elif settings:
            settings[-1][1].append(line.strip())
    if interface is None:
        raise HccnParseError(f"`hccn_tool -status -g` printed {_excerpt(text)}, not 'Settings for <nic>:'")
    return NetdevStatus(interface, tuple((k, tuple(v)) for k, v in settings))


# -- /etc/hccn.conf ------------------------------------------------------------------------------


class HccnConf(Struct, frozen=True):
    """``/etc/hccn.conf``: ``key_N=value`` for device N (``address_0``, ``netmask_0``,
    ``gateway_0``, ``netdetect_0``, ``send_arp_status_0``, ``xsfp_reset_*_0``...); keys without a
    device suffix are kept apart."""

    devices: Dict[int, Dict[str, str]] = field(default_factory=dict)
    other: Dict[str, str] = field(default_factory=dict)
    ignored_lines: int = 0

    def get(self, device_id: int, key: str) -> Optional[str]:
        value = self.devices.get(device_id, {}).get(key)
        return value or None

    def address(self, device_id: int) -> Optional[str]:
        return self.get(device_id, "address")

    def netmask(self, device_id: int) -> Optional[str]:
        return self.get(device_id, "netmask")

    def gateway(self, device_id: int) -> Optional[str]:
        return self.get(device_id, "gateway")

    def addresses(self) -> Dict[int, str]:
        return {dev: keys["address"] for dev, keys in sorted(self.devices.items()) if keys.get("address")}

    def to_dict(self) -> Dict[str, Any]:
        return {"devices": {str(k): dict(v) for k, v in sorted(self.devices.items())}, "other": dict(self.other),
                "ignored_lines": self.ignored_lines}


_CONF_KEY = lazy_re(r"^([A-Za-z][A-Za-z0-9_]*?)_(\d{1,5})$")


def parse_hccn_conf(text: str) -> HccnConf:
    """``/etc/hccn.conf``; lines without ``=`` (comments, elisions) are counted, not fatal."""
    devices: Dict[int, Dict[str, str]] = {}
    other: Dict[str, str] = {}
    ignored = 0
    for line in _lines(text):
        stripped = line.strip()
        if not stripped:
            continue
        key, sep, value = stripped.partition("=")
        key = key.strip()
        if not sep or not key or stripped.startswith("#"):
            ignored += 1
            continue
        match = _CONF_KEY.match(key)
        if match:
            devices.setdefault(int(match.group(2)), {})[match.group(1)] = value.strip()
        else:
            other[key] = value.strip()
    if not devices and not other:
        raise HccnParseError(f"/etc/hccn.conf holds {_excerpt(text)}, no 'key_N=value' line")
    return HccnConf(devices, other, ignored)
