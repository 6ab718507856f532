"""ASC-CFG-008: the ports the server will bind are free."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional, Sequence

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _, ngettext
from ascend_doctor.shellcmd import one_line

from ._context import HostCheckContext
from ._serving import is_loopback, is_wildcard, usable_config

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

CHECK = CheckSpec(
    id="ASC-CFG-008",
    title="Configured ports are free",
    what="Compares the ports the server will bind (MindIE port/managementPort/metricsPort, multiNodesInferPort; "
    "vLLM --port, 8000 by default) with the sockets already listening on this host.",
    why="A port already in use makes the server exit at start-up, often after the model has spent minutes "
    "loading.",
    fix="Stop the process holding the port (`ss -ltnp 'sport = :PORT'`), or configure another port.",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    config = usable_config(ctx)
    sockets = ctx.facts.maybe(Facts.listening_sockets)
    if sockets is None:
        raise NotApplicable(_("the listening sockets of this host are not known"))
    listeners: List[Listener] = [Listener(str(s.address), int(s.port), s.pid) for s in sockets]
    findings = judge(config, listeners)
    if not findings:
        raise NotApplicable(_("the configuration names no port"))
    yield from findings


class Listener:
    """A socket listening on this host (plain class: this module is imported at every start-up)."""

    __slots__ = ("address", "pid", "port")

    def __init__(self, address: str, port: int, pid: Optional[int] = None) -> None:
        self.address = address
        self.port = port
        self.pid = pid


def _overlaps(config_host: Optional[str], socket_address: str) -> bool:
    if is_wildcard(config_host) or is_wildcard(socket_address):
        return True
    return config_host == socket_address or (
        config_host is not None and is_loopback(config_host) and is_loopback(socket_address))


def judge(cfg: ServingConfig, listeners: Sequence[Listener]) -> List[Finding]:
    """The ports the server will bind are free."""
    if cfg.is_simple or not cfg.ports:
        return []
    out: List[Finding] = []
    for setting, port in cfg.ports:
        holders = [s for s in listeners if s.port == port and _overlaps(cfg.host, s.address)]
        if holders:
            who = ", ".join(f"pid {s.pid}" if s.pid else _("another process") for s in holders)
            addr = holders[0].address or "*"
            command = f"ss -ltnp 'sport = :{port}'"
            if cfg.is_vllm:
                fix = _("Stop it (`{command}` shows the owner), or pass another --port.").format(command=command)
            else:
                fix = _("Stop it (`{command}` shows the owner), or set ServerConfig.{setting} to a free port in "
                        "{file}.").format(command=command, setting=setting, file=one_line(cfg.source))
            out.append(Finding.fail(_("port {port} ({setting}) is already in use on {address} by {processes}").format(
                                        port=port, setting=setting, address=addr, processes=who), fix,
                                    port=port, pids=[s.pid for s in holders]).scoped(f"port {port}"))
    if not out:
        ports = [str(p) for _setting, p in cfg.ports]
        out.append(Finding.passed(ngettext("port {ports} is free", "ports {ports} are free", len(ports)).format(
            ports=", ".join(ports))))
    return out
