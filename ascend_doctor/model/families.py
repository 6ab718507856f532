"""The built-in DeepSeek family (V3, R1 and the R1 distills), loaded from sourced YAML data.

The data lives in ``compat_matrix/model_families.yaml`` (shipped as
``ascend_doctor.compat_matrix``); each entry carries the HF ``config.json`` keys of the model and
the sources they were read from, so the same counting code serves built-in names and real
model directories.
"""

from __future__ import annotations

import functools
import re
from typing import Any, Dict, List, Mapping, Optional, Tuple

from msgspec import Struct

from ascend_doctor.model.arch import ArchError, ModelArch, arch_from_hf_config

DATA_PACKAGE = "ascend_doctor.compat_matrix"
DATA_FILE = "model_families.yaml"
SCHEMA = 1


class FamilyDataError(ValueError):
    """The shipped YAML is malformed (a packaging or editing mistake, reported clearly)."""


class ModelFamily(Struct, frozen=True):
    name: str
    aliases: Tuple[str, ...]
    hf_repo: str
    published_params_b: float
    sources: Tuple[str, ...]
    note: str
    config: Mapping[str, Any]

    def arch(self) -> ModelArch:
        return arch_from_hf_config(self.config, name=self.name)


def _normalise(name: str) -> str:
    """Lower-case, drop an ``org/`` prefix and separators: ``deepseek-ai/DeepSeek-R1`` -> ``deepseekr1``."""
    name = name.strip().rsplit("/", 1)[-1].lower()
    return re.sub(r"[\s_\-]+", "", name)


def parse_families(data: Any) -> List[ModelFamily]:
    """Validate the YAML document and build the records (raises ``FamilyDataError``)."""
    if not isinstance(data, Mapping):
        raise FamilyDataError(f"{DATA_FILE}: top level must be a mapping")
    if data.get("schema") != SCHEMA:
        raise FamilyDataError(f"{DATA_FILE}: schema must be {SCHEMA}, got {data.get('schema')!r}")
    entries = data.get("families")
    if not isinstance(entries, list) or not entries:
        raise FamilyDataError(f"{DATA_FILE}: 'families' must be a non-empty list")
    families: List[ModelFamily] = []
    seen: Dict[str, str] = {}
    for index, entry in enumerate(entries):
        where = f"{DATA_FILE}: families[{index}]"
        if not isinstance(entry, Mapping):
            raise FamilyDataError(f"{where} must be a mapping")
        name = entry.get("name")
        if not isinstance(name, str) or not name:
            raise FamilyDataError(f"{where} has no name")
        sources = entry.get("sources")
        if not isinstance(sources, list) or not sources or not all(isinstance(s, str) and s for s in sources):
            raise FamilyDataError(f"{where} ({name}) must list its sources")
        config = entry.get("config")
        if not isinstance(config, Mapping):
            raise FamilyDataError(f"{where} ({name}) has no config block")
        try:
            arch_from_hf_config(config, name=name)
        except ArchError as exc:
            raise FamilyDataError(f"{where} ({name}): {exc}") from exc
        published = entry.get("published_params_b")
        if isinstance(published, bool) or not isinstance(published, (int, float)) or published <= 0:
            raise FamilyDataError(f"{where} ({name}) needs a positive published_params_b")
        aliases_raw = entry.get("aliases") or []
        if not isinstance(aliases_raw, list) or not all(isinstance(a, str) for a in aliases_raw):
            raise FamilyDataError(f"{where} ({name}) aliases must be a list of strings")
        family = ModelFamily(
            name=name,
            aliases=tuple(aliases_raw),
            hf_repo=str(entry.get("hf_repo") or ""),
            published_params_b=float(published),
            sources=tuple(sources),
            note=str(entry.get("note") or "").strip(),
            config=dict(config),
        )
        for key in (name, family.hf_repo, *family.aliases):
            if not key:
                continue
            norm = _normalise(key)
            if norm in seen and seen[norm] != name:
                raise FamilyDataError(f"{where}: name {key!r} also names {seen[norm]}")
            seen[norm] = name
        families.append(family)
    return families


@functools.lru_cache(maxsize=1)
def load_families() -> Tuple[ModelFamily, ...]:
    """The shipped families (cached). Raises ``FamilyDataError`` if the data file is broken."""
    from ascend_doctor.datacache import yaml_data

    compiled, data = yaml_data(DATA_FILE)  # the YAML as parsed at build time, while it is current
    if not compiled:
        import importlib.resources

        import yaml

        try:
            text = importlib.resources.files(DATA_PACKAGE).joinpath(DATA_FILE).read_text(encoding="utf-8")
        except (OSError, ModuleNotFoundError) as exc:
            raise FamilyDataError(f"cannot read {DATA_FILE}: {exc}") from exc
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise FamilyDataError(f"{DATA_FILE} is not valid YAML: {exc}") from exc
    return tuple(parse_families(data))


def find_family(name: str) -> Optional[ModelFamily]:
    """Look a built-in model up by name, alias or HF repo id (case and separators ignored)."""
    want = _normalise(name)
    if not want:
        return None
    for family in load_families():
        keys = (family.name, family.hf_repo, *family.aliases)
        if any(key and _normalise(key) == want for key in keys):
            return family
    return None


def family_names() -> List[str]:
    return [family.name for family in load_families()]
