"""The network part of the report's ``facts``: what ``ascend-doctor fleet`` compares across nodes.

Shapes (optional properties of ``facts`` in docs/report-schema.json):

``network``
    ``{"read": bool, "hccn_tool": path|null, "unavailable": reason|null, "tls": [int...],
    "fec": [str...], "devices": [{"device_id", "address", "netmask", "missing", "gateway", "link",
    "net_health", "tls_switch", "fec_mode", "conf_address", "conf_netmask", "conf_gateway",
    "errors"}], "hccn_conf": {"present", "error", "devices": {"<id>": {"address", "netmask",
    "gateway"}}} | null}``. ``read`` is False when this run did not query hccn_tool (no network
    check selected, or not an A2/910 node); ``tls``/``fec`` list the devices' values in device order.
``hccl_env``
    the six variables that choose HCCL's interfaces and timeouts, each a string or null (unset).
``rank_table``
    null when no rank table was given, else ``{"path", "source", "read_from", "sha256",
    "canonical_sha256", "error", "mode", "kind", "version", "status", "server_count", "rank_count",
    "servers": [{"server_id", "host_ip", "container_ip", "device_count"}], "devices": [{"path",
    "server_id", "device_id", "device_ip", "rank_id"}], "this_node": [server_id...]}``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ascend_doctor.facts import Facts

HCCL_VARIABLES = ("HCCL_IF_IP", "HCCL_CONNECT_TIMEOUT", "HCCL_EXEC_TIMEOUT", "HCCL_SOCKET_IFNAME",
                  "GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME")


def hccl_env(facts: Facts) -> Dict[str, Optional[str]]:
    env = facts.maybe(Facts.env) or {}
    return {name: (str(env[name]) if name in env else None) for name in HCCL_VARIABLES}


def network(facts: Facts) -> Dict[str, Any]:
    """hccn_tool's view of the devices (only when this run queried it) and /etc/hccn.conf."""
    conf_info = facts.maybe(Facts.hccn_conf)
    conf = getattr(conf_info, "conf", None)
    out: Dict[str, Any] = {"read": False, "hccn_tool": None, "unavailable": None, "tls": [], "fec": [],
                           "devices": []}
    hccn = facts.computed(Facts.hccn)
    if hccn is not None:
        out["read"] = True
        out["hccn_tool"] = hccn.binary
        devices: List[Dict[str, Any]] = []
        for device_id, device in sorted(hccn.devices.items()):
            ip = device.ip
            devices.append({
                "device_id": device_id,
                "address": ip.address if ip is not None else None,
                "netmask": ip.netmask if ip is not None else None,
                "missing": bool(ip is not None and ip.missing),
                "gateway": device.gateway,
                "link": device.link,
                "net_health": device.net_health,
                "tls_switch": device.tls.switch if device.tls is not None else None,
                "fec_mode": device.fec,
                "conf_address": conf.address(device_id) if conf is not None else None,
                "conf_netmask": conf.netmask(device_id) if conf is not None else None,
                "conf_gateway": conf.gateway(device_id) if conf is not None else None,
                "errors": dict(device.errors),
            })
        out["devices"] = devices
        out["tls"] = [d["tls_switch"] for d in devices if d["tls_switch"] is not None]
        out["fec"] = [d["fec_mode"] for d in devices if d["fec_mode"] is not None]
    else:  # not queried in this run: say why when the node cannot be read at all (A3, no NPU listed)
        from ascend_doctor.facts import FactUnavailable
        from ascend_doctor.facts.network import device_ids_from

        try:
            device_ids_from(facts.maybe(Facts.npu_smi))
        except FactUnavailable as exc:
            out["unavailable"] = exc.reason
    if conf_info is not None:
        out["hccn_conf"] = {
            "present": conf_info.present, "error": conf_info.error,
            "devices": {str(k): {"address": v.get("address"), "netmask": v.get("netmask"), "gateway": v.get("gateway")}
                        for k, v in sorted(conf.devices.items())} if conf is not None else {},
        }
    else:
        out["hccn_conf"] = None
    return out


def rank_table(facts: Facts, net: Optional[Dict[str, Any]] = None) -> Optional[Dict[str, Any]]:
    """The rank table's summary (its device entries included: the fleet keeps them once per table)."""
    info = facts.maybe(Facts.rank_table)
    if info is None:
        return None
    out: Dict[str, Any] = {"path": info.path, "source": info.source, "read_from": info.read_from,
                           "sha256": info.sha256, "canonical_sha256": None, "error": info.error,
                           "mode": None if info.mode is None else f"{info.mode:04o}"}
    table = info.table
    if table is None:
        return out
    from ascend_doctor.facts.ranktable import match_node, node_names

    host = facts.maybe(Facts.host_info)
    devices = (net if net is not None else network(facts))["devices"]
    addresses = {d["address"] for d in devices if d["address"] and not d["missing"]}
    match = match_node(table, node_names(facts.maybe(Facts.env) or {}, getattr(host, "hostname", None)), addresses)
    out.update({
        "canonical_sha256": table.canonical_sha256, "kind": table.kind, "version": table.version,
        "status": table.status, "server_count": table.server_count, "rank_count": table.rank_count,
        "servers": [{"server_id": s.server_id, "host_ip": s.host_ip, "container_ip": s.container_ip,
                     "device_count": len(s.devices)} for s in table.servers],
        "devices": [{"path": d.path, "server_id": d.server_id, "device_id": d.device_id, "device_ip": d.device_ip,
                     "rank_id": d.rank_id} for d in table.devices()],
        "this_node": [s.server_id for s in match.servers],
    })
    return out
