"""The check catalogue: every module of ``ascend_doctor.checks`` (the top-level ``checks/``)."""

from __future__ import annotations

import importlib
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from ascend_doctor.checkapi import Check, CheckSpec, Finding, RunFunc, validate_spec

# Ids that were used once and must never be given to another check.
RETIRED_IDS: FrozenSet[str] = frozenset({
    # "Paged KV cache is enabled": judged seed 003's invented `models:` file; MindIE and vLLM always page the KV
    # cache, so it could never fire on a real deployment (advice review row 17). ASC-CFG-001 now says the file
    # is no engine's format.
    "ASC-CFG-006",
})


_cache: Optional[Tuple[List[Check], List[str]]] = None


def load_catalogue() -> Tuple[List[Check], List[str]]:
    """Every check sorted by id, plus one message per module that could not be loaded.

    A broken module must not take the whole catalogue down: the runner reports each
    load problem as an ERROR result and runs the rest.

    The catalogue is built into ``checks/_catalogue.py`` (``python -m ascend_doctor.compiled_data``,
    committed): while the check modules are the ones it was built from, a module is imported only
    when its check runs, so `checks` and `explain` import none and `check` none of the probe, fleet
    or skipped checks (start-up), in a checkout as in a wheel. Otherwise every module is imported here.

    Checks of installed plugins (the entry-point group ``ascend_doctor.checks``, ascend_doctor/plugins.py)
    come after ours; a plugin that cannot be used is one more problem line, never the end of the run.
    """
    global _cache
    if _cache is not None:
        return list(_cache[0]), list(_cache[1])
    found, problems = _compiled_catalogue() or import_catalogue()
    from ascend_doctor import plugins

    extra, extra_problems = plugins.load({c.spec.id for c in found} | RETIRED_IDS)
    _cache = found + sorted(extra, key=lambda c: c.spec.id), problems + extra_problems
    return list(_cache[0]), list(_cache[1])


def _compiled_catalogue() -> Optional[Tuple[List[Check], List[str]]]:
    import os

    import ascend_doctor.checks as pkg

    if len(list(pkg.__path__)) != 1:  # another folder of checks joined the package: import them all
        return None
    try:
        from ascend_doctor.checks import _catalogue
    except Exception:  # not built, or built for CheckSpec fields that changed since: import every module
        return None
    return catalogue_if_current(_catalogue, os.path.dirname(os.path.abspath(str(_catalogue.__file__))))


def catalogue_if_current(built: Any, folder: str) -> Optional[Tuple[List[Check], List[str]]]:
    """The catalogue ``built`` (a module or namespace with SOURCES, CHECKS, PROBLEMS) while the modules
    of ``folder`` are the ones it was built from; else None."""
    import os

    from ascend_doctor.datacache import files_match

    listing = sorted(n for n in os.listdir(folder) if n.endswith(".py") and n != "_catalogue.py")
    if listing != sorted(built.SOURCES) or not files_match(folder, built.SOURCES):
        return None  # a check module added, removed or edited since the catalogue was built
    checks = [Check(spec=spec, run=_run_on_import(module), module=module) for module, spec in built.CHECKS]
    return checks, list(built.PROBLEMS)


def _run_on_import(module_name: str) -> RunFunc:
    """The module's ``run``, the module imported at the first call."""

    def run(ctx: object) -> Iterable[Finding]:
        module_run: RunFunc = importlib.import_module(module_name).run
        return module_run(ctx)

    run.__qualname__ = run.__name__ = f"{module_name}.run"
    return run


def import_catalogue() -> Tuple[List[Check], List[str]]:
    """The catalogue as importing every module of ``ascend_doctor.checks`` gives it."""
    import pkgutil  # (with importlib.util) only where the catalogue is not compiled: start-up

    import ascend_doctor.checks as pkg

    found: List[Check] = []
    problems: List[str] = []
    seen: Dict[str, str] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module_name = f"{pkg.__name__}.{info.name}"
        try:
            module = importlib.import_module(module_name)
        except Exception as exc:
            problems.append(f"{module_name}: cannot be imported: {type(exc).__name__}: {exc}")
            continue
        spec = getattr(module, "CHECK", None)
        run = getattr(module, "run", None)
        if not isinstance(spec, CheckSpec) or not callable(run):
            problems.append(f"{module_name}: a check module must define CHECK (CheckSpec) and run(ctx)")
            continue
        from ascend_doctor.requirements import problems as requirement_problems

        spec_problems = validate_spec(spec) + [f"{spec.id}: {p}" for p in requirement_problems(spec.requires)]
        if spec.id in seen:
            spec_problems.append(f"{spec.id} is defined by both {seen[spec.id]} and {module_name}")
        if spec.id in RETIRED_IDS:
            spec_problems.append(f"{spec.id} is retired and may not be reused ({module_name})")
        if spec_problems:
            problems.extend(spec_problems)
            continue
        seen[spec.id] = module_name
        found.append(Check(spec=spec, run=run, module=module_name))
    found.sort(key=lambda c: c.spec.id)
    return found, problems


def all_checks() -> List[Check]:
    return load_catalogue()[0]


def matches(check_id: str, prefixes: Sequence[str]) -> bool:
    cid = check_id.upper()
    return any(cid.startswith(p.strip().upper()) for p in prefixes if p.strip())


def select_checks(select: Sequence[str] = (), ignore: Sequence[str] = ()) -> List[Check]:
    checks = all_checks()
    if select:
        checks = [c for c in checks if matches(c.spec.id, select)]
    if ignore:
        checks = [c for c in checks if not matches(c.spec.id, ignore)]
    return checks


def closest_ids(value: str, ids: Sequence[str], count: int = 3) -> List[str]:
    """Check ids and id prefixes ("ASC-DRV") nearest to a mistyped --select/--ignore value."""
    import difflib

    areas = sorted({"-".join(i.split("-")[:2]) for i in ids})
    candidates = areas + sorted(ids)
    want = value.strip().upper()
    found: List[str] = []
    if not want.startswith("ASC-") and any(c.startswith("ASC-" + want) for c in candidates):
        found.append("ASC-" + want)  # "DRV" for "ASC-DRV"
    for match in difflib.get_close_matches(want, candidates, n=count, cutoff=0.5):
        if match not in found:
            found.append(match)
    return found[:count]


def unmatched_prefixes(prefixes: Sequence[str], ids: Sequence[str]) -> List[str]:
    """The --select/--ignore values that match no check id (a typo must not run zero checks)."""
    return [p for p in prefixes if p.strip() and not any(matches(i, (p,)) for i in ids)]


def find_check(check_id: str) -> Optional[Check]:
    for check in all_checks():
        if check.spec.id.upper() == check_id.strip().upper():
            return check
    return None
