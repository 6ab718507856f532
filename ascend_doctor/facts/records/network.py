"""The records of the ``network`` facts, apart from their providers (ascend_doctor/facts/network.py):
the registry of facts (ascend_doctor/facts/__init__.py) names their types without importing a provider,
and no record imports the registry."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.parsers import hccn as P

DRIVER_HCCN_TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"


# Where hccn_tool is looked for, in order (PATH first: a container may mount it anywhere on PATH).
HCCN_BINARIES = ("hccn_tool", DRIVER_HCCN_TOOL, "/usr/local/bin/hccn_tool")


class HccnDevice(Struct, frozen=True):
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

    def to_dict(self) -> Dict[str, object]:
        return {"device_id": self.device_id, "link": self.link, "net_health": self.net_health,
                "ip": self.ip.to_dict() if self.ip else None, "gateway": self.gateway,
                "tls": self.tls.to_dict() if self.tls else None, "fec": self.fec,
                "lldp": self.lldp.to_dict() if self.lldp else None,
                "optical": self.optical.to_dict() if self.optical else None,
                "link_stat": self.link_stat.to_dict() if self.link_stat else None,
                "status": self.status.to_dict() if self.status else None, "errors": dict(self.errors)}


class HccnFacts(Struct, frozen=True):
    """hccn_tool's view of every device; ``binary`` None when hccn_tool is nowhere to be found."""

    binary: Optional[str]
    devices: Dict[int, HccnDevice]
    searched: Tuple[str, ...] = HCCN_BINARIES

    def to_dict(self) -> Dict[str, object]:
        return {"binary": self.binary, "searched": list(self.searched),
                "devices": {str(k): v.to_dict() for k, v in sorted(self.devices.items())}}


class HccnConfFacts(Struct, frozen=True):
    """``/etc/hccn.conf``: ``present`` False when there is none; ``error`` when it is unusable."""

    path: str
    present: bool
    conf: Optional[P.HccnConf] = None
    error: Optional[str] = None

    def to_dict(self) -> Dict[str, object]:
        return {"path": self.path, "present": self.present, "conf": self.conf.to_dict() if self.conf else None,
                "error": self.error}
