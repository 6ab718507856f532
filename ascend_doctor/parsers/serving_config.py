"""Serving configurations, text -> one typed ``ServingConfig`` record (pure, bounded, never raises).

Three inputs are understood:

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

A file that cannot be read as any of them gives a record with ``error`` set; a value of the wrong
type, negative or zero is listed in ``problems`` (ASC-CFG-001 grades both). JSON goes through
``ascend_doctor.boundedjson`` and YAML through ``ascend_doctor.boundedyaml``, so a deep or
alias-heavy document is refused before it is built. The checks ``checks/cfg_*.py`` judge the record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from msgspec import Struct

from ascend_doctor import boundedjson
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text

if TYPE_CHECKING:
    import yaml

KIND_MINDIE = "mindie"
KIND_SIMPLE = "simple"
KIND_VLLM = "vllm"

MAX_CONFIG_BYTES = 10 * 1024 * 1024  # MindIE itself refuses config files over 10 MB
MAX_YAML_ALIASES = 100  # anchors/aliases beyond this look like an expansion bomb: refused
MAX_YAML_EXPANDED_NODES = 100_000  # a serving config is a few hundred nodes, aliases expanded

# MindIE documented defaults (service_parameter_configuration.md), used when a key is absent.
MINDIE_DEFAULT_PORTS = (("port", 1025), ("managementPort", 1026), ("metricsPort", 1027))
VLLM_DEFAULT_PORT = 8000


class ServingConfigError(ValueError):
    """The input cannot be read as any serving configuration; the message says why."""


class ServingModel(Struct, frozen=True):
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
    # vLLM-Ascend --additional-config torchair_graph_config.enabled (TorchAir graph mode); None: not set
    torchair_graph: Optional[bool] = None
    where: str = ""  # how to name it in messages ("ModelConfig[0]")

    @property
    def parallel_world(self) -> Optional[int]:
        """Cards implied by the parallel sizes (None when not derivable)."""
        if self.tp and self.dp:
            return self.tp * self.dp * (self.pp or 1)
        if self.moe_ep and self.moe_tp:
            return self.moe_ep * self.moe_tp
        return None


class ServingConfig(Struct, frozen=True):
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
    def is_mindie(self) -> bool:
        return self.kind == KIND_MINDIE

    @property
    def is_simple(self) -> bool:
        """The seed's simplified ``models:`` list."""
        return self.kind == KIND_SIMPLE

    @property
    def is_vllm(self) -> bool:
        return self.kind == KIND_VLLM

    @property
    def label(self) -> str:
        return Text({KIND_MINDIE: N_("MindIE config {source}"), KIND_SIMPLE: N_("models: config {source}"),
                     KIND_VLLM: N_("vLLM launch {source}")}.get(self.kind, N_("serving config {source}")),
                    source=self.source)


def failed_config(source: str, error: str, kind: str = "unknown") -> ServingConfig:
    return ServingConfig(kind=kind, source=source, error=error)


def _reason(exc: Exception) -> str:
    """An exception's message, keeping a ``Text`` (its template) where ``str()`` would drop it."""
    return exc.args[0] if len(exc.args) == 1 and isinstance(exc.args[0], Text) else str(exc)


# -- value readers (collect problems instead of raising) -----------------------------------------
# Problems and errors are ``Text``: English data, shown in the run's language by the ASC-CFG checks.


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
            self.problems.append(Text(N_("{setting} must be an integer, got {value}"), setting=where + key,
                                      value=repr(value)))
            return None
        try:
            number = int(value) if not isinstance(value, float) or value.is_integer() else None
        except ValueError:
            number = None
        if number is None:
            self.problems.append(Text(N_("{setting} must be an integer, got {value}"), setting=where + key,
                                      value=repr(value)))
            return None
        if auto is not None and number == auto:
            return None
        if number < minimum:
            self.problems.append(Text(N_("{setting} must be >= {minimum}, got {value}"), setting=where + key,
                                      minimum=minimum, value=number))
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
        self.problems.append(Text(N_("{setting} must be true or false, got {value}"), setting=where + key,
                                  value=repr(value)))
        return None

    def str_(self, data: Mapping[str, Any], key: str, where: str) -> Optional[str]:
        if key not in data or data[key] is None:
            return None
        value = data[key]
        if not isinstance(value, str):
            self.problems.append(Text(N_("{setting} must be a string, got {value}"), setting=where + key,
                                      value=repr(value)))
            return None
        return value

    def float_(self, value: Any, where: str, lo: float, hi: float) -> Optional[float]:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.problems.append(Text(N_("{setting} must be a number, got {value}"), setting=where, value=repr(value)))
            return None
        if not lo < number <= hi:
            self.problems.append(Text(N_("{setting} must be in ({low}, {high}], got {value}"), setting=where,
                                      low=f"{lo:g}", high=f"{hi:g}", value=f"{number:g}"))
            return None
        return number

    def section(self, data: Mapping[str, Any], key: str, where: str) -> Dict[str, Any]:
        value = data.get(key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.problems.append(Text(N_("{setting} must be an object, got {type}"), setting=where + key,
                                      type=type(value).__name__))
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
        raise ServingConfigError(_reason(exc)) from None


def load_document(text: str, source: str) -> Any:
    """Parse JSON, or YAML (``.yaml``/``.yml`` files, and text that is not JSON); errors are clear."""
    if len(text) > MAX_CONFIG_BYTES:
        raise ServingConfigError(Text(N_("{source} is larger than {size} MB: refused"), source=source,
                                      size=MAX_CONFIG_BYTES // (1024 * 1024)))
    text = text.lstrip("\ufeff")
    if not text.strip():
        raise ServingConfigError(Text(N_("{source} is empty"), source=source))
    is_yaml_name = source.lower().endswith((".yaml", ".yml"))
    looks_json = text.lstrip()[:1] in ("{", "[")
    json_error: Optional[str] = None
    if looks_json or not is_yaml_name:
        try:
            return boundedjson.loads(text, what="JSON", max_chars=MAX_CONFIG_BYTES)
        except boundedjson.TooComplex as exc:
            raise ServingConfigError(Text("{source}: {error}", source=source, error=_reason(exc))) from None
        except ValueError as exc:
            if looks_json:
                raise ServingConfigError(Text(N_("{source}: invalid JSON: {error}"), source=source,
                                              error=str(exc))) from None
            json_error = str(exc)
    import yaml  # on use: a JSON config.json or a launch line never needs it

    try:
        return _yaml_load(text)
    except ServingConfigError as exc:
        raise ServingConfigError(Text("{source}: {error}", source=source, error=_reason(exc))) from None
    except RecursionError:
        raise ServingConfigError(Text(N_("{source}: invalid YAML: nested too deeply"), source=source)) from None
    except yaml.YAMLError as exc:
        if json_error is not None:
            raise ServingConfigError(Text(N_("{source}: invalid JSON: {error} (and not YAML either)"), source=source,
                                          error=json_error)) from None
        raise ServingConfigError(Text(N_("{source}: invalid YAML: {error}"), source=source,
                                      error=_yaml_problem(exc))) from None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None)
    mark = getattr(exc, "problem_mark", None)
    if problem and mark is not None:
        return Text(N_("{problem} at line {line}, column {column}"), problem=problem, line=mark.line + 1,
                    column=mark.column + 1)
    return str(problem or exc).strip().splitlines()[0] if str(problem or exc).strip() else type(exc).__name__


def parse_serving_text(text: str, source: str) -> ServingConfig:
    """Any supported configuration file; never raises (``error`` set instead)."""
    try:
        data = load_document(text, source)
    except ServingConfigError as exc:
        return failed_config(source, _reason(exc))
    return parse_serving_document(data, source)


def parse_serving_document(data: Any, source: str) -> ServingConfig:
    if not isinstance(data, dict):
        return failed_config(source, Text(N_("{source}: top level must be an object, got {type}"), source=source,
                                          type=type(data).__name__))
    if "BackendConfig" in data or "ServerConfig" in data:
        return parse_mindie(data, source)
    if "models" in data:
        return parse_simple(data, source)
    if any(str(key).replace("_", "-") in VLLM_YAML_KEYS for key in data):
        return parse_vllm_mapping(data, source)
    return failed_config(source, Text(N_("{source}: not a MindIE config.json (no BackendConfig/ServerConfig), a "
                                         "`models:` list, or a vLLM config (no model/tensor-parallel-size)"),
                                      source=source))


# -- MindIE -------------------------------------------------------------------------------------


def _device_ids(value: Any, reader: _Reader) -> Tuple[Tuple[int, ...], ...]:
    where = "BackendConfig.npuDeviceIds"
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(group, list) for group in value):
        reader.problems.append(Text(N_("{setting} must be a list of lists of NPU ids, e.g. [[0,1,2,3]], got "
                                       "{value}"), setting=where, value=repr(value)))
        return ()
    groups = []
    for group in value:
        ids = []
        for item in group:
            if isinstance(item, bool) or not isinstance(item, int) or item < 0:
                reader.problems.append(Text(N_("{setting} holds {value}: ids are non-negative integers"),
                                            setting=where, value=repr(item)))
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
        r.problems.append(Text(N_("BackendConfig.ModelDeployConfig.ModelConfig must be a list of models")))
        raw_models = []
    for index, item in enumerate(raw_models or []):
        where = f"ModelConfig[{index}]."
        if not isinstance(item, dict):
            r.problems.append(Text(N_("{setting} must be an object"), setting=where[:-1]))
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
                r.problems.append(Text(N_("{setting} must be a TCP port, got {value}"), setting=f"ServerConfig.{key}",
                                       value=value))
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
        return failed_config(source, Text(N_("{source}: `models` must be a non-empty list"), source=source),
                             KIND_SIMPLE)
    models = []
    for index, item in enumerate(raw):
        where = f"models[{index}]."
        if not isinstance(item, dict):
            r.problems.append(Text(N_("{setting} must be an object"), setting=where[:-1]))
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
    "--additional-config": "additional_config",
}
VLLM_YAML_KEYS = {opt.lstrip("-") for opt in VLLM_VALUE_OPTIONS if opt.startswith("--")} | {
    "enable-expert-parallel"}
VLLM_FLAG_PREFIXES = ("--enable-", "--disable-", "--no-")
VLLM_FLAGS = {"--trust-remote-code", "--enforce-eager", "--headless", "--skip-tokenizer-init", "--help", "-h"}
VLLM_MULTI_NODE = ("--headless", "--data-parallel-address", "--data-parallel-size-local", "--data-parallel-start-rank",
                   "--nnodes", "--node-rank")
VLLM_MULTI_NODE_BACKENDS = ("ray",)


def _split_command(cmdline: str) -> List[str]:
    import shlex  # here: only a vLLM command line is split

    cleaned = cmdline.replace("\\\r\n", " ").replace("\\\n", " ")
    try:
        tokens = shlex.split(cleaned, comments=False, posix=True)
    except ValueError as exc:
        raise ServingConfigError(Text(N_("cannot split the vLLM command line: {error}"), error=str(exc))) from None
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
        return failed_config(source, Text(N_("the vLLM command line is empty")), KIND_VLLM)
    try:
        tokens = _split_command(cmdline)
    except ServingConfigError as exc:
        return failed_config(source, _reason(exc), KIND_VLLM)
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
        r.problems.append(Text(N_("{setting} must be a TCP port, got {value}"), setting="--port", value=port))
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
        torchair_graph=torchair_graph(mapping.get("additional_config")),
        where=where.strip(),
    )
    if model.weight_path is None:
        r.problems.append(Text(N_("no model: give it as the first argument of `vllm serve` or with --model")))
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


def torchair_graph(additional_config: Any) -> Optional[bool]:
    """``torchair_graph_config.enabled`` of vLLM-Ascend's --additional-config (a JSON text on a command line, a
    mapping in a YAML config), None when it is not given or not readable."""
    value = additional_config
    if isinstance(value, str):
        try:
            value = boundedjson.loads(value, what="--additional-config", max_chars=64 * 1024)
        except (boundedjson.TooComplex, ValueError):
            return None
    section = value.get("torchair_graph_config") if isinstance(value, dict) else None
    enabled = section.get("enabled") if isinstance(section, dict) else None
    return enabled if isinstance(enabled, bool) else None
