"""Fact providers for model weights: ``model`` (inspection) and ``model_manifest_check``.

Weights are read through ``facts.host`` so a snapshot works like a live host. The manifest
given with ``--verify`` is an input file of this run (like ``--config``), so it is read from
the machine running the doctor.
"""

from __future__ import annotations

from typing import Any, Optional

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.origin import LIVE, origin_kind, require_model_folder, require_weights
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.model import ManifestCheck
from ascend_doctor.model.files import LocalFiles, walk_model_dir
from ascend_doctor.model.inspect import inspect_model_dir
from ascend_doctor.model.manifest import (
    ManifestError,
    hash_total,
    load_manifest,
    rel_inside,
    verify_manifest,
    verify_plan,
)
from ascend_doctor.model.progress import byte_progress, progress_wanted
from ascend_doctor.model.records import ModelFacts


class NoModelGiven(ValueError):
    pass


@provider("model", reads=Reads(files=("{model}", "{model}/**"), listings=("{model}", "{model}/**")))
def model(facts: Facts) -> ModelFacts:
    path = facts.options.model_dir
    if not path:
        raise NoModelGiven("no model directory given (use --model DIR)")
    require_model_folder(facts, path)  # --from: a folder the snapshot did not record is SKIP
    return inspect_model_dir(facts.host, path)


def manifest_digest(manifest: Any) -> str:
    """sha256 over the manifest's sorted ``<sha256>  <path>`` lines."""
    import hashlib

    lines = sorted(f"{entry.sha256.lower()}  {entry.path}" for entry in manifest.entries)
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _progress_flag(facts: Facts) -> Optional[bool]:
    for key, value in facts.options.extra:
        if key == "progress":
            return value.lower() in ("1", "true", "yes", "on")
    return None


@provider("model_manifest_check", reads=Reads(files=("{model}", "{model}/**", "{manifest}"),
                                              listings=("{model}", "{model}/**")))
def model_manifest_check(facts: Facts) -> ManifestCheck:
    model_dir, manifest_path = facts.options.model_dir, facts.options.verify_manifest
    if not model_dir or not manifest_path:
        raise NoModelGiven("--verify needs --model DIR and a manifest file")
    require_model_folder(facts, model_dir)
    require_weights(facts, model_dir)
    try:
        manifest = load_manifest(LocalFiles(), manifest_path)
    except ManifestError as exc:
        return ManifestCheck(manifest_path, model_dir, error=str(exc))
    listing = walk_model_dir(facts.host, model_dir, max_depth=None)  # as `model manifest` wrote it
    if not listing.exists or not listing.is_dir:
        return ManifestCheck(manifest_path, model_dir, error=f"{model_dir} is not a directory")
    # `check --model . --verify SHA256SUMS`: the manifest sits in the folder but is no model file.
    live = origin_kind(facts) == LIVE
    own = rel_inside(model_dir, manifest_path) if live else None
    plan = verify_plan(manifest, listing, ignore=[own] if own else [])
    with byte_progress(hash_total(plan[0]), "verifying weights", progress_wanted(_progress_flag(facts))) as advance:
        result = verify_manifest(facts.host, model_dir, manifest, on_bytes=advance, listing=listing, plan=plan)
    return ManifestCheck(manifest_path, model_dir, result=result, digest=manifest_digest(manifest))
