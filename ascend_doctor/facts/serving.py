"""Facts for serving: the serving configuration, listening sockets, and the model to plan for.

* ``serving_config`` - ``--config FILE`` (read through the host) or ``--vllm-args "..."``, parsed
  by ``ascend_doctor.parsers.serving_config`` into one ``ServingConfig``. A file that cannot be read or
  parsed is not an exception: the record carries ``error`` and ASC-CFG-001 reports it.
* ``serving_weight_dirs`` - whether each weight path of the configuration is a model directory.
* ``listening_sockets`` - what is listening on this host (for "port already in use").
* ``plan_model`` - the architecture (and, when the weights are there, the safetensors tally) of
  ``--model``, or of the serving configuration's weight path, for the memory-fit checks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

from msgspec import structs

from ascend_doctor import boundedjson
from ascend_doctor.facts import Facts, FactUnavailable, UnknownFact, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.serving import PlanModel, WeightDir
from ascend_doctor.host.base import FileMissing, FileTooLarge, Host, HostFileError, ListeningSocket
from ascend_doctor.i18n import N_
from ascend_doctor.i18n import gettext as _
from ascend_doctor.i18n_text import Text

if TYPE_CHECKING:
    # Imported where used: other facts ask for serving_config on every run (ASC-CFG-011), and without
    # --config or --model none of the parsing and planning code is needed (start-up).
    from ascend_doctor.model.plan import WeightTally
    from ascend_doctor.parsers.serving_config import ServingConfig

MAX_MODEL_CONFIG_BYTES = 4 * 1024 * 1024

KIND_BUILTIN = "built-in"
KIND_DIRECTORY = "directory"
KIND_CONFIG = "config.json"


def looks_like_hub_id(path: str) -> bool:
    """``deepseek-ai/DeepSeek-R1``: one slash, not absolute or relative - downloaded at start."""
    return not path.startswith((".", "/", "~")) and path.count("/") == 1


def tally_from_model_facts(model_facts: Any, num_hidden_layers: int) -> Optional[WeightTally]:
    """Sum the safetensors headers an inspection read; None unless every header was readable."""
    from ascend_doctor.model.plan import TensorEntry, tally_tensors

    headers = getattr(model_facts, "headers", None) or {}
    if not headers or any(getattr(h, "error", None) for h in headers.values()):
        return None
    entries = [
        TensorEntry(t.name, str(t.dtype).upper(), int(t.end - t.begin))
        for h in headers.values()
        for t in getattr(h, "tensors", {}).values()
    ]
    if not entries:
        return None
    return tally_tensors(entries, num_hidden_layers, file_count=len(headers),
                         quant_type=getattr(model_facts, "description_quant_type", None))


def incomplete_weights_reason(model_facts: Any) -> Optional[str]:
    """Why the headers read are not the whole checkpoint: shards or tensors that the index or the
    quantization description names are absent, or a download is unfinished. None when complete."""
    from ascend_doctor.model import records as R

    # Inspection problems that mean the directory holds only part of the checkpoint.
    incomplete = (R.SHARD_MISSING, R.SHARD_SERIES_GAP, R.TENSOR_MISSING, R.PARTIAL_DOWNLOAD)
    problems = [p for p in getattr(model_facts, "problems", None) or () if getattr(p, "code", None)
                in incomplete]
    if not problems:
        return None
    present = len(getattr(model_facts, "weight_files", ()) or ())
    missing = [p for p in problems if p.code == R.SHARD_MISSING]
    if missing:
        return Text(N_("{count} shard(s) named by the index are missing (e.g. {path}) and only {present} "
                       "safetensors file(s) are here"), count=len(missing), path=missing[0].path, present=present)
    gap = next((p for p in problems if p.code == R.SHARD_SERIES_GAP), None)
    if gap is not None:
        return Text(N_("the numbered shards have gaps: {problem}"), problem=gap.message)
    tensors = next((p for p in problems if p.code == R.TENSOR_MISSING), None)
    if tensors is not None:
        return Text(N_("tensors named by the index or the quantization description are absent ({problem})"),
                    problem=tensors.message)
    return Text(N_("a download is unfinished ({problem})"), problem=problems[0].message)


def _unreadable_headers_reason(model_facts: Any) -> Optional[str]:
    headers = getattr(model_facts, "headers", None) or {}
    bad = sorted(rel for rel, h in headers.items() if getattr(h, "error", None))
    if not bad:
        return None
    return Text(N_("{bad} of {count} safetensors header(s) cannot be read (e.g. {file}: {error})"),
                bad=len(bad), count=len(headers), file=bad[0], error=getattr(headers[bad[0]], "error", ""))


def _from_config_dict(ref: str, kind: str, cfg: Any, tally_source: Any = None) -> PlanModel:
    from ascend_doctor.model.arch import ArchError, arch_from_hf_config
    from ascend_doctor.model.plan import tally_shortfall

    try:
        arch = arch_from_hf_config(cfg, name=ref.rstrip("/").rsplit("/", 1)[-1] or ref)
    except ArchError as exc:
        return PlanModel(ref, kind, error=Text(N_("{path}: {error}"), path=ref, error=_text(exc)))
    tally = tally_from_model_facts(tally_source, arch.num_hidden_layers) if tally_source is not None else None
    notes: List[str] = []
    reason: Optional[str] = None
    header_precision: Optional[str] = None
    if tally_source is not None:
        # A partial checkpoint must not be sized from the part that is there (it would "fit").
        reason = incomplete_weights_reason(tally_source)
        if reason is None and tally is None:
            reason = _unreadable_headers_reason(tally_source)
        if reason is None and tally is not None:
            reason = tally_shortfall(tally, arch)
    if tally is not None and reason is not None:
        header_precision, tally = tally.detected_precision, None
    if reason is not None:
        notes.append(Text(N_("weights computed from the architecture, not the safetensors headers: {reason}"),
                          reason=reason))
    elif kind == KIND_DIRECTORY and tally is None:
        notes.append(Text(N_("no safetensors headers to count: weights computed from the architecture")))
    torch_dtype = cfg.get("torch_dtype") if isinstance(cfg.get("torch_dtype"), str) else None
    return PlanModel(ref, kind, arch, tally, notes=tuple(notes), torch_dtype=torch_dtype, weights_reason=reason,
                     header_precision=header_precision)


def _inspect_dir(host: Host, path: str) -> Any:
    from ascend_doctor.model.inspect import inspect_model_dir

    return inspect_model_dir(host, path)


def load_plan_model(host: Host, ref: str, model_facts: Any = None) -> PlanModel:
    """Resolve ``ref``: a model directory, a ``config.json`` file, or a built-in model name.

    ``model_facts`` is an inspection already made of the same directory (the ``model`` fact),
    reused instead of reading the headers again. Never raises for bad input: ``error`` says why.
    """
    ref = (ref or "").strip()
    if not ref:
        return PlanModel(ref, error=Text(N_("no model given")))
    try:
        is_dir, exists = host.is_dir(ref), host.exists(ref)
    except HostFileError as exc:
        return PlanModel(ref, error=Text(N_("{path}: {error}"), path=ref, error=exc.message))
    if is_dir:
        inspected = model_facts
        if inspected is None or getattr(inspected, "path", None) != ref:
            try:
                inspected = _inspect_dir(host, ref)
            except Exception as exc:  # an inspection bug must not hide the plan: fall back to config.json
                inspected = None
                note = Text(N_("model inspection failed ({error}); reading config.json only"),
                            error=f"{type(exc).__name__}: {exc}")
                plan_model = _read_config_file(host, ref.rstrip("/") + "/config.json", ref, KIND_DIRECTORY)
                return structs.replace(plan_model, notes=plan_model.notes + (note,))
        cfg = getattr(inspected, "config", None)
        if not isinstance(cfg, dict):
            why = getattr(inspected, "config_error", None) or Text(N_("no readable config.json"))
            return PlanModel(ref, KIND_DIRECTORY, error=Text(N_("{path}: {error}"), path=ref, error=why))
        return _from_config_dict(ref, KIND_DIRECTORY, cfg, inspected)
    if exists:
        return _read_config_file(host, ref, ref, KIND_CONFIG)
    from ascend_doctor.model.families import family_names, find_family

    family = find_family(ref)
    if family is not None:
        return PlanModel(ref, KIND_BUILTIN, family.arch(), family=family, notes=(
            Text(N_("architecture from built-in data ({source})"), source=family.sources[0]),), torch_dtype=str(
            family.config.get("torch_dtype") or "") or None)
    return PlanModel(ref, error=Text(N_("{name} is not a model directory, a config.json, or a built-in model "
                                        "(built-in: {names})"), name=repr(ref), names=", ".join(family_names())))


def _text(exc: BaseException) -> str:
    """An exception's message, its ``Text`` kept (so that it can still be shown translated)."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Text):
        return exc.args[0]
    return str(exc)


def _read_config_file(host: Host, path: str, ref: str, kind: str) -> PlanModel:
    try:
        text = host.read_text(path, MAX_MODEL_CONFIG_BYTES)
    except HostFileError as exc:
        return PlanModel(ref, kind, error=Text(N_("{path}: {error}"), path=path, error=exc.message))
    except (OSError, UnicodeDecodeError) as exc:
        return PlanModel(ref, kind, error=Text(N_("{path}: cannot be read ({error})"), path=path, error=str(exc)))
    try:
        cfg = boundedjson.loads(text, what="config.json")
    except ValueError as exc:
        return PlanModel(ref, kind, error=Text(N_("{path}: invalid JSON ({error})"), path=path, error=str(exc)))
    if not isinstance(cfg, dict):
        return PlanModel(ref, kind, error=Text(N_("{path}: not a JSON object"), path=path))
    return _from_config_dict(ref, kind, cfg)


# -- providers ------------------------------------------------------------------------------


def _read_text(host: Host, path: str) -> str:
    """Through the host; for a snapshot that lacks the file, the doctor's own machine (the
    configuration is an input of this run, like a manifest given with --verify)."""
    from ascend_doctor import safeio
    from ascend_doctor.parsers.serving_config import MAX_CONFIG_BYTES


    if host.info().source == "live" and safeio.on_pseudo_fs(path):
        # /proc/kmsg "is" a regular file, and reading it consumes the kernel log.
        raise HostFileError(path, "is a kernel interface under /proc or /sys, not a configuration file; refused")
    try:
        return host.read_text(path, MAX_CONFIG_BYTES)
    except FileMissing:
        if host.info().source != "snapshot":
            raise
    from ascend_doctor.model.files import LocalFiles

    return LocalFiles().read_bytes(path, MAX_CONFIG_BYTES).decode("utf-8")


def read_serving_config(host: Host, path: str) -> ServingConfig:
    """Read and parse a configuration file through the host; problems become ``error``."""
    from ascend_doctor.parsers.serving_config import MAX_CONFIG_BYTES, failed_config, parse_serving_text

    try:
        text = _read_text(host, path)
    except FileTooLarge:
        return failed_config(path, f"{path} is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MB: refused (MindIE "
                                   "refuses such files too)")
    except HostFileError as exc:
        return failed_config(path, f"{path}: {exc.message}")
    except UnicodeDecodeError:
        return failed_config(path, f"{path}: not UTF-8 text")
    except OSError as exc:
        return failed_config(path, f"{path}: cannot be read ({exc.strerror or exc})")
    return parse_serving_text(text, path)


@provider("serving_config", reads=Reads(files=("{config}",), host=("info",)))
def serving_config(facts: Facts) -> ServingConfig:
    """``--config FILE`` (read through the host), else ``--vllm-args``."""
    options = facts.options
    if options.serving_config:
        config = read_serving_config(facts.host, options.serving_config)
        if options.vllm_args:
            config = structs.replace(config, notes=config.notes + (
                "--vllm-args was also given; only --config is linted",))
        return config
    if options.vllm_args:
        from ascend_doctor.parsers.serving_config import parse_vllm_args

        return parse_vllm_args(options.vllm_args)
    raise FactUnavailable(_('no serving configuration given (use --config FILE or --vllm-args "...")'))


@provider("serving_weight_dirs", reads=Reads(files=("{model}", "{model}/**"), listings=("{model}", "{model}/**")))
def serving_weight_dirs(facts: Facts) -> List[WeightDir]:
    """Whether each weight path of the serving configuration is a directory with config.json."""
    config = facts.serving_config
    out: List[WeightDir] = []
    for model in config.models:
        path = model.weight_path
        if not path or (config.is_vllm and looks_like_hub_id(path) and not facts.host.exists(path)):
            continue
        try:
            exists, is_dir = facts.host.exists(path), facts.host.is_dir(path)
            has_config = is_dir and facts.host.exists(path.rstrip("/") + "/config.json")
        except HostFileError as exc:
            out.append(WeightDir(path, True, False, False, exc.message))
            continue
        except OSError as exc:
            out.append(WeightDir(path, True, False, False, exc.strerror or str(exc)))
            continue
        out.append(WeightDir(path, exists, is_dir, has_config))
    return out


@provider("listening_sockets", reads=Reads(host=("listening",)))
def listening_sockets(facts: Facts) -> List[ListeningSocket]:
    sockets = facts.host.listening_sockets()
    if sockets is None:
        raise FactUnavailable(_("the listening sockets of this host are not known (no permission, or a snapshot "
                                "without them)"))
    return list(sockets)


@provider("plan_model", reads=Reads(files=("{model}", "{model}/**"), listings=("{model}", "{model}/**")))
def plan_model(facts: Facts) -> PlanModel:
    """The model to plan memory for: ``--model``, else the serving configuration's weight path."""
    ref = facts.options.model_dir
    inspected = None
    if ref:
        try:
            inspected = facts.maybe(Facts.model)
        except UnknownFact:  # the model fact is optional here
            inspected = None
    else:
        config = facts.maybe(Facts.serving_config)
        paths = [m.weight_path for m in getattr(config, "models", ()) if getattr(m, "weight_path", None)]
        if not paths:
            raise FactUnavailable(_("no model given (--model) and no weight path in the serving configuration"))
        ref = paths[0]
    return load_plan_model(facts.host, ref, inspected)
