"""The rank table this node will start with: ``check --rank-table FILE``, else the file the
environment names.

Variables, in order: ``RANK_TABLE_FILE`` (MindIE-LLM rank_table_file_configuration.md),
``RANKTABLEFILE`` (MindIE 1.0/2.0 multi-node guide, mindie_instg_0026) and
``DISAGGREGATED_PREFILL_RANK_TABLE_PATH`` (vllm_ascend/envs.py, prefill/decode disaggregation).

Where it is read: ``--rank-table FILE`` through the host (a snapshot's copy when it holds one,
else this machine's file, as ``--config`` does); a path from the environment only from the machine
(or snapshot) whose environment it is. The permission bits are those of the file read: a snapshot
does not keep them, so they are unknown there.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Collection, Dict, List, Mapping, Optional, Tuple

from msgspec import Struct, field

from ascend_doctor.facts import Facts, FactUnavailable, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.ranktable import RankTableFacts
from ascend_doctor.host.base import FileMissing, FileTooLarge, HostFileError
from ascend_doctor.i18n import gettext as _
from ascend_doctor.options import RunOptions

if TYPE_CHECKING:
    from ascend_doctor.parsers.rank_table import RankTable, RtDevice, RtServer

RANK_TABLE_VARIABLES = ("RANK_TABLE_FILE", "RANKTABLEFILE", "DISAGGREGATED_PREFILL_RANK_TABLE_PATH")
# Variables that name this node's address to the engines (MindIE: MIES_CONTAINER_IP in a container, HOST_IP on
# bare metal, each this node's server_id; HCCL_IF_IP: the host NIC HCCL uses).
NODE_VARIABLES = ("MIES_CONTAINER_IP", "HOST_IP", "HCCL_IF_IP")
OPTION = "--rank-table"
READ_HERE = "this machine"
READ_SNAPSHOT = "the snapshot"


def rank_table_location(options: RunOptions, env: Mapping[str, str]) -> Optional[Tuple[str, str]]:
    """(path, where it was named) of the rank table of this run, or None."""
    given = getattr(options, "rank_table", None)
    if given:
        return str(given), OPTION
    for name in RANK_TABLE_VARIABLES:
        value = str(env.get(name, "") or "").strip()
        if value:
            return value, name
    return None


def rank_table_paths(options: RunOptions, env: Mapping[str, str]) -> Tuple[str, ...]:
    """The path the ``{rank_table}`` read declaration stands for (see facts/variables.py)."""
    found = rank_table_location(options, env)
    if found is None or not found[0].startswith("/"):
        return ()
    return (posixpath.normpath(found[0]),)


def _read(facts: Facts, path: str, source: str) -> Tuple[bytes, str, Optional[int], Optional[str]]:
    """(content, read_from, mode, mode_note); raises HostFileError / FactUnavailable."""
    from ascend_doctor.parsers.rank_table import MAX_CHARS

    host = facts.host
    snapshot = host.info().source != "live"
    if not snapshot:
        from ascend_doctor import safeio

        if safeio.on_pseudo_fs(path):
            raise HostFileError(path, "is a kernel interface under /proc or /sys, not a rank table; refused")
        data = host.read_bytes(path, MAX_CHARS)
        stat = host.stat(host.realpath(path))
        return data, READ_HERE, (stat.mode & 0o7777) if stat is not None else None, None
    try:
        data = host.read_bytes(path, MAX_CHARS)
        return data, READ_SNAPSHOT, None, "a snapshot does not keep file permissions"
    except FileMissing:
        if source != OPTION:
            raise FactUnavailable(_("{variable}={path} names a file the snapshot does not hold: give a copy with "
                                    "{option} FILE").format(variable=source, path=path, option=OPTION)) from None
    from ascend_doctor.model.files import LocalFiles

    local = LocalFiles()
    data = local.read_bytes(path, MAX_CHARS)
    stat = local.stat(local.realpath(path))
    return data, READ_HERE, (stat.mode & 0o7777) if stat is not None else None, None


@provider("rank_table", reads=Reads(files=("{rank_table}",), host=("info",)))
def rank_table(facts: Facts) -> RankTableFacts:
    env = facts.maybe(Facts.env) or {}
    found = rank_table_location(facts.options, env)
    if found is None:
        raise FactUnavailable(_("no rank table given (use {option} FILE, or set {variables})").format(
            option=OPTION, variables=" / ".join(RANK_TABLE_VARIABLES[:2])))
    path, source = found
    if not path.startswith("/"):
        raise FactUnavailable(_("{variable}={path} is relative to the folder the engine starts in, which is not "
                                "known here: give the file with {option} FILE").format(
                                    variable=source, path=path, option=OPTION))
    # The parser only once there is a table to read: most runs name none (requirements.py asks
    # rank_table_location on every run).
    from ascend_doctor.parsers.rank_table import MAX_CHARS, RankTableError, parse_rank_table

    path = posixpath.normpath(path)
    read_from = READ_HERE
    try:
        data, read_from, mode, note = _read(facts, path, source)
    except FileTooLarge:
        return RankTableFacts(path, source, read_from, error=f"{path} is larger than {MAX_CHARS // (1024 * 1024)} "
                              "MB: refused (a rank table of 4,096 servers is about 2 MB)")
    except HostFileError as exc:
        return RankTableFacts(path, source, read_from, error=f"{path}: {exc.message}")
    except OSError as exc:
        return RankTableFacts(path, source, read_from, error=f"{path}: {exc.strerror or exc}")
    import hashlib  # here: loading OpenSSL costs more than the rest of a run that reads no rank table

    digest = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return RankTableFacts(path, source, read_from, error=f"{path} is not UTF-8 text", mode=mode,
                              mode_note=note, sha256=digest)
    try:
        table = parse_rank_table(text)
    except RankTableError as exc:
        return RankTableFacts(path, source, read_from, error=f"{path}: {exc}", mode=mode, mode_note=note,
                              sha256=digest)
    return RankTableFacts(path, source, read_from, table, None, mode, note, digest)


# -- which entries are this node ---------------------------------------------------------------------


class NodeMatch(Struct):
    """The servers of a table that are this node, and how each was recognised."""

    servers: List[RtServer] = field(default_factory=list)
    how: List[str] = field(default_factory=list)
    evidence: bool = False  # whether anything could have matched (addresses, variables, a host name)

    @property
    def devices(self) -> List[RtDevice]:
        return [d for s in self.servers for d in s.devices]


def node_names(env: Mapping[str, str], hostname: Optional[str]) -> Dict[str, str]:
    """The names this node goes by (value -> where it comes from)."""
    names: Dict[str, str] = {}
    for variable in NODE_VARIABLES:
        value = str(env.get(variable, "") or "").strip()
        if value:
            names.setdefault(value, variable)
    if hostname:
        names.setdefault(hostname, "the host name")
    return names


def match_node(table: RankTable, names: Mapping[str, str], addresses: Collection[str]) -> NodeMatch:
    """Servers named like this node (server_id / host_ip / container_ip), and servers most of whose
    device addresses are this node's (one address in common is a duplicate, not this node)."""
    match = NodeMatch(evidence=bool(names or addresses))
    for server in table.servers:
        hit = next((k for k in (server.server_id, server.host_ip, server.container_ip) if k and k in names), None)
        if hit is not None:
            match.servers.append(server)
            match.how.append(f"{server.path} is {names[hit]} ({hit})")
    for server in table.servers:
        shared = [d.device_ip for d in server.devices if d.device_ip in addresses]
        if 2 * len(shared) > len(server.devices) and not any(s is server for s in match.servers):
            match.servers.append(server)
            match.how.append(f"{server.path} holds this node's device address(es) {', '.join(map(str, shared))}")
    return match
