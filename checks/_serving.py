"""Small judging helpers shared by the serving-configuration checks (ASC-CFG-*).

The configuration itself is parsed by ``ascend_doctor.parsers.serving_config``; each check module
judges one topic of it. Nothing here imports the parser at run time: every check module is
imported to read its ``CHECK``, and most runs have no ``--config``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence

from ascend_doctor.checkapi import NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import one_line

from ._context import HostCheckContext

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

MINDIE_DOC = "MindIE 配置参数说明（服务化）, https://www.hiascend.com/document/detail/zh/mindie/21RC1/mindiellm/llmdev/mindie_llm0004.html"


def require_usable(config: ServingConfig) -> ServingConfig:
    """The configuration, or ``NotApplicable`` when it could not be read (ASC-CFG-001 reports why)."""
    if config.error:
        raise NotApplicable(_("the serving configuration could not be read (see ASC-CFG-001)"), see=("ASC-CFG-001",))
    return config


def usable_config(ctx: HostCheckContext) -> ServingConfig:
    """The run's serving configuration (``--config`` / ``--vllm-args``), when it could be read."""
    return require_usable(ctx.facts.serving_config)


def edit(cfg: ServingConfig, what: str) -> str:
    """The remediation sentence for a setting: a launch line is changed, a file edited. ``what`` is
    the change, an imperative clause already in the run's language."""
    if cfg.is_vllm:
        return _("Change the vLLM launch line: {change}.").format(change=what)
    return _("Edit {file}: {change}, then restart the service.").format(file=one_line(cfg.source), change=what)


def id_list(ids: Sequence[int]) -> str:
    """NPU ids as MindIE's npuDeviceIds writes them: [0,1,2,3]."""
    return "[" + ",".join(str(i) for i in ids) + "]"


def is_loopback(host: str) -> bool:
    import ipaddress  # on use: the module is not small, and only a --config run needs it

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_wildcard(host: Optional[str]) -> bool:
    """An address that binds every interface (or none given)."""
    return host in (None, "", "0.0.0.0", "::", "[::]")
