"""The serving-configuration checks (ASC-CFG-*) on MindIE config.json, the seed's `models:` format and vLLM
launch lines: each check module's ``judge`` on parsed records, and the checks run through ``Facts``."""

from __future__ import annotations

import importlib
import json
import re
import socket
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.checkapi import CheckContext, Finding, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.model.serving_plan import plan_inputs
from ascend_doctor.options import RunOptions
from ascend_doctor.parsers import serving_config as P
from ascend_doctor.parsers.npu_smi import parse_npu_smi_info

from .test_parser_serving_config import CONFIGS, body, mindie, mindie_default, model_cfg

SAMPLES = Path(__file__).parent / "samples"


def check_module(name: str) -> Any:
    """A module of checks/ (shipped as ascend_doctor.checks)."""
    return importlib.import_module(f"ascend_doctor.checks.{name}")


cfg001 = check_module("cfg_001_config_readable")
cfg002 = check_module("cfg_002_npu_devices")
cfg003 = check_module("cfg_003_parallel_sizes")
cfg004 = check_module("cfg_004_weight_path_dot")
cfg005 = check_module("cfg_005_token_limits")
cfg007 = check_module("cfg_007_listen_https")
cfg008 = check_module("cfg_008_port_free")
cfg009 = check_module("cfg_009_precision_loadable")
cfg010 = check_module("cfg_010_weight_dir")
require_usable = check_module("_serving").require_usable


def statuses(findings: List[Finding]) -> List[Status]:
    return [f.status for f in findings]


def worst(findings: List[Finding]) -> Status:
    return max((f.status for f in findings), key=lambda s: s.rank)


def npus(sample: str, visible: Optional[List[int]] = None) -> cfg002.HostNpus:
    info = parse_npu_smi_info(body(SAMPLES / "npu-smi-info" / sample))
    host = cfg002.host_npus_from(info, visible)
    assert host is not None
    return host


EIGHT_IDLE = "ms-swift-8x910B3-24.1.rc1.b030-noproc-table.txt"
TWO_BUSY = "fixture-2x910B4-mindie_llm_back-process-no-version-row.txt"


# -- the real MindIE format ------------------------------------------------------------------


def test_real_mindie_default_parses_and_is_clean() -> None:
    cfg = mindie(mindie_default())
    assert cfg.kind == P.KIND_MINDIE and cfg.ok and not cfg.problems
    assert cfg.device_ids == ((0, 1, 2, 3),)
    assert cfg.models[0].world_size == 4 and cfg.models[0].weight_path.endswith("llama1-65b-safetensors")
    assert (cfg.max_seq_len, cfg.max_input_token_len, cfg.max_prefill_tokens, cfg.max_batch_size) == (
        2560, 2048, 8192, 200)
    assert cfg.ports == (("port", 1025), ("managementPort", 1026), ("metricsPort", 1027))
    assert cfg.https is True and cfg.host == "127.0.0.1"
    for findings in (cfg001.judge(cfg), cfg003.judge(cfg), cfg004.judge(cfg),
                     cfg005.judge(cfg), cfg007.judge(cfg), cfg008.judge(cfg, []),
                     cfg002.judge(cfg, npus(EIGHT_IDLE))):
        assert worst(findings) is Status.PASS, findings


def test_world_size_must_equal_devices_listed() -> None:
    data = mindie_default()
    model_cfg(data)["worldSize"] = 8
    findings = cfg003.judge(mindie(data))
    assert worst(findings) is Status.FAIL
    assert any("worldSize is 8" in f.message and "lists 4" in f.message for f in findings)
    assert "worldSize to 4" in findings[0].remediation


def test_tp_dp_and_moe_sizes_must_multiply_to_world() -> None:
    data = mindie_default()
    model_cfg(data).update({"tp": 4, "dp": 2, "moe_ep": 2, "moe_tp": 4})
    findings = cfg003.judge(mindie(data))
    messages = " ".join(f.message for f in findings if f.status is Status.FAIL)
    assert "tp x dp = 4 x 2 = 8" in messages and "moe_ep x moe_tp = 2 x 4 = 8" in messages
    model_cfg(data).update({"tp": 4, "dp": 1, "moe_ep": 4, "moe_tp": 1})
    assert worst(cfg003.judge(mindie(data))) is Status.PASS
    model_cfg(data).update({"tp": -1, "dp": -1, "moe_ep": -1, "moe_tp": -1})  # -1 = automatic
    assert worst(cfg003.judge(mindie(data))) is Status.PASS


def test_instances_vs_device_groups() -> None:
    data = mindie_default()
    data["BackendConfig"]["modelInstanceNumber"] = 2
    findings = cfg003.judge(mindie(data))
    assert any(f.status is Status.WARN and "modelInstanceNumber" in f.message for f in findings)


def fixed_excerpt() -> Dict[str, Any]:
    """The real two-node key items, made whole: wrapped in braces, trailing commas removed."""
    text = "{" + body(CONFIGS / "mindie-deepseek-r1-2node-key-items-excerpt.txt") + "}"
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", text))


def test_real_excerpt_is_invalid_json_as_pasted() -> None:
    cfg = P.parse_serving_text(body(CONFIGS / "mindie-deepseek-r1-2node-key-items-excerpt.txt"), "config.json")
    assert not cfg.ok and "invalid JSON" in (cfg.error or "")
    finding = cfg001.judge(cfg)[0]
    assert finding.status is Status.FAIL and "json.tool" in finding.remediation


def test_real_two_node_deepseek_parallel_keys() -> None:
    cfg = mindie(fixed_excerpt())
    model = cfg.models[0]
    assert cfg.multi_node and (model.tp, model.dp, model.moe_ep, model.moe_tp) == (8, 2, 4, 4)
    # worldSize 8 is per node; across the nodes tp x dp = moe_ep x moe_tp = 16
    assert worst(cfg003.judge(cfg)) is Status.PASS
    assert statuses(cfg002.judge(cfg, npus(EIGHT_IDLE))) == [Status.SKIP]
    broken = fixed_excerpt()
    model_cfg(broken)["moe_ep"] = 2
    assert worst(cfg003.judge(mindie(broken))) is Status.FAIL
    # it listens on a real address without HTTPS
    assert worst(cfg007.judge(cfg)) is Status.WARN
    inputs = plan_inputs(cfg, 163840)
    assert (inputs.cards, inputs.tp, inputs.dp, inputs.ep, inputs.moe_tp) == (16, 8, 2, 4, 4)
    assert (inputs.max_seq_len, inputs.batch) == (32768, 200)


def test_device_ids_must_exist_and_be_idle() -> None:
    data = mindie_default()
    data["BackendConfig"]["npuDeviceIds"] = [[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]
    model_cfg(data)["worldSize"] = 10
    findings = cfg002.judge(mindie(data), npus(EIGHT_IDLE))
    assert worst(findings) is Status.FAIL and "[8,9]" in findings[0].message
    data["BackendConfig"]["npuDeviceIds"] = [[0, 1, 1]]
    assert any("more than once" in f.message for f in cfg002.judge(mindie(data), npus(EIGHT_IDLE)))
    data["BackendConfig"]["npuDeviceIds"] = [[0, 1]]
    busy = cfg002.judge(mindie(data), npus(TWO_BUSY))
    assert worst(busy) is Status.WARN
    assert "mindie_llm_back" in busy[0].message and busy[0].scope == "NPU 0 chip 0"


def test_visible_devices_renumber_ids() -> None:
    data = mindie_default()
    data["BackendConfig"]["npuDeviceIds"] = [[0]]
    # ASCEND_RT_VISIBLE_DEVICES=1: logical 0 is the host's second chip (idle), not the busy NPU 0
    assert worst(cfg002.judge(mindie(data), npus(TWO_BUSY, visible=[1]))) is Status.PASS
    data["BackendConfig"]["npuDeviceIds"] = [[0, 1]]
    assert worst(cfg002.judge(mindie(data), npus(TWO_BUSY, visible=[1]))) is Status.FAIL


def test_weight_path_with_a_dot_fails() -> None:
    data = mindie_default()
    model_cfg(data)["modelWeightPath"] = "/data/model/DeepSeek-V3.1-W8A8"
    findings = cfg004.judge(mindie(data))
    assert worst(findings) is Status.FAIL
    assert "mv /data/model/DeepSeek-V3.1-W8A8 /data/model/DeepSeek-V3_1-W8A8" in findings[0].remediation  # argv form
    assert "huaweicloud" in findings[0].evidence["fact"]


def test_token_length_relations() -> None:
    data = mindie_default()
    deploy = data["BackendConfig"]["ModelDeployConfig"]
    schedule = data["BackendConfig"]["ScheduleConfig"]
    deploy.update({"maxSeqLen": 4096, "maxInputTokenLen": 8192})
    findings = cfg005.judge(mindie(data))
    assert Status.WARN in statuses(findings) and "4095" in findings[0].message
    deploy.update({"maxSeqLen": 32768, "maxInputTokenLen": 16384})
    schedule.update({"maxPrefillTokens": 8192})
    findings = cfg005.judge(mindie(data))
    assert worst(findings) is Status.FAIL and "maxPrefillTokens 8192" in findings[0].message
    assert "at least 16384" in findings[0].remediation
    schedule.update({"maxPrefillTokens": 16384, "maxIterTimes": 40000})
    assert any("maxIterTimes" in f.message for f in cfg005.judge(mindie(data)))
    schedule.update({"maxIterTimes": 512, "maxPrefillBatchSize": 300})
    assert any("maxPrefillBatchSize" in f.message for f in cfg005.judge(mindie(data)))


def test_listening_beyond_loopback_without_https() -> None:
    data = mindie_default()
    server = data["ServerConfig"]
    server.update({"ipAddress": "10.0.0.5", "httpsEnabled": False})
    findings = cfg007.judge(mindie(data))
    assert worst(findings) is Status.WARN and "httpsEnabled" in findings[0].remediation
    server.update({"ipAddress": "0.0.0.0"})
    findings = cfg007.judge(mindie(data))
    assert worst(findings) is Status.FAIL and "allowAllZeroIpListening" in findings[0].message
    server.update({"allowAllZeroIpListening": True, "httpsEnabled": True})
    assert worst(cfg007.judge(mindie(data))) is Status.PASS
    server.update({"ipAddress": "::1", "httpsEnabled": False})
    assert worst(cfg007.judge(mindie(data))) is Status.PASS


def test_port_already_in_use_fails() -> None:
    cfg = mindie(mindie_default())
    taken = [cfg008.Listener("0.0.0.0", 1025, 4242)]
    findings = cfg008.judge(cfg, taken)
    assert worst(findings) is Status.FAIL and "pid 4242" in findings[0].message
    assert "ServerConfig.port" in findings[0].remediation
    # a listener on another address does not clash with 127.0.0.1
    assert worst(cfg008.judge(cfg, [cfg008.Listener("10.0.0.7", 1025, 1)])) is Status.PASS
    assert worst(cfg008.judge(cfg, [cfg008.Listener("127.0.0.1", 1026, None)])) is Status.FAIL


def test_free_ports_pass_message_is_a_whole_sentence() -> None:
    cfg = mindie(mindie_default())
    assert [f.message for f in cfg008.judge(cfg, [])] == ["ports 1025, 1026, 1027 are free"]
    one = P.parse_vllm_args("vllm serve /m --port 9000")
    assert [f.message for f in cfg008.judge(one, [])] == ["port 9000 is free"]


# -- the seed's simplified format ----------------------------------------------------------------


def test_seed_3_2_config() -> None:
    cfg = P.parse_serving_text(body(CONFIGS / "seed-003-3.2-distill-7b-models.json.txt"), "seed.json")
    assert cfg.kind == P.KIND_SIMPLE and cfg.ok
    model = cfg.models[0]
    assert (model.precision, model.tp, model.max_seq_len, model.paged_kv) == ("fp16", 1, 4096, True)
    # no engine reads this shape: CFG-001 says so (advice review row 17)
    assert worst(cfg001.judge(cfg)) is Status.WARN
    inputs = plan_inputs(cfg)
    assert (inputs.cards, inputs.precision, inputs.max_seq_len) == (1, "fp16", 4096)


def test_seed_models_file_is_no_engines_format_and_yaml_works() -> None:
    """Advice review row 17: the seed's `models:` file (enable_paged_kvcache...) is read by neither MindIE nor
    vLLM; 0.1.0 judged its paged-KV flag (CFG-006, now retired) instead of saying so."""
    text = ("models:\n  - name: r1-distill-7b\n    model_path: /data/models/r1-distill-7b\n    precision: fp16\n"
            "    tp_size: 1\n    max_seq_len: 4096\n    enable_paged_kvcache: false\n")
    cfg = P.parse_serving_text(text, "serving.yaml")
    assert cfg.kind == P.KIND_SIMPLE
    findings = cfg001.judge(cfg)
    assert worst(findings) is Status.WARN and "neither MindIE nor vLLM-Ascend reads" in findings[-1].message
    assert "config.json" in findings[-1].remediation


def test_seed_4_2_fp8_is_refused_and_layout_is_16_cards() -> None:
    cfg = P.parse_serving_text(body(CONFIGS / "seed-003-4.2-v3-671b-models.json.txt"), "seed42.json")
    findings = cfg009.judge(cfg, None)
    assert worst(findings) is Status.FAIL and "FP8" in findings[0].message
    inputs = plan_inputs(cfg)
    assert (inputs.cards, inputs.tp, inputs.ep, inputs.batch, inputs.kv_dtype) == (16, 2, 8, 64, "fp8")
    devices = cfg002.judge(cfg, npus(EIGHT_IDLE))
    assert worst(devices) is Status.WARN and "needs 16 NPUs" in devices[0].message


# -- vLLM launch lines ---------------------------------------------------------------------------


def test_real_vllm_a3_line() -> None:
    cfg = P.parse_vllm_args(body(CONFIGS / "vllm-ascend-doc-deepseek-r1-w8a8-a3-serve.txt"))
    assert cfg.ok and not cfg.problems
    model = cfg.models[0]
    assert (model.tp, model.dp, model.quantization, model.enable_expert_parallel, model.mtp) == (
        4, 4, "ascend", True, True)
    assert (cfg.max_seq_len, cfg.max_batch_size, cfg.port, cfg.gpu_memory_utilization) == (8192, 16, 8000, 0.92)
    assert worst(cfg007.judge(cfg)) is Status.WARN  # --host 0.0.0.0 and no TLS
    inputs = plan_inputs(cfg)
    assert (inputs.cards, inputs.tp, inputs.dp, inputs.ep) == (16, 4, 4, 16)
    assert inputs.reserve_fraction == pytest.approx(0.08) and inputs.include_mtp and inputs.ascend_quantization
    # 16 NPUs on an 8-chip A2 host: a single-node launch cannot start
    assert worst(cfg002.judge(cfg, npus(EIGHT_IDLE))) is Status.FAIL


def test_real_vllm_two_node_line_is_multi_node() -> None:
    cfg = P.parse_vllm_args(body(CONFIGS / "vllm-ascend-doc-deepseek-r1-w8a8-a2-node0-serve.txt"))
    assert cfg.multi_node_hint  # --data-parallel-size_local spelled with '_' is understood
    assert worst(cfg002.judge(cfg, npus(EIGHT_IDLE))) is Status.PASS


def test_vllm_tensor_parallel_16_on_8_cards() -> None:
    cfg = P.parse_vllm_args("vllm serve /models/DeepSeek-R1 --tensor-parallel-size 16 --port 9000")
    findings = cfg002.judge(cfg, npus(EIGHT_IDLE))
    assert worst(findings) is Status.FAIL and "needs 16 NPUs" in findings[0].message
    taken = cfg008.judge(cfg, [cfg008.Listener("::", 9000, 77)])
    assert worst(taken) is Status.FAIL and "--port" in taken[0].remediation


def test_vllm_listen_rules() -> None:
    default = P.parse_vllm_args("vllm serve /m")
    findings = cfg007.judge(default)
    assert worst(findings) is Status.WARN and "all interfaces" in findings[0].message
    assert worst(cfg007.judge(P.parse_vllm_args("vllm serve /m --host 127.0.0.1"))) is Status.PASS
    tls = P.parse_vllm_args("vllm serve /m --host 0.0.0.0 --ssl-certfile c.pem --ssl-keyfile k.pem")
    assert worst(cfg007.judge(tls)) is Status.PASS
    assert worst(cfg009.judge(P.parse_vllm_args("vllm serve /m --quantization fp8"), None)) is Status.FAIL


@pytest.mark.parametrize("line,fragment", [
    ("", "empty"),
    ("vllm serve '/m", "cannot split"),
])
def test_vllm_bad_lines(line: str, fragment: str) -> None:
    cfg = P.parse_vllm_args(line)
    assert not cfg.ok and fragment in (cfg.error or "")
    assert worst(cfg001.judge(cfg)) is Status.FAIL


@pytest.mark.parametrize("line,fragment", [
    ("vllm serve --port 8000", "no model"),
    ("vllm serve /m --tensor-parallel-size -2", ">= 1"),
    ("vllm serve /m --tensor-parallel-size two", "integer"),
    ("vllm serve /m --gpu-memory-utilization 1.5", "(0, 1]"),
    ("vllm serve /m --port 70000", "TCP port"),
])
def test_vllm_bad_values_are_problems(line: str, fragment: str) -> None:
    cfg = P.parse_vllm_args(line)
    assert cfg.ok and any(fragment in p for p in cfg.problems), cfg.problems
    assert worst(cfg001.judge(cfg)) is Status.FAIL


# -- bad input -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text,source,fragment", [
    ("{\"BackendConfig\": {,}", "config.json", "invalid JSON"),
    ("[1, 2, 3]", "config.json", "top level must be an object"),
    ("\"just a string\"", "config.json", "top level must be an object"),
    ("", "config.json", "empty"),
    ("   \n", "config.json", "empty"),
    ("{\"foo\": 1}", "config.json", "not a MindIE config.json"),
    ("[" * 50000, "config.json", "nested too deeply"),
    ("a: [1, 2\n", "serving.yaml", "invalid YAML"),
    ("models: 3", "serving.yaml", "non-empty list"),
])
def test_bad_files_are_clear_errors(text: str, source: str, fragment: str) -> None:
    cfg = P.parse_serving_text(text, source)
    assert not cfg.ok and fragment in (cfg.error or ""), cfg.error
    assert worst(cfg001.judge(cfg)) is Status.FAIL
    with pytest.raises(NotApplicable):
        require_usable(cfg)


@pytest.mark.parametrize("key,value,fragment", [
    ("worldSize", -4, ">= 1"),
    ("worldSize", 0, ">= 1"),
    ("worldSize", "8", "integer"),
    ("worldSize", True, "integer"),
    ("tp", 2.5, "integer"),
    ("npuMemSize", -3, ">= 1"),
    ("modelWeightPath", 42, "string"),
])
def test_wrong_values_in_mindie_are_problems(key: str, value: Any, fragment: str) -> None:
    data = mindie_default()
    model_cfg(data)[key] = value
    cfg = mindie(data)
    assert any(key in p and fragment in p for p in cfg.problems), cfg.problems
    assert worst(cfg001.judge(cfg)) is Status.FAIL


def test_wrong_shapes_in_mindie_are_problems() -> None:
    data = mindie_default()
    data["BackendConfig"]["npuDeviceIds"] = [0, 1, 2, 3]
    data["BackendConfig"]["ModelDeployConfig"]["maxSeqLen"] = -1
    data["ServerConfig"]["port"] = 99999
    data["ServerConfig"]["httpsEnabled"] = "yes"
    problems = " | ".join(mindie(data).problems)
    for fragment in ("list of lists", "maxSeqLen must be >= 1", "TCP port", "httpsEnabled must be true or false"):
        assert fragment in problems
    data = mindie_default()
    data["BackendConfig"]["ModelDeployConfig"]["ModelConfig"] = {"not": "a list"}
    assert any("must be a list" in p for p in mindie(data).problems)
    data = mindie_default()
    data["BackendConfig"]["ModelDeployConfig"]["ModelConfig"] = []
    assert worst(cfg001.judge(mindie(data))) is Status.FAIL


# -- providers and checks through Facts ------------------------------------------------------------


def live_facts(**options: Any) -> Facts:
    from ascend_doctor.host.live import LiveHost

    return Facts(LiveHost(timeout_s=5.0), RunOptions(**options))


def test_provider_reads_a_file_and_reports_missing_ones(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_text(body(CONFIGS / "mindie-llm-default-config.json.txt"), encoding="utf-8")
    cfg = live_facts(serving_config=str(path)).serving_config
    assert cfg.ok and cfg.kind == P.KIND_MINDIE
    missing = live_facts(serving_config=str(tmp_path / "nope.json")).serving_config
    assert not missing.ok and "nope.json" in (missing.error or "")
    directory = live_facts(serving_config=str(tmp_path)).serving_config
    assert not directory.ok
    vllm = live_facts(vllm_args="vllm serve /m -tp 2").serving_config
    assert vllm.kind == P.KIND_VLLM and vllm.models[0].tp == 2


def test_provider_weight_dirs(tmp_path: Path) -> None:
    model_dir = tmp_path / "DeepSeek-R1-Distill-Qwen-7B"
    model_dir.mkdir()
    (model_dir / "config.json").write_text("{}", encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    data = mindie_default()
    model_cfg(data)["modelWeightPath"] = str(model_dir)
    data["BackendConfig"]["ModelDeployConfig"]["ModelConfig"].append(
        dict(model_cfg(data), modelWeightPath=str(empty)))
    data["BackendConfig"]["ModelDeployConfig"]["ModelConfig"].append(
        dict(model_cfg(data), modelWeightPath=str(tmp_path / "missing")))
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    facts = live_facts(serving_config=str(path))
    findings = cfg010.judge(facts.serving_config, facts.serving_weight_dirs)
    assert statuses(findings) == [Status.PASS, Status.FAIL, Status.FAIL]
    assert "no config.json" in findings[1].message and "does not exist" in findings[2].message


def test_listening_sockets_fact_sees_a_bound_port() -> None:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        facts = live_facts(vllm_args=f"vllm serve /m --host 127.0.0.1 --port {port}")
        sockets = facts.maybe(Facts.listening_sockets)
        if sockets is None:
            pytest.skip("psutil cannot list sockets here")
        listeners = [cfg008.Listener(s.address, s.port, s.pid) for s in sockets]
        findings = cfg008.judge(facts.serving_config, listeners)
        assert worst(findings) is Status.FAIL and str(port) in findings[0].message
    finally:
        server.close()


def run_check(module: str, facts: Facts) -> List[Finding]:
    import importlib

    check = importlib.import_module(f"ascend_doctor.checks.{module}")
    ctx = CheckContext(facts=facts, matrix=None, options=facts.options)
    return list(check.run(ctx))


def test_cfg_checks_skip_an_unreadable_config(tmp_path: Path) -> None:
    bad = tmp_path / "config.json"
    bad.write_text("{oops", encoding="utf-8")
    facts = live_facts(serving_config=str(bad))
    assert worst(run_check("cfg_001_config_readable", facts)) is Status.FAIL
    for module in ("cfg_003_parallel_sizes", "cfg_004_weight_path_dot", "cfg_005_token_limits",
                   "cfg_007_listen_https", "cfg_009_precision_loadable"):
        with pytest.raises(NotApplicable):
            run_check(module, facts)


def test_memory_fit_check_with_a_stub_chip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ascend_doctor.facts.records import ChipSummary

    cfg_path = tmp_path / "seed42.json"
    cfg_path.write_text(body(CONFIGS / "seed-003-4.2-v3-671b-models.json.txt"), encoding="utf-8")
    facts = live_facts(serving_config=str(cfg_path), model_dir="DeepSeek-V3")
    chip = ChipSummary(name="910B3", family="A2", chip_count=8, hbm_mb=65536)
    facts.seed(npu_chip=chip)  # the NPU is stubbed: this machine has none
    # the seed's precision is fp8, which a 910B cannot load: no PASS, the W8A8 / BF16 plans instead
    findings = run_check("mdl_020_memory_fit", facts)
    assert worst(findings) is Status.FAIL and "do not load FP8" in findings[0].message
    assert "TP 2 x DP 8" in findings[0].message and "W8A8 (msmodelslim): weights" in findings[0].message
    assert "W8A8 (msmodelslim) fits the 16 x 910B3 configured" in findings[0].remediation
    # the same layout in W8A8 is the plan the seed meant, and it fits
    w8a8 = json.loads(body(CONFIGS / "seed-003-4.2-v3-671b-models.json.txt"))
    w8a8["models"][0]["precision"] = "w8a8"
    cfg_path.write_text(json.dumps(w8a8), encoding="utf-8")
    facts = live_facts(serving_config=str(cfg_path), model_dir="DeepSeek-V3")
    facts.seed(npu_chip=chip)
    findings = run_check("mdl_020_memory_fit", facts)
    assert worst(findings) is Status.PASS and "TP 2 x DP 8" in findings[0].message
    # the same model in bf16 without a configuration: 8 cards are far too few
    facts = live_facts(model_dir="DeepSeek-R1")
    facts.seed(npu_chip=chip)
    findings = run_check("mdl_020_memory_fit", facts)
    assert worst(findings) is Status.FAIL
    assert "32 x 910B3 at bf16" in findings[0].remediation and "16 x 910B3 with W8A8" in findings[0].remediation


class _FakeChipInfo:
    def __init__(self, fp8: Any) -> None:
        self.fp8 = fp8

    def dtype_supported(self, dtype: str) -> Any:
        return self.fp8 if dtype == "fp8" else True


class _FakeMatrix:
    def __init__(self, fp8: Any) -> None:
        self.fp8 = fp8

    def chip(self, name: str) -> Any:
        return _FakeChipInfo(self.fp8) if name == "950PR" else None


def test_memory_fit_fp8_depends_on_the_chip(tmp_path: Path) -> None:
    import importlib

    from ascend_doctor.facts.records import ChipSummary

    cfg_path = tmp_path / "seed42.json"
    cfg_path.write_text(body(CONFIGS / "seed-003-4.2-v3-671b-models.json.txt"), encoding="utf-8")
    check = importlib.import_module("ascend_doctor.checks.mdl_020_memory_fit")

    def findings_on(chip: ChipSummary, matrix: Any = None) -> List[Finding]:
        facts = live_facts(serving_config=str(cfg_path), model_dir="DeepSeek-V3")
        facts.seed(npu_chip=chip)
        return list(check.run(CheckContext(facts=facts, matrix=matrix, options=facts.options)))

    # A3 by family, without a matrix
    a3 = findings_on(ChipSummary(name="Ascend910", family="A3", chip_count=16, hbm_mb=65536))
    assert worst(a3) is Status.FAIL and "BF16 (fp8_cast_bf16.py)" in a3[0].message
    # a chip nobody knows: WARN, with the same converted plans
    unknown = findings_on(ChipSummary(name="X1", family=None, chip_count=16, hbm_mb=65536))
    assert worst(unknown) is Status.WARN and "not known to load FP8" in unknown[0].message
    # the matrix says this chip loads FP8: the FP8 plan itself is graded
    fp8_ok = findings_on(ChipSummary(name="950PR", family="950", chip_count=16, hbm_mb=65536), _FakeMatrix(True))
    assert worst(fp8_ok) is Status.PASS and " fp8 on 16 x 950PR" in fp8_ok[0].message
    # ...and the matrix's "no" wins over an unknown family
    fp8_no = findings_on(ChipSummary(name="950PR", family=None, chip_count=16, hbm_mb=65536), _FakeMatrix(False))
    assert worst(fp8_no) is Status.FAIL


def test_memory_fit_fp8_with_the_shipped_matrix(tmp_path: Path) -> None:
    import importlib

    from ascend_doctor.facts.records import ChipSummary
    from ascend_doctor.matrix import load_matrix

    cfg_path = tmp_path / "seed42.json"
    cfg_path.write_text(body(CONFIGS / "seed-003-4.2-v3-671b-models.json.txt"), encoding="utf-8")
    facts = live_facts(serving_config=str(cfg_path), model_dir="DeepSeek-V3")
    # family unknown to the summary: the matrix's own entry for 910B3 says no FP8
    facts.seed(npu_chip=ChipSummary(name="910B3", family=None, chip_count=16, hbm_mb=65536))
    check = importlib.import_module("ascend_doctor.checks.mdl_020_memory_fit")
    findings = list(check.run(CheckContext(facts=facts, matrix=load_matrix(), options=facts.options)))
    assert worst(findings) is Status.FAIL and "do not load FP8" in findings[0].message


# -- never a traceback ------------------------------------------------------------------------------


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
        ["BackendConfig", "ServerConfig", "ModelDeployConfig", "ModelConfig", "ScheduleConfig", "npuDeviceIds",
         "worldSize", "tp", "dp", "moe_ep", "moe_tp", "maxSeqLen", "maxInputTokenLen", "maxPrefillTokens", "port",
         "ipAddress", "httpsEnabled", "models", "tp_size", "ep_size", "modelWeightPath", "x"]), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=60, deadline=None)
@given(JSONISH)
def test_any_json_document_gives_a_record_not_an_exception(data: Any) -> None:
    cfg = P.parse_serving_document({"BackendConfig": data} if isinstance(data, dict) else data, "f.json")
    for findings in (cfg001.judge(cfg), ):
        assert findings
    if cfg.ok:
        cfg003.judge(cfg)
        cfg005.judge(cfg)
        cfg007.judge(cfg)
        cfg008.judge(cfg, [cfg008.Listener("0.0.0.0", 1025, 1)])
        cfg004.judge(cfg)
        plan_inputs(cfg, 4096)


def test_vllm_yaml_config_on_loopback_passes_cfg007() -> None:
    text = "model: /models/DeepSeek-R1-W8A8\nhost: 127.0.0.1\nport: 8100\n"
    assert worst(cfg007.judge(P.parse_serving_text(text, "vllm-config.yaml"))) is Status.PASS


def test_skips_after_an_unreadable_config_link_to_cfg001() -> None:
    """The cross-reference is data as well as prose: evidence {"see": ["ASC-CFG-001"]}."""
    from ascend_doctor.cli import main

    from .clirunner import make_runner

    fixture = Path(__file__).resolve().parent.parent / "fixtures" / "mindie-config-trailing-commas"
    result = make_runner().invoke(main, ["check", "--from", str(fixture),
                                         "--config", str(fixture / "mindie-config.json"),
                                         "--select", "ASC-CFG", "--format", "json"])
    results = {r["id"]: r for r in json.loads(result.stdout)["results"]}
    assert results["ASC-CFG-001"]["status"] == "FAIL"
    linked = [i for i, r in results.items() if r["status"] == "SKIP" and r["evidence"].get("see") == ["ASC-CFG-001"]]
    assert linked == [f"ASC-CFG-{n:03d}" for n in range(2, 11) if n != 6]  # 006 is retired
