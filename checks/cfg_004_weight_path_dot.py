"""ASC-CFG-004: the MindIE weight path has no '.' (MindIE fails to start otherwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.i18n import _
from ascend_doctor.shellcmd import argv, one_line, with_comment

from ._context import HostCheckContext
from ._model_fixes import dotless, rename_action
from ._serving import usable_config

if TYPE_CHECKING:
    from ascend_doctor.parsers.serving_config import ServingConfig

FACT_DOT_IN_PATH = (
    "MindIE fails to start when the weight path contains '.': \"量化后的权重保存路径不能包含英文句号\".\"等特殊字符，"
    "例如\"/data/model/DeepSeek-V3.1-W8A8\"中包含\".\"会导致服务启动失败\" - "
    "https://support.huaweicloud.com/bestpractice-modelarts/modelarts_ds_infermix_s_908c15.html"
)

CHECK = CheckSpec(
    id="ASC-CFG-004",
    title="MindIE modelWeightPath contains no '.'",
    what="Fails when a MindIE ModelConfig modelWeightPath (or the model_path of a seed-style config) contains a "
    "'.', e.g. /data/model/DeepSeek-V3.1-W8A8.",
    why="Huawei's DeepSeek guide: a weight path with '.' makes the MindIE service fail to start; use only letters, "
    "digits, '-' and '_' (support.huaweicloud.com/bestpractice-modelarts/modelarts_ds_infermix_s_908c15.html).",
    fix="Rename the directory without dots (mv /data/model/DeepSeek-V3.1-W8A8 /data/model/DeepSeek-V3-1-W8A8) and "
    "update modelWeightPath.",
    requires=("serving_config",),
    tags=("serving", "mindie"),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    findings = judge(usable_config(ctx))
    if not findings:
        raise NotApplicable(_("no MindIE weight path in this configuration"))
    yield from findings


def judge(cfg: ServingConfig) -> List[Finding]:
    """MindIE (and seed-style) weight paths contain no '.'; vLLM does not mind."""
    if cfg.is_vllm:
        return []
    out: List[Finding] = []
    for model in cfg.models:
        path = model.weight_path
        if not path:
            continue
        if "." in path:
            # One rename target for the whole report: the same one ASC-MDL-016 gives (advice review row 24).
            parts = path.rstrip("/").split("/")
            fixed = "/".join(dotless(p) if "." in p and p not in (".", "..") else p for p in parts)
            setting = "modelWeightPath" if cfg.is_mindie else "model_path"
            out.append(Finding.fail(
                _("{model} weight path {path} contains '.': MindIE fails to start with it").format(
                    model=model.where, path=repr(path)),
                # the command on a line of its own, the new path only in a comment: nothing after the
                # command can be pasted with it
                _("Rename the directory (only letters, digits, '-' and '_'), then set {setting} in {file} to the "
                  "new path:").format(setting=setting, file=one_line(cfg.source))
                + "\n  " + with_comment(argv("mv", path, fixed), f"{setting}: {one_line(fixed)}"),
                path=path, fact=FACT_DOT_IN_PATH).scoped(model.where).with_actions(
                    rename_action(path.rstrip("/"), fixed),
                    FixAction("config", _("Point {setting} at {fixed} in {file}").format(
                                  setting=setting, fixed=one_line(fixed), file=one_line(cfg.source)),
                              (), where="either", subject=f"{cfg.source} weight path", target=fixed,
                              direction="set")))
        else:
            out.append(Finding.passed(_("{model} weight path {path} has no '.'").format(model=model.where, path=path)))
    return out
