"""ASC-CFG-010: every configured weight path is a model directory on this host."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List, Sequence

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.i18n_text import localized
from ascend_doctor.shellcmd import argv

from ._context import HostCheckContext
from ._serving import edit, usable_config

if TYPE_CHECKING:
    from ascend_doctor.facts.records.serving import WeightDir
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


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    config = usable_config(ctx)
    dirs = ctx.facts.serving_weight_dirs
    if not dirs:
        raise NotApplicable(_("no local weight path in the configuration"))
    yield from judge(config, dirs)


def judge(cfg: ServingConfig, dirs: Sequence[WeightDir]) -> List[Finding]:
    """Every weight path exists, is a directory and holds config.json."""
    out: List[Finding] = []
    for entry in dirs:
        if entry.error:
            out.append(Finding.fail(_("weight path {path}: {error}").format(path=entry.path,
                                                                           error=localized(entry.error)),
                                    _("Make {path} readable by the service user (`{command}`).").format(
                                        path=entry.path, command=argv("ls", "-ld", entry.path))))
        elif not entry.exists:
            out.append(Finding.fail(_("weight path {path} does not exist on this host").format(path=entry.path),
                                    edit(cfg, _("point the weight path at the downloaded model directory"))))
        elif not entry.is_dir:
            out.append(Finding.fail(_("weight path {path} is a file, not the model directory").format(path=entry.path),
                                    edit(cfg, _("use the directory that holds config.json and the weights"))))
        elif not entry.has_config:
            out.append(Finding.fail(
                _("weight path {path} has no config.json (MindIE reads torch_dtype and vocab_size from it)").format(
                    path=entry.path),
                _("Copy config.json from the original model into {path}.").format(path=entry.path)))
        else:
            out.append(Finding.passed(_("weight path {path} holds config.json").format(path=entry.path)))
    return out
