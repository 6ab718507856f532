"""Site checks from installed packages: the entry-point group ``ascend_doctor.checks``.

A package adds checks the way flake8 and pytest plugins do, by declaring entry points::

    [project.entry-points."ascend_doctor.checks"]
    ACME-SYS-001 = "acme_ascend_checks.swappiness"

Each entry point is named by the check's id and names a module shaped like one of ``checks/``
(``CHECK``, ``run``) that also says which public check API it was written for (``CHECK_API = 1``;
see ascend_doctor/checkapi.py). A plugin that cannot be imported, was written for another API version,
has a malformed spec, or reuses an id (ours, a retired one, another plugin's) is left out with one
line saying which package and why; the runner reports each line as an ERROR result and every other
check runs (docs/plugins.md).

Start-up: ``importlib.metadata`` costs about 25 ms of CPU to import (Python 3.11), a third of a JSON
``check``. So the installed distributions' ``entry_points.txt`` files are first read for the group's
header, and the module is imported only when some distribution declares it.
``ASCEND_DOCTOR_DISABLE_PLUGINS=1`` turns plugin loading off (as ``PYTEST_DISABLE_PLUGIN_AUTOLOAD`` does).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, Collection, Dict, Iterator, List, Tuple

if TYPE_CHECKING:  # checkapi is imported where a plugin is loaded: the capture finds entry points only
    from ascend_doctor.checkapi import Check

GROUP = "ascend_doctor.checks"
DISABLE_VARIABLE = "ASCEND_DOCTOR_DISABLE_PLUGINS"
_HEADER = f"[{GROUP}]"


def load(taken: Collection[str]) -> Tuple[List[Check], List[str]]:
    """The checks installed packages declare, and one line per plugin that was left out.

    ``taken``: ids that are not free (our own checks and the retired ones)."""
    if not enabled():
        return [], []
    found: List[Check] = []
    problems: List[str] = []
    owners: Dict[str, str] = {}
    for name, value, package in entry_points():
        where = f"plugin {name} = {value} ({package})"
        try:
            check, problem = _load_one(name, value, package, taken, owners)
        except Exception as exc:  # a plugin's bug (a spec that raises on access...) never stops the run
            check, problem = None, f"{type(exc).__name__}: {exc}"
        if check is None:
            problems.append(f"{where}: {problem}; left out")
            continue
        owners[check.spec.id] = package
        found.append(check)
    return found, problems


def group_declared() -> bool:
    """Whether an installed distribution's entry_points.txt mentions the group (a cheap pre-test)."""
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder or ".", name, "entry_points.txt"), encoding="utf-8") as handle:
                    if _HEADER in handle.read():
                        return True
            except (OSError, UnicodeDecodeError):
                continue
    return False


def entry_points() -> Iterator[Tuple[str, str, str]]:
    """(name, value, "distribution version") of every entry point of the group, each distribution
    once (the first on sys.path wins, as for imports)."""
    from importlib import metadata

    if sys.version_info >= (3, 10):  # selects by group and reads a distribution's metadata only for its points
        for entry in metadata.entry_points(group=GROUP):
            dist = entry.dist
            yield entry.name, entry.value, f"{dist.name} {dist.version}" if dist is not None else "?"
        return
    seen = set()
    for dist in metadata.distributions():
        dist_name = str(dist.metadata["Name"] or "?")
        key = dist_name.lower().replace("_", "-")
        if key in seen:
            continue
        seen.add(key)
        for entry in dist.entry_points:
            if entry.group == GROUP:
                yield entry.name, entry.value, f"{dist_name} {dist.version}"


def entry_point_modules() -> List[str]:
    """The modules installed plugins' entry points name (nothing when plugins are off or none is
    installed): the capture reads the facts their checks use."""
    if not enabled():
        return []
    return [value.partition(":")[0].strip() for _name, value, _package in entry_points()]


def enabled() -> bool:
    """Plugins are not turned off, and some installed distribution declares the group."""
    return os.environ.get(DISABLE_VARIABLE, "") in ("", "0") and group_declared()


def _load_one(name: str, value: str, package: str, taken: Collection[str],
              owners: Dict[str, str]) -> Tuple[Any, str]:
    import importlib

    from ascend_doctor.checkapi import SUPPORTED_API_VERSIONS, Check, CheckSpec, validate_spec

    module_name, _sep, attr = value.partition(":")
    try:
        module: Any = importlib.import_module(module_name.strip())
        if attr:
            module = getattr(module, attr.strip())
    except Exception as exc:
        return None, f"cannot be imported: {type(exc).__name__}: {exc}"
    api = getattr(module, "CHECK_API", None)
    if api not in SUPPORTED_API_VERSIONS:
        wanted = "no CHECK_API" if api is None else f"CHECK_API = {api!r}"
        return None, (f"written for another check API ({wanted}); this ascend-doctor supports "
                      f"{', '.join(str(v) for v in SUPPORTED_API_VERSIONS)}")
    spec = getattr(module, "CHECK", None)
    run = getattr(module, "run", None)
    if not isinstance(spec, CheckSpec) or not callable(run):
        return None, "a check module must define CHECK (CheckSpec) and run(ctx)"
    if spec.id != name:
        return None, f"the entry point's name must be its check's id ({spec.id})"
    problems = validate_spec(spec, plugin=True)
    if spec.requires:  # (the requirements module imports the facts: `checks` need not)
        from ascend_doctor.requirements import problems as requirement_problems

        problems += [f"{spec.id}: {p}" for p in requirement_problems(spec.requires)]
    if spec.id in taken:
        problems.append(f"{spec.id} is ascend-doctor's own (or a retired) id")
    if spec.id in owners:
        problems.append(f"{spec.id} is already defined by {owners[spec.id]}")
    if problems:
        return None, "; ".join(problems)
    return Check(spec=spec, run=run, module=str(getattr(module, "__name__", value)), package=package), ""
