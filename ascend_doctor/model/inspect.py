"""Inspect a model directory: read what is cheap to read, judge it, return ``ModelFacts``.

Reads: the directory listing (bounded), ``config.json``, ``*.safetensors.index.json``,
``quant_model_description*.json``, ``modeling_*.py``, the first bytes of small files (Git LFS
pointers) and each safetensors header (8 + N bytes). Never tensor data, so a 700 GB model or a
100 GB sparse file is inspected in about the time it takes to open its files.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, List, Optional, Set, Tuple

from msgspec import Struct, structs

from ascend_doctor import boundedjson
from ascend_doctor.host.base import FileTooLarge, HostFileError
from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.lazy import lazy_re
from ascend_doctor.model import integrity
from ascend_doctor.model import records as R
from ascend_doctor.model.files import DEFAULT_MAX_DEPTH, DEFAULT_MAX_ENTRIES, FileSource, join, walk_model_dir
from ascend_doctor.model.provenance import DESCRIPTION_RE, classify
from ascend_doctor.model.quant_features import declared_attention_quant
from ascend_doctor.model.records import ModelFacts
from ascend_doctor.model.safetensors import MAX_LFS_POINTER_BYTES, SafetensorsHeader, is_lfs_pointer, read_header

__all__ = ["InspectLimits", "ModelFacts", "inspect_model_dir"]

PICKLE_WEIGHT_RE = lazy_re(r"^(pytorch_model.*\.bin|.*\.pth?)$")
MODELING_RE = lazy_re(r"^modeling_[\w.-]*\.py$")


class InspectLimits(Struct, frozen=True):
    max_entries: int = DEFAULT_MAX_ENTRIES
    max_depth: int = DEFAULT_MAX_DEPTH
    max_json_bytes: int = 64 * 1024 * 1024  # a 671B model's index / description is ~10 MB
    max_code_bytes: int = 4 * 1024 * 1024
    max_small_files: int = 2000  # small files opened to look for Git LFS pointers
    header_workers: int = 8  # headers are read concurrently: network filesystems have latency


class _DuplicateKeys:
    """``object_pairs_hook`` that remembers keys seen twice in one object (last one wins, as in
    Python's json, which transformers, vLLM and MindIE read config.json with)."""

    def __init__(self) -> None:
        self.duplicates: List[str] = []
        # Every value of a duplicated key, in file order. The hook runs innermost object first, so
        # the top-level object's values win over a nested object's under the same key.
        self.values: Dict[str, List[Any]] = {}

    def __call__(self, pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
        seen: Set[str] = set()
        repeated: Set[str] = set()
        for key, _ in pairs:
            if key in seen:
                repeated.add(key)
                if key not in self.duplicates:
                    self.duplicates.append(key)
            seen.add(key)
        for key in repeated:
            self.values[key] = [value for name, value in pairs if name == key]
        return dict(pairs)


def load_json(src: FileSource, path: str, max_bytes: int) -> Tuple[Any, Optional[str], List[str]]:
    """(document, error, duplicate keys). Errors are messages (``Text``), never exceptions."""
    doc, error, hook = _load_json(src, path, max_bytes)
    return doc, error, hook.duplicates


def _load_json(src: FileSource, path: str, max_bytes: int) -> Tuple[Any, Optional[str], _DuplicateKeys]:
    """``load_json`` with the duplicate keys' values too (config.json reports them)."""
    hook = _DuplicateKeys()
    try:
        raw = src.read_bytes(path, max_bytes)
    except FileTooLarge:
        return None, Text(N_("larger than {size} MiB: refused"), size=max_bytes // (1024 * 1024)), hook
    except HostFileError as exc:
        return None, exc.message, hook
    except OSError as exc:
        return None, exc.strerror or str(exc), hook
    if is_lfs_pointer(raw):
        return None, Text(N_("Git LFS pointer file, not the JSON (run `git lfs pull`)")), hook
    try:
        text = raw.decode("utf-8-sig")
        doc = boundedjson.loads(text, what="the JSON", max_chars=max_bytes, object_pairs_hook=hook)
    except UnicodeDecodeError as exc:
        return None, Text(N_("not UTF-8 text (byte {byte})"), byte=exc.start), hook
    except boundedjson.TooComplex as exc:
        return None, str(exc), hook
    except ValueError as exc:  # JSONDecodeError says where
        return None, Text(N_("invalid JSON: {error}"), error=str(exc)), hook
    except RecursionError:
        return None, Text(N_("invalid JSON: nested too deeply")), hook
    return doc, None, hook


_DEFAULT_LIMITS = InspectLimits()


def inspect_model_dir(src: FileSource, path: str, limits: InspectLimits = _DEFAULT_LIMITS) -> ModelFacts:
    facts = ModelFacts(path=path)
    listing = walk_model_dir(src, path, limits.max_entries, limits.max_depth)
    facts.exists, facts.is_dir = listing.exists, listing.is_dir
    if not listing.exists:
        facts.add(R.NOT_FOUND, R.ERROR, Text(N_("{path} does not exist"), path=path))
        facts.provenance = R.Provenance(R.NONE, Text(N_("no model: the path does not exist")))
        return facts
    if not listing.is_dir:
        integrity.walk_problems(listing, facts)
        if not facts.problems:
            facts.add(R.NOT_A_DIRECTORY, R.ERROR, Text(N_("{path} is a file; give the directory that holds "
                                                          "config.json and the weights"), path=path))
        facts.provenance = R.Provenance(R.NONE, Text(N_("no model: not a directory")))
        return facts

    integrity.walk_problems(listing, facts)
    model_files = listing.model_files()
    facts.files = [(e.rel, e.size) for e in model_files]
    facts.file_count = len(model_files)
    facts.total_bytes = sum(e.size for e in model_files)
    root_names = [e.rel for e in model_files if "/" not in e.rel]
    integrity.partial_downloads(listing, facts)

    weight_files = sorted(n for n in root_names if n.endswith(".safetensors"))
    facts.weight_files = tuple(weight_files)
    facts.pickle_weight_files = tuple(sorted(n for n in root_names if PICKLE_WEIGHT_RE.match(n)))

    _scan_lfs_pointers(src, path, model_files, limits, facts)
    config = _load_config(src, path, root_names, limits, facts)

    # -- indexes and shards ---------------------------------------------------------------------
    index_names = sorted(n for n in root_names if n.endswith(".safetensors.index.json"))
    facts.index_files = tuple(index_names)
    named: Set[str] = set()
    weight_maps: List[Tuple[str, Dict[str, str]]] = []
    for name in index_names:
        doc, error, _ = load_json(src, join(path, name), limits.max_json_bytes)
        if error:
            facts.add(R.INDEX_INVALID, R.ERROR, Text("{file}: {error}", file=name, error=error), name)
            continue
        shards, weight_map = integrity.check_index(name, doc, weight_files, facts)
        named |= shards
        weight_maps.append((name, weight_map))
    integrity.extra_shards(weight_files, named, index_names, facts)
    integrity.shard_series(weight_files, named, facts)

    # -- headers ----------------------------------------------------------------------------------
    sizes = {e.rel: e.size for e in model_files}
    facts.headers = _read_headers(src, path, weight_files, sizes, limits)
    integrity.header_problems(facts.headers, facts)
    for header in facts.headers.values():
        facts.tensor_count += len(header.tensors)
        for dtype, count in header.params_by_dtype().items():
            facts.params_by_dtype[dtype] = facts.params_by_dtype.get(dtype, 0) + count
        for dtype, count in header.bytes_by_dtype().items():
            facts.bytes_by_dtype[dtype] = facts.bytes_by_dtype.get(dtype, 0) + count
    for index_name, weight_map in weight_maps:
        integrity.tensors_vs_index(weight_map, facts.headers, index_name, facts)

    # -- msmodelslim description --------------------------------------------------------------
    descriptions = sorted(n for n in root_names if DESCRIPTION_RE.match(n))
    facts.description_files = tuple(descriptions)
    if descriptions:
        main = "quant_model_description.json" if "quant_model_description.json" in descriptions else descriptions[0]
        doc, error, _ = load_json(src, join(path, main), limits.max_json_bytes)
        if error or not isinstance(doc, dict):
            facts.add(R.DESCRIPTION_INVALID, R.ERROR, Text("{file}: {error}", file=main,
                                                           error=error or Text(N_("not a JSON object"))), main)
        else:
            quant_type = doc.get("model_quant_type")
            facts.description_quant_type = quant_type.upper() if isinstance(quant_type, str) else None
            integrity.tensors_vs_description(doc, main, facts.headers, facts)
            facts.attention_quant = declared_attention_quant(doc, main)
    qc = config.get("quantization_config") if config else None
    if isinstance(qc, dict):
        known = {a.kind for a in facts.attention_quant}
        facts.attention_quant += tuple(a for a in declared_attention_quant(qc, "config.json quantization_config")
                                       if a.kind not in known)

    facts.modeling = integrity.scan_modeling(_read_modeling(src, path, root_names, limits))

    provenance, extra = classify(config, descriptions, facts.description_quant_type, weight_files,
                                 facts.pickle_weight_files, facts.headers, config_note=_config_note(root_names, facts),
                                 duplicated_keys=tuple(facts.config_duplicates))
    facts.provenance = provenance
    facts.problems.extend(extra)
    facts.tokenizer_files = integrity.tokenizer(root_names, facts if provenance.kind != R.NONE else None)
    _explain_missing_tokenizer(facts)
    if "config.json" not in root_names and provenance.kind != R.NONE:
        facts.add(R.CONFIG_MISSING, R.ERROR, _config_missing_message(facts), "config.json")
    if provenance.kind == R.NONE:
        facts.add(R.NO_MODEL, R.ERROR, _no_model_message(path, root_names, facts))
    elif facts.pickle_weight_files and not weight_files:
        facts.add(R.PICKLE_WEIGHTS, R.WARNING, Text(N_("weights are PyTorch pickle files: their integrity and dtypes "
                                                       "cannot be checked without loading them (prefer safetensors)")),
                  facts.pickle_weight_files[0])
    return facts


def _config_missing_message(facts: ModelFacts) -> str:
    """Why config.json is not among the readable files: absent, a broken link, a loop, denied."""
    problem = facts.walk_problem("config.json")
    if problem is None:
        return Text(N_("config.json is missing"))
    if problem.code == R.SYMLINK_BROKEN:
        if problem.target:
            return Text(N_("config.json is a broken link to {target} (the file it points to does not exist)"),
                        target=problem.target)
        return Text(N_("config.json is a broken link (the file it points to does not exist)"))
    if problem.code == R.SYMLINK_LOOP:
        return Text(N_("config.json is a symlink loop: it never reaches a file"))
    # The walk's own reason, without its "config.json: " prefix (the Text's field when it has one).
    reason = problem.message.fields.get("issue") if isinstance(problem.message, Text) else None
    return Text(N_("config.json cannot be read: {error}"),
                error=reason if isinstance(reason, str) else problem.message.split(": ", 1)[-1])


def _config_note(root_names: List[str], facts: ModelFacts) -> str:
    """What provenance evidence says when there is no parsed config.json."""
    if facts.config_error is not None:
        return Text(N_("config.json could not be read, so its quantization_config is unknown"))
    if "config.json" not in root_names:
        return _config_missing_message(facts)
    return Text(N_("config.json could not be read"))


# Names that would make a directory a model, were they readable.
_MODEL_NAME_RE = lazy_re(r"^(config\.json|.*\.safetensors|pytorch_model.*\.bin|.*\.pth?)$")


def _no_model_message(path: str, root_names: List[str], facts: ModelFacts) -> str:
    """Say why nothing here is a model, naming the broken links that would have been one."""
    bad = [p for p in facts.problems if p.code in (R.SYMLINK_BROKEN, R.SYMLINK_LOOP, R.UNREADABLE)
           and p.path and "/" not in p.path]
    would_be_model = [p.path for p in bad if p.path and _MODEL_NAME_RE.match(p.path)]
    if would_be_model:
        links = sum(1 for p in bad if p.code != R.UNREADABLE)
        one = len(bad) == 1
        rest = (Text(N_(", {count} other file(s) are readable"), count=len(root_names)) if root_names
                else Text(N_(" and no other file is there")))
        if links == len(bad):
            state = N_("is a broken symbolic link") if one else N_("are broken symbolic links")
        elif links == 0:
            state = N_("is unreadable") if one else N_("are unreadable")
        else:
            state = N_("are broken links or unreadable")
        return Text(N_("{path} holds no readable model: {names} {state}{rest}; see ASC-MDL-017"), path=path,
                    names=integrity.examples(p.path or "" for p in bad), state=Text(state), rest=rest)
    if facts.config_error is not None:
        return Text(N_("{path} holds no model: config.json could not be read ({error}) and there are no "
                       "*.safetensors or pytorch_model*.bin weights"), path=path, error=facts.config_error)
    return Text(N_("{path} holds no model: no config.json and no *.safetensors or pytorch_model*.bin weights "
                   "({count} other file(s))"), path=path, count=len(root_names))


def _explain_missing_tokenizer(facts: ModelFacts) -> None:
    """A tokenizer that is there as a broken link is not "missing": say what it is."""
    bad = [p.path for p in facts.problems
           if p.code in (R.SYMLINK_BROKEN, R.SYMLINK_LOOP, R.UNREADABLE) and p.path
           and (p.path in integrity.TOKENIZER_FILES or p.path.endswith(".tiktoken"))]
    if not bad:
        return
    for i, problem in enumerate(facts.problems):
        if problem.code == R.TOKENIZER_MISSING:
            template = (N_("no readable tokenizer file: {names} is there but cannot be read (broken link or no "
                           "permission; see ASC-MDL-017)") if len(bad) == 1 else
                        N_("no readable tokenizer file: {names} are there but cannot be read (broken link or no "
                           "permission; see ASC-MDL-017)"))
            facts.problems[i] = structs.replace(problem, message=Text(template, names=integrity.examples(bad)))


def _load_config(src: FileSource, path: str, root_names: List[str], limits: InspectLimits,
                 facts: ModelFacts) -> Optional[Dict[str, Any]]:
    if "config.json" not in root_names:
        return None  # reported after classification, when there is a model to miss it
    doc, error, hook = _load_json(src, join(path, "config.json"), limits.max_json_bytes)
    duplicates = hook.duplicates
    if error is None and not isinstance(doc, dict):
        error = Text(N_("not a JSON object"))
    if error is not None:
        facts.config_error = error
        facts.add(R.CONFIG_INVALID, R.ERROR, Text("config.json: {error}", error=error), "config.json")
        return None
    for key in duplicates:
        values = hook.values.get(key, [])
        if key in doc and values and values[-1] is doc[key]:
            # A top-level key: say what each copy holds and which one the engines read.
            facts.config_duplicates[key] = values
            shown = " | ".join(short_json(v) for v in values)
            facts.add(R.CONFIG_DUPLICATE_KEY, R.WARNING,
                      Text(N_("config.json sets \"{key}\" {count} times, in this order: {values}; Python's json, "
                              "which transformers, vLLM and MindIE read it with, keeps only the last: {last}"),
                           key=key, count=len(values), values=shown, last=short_json(values[-1])),
                      "config.json")
            continue
        facts.add(R.CONFIG_DUPLICATE_KEY, R.WARNING, Text(N_("config.json sets \"{key}\" more than once; loaders "
                                                             "keep only the last value"), key=key), "config.json")
    facts.config = doc
    config: Dict[str, Any] = doc
    return config


def short_json(value: Any, limit: int = 120) -> str:
    """A value as compact JSON on one line, cut at ``limit`` characters (evidence, not data)."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scan_lfs_pointers(src: FileSource, path: str, model_files: List[Any], limits: InspectLimits,
                       facts: ModelFacts) -> None:
    # .safetensors files are judged by the header reader, which recognises pointers itself.
    small = [e for e in model_files if e.size <= MAX_LFS_POINTER_BYTES and not e.rel.endswith(".safetensors")]
    for entry in small[: limits.max_small_files]:
        try:
            head = src.read_bytes(join(path, entry.rel), MAX_LFS_POINTER_BYTES + 1024)
        except (HostFileError, OSError):
            continue  # unreadable files are reported by the walk or by whoever needs them
        if is_lfs_pointer(head):
            facts.add(R.LFS_POINTER, R.ERROR, Text(N_("{file} is a Git LFS pointer, not the file (run `git lfs pull`)"),
                                                   file=entry.rel), entry.rel)


def _read_headers(src: FileSource, path: str, weight_files: List[str], sizes: Dict[str, int],
                  limits: InspectLimits) -> Dict[str, SafetensorsHeader]:
    def one(rel: str) -> SafetensorsHeader:
        return read_header(src, join(path, rel), rel, sizes.get(rel, 0))

    if len(weight_files) <= 1 or limits.header_workers <= 1:
        return {rel: one(rel) for rel in weight_files}
    with ThreadPoolExecutor(max_workers=min(limits.header_workers, len(weight_files))) as pool:
        return dict(zip(weight_files, pool.map(one, weight_files)))


def _read_modeling(src: FileSource, path: str, root_names: List[str],
                   limits: InspectLimits) -> Dict[str, Optional[str]]:
    out: Dict[str, Optional[str]] = {}
    for name in root_names:
        if not MODELING_RE.match(name):
            continue
        try:
            out[name] = src.read_bytes(join(path, name), limits.max_code_bytes).decode("utf-8", "replace")
        except (HostFileError, OSError):
            out[name] = None
    return out
