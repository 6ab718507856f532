"""ASC-ENG-006: the graph mode a vLLM launch line asks for is one the installed vLLM-Ascend still supports."""

from __future__ import annotations

from typing import Iterator, Optional, Tuple

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._serving import edit, usable_config

GRAPH_GUIDE = "https://docs.vllm.ai/projects/ascend/en/v0.11.0/user_guide/feature_guide/graph_mode.html"
# "TorchAirGraph will be dropped in next version, and v0.11.0 will be the last stable version that support
# TorchAirGraph" (GRAPH_GUIDE); ACLGraph is the default graph mode there and after.
TORCHAIR_LAST_LINE: Tuple[int, ...] = (0, 11)

CHECK = CheckSpec(
    id="ASC-ENG-006",
    title="Graph mode supported by the installed vLLM-Ascend (TorchAir)",
    requires=("serving_config", "engine:vllm-ascend"),
    what=("Reads torchair_graph_config.enabled from the launch line's --additional-config and compares it with "
          "the installed vLLM-Ascend release: the v0.11.0 Graph Mode Guide names v0.11.0 the last stable release "
          "that supports TorchAirGraph."),
    why=("DeepSeek launch lines copied from 0.9-0.11 tutorials enable TorchAir graph mode; the release after "
         "0.11.0 dropped it (" + GRAPH_GUIDE + "), so the setting no longer gives the graph mode it asked for and "
         "decode runs in whatever mode the release uses instead (ACLGraph by default)."),
    fix=("On vLLM-Ascend 0.12 and later remove torchair_graph_config from --additional-config and use ACLGraph, "
         "the default graph mode; to keep TorchAir graph mode, stay on a 0.11 release."),
    tags=("serving",),
)


def _line(version: str) -> Optional[Tuple[int, ...]]:
    from ascend_doctor.matrix.specs import try_pypi

    parsed = try_pypi(version)
    return tuple(parsed.release[:2]) if parsed is not None else None


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    cfg = usable_config(ctx)
    if not cfg.is_vllm:
        raise NotApplicable(_("the serving configuration is not a vLLM launch line"))
    wanted = [m for m in cfg.models if m.torchair_graph is not None]
    if not wanted:
        raise NotApplicable(_("the launch line sets no TorchAir graph mode (torchair_graph_config)"))
    py = ctx.facts.maybe(Facts.python_env)
    version = py.package("vllm-ascend") if py is not None else None
    line = _line(version or "")
    if version is None or line is None:
        raise NotApplicable(_("the vLLM-Ascend version could not be read"))
    evidence = {"vllm_ascend": version, "torchair_graph": [m.torchair_graph for m in wanted], "source": GRAPH_GUIDE}
    if not any(m.torchair_graph for m in wanted):
        yield Finding.passed(_("TorchAir graph mode is off: vLLM-Ascend {version} uses its default graph mode "
                               "(ACLGraph)").format(version=version), **evidence)
        return
    if line <= TORCHAIR_LAST_LINE:
        yield Finding.passed(_("TorchAir graph mode is on and vLLM-Ascend {version} supports it (0.11.0 is the "
                               "last stable release that does, {source})").format(version=version, source=GRAPH_GUIDE),
                             **evidence)
        return
    yield Finding.warn(
        _("The launch line enables TorchAir graph mode (torchair_graph_config) but vLLM-Ascend {version} is later "
          "than 0.11.0, the last stable release that supports TorchAirGraph ({source})").format(
              version=version, source=GRAPH_GUIDE),
        edit(cfg, _("remove \"torchair_graph_config\" from --additional-config (ACLGraph is the default graph "
                    "mode), or install a 0.11 release of vLLM-Ascend to keep TorchAir graph mode")),
        **evidence)
