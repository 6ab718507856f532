"""The NPU-network part of a node digest: device addresses and the node's view of the rank table.

Read from the ``facts`` of a node report (docs/report-schema.json): ``facts.network.devices``
(what ``hccn_tool -i N -ip -g`` reported for each device) and ``facts.rank_table`` (the rank
table the node would start with, its hash and its device entries). A report without them (an
older ascend-doctor, a node without hccn_tool) simply takes no part in the address checks.

The rank table's device entries are the same on every node that holds the same table, so the
merge keeps them once per distinct table (:class:`RankTableView` carries them only until the
merge has stored them), never once per node.
"""

from __future__ import annotations

import ipaddress
import sys
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Tuple

MAX_DEVICES = 1024  # per node: more than any Ascend server has
MAX_TABLE_ENTRIES = 65_536  # device entries of one rank table (4,096 servers x 16)


@dataclass(frozen=True)
class DeviceAddress:
    device_id: str
    address: str
    netmask: Optional[str]

    def network(self) -> Optional[ipaddress.IPv4Network]:
        if not self.netmask:
            return None
        try:
            return ipaddress.IPv4Network(f"{self.address}/{self.netmask}", strict=False)
        except ValueError:
            return None


@dataclass(frozen=True)
class TableEntry:
    """One device of a rank table: where it sits in the JSON, its server and address."""

    path: str
    server_id: Optional[str]
    device_id: Optional[str]
    device_ip: Optional[str]


@dataclass(frozen=True)
class RankTableView:
    digest: Optional[str]  # equal tables, equal digests (canonical JSON hash, else the file's sha256)
    path: Optional[str]
    error: Optional[str]
    entries: Tuple[TableEntry, ...] = ()


@dataclass(frozen=True)
class NodeNetwork:
    addresses: Tuple[DeviceAddress, ...] = ()
    rank_table: Optional[RankTableView] = None

    def without_entries(self) -> NodeNetwork:
        """The same view without the rank table's entries (the merge keeps those once per table)."""
        table = self.rank_table
        if table is None or not table.entries:
            return self
        return NodeNetwork(self.addresses, RankTableView(table.digest, table.path, table.error))


def _text(value: Any, limit: int = 256) -> Optional[str]:
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        text = str(value).strip()
        return sys.intern(text[:limit]) if text else None
    return None


def is_ipv4(text: Optional[str]) -> bool:
    if not text:
        return False
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def read_node_network(facts: Mapping[str, Any]) -> Optional[NodeNetwork]:
    addresses = _addresses(facts.get("network"))
    table = _rank_table(facts.get("rank_table"))
    if not addresses and table is None:
        return None
    return NodeNetwork(addresses, table)


def _addresses(network: Any) -> Tuple[DeviceAddress, ...]:
    if not isinstance(network, dict):
        return ()
    devices = network.get("devices")
    if not isinstance(devices, list):
        return ()
    out: List[DeviceAddress] = []
    for device in devices[:MAX_DEVICES]:
        if not isinstance(device, dict):
            continue
        address = _text(device.get("address"), 64)
        device_id = _text(device.get("device_id"), 16)
        if device_id is None or not is_ipv4(address):
            continue
        assert address is not None
        netmask = _text(device.get("netmask"), 64)
        out.append(DeviceAddress(device_id, address, netmask if is_ipv4(netmask) else None))
    return tuple(out)


def _rank_table(section: Any) -> Optional[RankTableView]:
    if not isinstance(section, dict):
        return None
    digest = _text(section.get("canonical_sha256"), 128) or _text(section.get("sha256"), 128)
    entries: List[TableEntry] = []
    devices = section.get("devices")
    if isinstance(devices, list):
        for item in devices[:MAX_TABLE_ENTRIES]:
            if isinstance(item, dict):
                entries.append(TableEntry(str(_text(item.get("path"), 128) or "?"), _text(item.get("server_id")),
                                          _text(item.get("device_id"), 16), _text(item.get("device_ip"), 64)))
    return RankTableView(digest, _text(section.get("path"), 4096), _text(section.get("error"), 512), tuple(entries))
