"""ASC-CFG-010: every configured weight path is a model directory on this host."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Sequence

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

from ._serving import edit, usable_config

if TYPE_CHECKING:
    from ascend_doctor.facts.serving import WeightDir
    from ascend_doctor.parsers.serving_config import ServingConfig

CHECK = CheckSpec(
    id="ASC-CFG-010",
    title="Configured weight paths exist and hold config.json",
    what="Checks that each modelWeightPath / model_path / vLLM model path exists on this host, is a directory and "
    "holds config.json (a HuggingFace hub id such as deepseek-ai/DeepSeek-R1 is skipped: it is downloaded).",
    why="MindIE reads torch_dtype and vocab_size from the weight path's config.json at start-up; a wrong path is "
    "the most common reason a service that took minutes to start dies at once.",
    fix="Point the configuration at the directory holding config.json and the *.safetensors shards; run "
    "`ascend-doctor check --model DIR` on it for the full model checks.",
    requires=("serving_config",),
    tags=("serving",),
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    config = usable_config(ctx)
    dirs = ctx.facts.serving_weight_dirs
    if not dirs:
        raise NotApplicable("no local weight path in the configuration")
    yield from judge(config, dirs)


def judge(cfg: ServingConfig, dirs: Sequence[WeightDir]) -> List[Finding]:
    """Every weight path exists, is a directory and holds config.json."""
    out: List[Finding] = []
    for entry in dirs:
        if entry.error:
            out.append(Finding.fail(f"weight path {entry.path}: {entry.error}",
                                    f"Make {entry.path} readable by the service user (`ls -ld {entry.path}`)."))
        elif not entry.exists:
            out.append(Finding.fail(f"weight path {entry.path} does not exist on this host",
                                    edit(cfg, "point the weight path at the downloaded model directory")))
        elif not entry.is_dir:
            out.append(Finding.fail(f"weight path {entry.path} is a file, not the model directory",
                                    edit(cfg, "use the directory that holds config.json and the weights")))
        elif not entry.has_config:
            out.append(Finding.fail(
                f"weight path {entry.path} has no config.json (MindIE reads torch_dtype and vocab_size from it)",
                f"Copy config.json from the original model into {entry.path}."))
        else:
            out.append(Finding.passed(f"weight path {entry.path} holds config.json"))
    return out
