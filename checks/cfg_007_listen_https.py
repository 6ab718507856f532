"""ASC-CFG-007: the inference API is not exposed beyond this host without HTTPS."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

CHECK = CheckSpec(
    id="ASC-CFG-007",
    title="API bound to loopback, or served over HTTPS",
    what="MindIE: ServerConfig.ipAddress beyond loopback with httpsEnabled false (WARN), 0.0.0.0 without "
    "allowAllZeroIpListening (FAIL: MindIE refuses it). vLLM: --host other than loopback (or none: every "
    "interface) without --ssl-certfile/--ssl-keyfile (WARN).",
    why="MindIE's documentation warns that httpsEnabled=false carries a high network-security risk; prompts and "
    "answers then cross the network in clear text, to anyone who can reach the port.",
    fix="Enable HTTPS (MindIE httpsEnabled true with certificates; vLLM --ssl-certfile/--ssl-keyfile) or bind to "
    "127.0.0.1 behind a TLS-terminating proxy.",
    requires=("serving_config",),
    tags=("serving", "security"),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_listen, require_usable

    config = require_usable(ctx.facts.get("serving_config"))
    findings = findings_listen(config)
    if not findings:
        raise NotApplicable("the configuration does not say where the API listens")
    yield from findings
