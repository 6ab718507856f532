"""ASC-CFG-008: the ports the server will bind are free."""

from __future__ import annotations

from typing import Iterator, List

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

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
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import Listener, findings_ports, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    sockets = ctx.facts.try_get("listening_sockets")
    if sockets is None:
        raise NotApplicable("the listening sockets of this host are not known")
    listeners: List[Listener] = [Listener(str(s.address), int(s.port), s.pid) for s in sockets]
    findings = findings_ports(config, listeners)
    if not findings:
        raise NotApplicable("the configuration names no port")
    yield from findings
