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

import functools
import sys
from typing import Any, List, Mapping, Optional, Tuple

from msgspec import Struct

from ascend_doctor.lazy import lazy_re

MAX_DEVICES = 1024  # per node: more than any Ascend server has
MAX_TABLE_ENTRIES = 65_536  # device entries of one rank table (4,096 servers x 16)


class DeviceAddress(Struct, frozen=True):
    device_id: str
    address: str
    netmask: Optional[str]

    def network(self) -> Optional[Tuple[int, int]]:
        """(network number, mask) as integers; None without a usable netmask."""
        mask = netmask_int(self.netmask)
        address = ipv4_int(self.address)
        if address is None or mask is None:
            return None
        return address & mask, mask


class TableEntry(Struct, frozen=True):
    """One device of a rank table: where it sits in the JSON, its server and address."""

    path: str
    server_id: Optional[str]
    device_id: Optional[str]
    device_ip: Optional[str]


class RankTableView(Struct, frozen=True):
    digest: Optional[str]  # equal tables, equal digests (canonical JSON hash, else the file's sha256)
    path: Optional[str]
    error: Optional[str]
    # The report's device entries, still as JSON: turned into TableEntry records only for a table the
    # merge has not seen yet (table_entries), then dropped.
    raw_entries: Any = None


class NodeNetwork(Struct, frozen=True):
    addresses: Tuple[DeviceAddress, ...] = ()
    rank_table: Optional[RankTableView] = None

    def without_entries(self) -> NodeNetwork:
        """The same view without the rank table's entries (the merge keeps those once per table)."""
        table = self.rank_table
        if table is None or table.raw_entries is None:
            return self
        return NodeNetwork(self.addresses, RankTableView(table.digest, table.path, table.error))


def _text(value: Any, limit: int = 256) -> Optional[str]:
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        text = str(value).strip()
        return sys.intern(text[:limit]) if text else None
    return None


def ipv4_int(text: Optional[str]) -> Optional[int]:
    """A dotted-quad IPv4 address as an integer (None for anything else; no leading zeros, as
    ``ipaddress`` demands), without building an object per address: a thousand nodes have
    sixteen thousand of them."""
    if not text or len(text) > 15:
        return None
    parts = text.split(".")
    if len(parts) != 4:
        return None
    value = 0
    for part in parts:
        if not part.isdigit() or not part.isascii() or (len(part) > 1 and part[0] == "0"):
            return None
        octet = int(part)
        if octet > 255:
            return None
        value = value << 8 | octet
    return value


_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
# What ipv4_int accepts (ASCII digits, no leading zeros), matched in C: ten thousand nodes have 160,000
# addresses and netmasks to validate.
_DOTTED_QUAD = lazy_re(rf"{_OCTET}(?:\.{_OCTET}){{3}}")


def is_ipv4(text: Optional[str]) -> bool:
    return text is not None and _DOTTED_QUAD.fullmatch(text) is not None


@functools.lru_cache(maxsize=64)
def netmask_int(text: Optional[str]) -> Optional[int]:
    """A netmask as an integer (None when it is not one); a fleet has one or two distinct masks."""
    mask = ipv4_int(text)
    return mask if mask is not None and is_netmask(mask) else None


def is_netmask(mask: int) -> bool:
    """Ones then zeros (255.255.255.0), as a netmask must be."""
    inverted = ~mask & 0xFFFFFFFF
    return inverted & (inverted + 1) == 0


def ipv4_text(value: int) -> str:
    return ".".join(str(value >> shift & 0xFF) for shift in (24, 16, 8, 0))


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
    devices = section.get("devices")
    return RankTableView(digest, _text(section.get("path"), 4096), _text(section.get("error"), 512),
                         devices if isinstance(devices, list) else None)


def table_entries(view: RankTableView) -> Tuple[TableEntry, ...]:
    """The device entries of a rank table view, type-checked and bounded."""
    entries: List[TableEntry] = []
    for item in (view.raw_entries or [])[:MAX_TABLE_ENTRIES]:
        if isinstance(item, dict):
            entries.append(TableEntry(str(_text(item.get("path"), 128) or "?"), _text(item.get("server_id")),
                                      _text(item.get("device_id"), 16), _text(item.get("device_ip"), 64)))
    return tuple(entries)
