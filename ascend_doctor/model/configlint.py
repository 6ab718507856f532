"""Serving-configuration lint: parse MindIE / seed-style / vLLM launch settings, then judge them.

Pure code. Three inputs become one ``ServingConfig`` record:

* a MindIE Server ``config.json`` (``ServerConfig``, ``BackendConfig.npuDeviceIds``,
  ``ModelDeployConfig.maxSeqLen`` / ``maxInputTokenLen`` / ``ModelConfig[]`` with ``modelWeightPath``,
  ``worldSize``, ``tp``, ``dp``, ``moe_ep``, ``moe_tp``, ``npuMemSize``, ``ScheduleConfig.maxBatchSize`` /
  ``maxPrefillTokens``...). Key names and documented ranges are from the MindIE "配置参数说明（服务化）"
  page (mirrored in github.com/verylucky01/MindIE-LLM docs/zh/user_guide/user_manual/
  service_parameter_configuration.md; hiascend mindie/21RC1 mindie_llm0004) and the shipped default
  (github.com/Ascend/MindIE-LLM src/server/conf/config.json); ``tp``/``dp``/``moe_ep``/``moe_tp`` from
  the MindIE Expert Parallel page (mindie_llm0509) and real DeepSeek-R1 deployments;
* the simplified ``models: [{precision, tp_size, ep_size, max_seq_len, enable_paged_kvcache,
  kvcache_dtype}]`` format of seed 003 §3.2/§4.2 (JSON or YAML);
* a vLLM / vLLM-Ascend command line (``vllm serve MODEL --tensor-parallel-size 16 ...``), or the
  YAML file ``vllm serve --config`` reads.

The ``findings_*`` functions grade one topic each and return ``Finding`` lists; the
``checks/cfg_*.py`` modules call them with facts. Every value that is the wrong type, negative or
zero is a parse problem (reported by ASC-CFG-001), never an exception.
"""

from __future__ import annotations

import ipaddress
import shlex
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import yaml

from ascend_doctor import boundedjson
from ascend_doctor.checkapi import Finding, NotApplicable

KIND_MINDIE = "mindie"
KIND_SIMPLE = "simple"
KIND_VLLM = "vllm"

MAX_CONFIG_BYTES = 10 * 1024 * 1024  # MindIE itself refuses config files over 10 MB
MAX_YAML_ALIASES = 100  # anchors/aliases beyond this look like an expansion bomb: refused
MAX_YAML_EXPANDED_NODES = 100_000  # a serving config is a few hundred nodes, aliases expanded

# MindIE documented defaults (service_parameter_configuration.md), used when a key is absent.
MINDIE_DEFAULT_PORTS = (("port", 1025), ("managementPort", 1026), ("metricsPort", 1027))
MINDIE_DEFAULT_MAX_BATCH = 200
VLLM_DEFAULT_PORT = 8000

FACT_DOT_IN_PATH = (
    "MindIE fails to start when the weight path contains '.': \"量化后的权重保存路径不能包含英文句号\".\"等特殊字符，"
    "例如\"/data/model/DeepSeek-V3.1-W8A8\"中包含\".\"会导致服务启动失败\" - "
    "https://support.huaweicloud.com/bestpractice-modelarts/modelarts_ds_infermix_s_908c15.html"
)
FACT_FP8 = (
    "Ascend devices do not load FP8 weights (\"当前昇腾设备不支持FP8格式加载\", "
    "https://www.hiascend.com/developer/techArticles/20250222-1)"
)
FACT_VLLM_QUANT = (
    "vLLM-Ascend needs --quantization ascend for msmodelslim weights "
    "(https://docs.vllm.ai/projects/ascend/en/v0.11.0/user_guide/feature_guide/quantization.html)"
)
MINDIE_DOC = "MindIE 配置参数说明（服务化）, https://www.hiascend.com/document/detail/zh/mindie/21RC1/mindiellm/llmdev/mindie_llm0004.html"


class ServingConfigError(ValueError):
    """The input cannot be read as any serving configuration; the message says why."""


@dataclass(frozen=True)
class ServingModel:
    """One model of a serving configuration (None: not set)."""

    name: Optional[str] = None
    weight_path: Optional[str] = None
    world_size: Optional[int] = None
    tp: Optional[int] = None
    dp: Optional[int] = None
    pp: Optional[int] = None
    moe_ep: Optional[int] = None
    moe_tp: Optional[int] = None
    npu_mem_size_gb: Optional[int] = None  # MindIE npuMemSize: -1 = automatic
    precision: Optional[str] = None  # seed precision / vLLM --quantization or --dtype
    quantization: Optional[str] = None  # vLLM --quantization as given
    dtype: Optional[str] = None  # vLLM --dtype as given
    kv_dtype: Optional[str] = None
    max_seq_len: Optional[int] = None  # seed per-model max_seq_len
    max_batch_size: Optional[int] = None  # seed per-model max_batch_size
    paged_kv: Optional[bool] = None  # seed enable_paged_kvcache
    enable_expert_parallel: Optional[bool] = None  # vLLM --enable-expert-parallel
    mtp: bool = False  # MTP speculative decoding (vLLM --speculative-config, MindIE plugin_params)
    where: str = ""  # how to name it in messages ("ModelConfig[0]")

    @property
    def parallel_world(self) -> Optional[int]:
        """Cards implied by the parallel sizes (None when not derivable)."""
        if self.tp and self.dp:
            return self.tp * self.dp * (self.pp or 1)
        if self.moe_ep and self.moe_tp:
            return self.moe_ep * self.moe_tp
        return None


@dataclass(frozen=True)
class ServingConfig:
    kind: str
    source: str  # file path, or "--vllm-args"
    models: Tuple[ServingModel, ...] = ()
    device_ids: Tuple[Tuple[int, ...], ...] = ()
    model_instances: Optional[int] = None
    multi_node: bool = False
    max_seq_len: Optional[int] = None
    max_input_token_len: Optional[int] = None
    max_prefill_tokens: Optional[int] = None
    max_batch_size: Optional[int] = None
    max_prefill_batch_size: Optional[int] = None
    max_iter_times: Optional[int] = None
    truncation: Optional[bool] = None
    host: Optional[str] = None
    host_given: bool = False
    port: Optional[int] = None
    ports: Tuple[Tuple[str, int], ...] = ()  # every port the server will bind: (setting, port)
    https: Optional[bool] = None
    allow_all_zero_ip: Optional[bool] = None
    gpu_memory_utilization: Optional[float] = None
    multi_node_hint: bool = False  # vLLM multi-node flags (--headless, --data-parallel-address...)
    problems: Tuple[str, ...] = ()  # values of the wrong type or range
    error: Optional[str] = None  # could not be read or parsed at all
    notes: Tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def label(self) -> str:
        return {KIND_MINDIE: "MindIE config", KIND_SIMPLE: "models: config", KIND_VLLM: "vLLM launch"}.get(
            self.kind, "serving config") + f" {self.source}"


def failed_config(source: str, error: str, kind: str = "unknown") -> ServingConfig:
    return ServingConfig(kind=kind, source=source, error=error)


# -- value readers (collect problems instead of raising) -----------------------------------------


class _Reader:
    problems: List[str]

    def __init__(self, allow_str: bool = False) -> None:
        self.problems = []
        self.allow_str = allow_str  # command-line values arrive as strings

    def int_(self, data: Mapping[str, Any], key: str, where: str, *, minimum: int = 1,
             auto: Optional[int] = None) -> Optional[int]:
        """An integer >= minimum; ``auto`` (e.g. -1) is accepted and returned as None."""
        if key not in data or data[key] is None:
            return None
        value = data[key]
        allowed = (int, float, str) if self.allow_str else (int, float)
        if isinstance(value, bool) or not isinstance(value, allowed):
            self.problems.append(f"{where}{key} must be an integer, got {value!r}")
            return None
        try:
            number = int(value) if not isinstance(value, float) or value.is_integer() else None
        except ValueError:
            number = None
        if number is None:
            self.problems.append(f"{where}{key} must be an integer, got {value!r}")
            return None
        if auto is not None and number == auto:
            return None
        if number < minimum:
            self.problems.append(f"{where}{key} must be >= {minimum}, got {number}")
            return None
        return number

    def bool_(self, data: Mapping[str, Any], key: str, where: str) -> Optional[bool]:
        if key not in data or data[key] is None:
            return None
        value = data[key]
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        self.problems.append(f"{where}{key} must be true or false, got {value!r}")
        return None

    def str_(self, data: Mapping[str, Any], key: str, where: str) -> Optional[str]:
        if key not in data or data[key] is None:
            return None
        value = data[key]
        if not isinstance(value, str):
            self.problems.append(f"{where}{key} must be a string, got {value!r}")
            return None
        return value

    def float_(self, value: Any, where: str, lo: float, hi: float) -> Optional[float]:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.problems.append(f"{where} must be a number, got {value!r}")
            return None
        if not lo < number <= hi:
            self.problems.append(f"{where} must be in ({lo:g}, {hi:g}], got {number:g}")
            return None
        return number

    def section(self, data: Mapping[str, Any], key: str, where: str) -> Dict[str, Any]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.problems.append(f"{where}{key} must be an object, got {type(value).__name__}")
            return {}
        return value


# -- text -> document ---------------------------------------------------------------------------


def _yaml_load(text: str) -> Any:
    """yaml.safe_load, parsed once, refusing deep nesting and alias-heavy documents (expansion
    bombs) before building them (ascend_doctor.boundedyaml)."""
    from ascend_doctor import boundedyaml
    from ascend_doctor.boundedjson import TooComplex

    try:
        return boundedyaml.safe_load(text, what="YAML", max_chars=MAX_CONFIG_BYTES,
                                     max_expanded=MAX_YAML_EXPANDED_NODES, max_aliases=MAX_YAML_ALIASES)
    except TooComplex as exc:
        raise ServingConfigError(str(exc)) from None


def load_document(text: str, source: str) -> Any:
    """Parse JSON, or YAML (``.yaml``/``.yml`` files, and text that is not JSON); errors are clear."""
    if len(text) > MAX_CONFIG_BYTES:
        raise ServingConfigError(f"{source} is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MB: refused")
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise ServingConfigError(f"{source} is empty")
    is_yaml_name = source.lower().endswith((".yaml", ".yml"))
    looks_json = text.lstrip()[:1] in ("{", "[")
    json_error: Optional[str] = None
    if looks_json or not is_yaml_name:
        try:
            return boundedjson.loads(text, what="JSON", max_chars=MAX_CONFIG_BYTES)
        except boundedjson.TooComplex as exc:
            raise ServingConfigError(f"{source}: {exc}") from None
        except ValueError as exc:
            if looks_json:
                raise ServingConfigError(f"{source}: invalid JSON: {exc}") from None
            json_error = str(exc)
    try:
        return _yaml_load(text)
    except ServingConfigError as exc:
        raise ServingConfigError(f"{source}: {exc}") from None
    except RecursionError:
        raise ServingConfigError(f"{source}: invalid YAML: nested too deeply") from None
    except yaml.YAMLError as exc:
        if json_error is not None:
            raise ServingConfigError(f"{source}: invalid JSON: {json_error} (and not YAML either)") from None
        raise ServingConfigError(f"{source}: invalid YAML: {_yaml_problem(exc)}") from None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return f"{problem} at line {mark.line + 1}, column {mark.column + 1}"
    return str(problem or exc).strip().splitlines()[0] if str(problem or exc).strip() else type(exc).__name__


def parse_serving_text(text: str, source: str) -> ServingConfig:
    """Any supported configuration file; never raises (``error`` set instead)."""
    try:
        data = load_document(text, source)
    except ServingConfigError as exc:
        return failed_config(source, str(exc))
    return parse_serving_document(data, source)


def parse_serving_document(data: Any, source: str) -> ServingConfig:
    if not isinstance(data, dict):
        return failed_config(source, f"{source}: top level must be an object, got {type(data).__name__}")
    if "BackendConfig" in data or "ServerConfig" in data:
        return parse_mindie(data, source)
    if "models" in data:
        return parse_simple(data, source)
    if any(str(key).replace("_", "-") in VLLM_YAML_KEYS for key in data):
        return parse_vllm_mapping(data, source)
    return failed_config(source, f"{source}: not a MindIE config.json (no BackendConfig/ServerConfig), a "
                                 "`models:` list, or a vLLM config (no model/tensor-parallel-size)")


# -- MindIE -------------------------------------------------------------------------------------


def _device_ids(value: Any, reader: _Reader) -> Tuple[Tuple[int, ...], ...]:
    where = "BackendConfig.npuDeviceIds"
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(group, list) for group in value):
        reader.problems.append(f"{where} must be a list of lists of NPU ids, e.g. [[0,1,2,3]], got {value!r}")
        return ()
    groups = []
    for group in value:
        ids = []
        for item in group:
            if isinstance(item, bool) or not isinstance(item, int) or item < 0:
                reader.problems.append(f"{where} holds {item!r}: ids are non-negative integers")
                continue
            ids.append(item)
        groups.append(tuple(ids))
    return tuple(groups)


def parse_mindie(data: Mapping[str, Any], source: str) -> ServingConfig:
    r = _Reader()
    server = r.section(data, "ServerConfig", "")
    backend = r.section(data, "BackendConfig", "")
    deploy = r.section(backend, "ModelDeployConfig", "BackendConfig.")
    schedule = r.section(backend, "ScheduleConfig", "BackendConfig.")
    models: List[ServingModel] = []
    raw_models = deploy.get("ModelConfig")
    if raw_models is not None and not isinstance(raw_models, list):
        r.problems.append("BackendConfig.ModelDeployConfig.ModelConfig must be a list of models")
        raw_models = []
    for index, item in enumerate(raw_models or []):
        where = f"ModelConfig[{index}]."
        if not isinstance(item, dict):
            r.problems.append(f"{where[:-1]} must be an object")
            continue
        models.append(ServingModel(
            name=r.str_(item, "modelName", where),
            weight_path=r.str_(item, "modelWeightPath", where),
            world_size=r.int_(item, "worldSize", where),
            tp=r.int_(item, "tp", where, auto=-1),
            dp=r.int_(item, "dp", where, auto=-1),
            moe_ep=r.int_(item, "moe_ep", where, auto=-1),
            moe_tp=r.int_(item, "moe_tp", where, auto=-1),
            npu_mem_size_gb=r.int_(item, "npuMemSize", where, auto=-1),
            mtp="mtp" in str(item.get("plugin_params") or "").lower(),
            where=where[:-1],
        ))
    ports: List[Tuple[str, int]] = []
    if server:
        for key, default in MINDIE_DEFAULT_PORTS:
            value = r.int_(server, key, "ServerConfig.") if key in server else default
            if value is not None and not 0 < value < 65536:
                r.problems.append(f"ServerConfig.{key} must be a TCP port, got {value}")
                value = None
            if value is not None and (key, value) not in ports and value not in [p for _, p in ports]:
                ports.append((key, value))
    multi_node = bool(r.bool_(backend, "multiNodesInferEnabled", "BackendConfig."))
    if multi_node:
        port = r.int_(backend, "multiNodesInferPort", "BackendConfig.") or 1120
        ports.append(("multiNodesInferPort", port))
    host = r.str_(server, "ipAddress", "ServerConfig.")
    return ServingConfig(
        kind=KIND_MINDIE,
        source=source,
        models=tuple(models),
        device_ids=_device_ids(backend.get("npuDeviceIds"), r),
        model_instances=r.int_(backend, "modelInstanceNumber", "BackendConfig."),
        multi_node=multi_node,
        max_seq_len=r.int_(deploy, "maxSeqLen", "ModelDeployConfig."),
        max_input_token_len=r.int_(deploy, "maxInputTokenLen", "ModelDeployConfig."),
        truncation=r.bool_(deploy, "truncation", "ModelDeployConfig."),
        max_prefill_tokens=r.int_(schedule, "maxPrefillTokens", "ScheduleConfig."),
        max_batch_size=r.int_(schedule, "maxBatchSize", "ScheduleConfig."),
        max_prefill_batch_size=r.int_(schedule, "maxPrefillBatchSize", "ScheduleConfig.", minimum=0),
        max_iter_times=r.int_(schedule, "maxIterTimes", "ScheduleConfig."),
        host=host if host is not None else ("127.0.0.1" if server else None),  # documented default
        host_given=host is not None,
        port=ports[0][1] if ports else None,
        ports=tuple(ports),
        https=r.bool_(server, "httpsEnabled", "ServerConfig.") if "httpsEnabled" in server else (
            True if server else None),  # documented default: true
        allow_all_zero_ip=r.bool_(server, "allowAllZeroIpListening", "ServerConfig."),
        problems=tuple(r.problems),
    )


# -- seed 003 simplified `models:` format ---------------------------------------------------------


def parse_simple(data: Mapping[str, Any], source: str) -> ServingConfig:
    r = _Reader()
    raw = data.get("models")
    if not isinstance(raw, list) or not raw:
        return failed_config(source, f"{source}: `models` must be a non-empty list", KIND_SIMPLE)
    models = []
    for index, item in enumerate(raw):
        where = f"models[{index}]."
        if not isinstance(item, dict):
            r.problems.append(f"{where[:-1]} must be an object")
            continue
        models.append(ServingModel(
            name=r.str_(item, "name", where),
            weight_path=r.str_(item, "model_path", where),
            tp=r.int_(item, "tp_size", where),
            moe_ep=r.int_(item, "ep_size", where),
            precision=r.str_(item, "precision", where),
            kv_dtype=r.str_(item, "kvcache_dtype", where),
            max_seq_len=r.int_(item, "max_seq_len", where),
            max_batch_size=r.int_(item, "max_batch_size", where),
            paged_kv=r.bool_(item, "enable_paged_kvcache", where),
            where=where[:-1],
        ))
    return ServingConfig(kind=KIND_SIMPLE, source=source, models=tuple(models), problems=tuple(r.problems))


# -- vLLM ---------------------------------------------------------------------------------------

# option -> ServingModel/ServingConfig field (the value-taking options we read)
VLLM_VALUE_OPTIONS = {
    "--tensor-parallel-size": "tp", "-tp": "tp",
    "--data-parallel-size": "dp", "-dp": "dp",
    "--pipeline-parallel-size": "pp", "-pp": "pp",
    "--max-model-len": "max_seq_len",
    "--max-num-seqs": "max_batch_size",
    "--max-num-batched-tokens": "max_prefill_tokens",
    "--quantization": "quantization", "-q": "quantization",
    "--dtype": "dtype",
    "--kv-cache-dtype": "kv_dtype",
    "--host": "host",
    "--port": "port",
    "--gpu-memory-utilization": "gpu_memory_utilization",
    "--model": "model",
    "--served-model-name": "name",
    "--ssl-certfile": "ssl_certfile",
    "--ssl-keyfile": "ssl_keyfile",
    "--speculative-config": "speculative_config",
}
VLLM_YAML_KEYS = {opt.lstrip("-") for opt in VLLM_VALUE_OPTIONS if opt.startswith("--")} | {
    "enable-expert-parallel"}
VLLM_FLAG_PREFIXES = ("--enable-", "--disable-", "--no-")
VLLM_FLAGS = {"--trust-remote-code", "--enforce-eager", "--headless", "--skip-tokenizer-init", "--help", "-h"}
VLLM_MULTI_NODE = ("--headless", "--data-parallel-address", "--data-parallel-size-local", "--data-parallel-start-rank",
                   "--nnodes", "--node-rank")
VLLM_MULTI_NODE_BACKENDS = ("ray",)


def _split_command(cmdline: str) -> List[str]:
    cleaned = cmdline.replace("\\\r\n", " ").replace("\\\n", " ")
    try:
        tokens = shlex.split(cleaned, comments=False, posix=True)
    except ValueError as exc:
        raise ServingConfigError(f"cannot split the vLLM command line: {exc}") from None
    tokens = [t for t in tokens if t.strip()]
    # drop leading VAR=value assignments and the launcher itself
    while tokens and "=" in tokens[0] and not tokens[0].startswith("-"):
        tokens.pop(0)
    for i, token in enumerate(tokens):
        if token == "serve" and i <= 2:
            return tokens[i + 1:]
        if token.startswith("vllm.entrypoints"):
            return tokens[i + 1:]
    if tokens and tokens[0].endswith("vllm"):
        return tokens[1:]
    return tokens


def _vllm_options(tokens: Sequence[str]) -> Tuple[Dict[str, str], List[str], List[str]]:
    """(value options, flags, positionals) - the last occurrence of an option wins, as in argparse."""
    values: Dict[str, str] = {}
    flags: List[str] = []
    positionals: List[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.startswith("-") and len(token) > 1 and not _is_number(token):
            name, eq, inline = token.partition("=")
            if name.startswith("--"):  # vLLM's parser accepts --foo_bar for --foo-bar
                name = "--" + name[2:].replace("_", "-")
            if eq:
                values[name] = inline
            elif name in VLLM_FLAGS or (name.startswith(VLLM_FLAG_PREFIXES) and name not in VLLM_VALUE_OPTIONS):
                flags.append(name)
            elif i + 1 < len(tokens) and (not tokens[i + 1].startswith("-") or _is_number(tokens[i + 1])):
                values[name] = tokens[i + 1]
                i += 1
            else:
                flags.append(name)
        else:
            positionals.append(token)
        i += 1
    return values, flags, positionals


def _is_number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True


def parse_vllm_args(cmdline: str, source: str = "--vllm-args") -> ServingConfig:
    """A ``vllm serve ...`` line; never raises (``error`` set instead)."""
    if not cmdline or not cmdline.strip():
        return failed_config(source, "the vLLM command line is empty", KIND_VLLM)
    try:
        tokens = _split_command(cmdline)
    except ServingConfigError as exc:
        return failed_config(source, str(exc), KIND_VLLM)
    values, flags, positionals = _vllm_options(tokens)
    mapping: Dict[str, Any] = {}
    for option, value in values.items():
        field_name = VLLM_VALUE_OPTIONS.get(option)
        if field_name:
            mapping[field_name] = value
    if "model" not in mapping and positionals:
        mapping["model"] = positionals[0]
    mapping["enable_expert_parallel"] = "--enable-expert-parallel" in flags
    multi = any(opt in values or opt in flags for opt in VLLM_MULTI_NODE) or (
        values.get("--distributed-executor-backend") in VLLM_MULTI_NODE_BACKENDS)
    return _vllm_config(mapping, source, multi)


def parse_vllm_mapping(data: Mapping[str, Any], source: str) -> ServingConfig:
    """The YAML file ``vllm serve --config FILE`` reads (keys are the long option names)."""
    mapping: Dict[str, Any] = {}
    multi = False
    for key, value in data.items():
        option = "--" + str(key).replace("_", "-")
        field_name = VLLM_VALUE_OPTIONS.get(option)
        if field_name:
            mapping[field_name] = value
        if option in VLLM_MULTI_NODE:
            multi = True
    mapping["enable_expert_parallel"] = bool(data.get("enable-expert-parallel") or data.get("enable_expert_parallel"))
    return _vllm_config(mapping, source, multi)


def _vllm_config(mapping: Dict[str, Any], source: str, multi_node: bool) -> ServingConfig:
    r = _Reader(allow_str=True)
    where = "vLLM "
    tp = r.int_(mapping, "tp", "--tensor-parallel-size ") if "tp" in mapping else 1
    dp = r.int_(mapping, "dp", "--data-parallel-size ") if "dp" in mapping else 1
    pp = r.int_(mapping, "pp", "--pipeline-parallel-size ") if "pp" in mapping else 1
    port = r.int_(mapping, "port", "--port ") if "port" in mapping else VLLM_DEFAULT_PORT
    if port is not None and port > 65535:
        r.problems.append(f"--port must be a TCP port, got {port}")
        port = None
    util = r.float_(mapping["gpu_memory_utilization"], "--gpu-memory-utilization", 0.0, 1.0) if (
        "gpu_memory_utilization" in mapping) else None
    quantization = str(mapping["quantization"]).lower() if mapping.get("quantization") is not None else None
    dtype = str(mapping["dtype"]).lower() if mapping.get("dtype") is not None else None
    precision = None
    if quantization == "fp8":
        precision = "fp8"
    elif quantization is None and dtype in ("bfloat16", "bf16", "float16", "fp16", "half"):
        precision = {"bfloat16": "bf16", "half": "fp16", "float16": "fp16"}.get(dtype, dtype)
    model = ServingModel(
        name=str(mapping["name"]) if mapping.get("name") is not None else None,
        weight_path=str(mapping["model"]) if mapping.get("model") is not None else None,
        tp=tp, dp=dp, pp=pp,
        precision=precision,
        quantization=quantization,
        dtype=dtype,
        kv_dtype=str(mapping["kv_dtype"]).lower() if mapping.get("kv_dtype") is not None else None,
        enable_expert_parallel=bool(mapping.get("enable_expert_parallel")),
        mtp="mtp" in str(mapping.get("speculative_config") or "").lower(),
        where=where.strip(),
    )
    if model.weight_path is None:
        r.problems.append("no model: give it as the first argument of `vllm serve` or with --model")
    host = str(mapping["host"]) if mapping.get("host") is not None else None
    https = bool(mapping.get("ssl_certfile") and mapping.get("ssl_keyfile"))
    return ServingConfig(
        kind=KIND_VLLM,
        source=source,
        models=(model,),
        max_seq_len=r.int_(mapping, "max_seq_len", "--max-model-len "),
        max_batch_size=r.int_(mapping, "max_batch_size", "--max-num-seqs "),
        max_prefill_tokens=r.int_(mapping, "max_prefill_tokens", "--max-num-batched-tokens "),
        host=host,
        host_given=host is not None,
        port=port,
        ports=(("--port", port),) if port else (),
        https=https,
        gpu_memory_utilization=util,
        multi_node=multi_node,
        multi_node_hint=multi_node,
        problems=tuple(r.problems),
    )


# -- helpers for checks ---------------------------------------------------------------------------


def require_usable(config: Any) -> ServingConfig:
    """The configuration, or ``NotApplicable`` when it could not be read (ASC-CFG-001 reports why)."""
    if not isinstance(config, ServingConfig):
        raise NotApplicable("no serving configuration")
    if config.error:
        raise NotApplicable("the serving configuration could not be read (see ASC-CFG-001)")
    return config


@dataclass(frozen=True)
class PlanInputs:
    """What a serving configuration implies for the memory plan (None: not set, use defaults)."""

    cards: Optional[int] = None
    tp: Optional[int] = None
    dp: Optional[int] = None
    ep: Optional[int] = None
    moe_tp: Optional[int] = None
    precision: Optional[str] = None
    max_seq_len: int = 4096
    batch: int = 1
    kv_dtype: Optional[str] = None
    kv_budget_gib: Optional[int] = None
    reserve_fraction: Optional[float] = None
    include_mtp: bool = False
    ascend_quantization: bool = False  # vLLM --quantization ascend: msmodelslim weights, type from the weights
    notes: Tuple[str, ...] = ()


# MindIE's NPU_MEMORY_FRACTION defaults to 0.8 (service_parameter_configuration.md, npuMemSize).
MINDIE_DEFAULT_MEMORY_FRACTION = 0.8
MINDIE_DEFAULT_MAX_SEQ_LEN = 2560


def plan_inputs(config: Optional[ServingConfig], max_position_embeddings: Optional[int] = None) -> PlanInputs:
    """Read the parallel sizes, lengths, batch and memory settings a memory plan needs."""
    if config is None or config.error or not config.models:
        return PlanInputs(notes=("no serving configuration: planned for one 4096-token sequence over every NPU of "
                                 "this host",))
    model = config.models[0]
    notes: List[str] = []
    if len(config.models) > 1:
        notes.append(f"{len(config.models)} models configured: planned for the first ({model.where})")
    if config.kind == KIND_MINDIE:
        world = model.world_size if not config.multi_node else None
        if config.multi_node:
            world = model.parallel_world
        if world is None and config.device_ids:
            world = len(config.device_ids[0])
        seq = config.max_seq_len or MINDIE_DEFAULT_MAX_SEQ_LEN
        batch = config.max_batch_size or MINDIE_DEFAULT_MAX_BATCH
        return PlanInputs(
            cards=world, tp=model.tp, dp=model.dp, ep=model.moe_ep, moe_tp=model.moe_tp,
            precision=model.precision, max_seq_len=seq, batch=batch, kv_budget_gib=model.npu_mem_size_gb,
            reserve_fraction=1 - MINDIE_DEFAULT_MEMORY_FRACTION, include_mtp=model.mtp, notes=tuple(notes),
        )
    if config.kind == KIND_SIMPLE:
        tp = model.tp or 1
        cards = tp * (model.moe_ep or 1)  # the seed reads tp_size x ep_size as the card count
        return PlanInputs(
            cards=cards, tp=tp, ep=model.moe_ep, precision=model.precision,
            max_seq_len=model.max_seq_len or 4096, batch=model.max_batch_size or 1, kv_dtype=model.kv_dtype,
            notes=tuple(notes),
        )
    tp, dp, pp = model.tp or 1, model.dp or 1, model.pp or 1
    if pp > 1:
        notes.append(f"pipeline parallel {pp} is counted as extra tensor parallelism (same weights per card; the "
                     "KV estimate is rough)")
    cards = tp * dp * pp
    seq = config.max_seq_len or max_position_embeddings or 4096
    if not config.max_seq_len:
        notes.append(f"no --max-model-len: vLLM uses the model's maximum ({seq} tokens)")
    if not config.max_batch_size:
        notes.append("no --max-num-seqs: planned for one full-length sequence")
    util = config.gpu_memory_utilization
    return PlanInputs(
        cards=cards, tp=tp * pp, dp=dp, ep=cards if model.enable_expert_parallel else None,
        precision=model.precision, max_seq_len=seq, batch=config.max_batch_size or 1, kv_dtype=model.kv_dtype,
        reserve_fraction=(1 - util) if util else None, include_mtp=model.mtp,
        ascend_quantization=model.quantization == "ascend", notes=tuple(notes),
    )


# -- findings -----------------------------------------------------------------------------------


def _edit(cfg: ServingConfig, what: str) -> str:
    if cfg.kind == KIND_VLLM:
        return f"Change the vLLM launch line: {what}."
    return f"Edit {cfg.source}: {what}, then restart the service."


def findings_parse(cfg: ServingConfig) -> List[Finding]:
    """ASC-CFG-001: the configuration could be read and every value has a sensible type."""
    if cfg.error:
        fix = ("Fix the file so it parses (e.g. `python3 -m json.tool FILE` shows the first JSON error; "
               "MindIE rejects trailing commas and comments)") if cfg.kind != KIND_VLLM else (
            "Quote the whole launch line once: --vllm-args \"vllm serve /models/X --tensor-parallel-size 8\"")
        return [Finding.fail(cfg.error, fix, source=cfg.source)]
    out: List[Finding] = []
    for problem in cfg.problems:
        out.append(Finding.fail(f"{cfg.source}: {problem}", _edit(cfg, f"set a valid value ({problem})"),
                                source=cfg.source))
    if not cfg.models and cfg.kind == KIND_MINDIE:
        out.append(Finding.fail(f"{cfg.source}: BackendConfig.ModelDeployConfig.ModelConfig lists no model",
                                _edit(cfg, "add a ModelConfig entry with modelName, modelWeightPath and worldSize")))
    if not out:
        names = ", ".join(m.name or m.weight_path or "?" for m in cfg.models)
        out.append(Finding.passed(f"{cfg.label}: read, {len(cfg.models)} model(s): {names}"))
    return out


@dataclass(frozen=True)
class HostNpus:
    """What the device checks need from npu-smi: chips in logical order, and who uses them."""

    chips: Tuple[Tuple[int, int], ...]  # (npu_id, chip_id) in npu-smi order = logical id order
    busy: Mapping[int, Tuple[str, ...]] = field(default_factory=dict)  # logical id -> "pid 12 (name)"
    visible: Optional[Tuple[int, ...]] = None  # ASCEND_RT_VISIBLE_DEVICES, when set

    @property
    def logical_count(self) -> int:
        return len(self.visible) if self.visible is not None else len(self.chips)

    def host_logical(self, logical: int) -> Optional[int]:
        """The host-wide logical id behind a process-visible id."""
        if self.visible is not None:
            return self.visible[logical] if logical < len(self.visible) else None
        return logical if logical < len(self.chips) else None


def host_npus_from(npu_smi: Any, visible: Optional[Sequence[int]] = None) -> Optional[HostNpus]:
    """Build ``HostNpus`` from an ``NpuSmiInfo`` (``.devices`` and ``.processes``)."""
    devices = list(getattr(npu_smi, "devices", None) or [])
    if not devices:
        return None
    chips = tuple(sorted((int(d.npu_id), int(getattr(d, "chip_id", 0) or 0)) for d in devices))
    index = {chip: i for i, chip in enumerate(chips)}
    busy: Dict[int, List[str]] = {}
    for proc in getattr(npu_smi, "processes", None) or []:
        npu = getattr(proc, "npu_id", None)
        chip = getattr(proc, "chip_id", None)
        keys = [k for k in index if k[0] == npu and (chip is None or k[1] == chip)]
        name = getattr(proc, "name", "") or ""
        label = f"pid {getattr(proc, 'pid', '?')}" + (f" ({name})" if name else "")
        for key in keys:
            busy.setdefault(index[key], []).append(label)
    return HostNpus(chips, {k: tuple(v) for k, v in busy.items()}, tuple(visible) if visible is not None else None)


def _ids(ids: Sequence[int]) -> str:
    return "[" + ",".join(str(i) for i in ids) + "]"


def findings_devices(cfg: ServingConfig, host: Optional[HostNpus]) -> List[Finding]:
    """ASC-CFG-002: the NPUs the configuration uses exist on this host and are not busy."""
    out: List[Finding] = []
    if host is None:
        return out
    count = host.logical_count
    visible_note = f" (ASCEND_RT_VISIBLE_DEVICES={','.join(map(str, host.visible))})" if host.visible else ""
    if cfg.kind == KIND_MINDIE:
        if cfg.multi_node:
            out.append(Finding.skip("multiNodesInferEnabled is true: MindIE takes each node's NPUs from the rank "
                                    "table, not npuDeviceIds"))
            return out
        used: List[int] = []
        for group in cfg.device_ids:
            missing = [i for i in group if i >= count]
            if missing:
                out.append(Finding.fail(
                    f"npuDeviceIds {_ids(group)} names NPU {_ids(missing)}, but this host shows {count} chip(s) "
                    f"(logical ids 0-{count - 1}){visible_note}",
                    _edit(cfg, f"list logical ids below {count} in BackendConfig.npuDeviceIds "
                               "(`npu-smi info -m` maps them to NPU/chip)"),
                    npu_device_ids=[list(g) for g in cfg.device_ids], chips=count))
            dupes = sorted({i for i in group if group.count(i) > 1 or i in used})
            if dupes:
                out.append(Finding.fail(f"npuDeviceIds lists NPU {_ids(dupes)} more than once",
                                        _edit(cfg, "give every model instance its own NPUs in npuDeviceIds")))
            used.extend(group)
        ids = sorted(set(used))
    else:
        model = cfg.models[0] if cfg.models else None
        needed = 0
        if model is not None:
            if cfg.kind == KIND_VLLM:
                needed = (model.tp or 1) * (model.dp or 1) * (model.pp or 1)
            else:
                needed = (model.tp or 1) * (model.moe_ep or 1)
        if needed > count:
            if cfg.multi_node_hint:
                out.append(Finding.passed(f"needs {needed} NPUs over several nodes; this node has {count}"))
            else:
                grade = Finding.fail if cfg.kind == KIND_VLLM else Finding.warn
                out.append(grade(
                    f"{cfg.label} needs {needed} NPUs (parallel sizes), this host shows {count}{visible_note}",
                    "Deploy across nodes (vLLM: --data-parallel-size-local / --headless on the other nodes, or "
                    "a Ray cluster), or lower the parallel sizes to fit " + f"{count} NPUs.",
                    needed=needed, chips=count))
        ids = list(range(min(needed, count)))
    for logical in ids:
        if logical >= count:
            continue
        host_id = host.host_logical(logical)
        who = host.busy.get(host_id if host_id is not None else -1)
        if who:
            npu, chip = host.chips[host_id] if host_id is not None and host_id < len(host.chips) else (logical, 0)
            out.append(Finding.warn(
                f"NPU {npu} chip {chip} (logical id {logical}) is already in use by {', '.join(who)}",
                "If that is not this service, stop it first (`kill <pid>`; check with `npu-smi info`), or use "
                "other NPUs.", logical_id=logical).scoped(f"NPU {npu} chip {chip}"))
    if not out and ids:
        if cfg.kind == KIND_MINDIE:
            out.append(Finding.passed(f"NPU ids {_ids(ids)} exist on this host and are idle"))
        else:
            out.append(Finding.passed(f"the {len(ids)} NPU(s) this launch needs exist on this host ({count}) and "
                                      "are idle"))
    return out


def findings_parallel(cfg: ServingConfig) -> List[Finding]:
    """ASC-CFG-003: worldSize matches the NPUs listed; parallel sizes multiply to the world size."""
    out: List[Finding] = []
    if cfg.kind == KIND_MINDIE:
        groups = cfg.device_ids
        if cfg.model_instances is not None and groups and cfg.model_instances != len(groups) and not cfg.multi_node:
            out.append(Finding.warn(
                f"modelInstanceNumber is {cfg.model_instances} but npuDeviceIds has {len(groups)} group(s)",
                _edit(cfg, f"give one npuDeviceIds list per instance, or set modelInstanceNumber to {len(groups)}"),
                doc=MINDIE_DOC))
        for model in cfg.models:
            world: Optional[int] = model.world_size
            label = model.where
            if not cfg.multi_node and groups:
                listed = len(groups[0])
                if world is not None and world != listed:
                    out.append(Finding.fail(
                        f"{label}.worldSize is {world} but npuDeviceIds {_ids(groups[0])} lists {listed} NPU(s); "
                        "MindIE requires them to be equal",
                        _edit(cfg, f"set {label}.worldSize to {listed}, or list {world} NPU ids in npuDeviceIds"),
                        doc=MINDIE_DOC))
                world = world or listed
            if cfg.multi_node:
                world = None  # worldSize is taken from the rank table across nodes
            dense_world = model.tp * model.dp if model.tp and model.dp else None
            moe_world = model.moe_ep * model.moe_tp if model.moe_ep and model.moe_tp else None
            if world and dense_world and dense_world != world:
                out.append(Finding.fail(
                    f"{label}: tp x dp = {model.tp} x {model.dp} = {dense_world}, but the world size is {world}",
                    _edit(cfg, f"make tp x dp equal {world} in {label}")))
            if world and moe_world and moe_world != world:
                out.append(Finding.fail(
                    f"{label}: moe_ep x moe_tp = {model.moe_ep} x {model.moe_tp} = {moe_world}, but the world size "
                    f"is {world}",
                    _edit(cfg, f"make moe_ep x moe_tp equal {world} in {label}")))
            if dense_world and moe_world and dense_world != moe_world and not world:
                out.append(Finding.fail(
                    f"{label}: tp x dp = {dense_world} but moe_ep x moe_tp = {moe_world}; both must equal the "
                    "number of NPUs across the nodes",
                    _edit(cfg, f"make tp x dp and moe_ep x moe_tp multiply to the same card count in {label}")))
            for size_name, size in (("tp", model.tp), ("moe_ep", model.moe_ep), ("dp", model.dp)):
                if world and size and world % size:
                    out.append(Finding.fail(f"{label}.{size_name} = {size} does not divide the world size {world}",
                                            _edit(cfg, f"choose {size_name} dividing {world}")))
    elif cfg.kind == KIND_SIMPLE:
        for model in cfg.models:
            if model.tp and model.moe_ep:
                out.append(Finding.passed(f"{model.where}: tp_size x ep_size = {model.tp} x {model.moe_ep} = "
                                          f"{model.tp * model.moe_ep} NPUs"))
    if not out and cfg.models:
        sizes = []
        for model in cfg.models:
            parts = [f"{k}={v}" for k, v in (("worldSize", model.world_size), ("tp", model.tp), ("dp", model.dp),
                                             ("pp", model.pp), ("moe_ep", model.moe_ep), ("moe_tp", model.moe_tp))
                     if v]
            sizes.append(f"{model.where}: " + (", ".join(parts) or "defaults"))
        out.append(Finding.passed("parallel sizes are consistent (" + "; ".join(sizes) + ")"))
    return out


def findings_weight_path(cfg: ServingConfig) -> List[Finding]:
    """ASC-CFG-004: MindIE weight paths contain no '.' (MindIE fails to start otherwise)."""
    if cfg.kind == KIND_VLLM:
        return []
    out: List[Finding] = []
    for model in cfg.models:
        path = model.weight_path
        if not path:
            continue
        if "." in path:
            fixed = path.replace(".", "-")
            out.append(Finding.fail(
                f"{model.where} weight path {path!r} contains '.': MindIE fails to start with it",
                f"Rename the directory and point the config at it: mv '{path}' '{fixed}' and set "
                f"{'modelWeightPath' if cfg.kind == KIND_MINDIE else 'model_path'} to \"{fixed}\" in {cfg.source} "
                "(only letters, digits, '-' and '_').",
                path=path, fact=FACT_DOT_IN_PATH).scoped(model.where))
        else:
            out.append(Finding.passed(f"{model.where} weight path {path} has no '.'"))
    return out


def findings_token_limits(cfg: ServingConfig) -> List[Finding]:
    """ASC-CFG-005: MindIE token lengths are inside the ranges MindIE documents."""
    if cfg.kind != KIND_MINDIE:
        return []
    out: List[Finding] = []
    seq, inp, prefill = cfg.max_seq_len, cfg.max_input_token_len, cfg.max_prefill_tokens
    if seq and inp and inp > seq:
        out.append(Finding.warn(
            f"maxInputTokenLen {inp} exceeds maxSeqLen {seq}: MindIE clamps it to maxSeqLen - 1 = {seq - 1}, so "
            "longer prompts are cut or rejected",
            _edit(cfg, f"set ModelDeployConfig.maxInputTokenLen to at most {seq - 1}, or raise maxSeqLen (more KV "
                       "cache per sequence)"), doc=MINDIE_DOC))
    effective_input = min(inp, seq - 1) if seq and inp else inp
    if prefill and effective_input and prefill < effective_input:
        out.append(Finding.fail(
            f"maxPrefillTokens {prefill} is below maxInputTokenLen {effective_input}: MindIE documents it must be "
            ">= maxInputTokenLen",
            _edit(cfg, f"set ScheduleConfig.maxPrefillTokens to at least {effective_input}"), doc=MINDIE_DOC))
    if seq and cfg.max_iter_times and cfg.max_iter_times > seq:
        out.append(Finding.fail(
            f"maxIterTimes {cfg.max_iter_times} is above maxSeqLen {seq} (documented range [1, maxSeqLen])",
            _edit(cfg, f"set ScheduleConfig.maxIterTimes to at most {seq}"), doc=MINDIE_DOC))
    if cfg.max_batch_size and cfg.max_prefill_batch_size and cfg.max_prefill_batch_size > cfg.max_batch_size:
        out.append(Finding.fail(
            f"maxPrefillBatchSize {cfg.max_prefill_batch_size} is above maxBatchSize {cfg.max_batch_size} "
            "(documented range [1, maxBatchSize])",
            _edit(cfg, f"set ScheduleConfig.maxPrefillBatchSize to at most {cfg.max_batch_size}"), doc=MINDIE_DOC))
    if not out and (seq or inp or prefill):
        out.append(Finding.passed(f"maxSeqLen {seq}, maxInputTokenLen {inp}, maxPrefillTokens {prefill} are "
                                  "consistent"))
    return out


def findings_paged_kv(cfg: ServingConfig) -> List[Finding]:
    """ASC-CFG-006: the seed-style config keeps the paged KV cache on (seed 003 §5.3)."""
    if cfg.kind != KIND_SIMPLE:
        return []
    out: List[Finding] = []
    for model in cfg.models:
        if model.paged_kv is False:
            out.append(Finding.warn(
                f"{model.where}: enable_paged_kvcache is false: the KV cache is allocated statically and long "
                "prompts (> 2048 tokens) slow down sharply (seed 003 §5.3)",
                _edit(cfg, f"set enable_paged_kvcache: true in {model.where}")).scoped(model.where))
        elif model.paged_kv:
            out.append(Finding.passed(f"{model.where}: paged KV cache enabled"))
    return out


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_wildcard(host: Optional[str]) -> bool:
    return host in (None, "", "0.0.0.0", "::", "[::]")


def findings_listen(cfg: ServingConfig) -> List[Finding]:
    """ASC-CFG-007: the API is not exposed beyond this host without HTTPS (and 0.0.0.0 is allowed)."""
    if cfg.kind == KIND_SIMPLE:
        return []
    out: List[Finding] = []
    host = cfg.host
    if cfg.kind == KIND_MINDIE and _is_wildcard(host) and cfg.host_given and not cfg.allow_all_zero_ip:
        out.append(Finding.fail(
            f"ServerConfig.ipAddress is {host} but allowAllZeroIpListening is not true: MindIE refuses to bind "
            "all interfaces",
            _edit(cfg, "set ServerConfig.ipAddress to this host's service IP (recommended), or set "
                       "allowAllZeroIpListening to true if the network is protected"), doc=MINDIE_DOC))
    exposed = host is None or not _is_loopback(host)
    if cfg.kind == KIND_VLLM and not cfg.host_given:
        where = "all interfaces (no --host: vLLM binds every address)"
    else:
        where = f"{host}"
    if exposed and not cfg.https:
        if cfg.kind == KIND_MINDIE:
            fix = _edit(cfg, "set ServerConfig.httpsEnabled to true with tlsCert/tlsPk/tlsCaFile under the "
                             "MindIE security/ directory, or bind ServerConfig.ipAddress to 127.0.0.1 behind a "
                             "TLS proxy")
        else:
            fix = ("Add --ssl-certfile CERT --ssl-keyfile KEY (and --api-key), or bind --host 127.0.0.1 behind a "
                   "TLS-terminating proxy.")
        out.append(Finding.warn(f"the API listens on {where} without HTTPS: prompts and answers travel in clear "
                                "text to anyone on the network", fix, host=host))
    if not out:
        state = "HTTPS" if cfg.https else "loopback only"
        out.append(Finding.passed(f"the API listens on {where} ({state})"))
    return out


@dataclass(frozen=True)
class Listener:
    address: str
    port: int
    pid: Optional[int] = None


def _overlaps(config_host: Optional[str], socket_address: str) -> bool:
    if _is_wildcard(config_host) or _is_wildcard(socket_address):
        return True
    return config_host == socket_address or (
        config_host is not None and _is_loopback(config_host) and _is_loopback(socket_address))


def findings_ports(cfg: ServingConfig, listeners: Sequence[Listener]) -> List[Finding]:
    """ASC-CFG-008: the ports the server will bind are free."""
    if cfg.kind == KIND_SIMPLE or not cfg.ports:
        return []
    out: List[Finding] = []
    for setting, port in cfg.ports:
        holders = [s for s in listeners if s.port == port and _overlaps(cfg.host, s.address)]
        if holders:
            who = ", ".join(f"pid {s.pid}" if s.pid else "another process" for s in holders)
            addr = holders[0].address or "*"
            owner = f"Stop it (`ss -ltnp 'sport = :{port}'` shows the owner), or "
            if cfg.kind == KIND_VLLM:
                fix = owner + "pass another --port."
            else:
                fix = owner + f"set ServerConfig.{setting} to a free port in {cfg.source}."
            out.append(Finding.fail(f"port {port} ({setting}) is already in use on {addr} by {who}", fix,
                                    port=port, pids=[s.pid for s in holders]).scoped(f"port {port}"))
    if not out:
        ports = [str(p) for _, p in cfg.ports]
        # Parenthesised whole: the conditional must choose the subject, not swallow the " free".
        subject = ("ports " + ", ".join(ports) + " are") if len(ports) > 1 else f"port {ports[0]} is"
        out.append(Finding.passed(subject + " free"))
    return out


def findings_precision(cfg: ServingConfig, checkpoint_precision: Optional[str]) -> List[Finding]:
    """ASC-CFG-009: the weight precision and quantization settings can load on Ascend."""
    out: List[Finding] = []
    for model in cfg.models:
        if model.precision and model.precision.lower() in ("fp8", "fp8_e4m3"):
            out.append(Finding.fail(
                f"{model.where}: precision fp8 - {FACT_FP8}",
                _edit(cfg, "use W8A8 weights (msmodelslim, e.g. quant_deepseek_w8a8.py --from_fp8) with precision "
                           "w8a8/int8, or BF16 weights (DeepSeek's fp8_cast_bf16.py) with precision bf16"),
                fact=FACT_FP8).scoped(model.where))
        if cfg.kind == KIND_VLLM:
            if checkpoint_precision in ("w8a8", "w8a16", "w4a8") and model.quantization != "ascend":
                out.append(Finding.fail(
                    f"the weights are msmodelslim {str(checkpoint_precision).upper()} but the launch line has "
                    f"{'--quantization ' + model.quantization if model.quantization else 'no --quantization'}",
                    "Add --quantization ascend to the vllm serve line.", fact=FACT_VLLM_QUANT))
            elif model.quantization == "ascend" and checkpoint_precision in ("bf16", "fp16"):
                out.append(Finding.warn(
                    f"--quantization ascend is set but the weights are {checkpoint_precision} (no msmodelslim "
                    "quant_model_description.json)",
                    "Drop --quantization ascend, or point the model at the W8A8 directory.", fact=FACT_VLLM_QUANT))
    shown = [str(v) for v in (m.precision or m.quantization or m.dtype for m in cfg.models) if v]
    if not out and shown:
        out.append(Finding.passed(f"configured precision loads on Ascend ({', '.join(shown)})"))
    return out


@dataclass(frozen=True)
class WeightDir:
    path: str
    exists: bool
    is_dir: bool
    has_config: bool
    error: Optional[str] = None


def looks_like_hub_id(path: str) -> bool:
    """``deepseek-ai/DeepSeek-R1``: one slash, not absolute or relative - downloaded at start."""
    return not path.startswith((".", "/", "~")) and path.count("/") == 1


def findings_weight_dirs(cfg: ServingConfig, dirs: Sequence[WeightDir]) -> List[Finding]:
    """ASC-CFG-010: every weight path exists, is a directory and holds config.json."""
    out: List[Finding] = []
    for entry in dirs:
        if entry.error:
            out.append(Finding.fail(f"weight path {entry.path}: {entry.error}",
                                    f"Make {entry.path} readable by the service user (`ls -ld {entry.path}`)."))
        elif not entry.exists:
            out.append(Finding.fail(f"weight path {entry.path} does not exist on this host",
                                    _edit(cfg, "point the weight path at the downloaded model directory")))
        elif not entry.is_dir:
            out.append(Finding.fail(f"weight path {entry.path} is a file, not the model directory",
                                    _edit(cfg, "use the directory that holds config.json and the weights")))
        elif not entry.has_config:
            out.append(Finding.fail(
                f"weight path {entry.path} has no config.json (MindIE reads torch_dtype and vocab_size from it)",
                f"Copy config.json from the original model into {entry.path}."))
        else:
            out.append(Finding.passed(f"weight path {entry.path} holds config.json"))
    return out
