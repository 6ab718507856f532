"""ASC-CFG-007: the inference API is not exposed beyond this host without HTTPS."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._serving import MINDIE_DOC, edit, is_loopback, is_wildcard, usable_config

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    findings = judge(usable_config(ctx))
    if not findings:
        raise NotApplicable(_("the configuration does not say where the API listens"))
    yield from findings


def judge(cfg: ServingConfig) -> List[Finding]:
    """The API is not exposed beyond this host without HTTPS (and MindIE allows 0.0.0.0)."""
    if cfg.is_simple:
        return []
    out: List[Finding] = []
    host = cfg.host
    if cfg.is_mindie and is_wildcard(host) and cfg.host_given and not cfg.allow_all_zero_ip:
        out.append(Finding.fail(
            _("ServerConfig.ipAddress is {host} but allowAllZeroIpListening is not true: MindIE refuses to bind "
              "all interfaces").format(host=host),
            edit(cfg, _("set ServerConfig.ipAddress to this host's service IP (recommended), or set "
                        "allowAllZeroIpListening to true if the network is protected")), doc=MINDIE_DOC))
    exposed = host is None or not is_loopback(host)
    if cfg.is_vllm and not cfg.host_given:
        where = _("all interfaces (no --host: vLLM binds every address)")
    else:
        where = f"{host}"
    if exposed and not cfg.https:
        if cfg.is_mindie:
            fix = edit(cfg, _("set ServerConfig.httpsEnabled to true with tlsCert/tlsPk/tlsCaFile under the "
                              "MindIE security/ directory, or bind ServerConfig.ipAddress to 127.0.0.1 behind a "
                              "TLS proxy"))
        else:
            fix = _("Add --ssl-certfile CERT --ssl-keyfile KEY (and --api-key), or bind --host 127.0.0.1 behind a "
                    "TLS-terminating proxy.")
        out.append(Finding.warn(_("the API listens on {where} without HTTPS: prompts and answers travel in clear "
                                  "text to anyone on the network").format(where=where), fix, host=host))
    if not out:
        state = "HTTPS" if cfg.https else _("loopback only")
        out.append(Finding.passed(_("the API listens on {where} ({state})").format(where=where, state=state)))
    return out
