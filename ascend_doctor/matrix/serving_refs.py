"""Published serving results for DeepSeek on Ascend (``compat_matrix/serving_refs.yaml``).

Each row is one published measurement, keyed by what makes two measurements comparable (chip,
cards, model family, precision, deployment, input/output lengths, concurrency) and carrying its
public source and how it was measured. ``parse_refs`` validates the document and never raises for
bad data: it returns the rows it could build and the problems, which ``matrix validate`` prints
(the matrix loader checks the file beside a split matrix). ``nearest`` picks the rows a probe is
compared with; the grading itself is in ``ascend_doctor.endpoint.references``.
"""

from __future__ import annotations

import functools
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from msgspec import Struct

from ascend_doctor.matrix.errors import Problem

DATA_FILE = "serving_refs.yaml"
DATA_PACKAGE = "ascend_doctor.compat_matrix"
SCHEMA = 1
MAX_ROWS = 2000

CHIPS = ("a2", "a3", "310p")
PRECISIONS = ("w8a8", "w4a8", "bf16", "fp16", "int8")
DEPLOYMENTS = ("single", "pd")
ENGINES = ("vllm-ascend", "mindie", "sglang")
MODES = ("graph", "eager")
METRICS = ("ttft_s", "ttft_p99_s", "tpot_ms", "output_tps", "output_tps_per_npu")
REQUIRED = ("id", "chip", "hardware", "cards", "model", "family", "precision", "deployment", "engine",
            "input_tokens", "output_tokens", "metrics", "measured_by", "source")
OPTIONAL = ("engine_version", "as_published", "concurrency", "mode", "mtp", "slower_causes", "note")


class ServingRef(Struct, frozen=True):
    id: str
    chip: str
    hardware: str
    cards: int
    model: str
    family: str
    precision: str
    deployment: str
    engine: str
    input_tokens: int
    output_tokens: int
    concurrency: Optional[int]
    metrics: Tuple[Tuple[str, float], ...]
    measured_by: str
    source: str
    engine_version: str = ""
    as_published: str = ""
    mode: Optional[str] = None
    mtp: Optional[bool] = None
    slower_causes: Tuple[str, ...] = ()

    def metric(self, name: str) -> Optional[float]:
        return dict(self.metrics).get(name)

    def to_dict(self) -> Dict[str, Any]:
        return {"id": self.id, "chip": self.chip, "hardware": self.hardware, "cards": self.cards,
                "model": self.model, "family": self.family, "precision": self.precision,
                "deployment": self.deployment, "engine": self.engine, "engine_version": self.engine_version or None,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "as_published": self.as_published or None, "concurrency": self.concurrency,
                "metrics": dict(self.metrics), "mode": self.mode, "mtp": self.mtp,
                "slower_causes": list(self.slower_causes), "measured_by": self.measured_by, "source": self.source}


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _row(entry: Any, where: str, file: str, problems: List[Problem]) -> Optional[ServingRef]:
    def bad(key: str, message: str) -> None:
        problems.append(Problem(file, 0, f"{where}.{key}" if key else where, message))

    if not isinstance(entry, Mapping):
        bad("", "each reference must be a mapping")
        return None
    before = len(problems)
    for key in REQUIRED:
        if entry.get(key) in (None, ""):
            bad(key, "missing required key")
    for key in entry:
        if key not in REQUIRED and key not in OPTIONAL and key != "family":
            bad(str(key), "unknown key (a typo?)")
    for key, allowed in (("chip", CHIPS), ("precision", PRECISIONS), ("deployment", DEPLOYMENTS),
                         ("engine", ENGINES)):
        if entry.get(key) is not None and entry.get(key) not in allowed:
            bad(key, f"must be one of {', '.join(allowed)}")
    if entry.get("mode") is not None and entry.get("mode") not in MODES:
        bad("mode", f"must be one of {', '.join(MODES)}")
    if entry.get("mtp") is not None and not isinstance(entry.get("mtp"), bool):
        bad("mtp", "must be true or false")
    for key in ("cards", "input_tokens", "output_tokens"):
        if entry.get(key) is not None and not _positive_int(entry.get(key)):
            bad(key, "must be a positive integer")
    if entry.get("concurrency") is not None and not _positive_int(entry.get("concurrency")):
        bad("concurrency", "must be a positive integer, or null when the source gives none")
    source = entry.get("source")
    if source is not None and not (isinstance(source, str) and source.startswith("https://")):
        bad("source", "must be a public https:// URL")
    metrics = entry.get("metrics")
    pairs: List[Tuple[str, float]] = []
    if metrics is not None:
        if not isinstance(metrics, Mapping) or not metrics:
            bad("metrics", "must be a non-empty mapping")
        else:
            for name, value in metrics.items():
                if name not in METRICS:
                    bad(f"metrics.{name}", f"unknown metric; known: {', '.join(METRICS)}")
                elif isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                    bad(f"metrics.{name}", "must be a positive number")
                else:
                    pairs.append((str(name), float(value)))
    causes = entry.get("slower_causes", ())
    if not isinstance(causes, (list, tuple)) or not all(isinstance(c, str) and c for c in causes):
        bad("slower_causes", "must be a list of texts")
        causes = ()
    if len(problems) > before:
        return None
    return ServingRef(
        id=str(entry["id"]), chip=entry["chip"], hardware=str(entry["hardware"]), cards=entry["cards"],
        model=str(entry["model"]), family=str(entry["family"]), precision=entry["precision"],
        deployment=entry["deployment"], engine=entry["engine"], input_tokens=entry["input_tokens"],
        output_tokens=entry["output_tokens"], concurrency=entry.get("concurrency"), metrics=tuple(pairs),
        measured_by=str(entry["measured_by"]), source=str(source),
        engine_version=str(entry.get("engine_version") or ""),
        as_published=str(entry.get("as_published") or ""), mode=entry.get("mode"), mtp=entry.get("mtp"),
        slower_causes=tuple(causes))


def parse_refs(data: Any, file: str = DATA_FILE) -> Tuple[List[ServingRef], List[Problem]]:
    """Validate a parsed serving_refs document: the rows that are valid, and every problem."""
    problems: List[Problem] = []
    if not isinstance(data, Mapping):
        return [], [Problem(file, 0, "", "top level must be a mapping")]
    if data.get("schema") != SCHEMA:
        problems.append(Problem(file, 0, "schema", f"must be {SCHEMA}"))
    entries = data.get("references")
    if not isinstance(entries, list) or not entries:
        return [], problems + [Problem(file, 0, "references", "must be a non-empty list")]
    if len(entries) > MAX_ROWS:
        return [], problems + [Problem(file, 0, "references", f"more than {MAX_ROWS} rows")]
    rows: List[ServingRef] = []
    seen: Dict[str, int] = {}
    for index, entry in enumerate(entries):
        row = _row(entry, f"references[{index}]", file, problems)
        if row is None:
            continue
        if row.id in seen:
            problems.append(Problem(file, 0, f"references[{index}].id",
                                    f"duplicate id (also references[{seen[row.id]}])"))
            continue
        seen[row.id] = index
        rows.append(row)
    return rows, problems


def check_file(path: str) -> List[Problem]:
    """Problems of a serving_refs.yaml file (for ``matrix validate``); [] when it is valid."""
    from ascend_doctor import boundedyaml

    name = path
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(4 * 1024 * 1024 + 1)
    except OSError as exc:
        return [Problem(name, 0, "", f"cannot read: {exc.strerror or exc}")]
    try:
        data = boundedyaml.safe_load(text, what=os.path.basename(path))
    except Exception as exc:  # a YAML error or a budget refusal: one problem, never a traceback
        return [Problem(name, 0, "", f"YAML: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")]
    return parse_refs(data, name)[1]


@functools.lru_cache(maxsize=1)
def load_refs() -> Tuple[ServingRef, ...]:
    """The shipped rows (invalid ones are left out; the test suite keeps the file valid)."""
    import importlib.resources

    from ascend_doctor import boundedyaml

    text = importlib.resources.files(DATA_PACKAGE).joinpath(DATA_FILE).read_text(encoding="utf-8")
    rows, _problems = parse_refs(boundedyaml.safe_load(text, what=DATA_FILE))
    return tuple(rows)


class RefQuery(Struct, frozen=True):
    """What a probe knows of the deployment it measures (None: not given)."""

    chip: Optional[str] = None
    cards: Optional[int] = None
    family: Optional[str] = None
    precision: Optional[str] = None
    deployment: Optional[str] = None
    engine: Optional[str] = None


KEYS = ("chip", "family", "precision", "cards", "deployment")


def nearest(rows: Sequence[ServingRef], query: RefQuery, limit: int = 3) -> Tuple[List[ServingRef], List[str]]:
    """The rows that match every key the query gives (chip, model family, precision, cards,
    deployment), best first (same engine first); when none match, the keys that no row matches,
    in the order above, so the probe can say which key is missing."""
    matching = list(rows)
    missing: List[str] = []
    for key in KEYS:
        wanted = getattr(query, key)
        if wanted is None:
            if key in ("chip", "family", "precision"):  # without these no row is comparable
                missing.append(key)
            continue
        narrowed = [r for r in matching if getattr(r, key) == wanted]
        if not narrowed:
            return [], [f"{key}={wanted}"]
        matching = narrowed
    if missing:
        return [], [f"{key} not given" for key in missing]
    # Same engine first; rows with a concurrency (a scenario to run at) before TPOT targets; a row
    # that documents a slow configuration (eager mode) last.
    matching.sort(key=lambda r: (r.engine != query.engine, r.concurrency is None, r.mode == "eager", r.id))
    return matching[:limit], []
