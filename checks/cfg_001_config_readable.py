"""ASC-CFG-001: the serving configuration can be read, and every value has the right type."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized

from ._context import HostCheckContext
from ._serving import edit

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

CHECK = CheckSpec(
    id="ASC-CFG-001",
    title="Serving configuration is readable and well-formed",
    what="Reads --config FILE (MindIE config.json, or a seed-style `models:` list in JSON/YAML) or --vllm-args and "
    "reports invalid JSON/YAML, a top level that is not an object, values of the wrong type, negative or zero "
    "sizes, and a MindIE file without any ModelConfig.",
    why="MindIE stops at start-up with 'ConfigManager init exception: Failed to initialize ModelDeployConfig from "
    "JSON' on such files; every other serving check needs the values read correctly.",
    fix="Fix the file so it parses (`python3 -m json.tool FILE` points at the first JSON error; no trailing commas "
    "or comments) and give every size as a positive integer.",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    yield from judge(ctx.facts.serving_config)


def judge(cfg: ServingConfig) -> List[Finding]:
    """Whether the configuration could be read and every value has a sensible type."""
    if cfg.error:
        fix = _("Fix the file so it parses (e.g. `python3 -m json.tool FILE` shows the first JSON error; "
                "MindIE rejects trailing commas and comments)") if not cfg.is_vllm else (
            _("Quote the whole launch line once: --vllm-args \"vllm serve /models/X --tensor-parallel-size 8\""))
        return [Finding.fail(localized(cfg.error), fix, source=cfg.source)]
    out: List[Finding] = []
    for problem in cfg.problems:
        shown = localized(problem)
        out.append(Finding.fail(f"{cfg.source}: {shown}",
                                edit(cfg, _("set a valid value ({problem})").format(problem=shown)),
                                source=cfg.source))
    if not cfg.models and cfg.is_mindie:
        out.append(Finding.fail(_("{file}: BackendConfig.ModelDeployConfig.ModelConfig lists no model").format(
                                    file=cfg.source),
                                edit(cfg, _("add a ModelConfig entry with modelName, modelWeightPath and worldSize"))))
    if cfg.is_simple:
        # Seed 003's `models:` list (enable_paged_kvcache, precision, tp_size...) is no engine's format: MindIE
        # reads config.json (BackendConfig.ModelDeployConfig.ModelConfig[], read by mindieservice_daemon), vLLM its
        # launch arguments. A file in this shape configures nothing (advice review row 17).
        out.append(Finding.warn(
            _("{file} is a seed-style `models:` list, which neither MindIE nor vLLM-Ascend reads: nothing in it "
              "takes effect (MindIE reads its config.json; vLLM-Ascend its launch arguments; "
              "`mindie-service --config` is not a MindIE command).").format(file=cfg.source),
            _("Put these settings where the engine reads them:") + "\n  "
            + _("MindIE: /usr/local/Ascend/mindie/latest/mindie-service/conf/config.json "
                "(BackendConfig.ModelDeployConfig.ModelConfig[]: modelName, modelWeightPath, worldSize; "
                "BackendConfig.npuDeviceIds), then start mindieservice_daemon") + "\n  "
            + _("vLLM-Ascend: vllm serve <weights> --tensor-parallel-size N ... (check it with "
                "ascend-doctor check --vllm-args \"vllm serve ...\")"),
            source=cfg.source, format="seed models: list"))
    if not out:
        names = ", ".join(m.name or m.weight_path or "?" for m in cfg.models)
        out.append(Finding.passed(_("{config}: read, {count} model(s): {names}").format(
            config=localized(cfg.label), count=len(cfg.models), names=names)))
    return out
