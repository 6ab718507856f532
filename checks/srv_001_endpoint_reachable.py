"""ASC-SRV-001: the endpoint answers HTTP."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.endpoint import records as rec
from ascend_doctor.i18n import N_, _

from ._probe import ProbeCheckContext, ms, probe_facts

CHECK = CheckSpec(
    id="ASC-SRV-001",
    title="The serving endpoint answers HTTP",
    suite="probe",
    what="Opens a connection to the URL and sends GET /v1/models; any HTTP answer passes, a refused or "
         "timed-out connection, a TLS failure or a dropped connection fails.",
    why="Nothing else can be measured on an endpoint that does not answer, and the kind of failure "
        "(nothing listening, TLS, a firewall) says where to look.",
    fix="Check that the engine runs and listens on that address: `ss -ltnp` on the server; vLLM's "
        "--host/--port; MindIE's ServerConfig.ipAddress/port (default 127.0.0.1:1025, HTTPS on) in "
        "mindie-service/conf/config.json; a container's port mapping.",
)

_HOW = {
    rec.CONNECT: N_("Nothing accepted the connection. On the server: `ss -ltnp | grep <port>` shows what listens. "
                     "vLLM listens on --host/--port (default 0.0.0.0:8000); MindIE on ServerConfig.ipAddress:port "
                     "(default 127.0.0.1:1025, reachable from that host only) in mindie-service/conf/config.json. "
                     "From another machine or a container: the port mapping, --net=host, the firewall."),
    rec.TIMEOUT: N_("The connection or the answer did not come within --timeout: a firewall that drops packets, "
                     "a wrong address, or a server that accepts connections but never answers (look at its log)."),
    rec.RESET: N_("The server closed the connection without an answer: often http:// against an HTTPS port "
                   "(MindIE enables HTTPS by default, ServerConfig.httpsEnabled) or the other way round."),
}
_TLS = N_("MindIE serves HTTPS with its own certificates by default: give its CA with --ca-cert FILE (or --insecure "
           "to skip verification for this probe), or use http:// if httpsEnabled is false.")


def run(ctx: ProbeCheckContext) -> Iterator[Finding]:
    facts = probe_facts(ctx)
    check = facts.reachability
    if check is None:
        raise NotApplicable(facts.not_measured(_("reachability")))
    if check.status is None:
        how = _TLS if "TLS" in check.detail else _HOW.get(check.outcome, _HOW[rec.CONNECT])
        yield Finding.fail(_("{url} did not answer: {detail}").format(url=check.url,
                                                                      detail=check.detail or check.outcome), _(how),
                           outcome=check.outcome, elapsed_s=round(check.elapsed_s, 3))
        return
    yield Finding.passed(_("{url} answers (GET /v1/models: HTTP {status} in {elapsed})").format(
                             url=check.url, status=check.status, elapsed=ms(check.elapsed_s)),
                         status=check.status, elapsed_s=round(check.elapsed_s, 3))
