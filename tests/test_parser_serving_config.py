"""Serving configurations, text -> ``ServingConfig`` (ascend_doctor/parsers/serving_config.py): MindIE
config.json, the seed's `models:` format and vLLM launch lines or YAML; bad input is a record with
``error`` or ``problems``, never an exception. The checks that judge the records: test_cfg_checks.py."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.parsers import serving_config as P

SAMPLES = Path(__file__).parent / "samples"
CONFIGS = SAMPLES / "serving-configs"


def body(path: Path) -> str:
    """A copied sample without its `# source:` / `# what:` / `# ---` header."""
    return path.read_text(encoding="utf-8").split("# ---\n", 1)[1]


def mindie_default() -> Dict[str, Any]:
    return json.loads(body(CONFIGS / "mindie-llm-default-config.json.txt"))


def mindie(data: Dict[str, Any]) -> P.ServingConfig:
    return P.parse_serving_document(data, "/usr/local/Ascend/mindie/latest/mindie-service/conf/config.json")


def model_cfg(data: Dict[str, Any]) -> Dict[str, Any]:
    return data["BackendConfig"]["ModelDeployConfig"]["ModelConfig"][0]


@pytest.mark.parametrize("line,expected", [
    ("vllm serve /m -tp 8", {"tp": 8}),
    ("vllm serve /m --tensor-parallel-size=4 --data-parallel-size 2", {"tp": 4, "dp": 2}),
    ("VLLM_USE_V1=1 vllm serve --model /m --quantization fp8", {"quantization": "fp8", "precision": "fp8"}),
    ("python -m vllm.entrypoints.openai.api_server --model /m --dtype bfloat16", {"precision": "bf16"}),
    ("vllm serve /m --enable-expert-parallel --kv-cache-dtype fp8", {"enable_expert_parallel": True,
                                                                     "kv_dtype": "fp8"}),
])
def test_vllm_option_forms(line: str, expected: Dict[str, Any]) -> None:
    cfg = P.parse_vllm_args(line)
    assert cfg.ok and cfg.models[0].weight_path == "/m"
    for key, value in expected.items():
        assert getattr(cfg.models[0], key) == value, key


def test_yaml_alias_bomb_is_refused_quickly() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 20):  # 9**20 elements if expanded
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    cfg = P.parse_serving_text("\n".join(lines) + "\n", "bomb.yaml")
    assert not cfg.ok and "aliases" in (cfg.error or "")


def test_oversized_file_is_refused() -> None:
    cfg = P.parse_serving_text("{" + " " * (P.MAX_CONFIG_BYTES + 1) + "}", "big.json")
    assert not cfg.ok and "larger than" in (cfg.error or "")


def test_copy_of_default_is_not_mutated() -> None:
    data = mindie_default()
    before = copy.deepcopy(data)
    mindie(data)
    assert data == before


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_any_text_gives_a_record_not_an_exception(text: str) -> None:
    for source in ("config.json", "serving.yaml"):
        P.parse_serving_text(text, source)
    cfg = P.parse_vllm_args("vllm serve " + text)
    assert cfg.ok or cfg.error


def test_vllm_yaml_config_file() -> None:
    text = ("model: /models/DeepSeek-R1-W8A8\nhost: 127.0.0.1\nport: 8100\ntensor-parallel-size: 8\n"
            "data_parallel_size: 2\nenable-expert-parallel: true\nquantization: ascend\n")
    cfg = P.parse_serving_text(text, "vllm-config.yaml")
    assert cfg.kind == P.KIND_VLLM and cfg.ok, cfg.error
    assert cfg.is_vllm and not cfg.is_mindie and not cfg.is_simple
    model = cfg.models[0]
    assert (model.weight_path, model.tp, model.dp, model.enable_expert_parallel, cfg.port) == (
        "/models/DeepSeek-R1-W8A8", 8, 2, True, 8100)


def test_json_configs_and_launch_lines_are_read_without_yaml() -> None:
    """PyYAML is imported only for a document that is not JSON: `check --config config.json` and
    `--vllm-args` runs do not pay for it."""
    code = ("import sys; from ascend_doctor.parsers import serving_config as P; "
            "P.parse_serving_text('{\"BackendConfig\": {}}', 'config.json'); P.parse_vllm_args('vllm serve /m'); "
            "print('yaml' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False", result.stderr
