"""Integrity rules for a model directory: each turns what was read into named ``Problem`` s.

Every function here is pure (it receives what ``inspect`` read) so that each defect can be
tested with a few lines. Messages name the file and, for tensors, up to five examples.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.lazy import lazy_re
from ascend_doctor.model import records as R
from ascend_doctor.model.files import DirListing
from ascend_doctor.model.safetensors import SafetensorsHeader

# Suffixes that download tools leave on files they did not finish. Problem messages are ``Text``:
# English data that the checks show in the run's language (ascend_doctor/i18n_text.py).
PARTIAL_SUFFIXES: Dict[str, str] = {
    ".incomplete": N_("{file} is an unfinished huggingface_hub download ({size} bytes)"),
    ".part": N_("{file} is a partial download ({size} bytes)"),
    ".partial": N_("{file} is a partial download ({size} bytes)"),
    ".aria2": N_("{file} is an aria2c control file: its download did not finish ({size} bytes)"),
}
SHARD_SERIES_RE = lazy_re(r"^(?P<stem>.+)-(?P<index>\d+)-of-(?P<total>\d+)\.safetensors$")
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json", "vocab.txt", "tiktoken.model")
EXAMPLES = 5


def examples(names: Iterable[str]) -> str:
    items = sorted(names)
    head = ", ".join(items[:EXAMPLES])
    return Text(N_("{names} (+{count} more)"), names=head, count=len(items) - EXAMPLES) if len(items) > EXAMPLES \
        else head


def walk_problems(listing: DirListing, facts: R.ModelFacts) -> None:
    codes = {
        "unreadable": (R.UNREADABLE, R.ERROR),
        "symlink-broken": (R.SYMLINK_BROKEN, R.ERROR),
        "symlink-loop": (R.SYMLINK_LOOP, R.ERROR),
        "special-file": (R.SPECIAL_FILE, R.WARNING),
        "truncated": (R.LISTING_TRUNCATED, R.WARNING),
    }
    for issue in listing.issues:
        code, severity = codes.get(issue.code, (R.UNREADABLE, R.ERROR))
        name = issue.rel or listing.root
        message: str
        if code == R.SYMLINK_BROKEN and issue.target:
            message = Text(N_("{name}: broken link to {target} (the target does not exist)"), name=name,
                           target=issue.target)
        elif code == R.SYMLINK_LOOP and issue.target:
            message = Text(N_("{name}: symlink loop (links to {target}, which never reaches a file)"), name=name,
                           target=issue.target)
        else:
            message = Text("{name}: {issue}", name=name, issue=issue.message)
        facts.add(code, severity, message, issue.rel, issue.target)


def partial_downloads(listing: DirListing, facts: R.ModelFacts) -> None:
    for entry in listing.files:
        for suffix, template in PARTIAL_SUFFIXES.items():
            if entry.rel.endswith(suffix):
                facts.add(R.PARTIAL_DOWNLOAD, R.ERROR, Text(template, file=entry.rel, size=entry.size), entry.rel)
                break


def check_index(
    index_name: str, doc: Any, weight_files: Sequence[str], facts: R.ModelFacts
) -> Tuple[Set[str], Dict[str, str]]:
    """Shards named by one index must exist. Returns (shards named, tensor -> shard)."""
    weight_map = doc.get("weight_map") if isinstance(doc, dict) else None
    if not isinstance(weight_map, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in weight_map.items()
    ):
        facts.add(R.INDEX_INVALID, R.ERROR, Text(N_("{index}: no usable \"weight_map\" (tensor name -> shard file)"),
                                                 index=index_name), index_name)
        return set(), {}
    named = set(weight_map.values())
    present = set(weight_files)
    for shard in sorted(named - present):
        count = sum(1 for v in weight_map.values() if v == shard)
        facts.add(R.SHARD_MISSING, R.ERROR, Text(N_("{shard} is named by {index} ({count} tensors) but is not in the "
                                                    "directory"), shard=shard, index=index_name, count=count), shard)
    return named, dict(weight_map)


def extra_shards(weight_files: Sequence[str], named: Set[str], index_names: Sequence[str],
                 facts: R.ModelFacts) -> None:
    if not index_names:
        return
    for shard in sorted(set(weight_files) - named):
        facts.add(R.SHARD_EXTRA, R.WARNING, Text(N_("{shard} is not named by {indexes} (left over from another "
                                                    "download or conversion?)"), shard=shard,
                                                 indexes=", ".join(index_names)), shard)


def shard_series(weight_files: Sequence[str], named: Set[str], facts: R.ModelFacts) -> None:
    """``x-00003-of-00056.safetensors`` implies 56 shards; name the ones missing."""
    series: Dict[Tuple[str, int], Set[int]] = {}
    width: Dict[Tuple[str, int], Tuple[int, int]] = {}
    for name in weight_files:
        match = SHARD_SERIES_RE.match(name)
        if not match:
            continue
        key = (match.group("stem"), int(match.group("total")))
        series.setdefault(key, set()).add(int(match.group("index")))
        width[key] = (len(match.group("index")), len(match.group("total")))
    for (stem, total), have in sorted(series.items()):
        if total > 100_000:  # a hostile name must not make us enumerate a huge range
            continue
        wi, wt = width[(stem, total)]
        missing = [f"{stem}-{i:0{wi}d}-of-{total:0{wt}d}.safetensors" for i in range(1, total + 1) if i not in have]
        missing = [m for m in missing if m not in named]  # already reported against the index
        if missing:
            facts.add(R.SHARD_SERIES_GAP, R.ERROR, Text(N_("{count} of {total} shards of {stem} are missing: {names}"),
                                                        count=len(missing), total=total, stem=stem,
                                                        names=examples(missing)), missing[0])


def header_problems(headers: Mapping[str, SafetensorsHeader], facts: R.ModelFacts) -> None:
    for rel in sorted(headers):
        header = headers[rel]
        if header.error_kind is None:
            continue
        message = Text("{file}: {error}", file=rel, error=header.error)
        if header.error_kind == "lfs-pointer":
            facts.add(R.LFS_POINTER, R.ERROR, message, rel)
        elif header.error_kind == "size-mismatch":
            facts.add(R.SIZE_MISMATCH, R.ERROR, message, rel)
        elif header.error_kind == "unreadable":
            facts.add(R.HEADER_UNREADABLE, R.ERROR, message, rel)
        else:
            facts.add(R.HEADER_INVALID, R.ERROR, message, rel)


def tensors_vs_index(weight_map: Mapping[str, str], headers: Mapping[str, SafetensorsHeader],
                     index_name: str, facts: R.ModelFacts) -> None:
    """Each tensor the index places in a shard must be in that shard's header."""
    by_shard: Dict[str, List[str]] = {}
    for tensor, shard in weight_map.items():
        header = headers.get(shard)
        if header is None or (not header.tensors and header.error_kind is not None):
            continue  # shard missing or unreadable: reported already
        if tensor not in header.tensors:
            by_shard.setdefault(shard, []).append(tensor)
    for shard, missing in sorted(by_shard.items()):
        facts.add(R.TENSOR_MISSING, R.ERROR, Text(N_("{shard} lacks {count} tensor(s) that {index} places there: "
                                                     "{names}"), shard=shard, count=len(missing), index=index_name,
                                                  names=examples(missing)), shard)


def description_entries(description: Mapping[str, Any]) -> Dict[str, str]:
    """Per-tensor tags of a msmodelslim description (``FLOAT``, ``W8A8``...), without settings."""
    return {k: v for k, v in description.items() if isinstance(v, str) and "." in k}


def tensors_vs_description(description: Mapping[str, Any], description_name: str,
                           headers: Mapping[str, SafetensorsHeader], facts: R.ModelFacts) -> None:
    entries = description_entries(description)
    if not entries:
        return
    all_read = all(h.tensors or h.error_kind is None for h in headers.values())
    present: Set[str] = set()
    for header in headers.values():
        present.update(header.tensors)
    if all_read and headers:
        absent = [name for name in entries if name not in present]
        if absent:
            facts.add(R.TENSOR_MISSING, R.ERROR, Text(N_("{count} tensor(s) described in {description} are in no "
                                                         "weights file: {names}"), count=len(absent),
                                                      description=description_name, names=examples(absent)),
                      description_name)
    undescribed = [name for name in present if name not in entries and name.endswith(".weight")]
    if undescribed:
        # vLLM-Ascend looks up "<layer>.weight" in the description for every linear layer and
        # stops with a KeyError when it is absent (vllm-project/vllm-ascend#1713).
        facts.add(R.TENSOR_UNDESCRIBED, R.WARNING, Text(N_("{count} weight(s) have no entry in {description}: "
                                                           "{names}"), count=len(undescribed),
                                                        description=description_name, names=examples(undescribed)),
                  description_name)


def tokenizer(names: Sequence[str], facts: Optional[R.ModelFacts]) -> Tuple[str, ...]:
    """The tokenizer files present; problems are added to ``facts`` unless it is None."""
    root = [n for n in names if "/" not in n]
    found = [n for n in root if n in TOKENIZER_FILES or n.endswith(".tiktoken")]
    if facts is None:
        pass
    elif not found:
        facts.add(R.TOKENIZER_MISSING, R.ERROR, Text(N_("no tokenizer file (tokenizer.json, tokenizer.model, "
                                                        "vocab.json, vocab.txt or *.tiktoken)")))
    elif "tokenizer_config.json" not in root:
        facts.add(R.TOKENIZER_CONFIG_MISSING, R.WARNING, Text(N_("tokenizer_config.json is missing (chat template and "
                                                                 "special tokens come from it)")))
    extra = [n for n in root if n in ("tokenizer_config.json", "special_tokens_map.json", "merges.txt")
             or n.startswith("tokenization_")]
    return tuple(sorted(set(found + extra)))


_FLASH_ATTN_RE = lazy_re(r"^\s*(from\s+flash_attn[\w.]*\s+import\b|import\s+flash_attn\b)")
_TORCH_NPU_RE = lazy_re(r"^\s*(from\s+torch_npu[\w.]*\s+import\b|import\s+torch_npu\b)")


def scan_modeling(sources: Mapping[str, Optional[str]]) -> R.ModelingCode:
    """Judge ``modeling_*.py`` texts (None = unreadable): flash_attn still imported or not."""
    if not sources:
        return R.ModelingCode()
    imports: List[Tuple[str, int, str]] = []
    npu: List[str] = []
    unreadable = []
    for name in sorted(sources):
        text = sources[name]
        if text is None:
            unreadable.append(name)
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if _FLASH_ATTN_RE.match(line):
                imports.append((name, number, line.strip()[:160]))
            elif _TORCH_NPU_RE.match(line) and name not in npu:
                npu.append(name)
    if imports:
        state = "hf-original"
    elif npu:
        state = "ascend-adapted"
    elif len(unreadable) == len(sources):
        state = "unreadable"
    else:
        state = "no-flash-attn"
    return R.ModelingCode(tuple(sorted(sources)), state, tuple(imports), tuple(npu))
