"""ASC-CFG-001: the serving configuration can be read, and every value has the right type."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding

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


def run(ctx: CheckContext) -> Iterator[Finding]:
    # Imported on use: every check module is imported to read CHECK, and most runs have no --config.
    from ascend_doctor.model.configlint import findings_parse

    yield from findings_parse(ctx.facts.get("serving_config"))
