"""Rank tables: the JSON that tells HCCL (and MindIE / vLLM-Ascend) which NPU of which server is
which rank, and at which device address it is reached.

Layouts, each from a published source (copies in ``tests/samples/hccn/``):

``hccl`` (``version`` "1.0", and "1.2" for A3 SuperPoD)
    ``server_count``, ``server_list[].server_id``, ``server_list[].device[]`` of ``device_id``,
    ``device_ip``, ``rank_id`` (1.2 adds ``host_ip``, ``super_device_id`` and ``super_pod_list``).
    MindSpore's 16-card 1.0 table; hiascend CANN HCCL guide "ranktable文件配置资源信息"
    (hcclug_000014: every value a string, rank ids from 0, comments in its examples must be
    removed); MindCluster's A3 hccl.json template; MindIE-LLM rank_table_file_configuration.md.
``hccl-2.0`` (``version`` "2.0", Atlas 350/850/950 SuperPoD)
    ``rank_count`` and ``rank_list[]`` of ``rank_id``/``local_id``/``device_id``/``level_list``
    (MindCluster template). No server or device address: only counts and rank ids are judged.
``vllm-pd`` (vLLM-Ascend prefill/decode disaggregation, ``DISAGGREGATED_PREFILL_RANK_TABLE_PATH``)
    ``version`` "1.2", ``server_count``, ``prefill_device_list[]``/``decode_device_list[]`` of
    ``server_id``, ``device_id``, ``device_ip``, ``cluster_id`` (+ ``super_pod_id`` and
    ``super_device_id`` on A3), ``status``: vllm-ascend examples/disaggregate_prefill_v1/
    gen_ranktable.py and the table of vllm-ascend#2498. No rank ids.

The parser is pure and bounded (size, nesting, number of values, before anything is built). A
text that is not a usable JSON object raises :class:`RankTableError` with one line (the line and
column of a syntax error, and what usually causes it); problems of shape inside a usable table
(a missing field, a wrong type) are collected as :class:`RtProblem`, each naming its JSON path
(``server_list[3].device[5].device_ip``), for ASC-RT-001 to report.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Tuple

from msgspec import Struct

from ascend_doctor import boundedjson
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text

KIND_HCCL = "hccl"
KIND_HCCL_2 = "hccl-2.0"
KIND_PD = "vllm-pd"
KIND_LABELS = {KIND_HCCL: "HCCL server_list", KIND_HCCL_2: "HCCL 2.0 rank_list",
               KIND_PD: "vLLM-Ascend prefill/decode"}
KNOWN_VERSIONS = {KIND_HCCL: ("1.0", "1.2"), KIND_HCCL_2: ("2.0",), KIND_PD: ("1.2",)}

MAX_CHARS = 8 * 1024 * 1024  # 4,096 servers x 16 devices take about 2 MB
MAX_DEPTH = 16
MAX_CONTAINERS = 200_000
MAX_ITEMS = 2_000_000

ERROR = "error"  # HCCL / the engine cannot use the table
WARNING = "warning"  # usable, but not as the templates write it


class RankTableError(ValueError):
    """Not a rank table we can read at all (not JSON, too large or deep, no known layout)."""


class RtProblem(Struct, frozen=True):
    path: str
    message: str
    severity: str = ERROR

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "message": self.message, "severity": self.severity}


class RtDevice(Struct, frozen=True):
    """One device entry, values as written (text; None when absent)."""

    path: str
    server_id: Optional[str]
    device_id: Optional[str]
    device_ip: Optional[str]
    rank_id: Optional[str]
    super_device_id: Optional[str] = None
    cluster_id: Optional[str] = None
    role: Optional[str] = None  # "prefill" / "decode" in a vLLM-Ascend PD table

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "server_id": self.server_id, "device_id": self.device_id,
                "device_ip": self.device_ip, "rank_id": self.rank_id, "super_device_id": self.super_device_id,
                "cluster_id": self.cluster_id, "role": self.role}


class RtServer(Struct, frozen=True):
    path: str
    server_id: Optional[str]
    host_ip: Optional[str]
    container_ip: Optional[str]
    devices: Tuple[RtDevice, ...]

    def to_dict(self) -> Dict[str, Any]:
        return {"path": self.path, "server_id": self.server_id, "host_ip": self.host_ip,
                "container_ip": self.container_ip, "devices": [d.to_dict() for d in self.devices]}


class RankTable(Struct, frozen=True):
    kind: str
    version: Optional[str]
    status: Optional[str]
    server_count: Optional[str]  # as written (HCCL writes a string)
    servers: Tuple[RtServer, ...]
    problems: Tuple[RtProblem, ...]
    rank_count: Optional[str] = None  # hccl-2.0
    ranks: Tuple[RtDevice, ...] = ()  # hccl-2.0 rank_list entries
    super_pod_servers: Tuple[Tuple[str, str], ...] = ()  # (super_pod_id, server_id) of super_pod_list
    canonical_sha256: str = ""  # of the parsed JSON with sorted keys: equal tables, equal hashes

    @property
    def label(self) -> str:
        return KIND_LABELS.get(self.kind, self.kind)

    def devices(self) -> List[RtDevice]:
        """Every device entry, server by server (the rank_list of a 2.0 table)."""
        if self.kind == KIND_HCCL_2:
            return list(self.ranks)
        return [d for s in self.servers for d in s.devices]

    def errors(self) -> List[RtProblem]:
        return [p for p in self.problems if p.severity == ERROR]

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": self.kind, "version": self.version, "status": self.status,
                "server_count": self.server_count, "rank_count": self.rank_count,
                "servers": [s.to_dict() for s in self.servers], "ranks": [r.to_dict() for r in self.ranks],
                "problems": [p.to_dict() for p in self.problems], "canonical_sha256": self.canonical_sha256}


# -- reading ------------------------------------------------------------------------------------


def load_json(text: str) -> Any:
    """The JSON value of ``text``, bounded; RankTableError with the usual cause on a syntax error."""
    try:
        return boundedjson.loads(text, what="the rank table", max_chars=MAX_CHARS, max_depth=MAX_DEPTH,
                                 max_containers=MAX_CONTAINERS, max_items=MAX_ITEMS)
    except boundedjson.TooComplex as exc:
        raise RankTableError(str(exc)) from None
    except json.JSONDecodeError as exc:
        raise RankTableError(f"not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
                             + _syntax_hint(text, exc)) from None
    except ValueError as exc:  # bytes that are not UTF-8, a number too long
        raise RankTableError(f"not valid JSON: {exc}") from None


def _syntax_hint(text: str, error: json.JSONDecodeError) -> str:
    """What usually causes the syntax error at ``error``: a comment or an elision copied from a
    documentation example, or a comma before a closing bracket."""
    lines = text.splitlines()
    line = lines[error.lineno - 1] if 0 < error.lineno <= len(lines) else ""
    if "//" in line or re.search(r"^\s*//|,\s*//|[\[{]\s*//", text, re.MULTILINE):
        return (" (the file has // comments: JSON has none; the comments in Huawei's rank table examples "
                "are explanations to delete before use)")
    if line.strip() in ("...", "…") or re.search(r"^\s*(\.\.\.|…)\s*$", text, re.MULTILINE):
        return " (a '...' elision copied from a documentation example: write every entry out)"
    before = text[:error.pos].rstrip()
    if before.endswith(",") and text[error.pos:error.pos + 1] in ("}", "]"):
        return " (a comma before a closing } or ]: JSON allows none)"
    return ""


def parse_rank_table(text: str) -> RankTable:
    """Read a rank table of any known layout (see the module docstring)."""
    data = load_json(text)
    if not isinstance(data, dict):
        raise RankTableError(f"the rank table is a JSON {_type_name(data)}, not an object with server_list "
                             "(or rank_list, or prefill_device_list/decode_device_list)")
    import hashlib  # here: loading OpenSSL costs more than a run that reads no rank table

    canonical = hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()
    if "prefill_device_list" in data or "decode_device_list" in data:
        table = _parse_pd(data)
    elif "rank_list" in data:
        table = _parse_v2(data)
    elif "server_list" in data:
        table = _parse_hccl(data)
    else:
        keys = ", ".join(sorted(str(k) for k in data)[:8]) or "none"
        raise RankTableError("no server_list, rank_list or prefill_device_list/decode_device_list: this is not a "
                             f"rank table (keys: {keys})")
    return RankTable(table.kind, table.version, table.status, table.server_count, table.servers, table.problems,
                     table.rank_count, table.ranks, table.super_pod_servers, canonical)


class _Reader:
    """Collects shape problems while reading values by JSON path."""

    def __init__(self) -> None:
        self.problems: List[RtProblem] = []

    def problem(self, path: str, message: str, severity: str = ERROR) -> None:
        self.problems.append(RtProblem(path, message, severity))

    def text(self, obj: Dict[str, Any], key: str, path: str, required: bool = True,
             numeric: bool = False) -> Optional[str]:
        """A value the templates write as a string; a number is accepted with a warning."""
        where = f"{path}.{key}" if path else key
        if key not in obj:
            if required:
                self.problem(where, Text(N_("is missing")))
            return None
        value = obj[key]
        if isinstance(value, bool) or value is None or isinstance(value, (list, dict)):
            self.problem(where, Text(N_("is a JSON {kind}, not a string"), kind=_type_name(value)))
            return None
        if isinstance(value, (int, float)):
            self.problem(where, Text(N_("is the number {value}; the HCCL templates write it as a string (\"{value}\")"),
                                     value=value),
                         WARNING)
            text = str(value)
        else:
            text = str(value)
        if numeric and not re.fullmatch(r"\d{1,9}", text.strip()):
            self.problem(where, Text(N_("is {value}, not a whole number"), value=repr(text)))
        return text

    def array(self, obj: Dict[str, Any], key: str, path: str, required: bool = True) -> List[Any]:
        where = f"{path}.{key}" if path else key
        if key not in obj:
            if required:
                self.problem(where, Text(N_("is missing")))
            return []
        value = obj[key]
        if not isinstance(value, list):
            self.problem(where, Text(N_("is a JSON {kind}, not an array"), kind=_type_name(value)))
            return []
        return value

    def head(self, data: Dict[str, Any], kind: str) -> Tuple[Optional[str], Optional[str]]:
        status = self.text(data, "status", "")
        if status is not None and status != "completed":
            self.problem("status", Text(N_("is {value}: HCCL uses a rank table only when it is \"completed\""),
                                         value=repr(status)))
        version = self.text(data, "version", "")
        known = KNOWN_VERSIONS[kind]
        if version is not None and version not in known:
            self.problem("version", Text(N_("is {value}; a {label} table is version {known}"), value=repr(version),
                                         label=KIND_LABELS[kind], known=" or ".join(repr(v) for v in known)), WARNING)
        return status, version


def _parse_hccl(data: Dict[str, Any]) -> RankTable:
    r = _Reader()
    status, version = r.head(data, KIND_HCCL)
    server_count = r.text(data, "server_count", "", numeric=True)
    servers: List[RtServer] = []
    for i, server in enumerate(r.array(data, "server_list", "")):
        path = f"server_list[{i}]"
        if not isinstance(server, dict):
            r.problem(path, Text(N_("is a JSON {kind}, not an object"), kind=_type_name(server)))
            continue
        server_id = r.text(server, "server_id", path)
        host_ip = r.text(server, "host_ip", path, required=False)
        container_ip = r.text(server, "container_ip", path, required=False)
        devices: List[RtDevice] = []
        for j, device in enumerate(r.array(server, "device", path)):
            dpath = f"{path}.device[{j}]"
            if not isinstance(device, dict):
                r.problem(dpath, Text(N_("is a JSON {kind}, not an object"), kind=_type_name(device)))
                continue
            devices.append(RtDevice(
                dpath, server_id, r.text(device, "device_id", dpath, numeric=True),
                r.text(device, "device_ip", dpath), r.text(device, "rank_id", dpath, numeric=True),
                r.text(device, "super_device_id", dpath, required=version == "1.2" and "super_pod_list" in data,
                       numeric=True)))
        servers.append(RtServer(path, server_id, host_ip, container_ip, tuple(devices)))
    pods: List[Tuple[str, str]] = []
    for i, pod in enumerate(r.array(data, "super_pod_list", "", required=False)):
        path = f"super_pod_list[{i}]"
        if not isinstance(pod, dict):
            r.problem(path, Text(N_("is a JSON {kind}, not an object"), kind=_type_name(pod)))
            continue
        pod_id = r.text(pod, "super_pod_id", path) or ""
        for j, member in enumerate(r.array(pod, "server_list", path)):
            mpath = f"{path}.server_list[{j}]"
            if not isinstance(member, dict):
                r.problem(mpath, Text(N_("is a JSON {kind}, not an object"), kind=_type_name(member)))
                continue
            member_id = r.text(member, "server_id", mpath)
            if member_id is not None:
                pods.append((pod_id, member_id))
    return RankTable(KIND_HCCL, version, status, server_count, tuple(servers), tuple(r.problems),
                     super_pod_servers=tuple(pods))


def _parse_pd(data: Dict[str, Any]) -> RankTable:
    r = _Reader()
    status, version = r.head(data, KIND_PD)
    server_count = r.text(data, "server_count", "", numeric=True)
    order: List[str] = []
    by_server: Dict[str, List[RtDevice]] = {}
    for role in ("prefill", "decode"):
        key = f"{role}_device_list"
        for i, entry in enumerate(r.array(data, key, "")):
            path = f"{key}[{i}]"
            if not isinstance(entry, dict):
                r.problem(path, Text(N_("is a JSON {kind}, not an object"), kind=_type_name(entry)))
                continue
            server_id = r.text(entry, "server_id", path)
            device = RtDevice(path, server_id, r.text(entry, "device_id", path, numeric=True),
                              r.text(entry, "device_ip", path), None,
                              r.text(entry, "super_device_id", path, required=False, numeric=True),
                              r.text(entry, "cluster_id", path, numeric=True), role)
            name = server_id or ""
            if name not in by_server:
                order.append(name)
                by_server[name] = []
            by_server[name].append(device)
    servers = tuple(RtServer(f"server_id {name!r}", name or None, None, None, tuple(by_server[name]))
                    for name in order)
    return RankTable(KIND_PD, version, status, server_count, servers, tuple(r.problems))


def _parse_v2(data: Dict[str, Any]) -> RankTable:
    r = _Reader()
    status, version = r.head(data, KIND_HCCL_2)
    rank_count = r.text(data, "rank_count", "", numeric=True)
    ranks: List[RtDevice] = []
    for i, entry in enumerate(r.array(data, "rank_list", "")):
        path = f"rank_list[{i}]"
        if not isinstance(entry, dict):
            r.problem(path, Text(N_("is a JSON {kind}, not an object"), kind=_type_name(entry)))
            continue
        rank_id = r.text(entry, "rank_id", path, numeric=True)
        device_id = r.text(entry, "device_id", path, numeric=True)
        r.text(entry, "local_id", path, numeric=True)
        for j, level in enumerate(r.array(entry, "level_list", path)):
            if not isinstance(level, dict):
                r.problem(f"{path}.level_list[{j}]",
                          Text(N_("is a JSON {kind}, not an object"), kind=_type_name(level)))
        ranks.append(RtDevice(path, None, device_id, None, rank_id))
    return RankTable(KIND_HCCL_2, version, status, None, (), tuple(r.problems), rank_count=rank_count,
                     ranks=tuple(ranks))


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def as_int(value: Optional[str]) -> Optional[int]:
    """A numeric field's value, or None when it is not a whole number."""
    if value is None or not re.fullmatch(r"\d{1,9}", value.strip()):
        return None
    return int(value.strip())
