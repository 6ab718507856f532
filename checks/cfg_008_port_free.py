"""ASC-CFG-008: the ports the server will bind are free."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Optional, Sequence

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts

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


def run(ctx: CheckContext) -> Iterator[Finding]:
    config = usable_config(ctx)
    sockets = ctx.facts.maybe(Facts.listening_sockets)
    if sockets is None:
        raise NotApplicable("the listening sockets of this host are not known")
    listeners: List[Listener] = [Listener(str(s.address), int(s.port), s.pid) for s in sockets]
    findings = judge(config, listeners)
    if not findings:
        raise NotApplicable("the configuration names no port")
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
            who = ", ".join(f"pid {s.pid}" if s.pid else "another process" for s in holders)
            addr = holders[0].address or "*"
            owner = f"Stop it (`ss -ltnp 'sport = :{port}'` shows the owner), or "
            if cfg.is_vllm:
                fix = owner + "pass another --port."
            else:
                fix = owner + f"set ServerConfig.{setting} to a free port in {cfg.source}."
            out.append(Finding.fail(f"port {port} ({setting}) is already in use on {addr} by {who}", fix,
                                    port=port, pids=[s.pid for s in holders]).scoped(f"port {port}"))
    if not out:
        ports = [str(p) for _, p in cfg.ports]
        # Parenthesised whole: the conditional must choose the subject, not swallow the " free".
        subject = ("ports " + ", ".join(ports) + " are") if len(ports) > 1 else f"port {ports[0]} is"
        out.append(Finding.passed(subject + " free"))
    return out
