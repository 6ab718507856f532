"""torch_npu <-> torch <-> CANN <-> Python verdicts."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

from packaging.version import Version

from ascend_doctor.i18n import N_
from ascend_doctor.i18n_text import Text
from ascend_doctor.matrix.records import TorchNpuRow, VllmAscendRow
from ascend_doctor.matrix.specs import (
    most_specific_rows,
    python_in,
    python_version,
    release_rank,
    same_public,
    spec_clauses,
    try_ascend,
    try_pypi,
)
from ascend_doctor.matrix.verdict import Verdict, VerdictKind, unknown
from ascend_doctor.versions import AscendVersion

if TYPE_CHECKING:
    from ascend_doctor.matrix.tables import MatrixTables

# Verdict messages are ascend_doctor.i18n_text.Text: English str for code and JSON, shown translated
# by the checks (N_ marks the templates for the catalogue).
ORIGIN_TEXT = {
    "table": N_("Ascend/pytorch compatibility table"),
    "release_note": N_("hiascend release note"),
    "installer": N_("ascend-deployer version map"),
}


def _where(row: TorchNpuRow) -> Text:
    """"branch v2.1.0-6.0.rc3" or where the row comes from."""
    return Text(N_("branch {branch}"), branch=row.branch) if row.branch else Text(ORIGIN_TEXT[row.origin])


def _cannot_read(what: str, value: str) -> Verdict:
    return unknown(Text(N_("cannot read the {what} version {value}"), what=what, value=repr(value)))


def describe_python(spec_text: str) -> str:
    """``>=3.8,<3.12`` -> ``3.8-3.11``; anything else as written."""
    lower = upper = None
    for operator, version in spec_clauses(spec_text):
        if operator == ">=":
            lower = version
        elif operator == "<":
            upper = Version(version)
    if lower and upper is not None and upper.release[0] == 3 and len(upper.release) >= 2:
        return f"{lower}-{upper.release[0]}.{upper.release[1] - 1}"
    return spec_text


def rows_for_torch_npu(m: MatrixTables, torch_npu: Version) -> List[TorchNpuRow]:
    return [row for row in m.torch_npu_rows if try_pypi(row.version) == torch_npu]


def vllm_rows_for_torch_npu(m: MatrixTables, torch_npu: Version) -> List[VllmAscendRow]:
    return [row for row in m.vllm_ascend_rows if try_pypi(row.torch_npu) == torch_npu]


def rows_for_cann(m: MatrixTables, cann: AscendVersion) -> List[TorchNpuRow]:
    """torch_npu rows of this CANN release (the most specific spelling wins: 6.3.RC3.1 over 6.3.RC3)."""
    return most_specific_rows(m.torch_npu_rows, lambda row: row.cann, cann)


def recommended_pair(m: MatrixTables, cann: AscendVersion, torch: Optional[str] = None) -> Optional[TorchNpuRow]:
    """The highest torch_npu released for a CANN (for ``torch`` when given); table rows first."""
    rows = rows_for_cann(m, cann)
    if torch:
        wanted = try_pypi(torch)
        rows = [r for r in rows if wanted is not None and same_public(Version(r.torch), wanted)]
    if not rows:
        return None
    order = {"table": 0, "release_note": 1, "installer": 2}
    return min(rows, key=lambda r: (order[r.origin], [-x for x in Version(r.version).release],
                                    -(Version(r.version).post or 0)))


def _list(versions: Sequence[str]) -> str:
    return ", ".join(versions)


# -- torch_npu <-> torch ----------------------------------------------------------------------

def torch_npu_vs_torch(m: MatrixTables, torch_npu: str, torch: str) -> Verdict:
    from ascend_doctor.matrix.pip import torch_pair  # the fix line of a mismatch (pip install lines)

    npu_v, torch_v = try_pypi(torch_npu), try_pypi(torch)
    if npu_v is None:
        return _cannot_read("torch_npu", torch_npu)
    if torch_v is None:
        return _cannot_read("torch", torch)
    rows = rows_for_torch_npu(m, npu_v)
    pairs = [(r.torch, r.source, _where(r)) for r in rows]
    pairs += [(r.torch, r.source, Text(N_("vLLM-Ascend {version} row"), version=r.version))
              for r in vllm_rows_for_torch_npu(m, npu_v)]
    matching = [p for p in pairs if same_public(Version(p[0]), torch_v)]
    if matching:
        return Verdict(VerdictKind.RECOMMENDED,
                       Text(N_("torch_npu {torch_npu} is built for PyTorch {torch} ({where})"), torch_npu=torch_npu,
                            torch=matching[0][0], where=matching[0][2]),
                       tuple(dict.fromkeys(s for p in matching for s in p[1])))
    if pairs:
        wanted = pairs[0][0]
        return Verdict(VerdictKind.INCOMPATIBLE,
                       Text(N_("torch_npu {torch_npu} is built for PyTorch {torch} ({where}), not {installed}"),
                            torch_npu=torch_npu, torch=wanted, where=pairs[0][2], installed=torch),
                       tuple(dict.fromkeys(s for p in pairs for s in p[1])),
                       torch_pair(m, wanted, torch_npu).text())
    # Not in any table: torch_npu versions carry the PyTorch version they are built for.
    base = Version(".".join(str(x) for x in npu_v.release[:3]))
    sources = ("github.com/Ascend/pytorch COMPATIBILITY.en.md (branch v{PyTorch}-{PTA}: the PyTorch version "
               "matching the TorchNPU)",)
    if same_public(base, Version(".".join(str(x) for x in torch_v.release[:3]))):
        return Verdict(VerdictKind.COMPATIBLE,
                       Text(N_("torch_npu {torch_npu} is not in the matrix; its version names PyTorch {torch}, as "
                               "installed"), torch_npu=torch_npu, torch=str(base)),
                       sources, inferred=True)
    return Verdict(VerdictKind.INCOMPATIBLE,
                   Text(N_("torch_npu {torch_npu} is not in the matrix, but its version names PyTorch {torch}, not "
                           "{installed}"), torch_npu=torch_npu, torch=str(base), installed=torch),
                   sources, torch_pair(m, str(base), torch_npu).text(), inferred=True)


# -- torch_npu <-> CANN -----------------------------------------------------------------------

def torch_npu_vs_cann(m: MatrixTables, torch_npu: str, cann: str) -> Verdict:
    npu_v, cann_v = try_pypi(torch_npu), try_ascend(cann)
    if npu_v is None:
        return _cannot_read("torch_npu", torch_npu)
    if cann_v is None:
        return _cannot_read("CANN", cann)
    suggestion = _suggest_for_cann(m, cann_v, npu_v)
    rows = rows_for_torch_npu(m, npu_v)
    matching = [r for r in rows if _cann_matches(r.cann, cann_v)]
    if matching:
        others = [r for r in rows if r not in matching]
        notes = tuple(f"{ORIGIN_TEXT[r.origin]} pairs it with CANN {r.cann}" for r in others)
        notes += tuple(r.note for r in matching if r.note)
        first = matching[0]
        return Verdict(VerdictKind.RECOMMENDED,
                       Text(N_("torch_npu {torch_npu} is released for CANN {cann} ({where})"), torch_npu=torch_npu,
                            cann=first.cann, where=_where(first)),
                       tuple(dict.fromkeys(s for r in matching for s in r.source)), notes=notes)
    vllm_rows = [r for r in vllm_rows_for_torch_npu(m, npu_v) if _cann_matches(r.cann, cann_v)]
    if vllm_rows:
        return Verdict(VerdictKind.RECOMMENDED,
                       Text(N_("vLLM-Ascend {version} pairs torch_npu {torch_npu} with CANN {cann}"),
                            version=vllm_rows[0].version, torch_npu=torch_npu, cann=vllm_rows[0].cann),
                       vllm_rows[0].source)
    for statement in m.torch_npu_cann:
        ptas = [try_ascend(p) for p in statement.pta]
        row_ptas = [try_ascend(r.pta) for r in rows if r.pta]
        if any(p and rp and p.same_release(rp) for p in ptas for rp in row_ptas) and \
                any(_cann_matches(c, cann_v) for c in statement.cann):
            pta = next(r.pta for r in rows if r.pta)
            uncertain = (statement.note,) if statement.uncertain and statement.note else ()
            template = (N_("PTA {pta} (torch_npu {torch_npu}) lists CANN {cann} as compatible in a statement that "
                           "may mean only upgrade-compatible") if statement.uncertain else
                        N_("PTA {pta} (torch_npu {torch_npu}) lists CANN {cann} as compatible"))
            return Verdict(VerdictKind(statement.verdict), Text(template, pta=pta, torch_npu=torch_npu, cann=cann),
                           statement.source, suggestion, inferred=False, notes=uncertain,
                           uncertain=statement.uncertain)
    for entry in m.torch_npu_runtime_map:
        if _cann_matches(entry.cann, cann_v) and not any(try_pypi(v) == npu_v for v in entry.torch_npu):
            return Verdict(VerdictKind.INCOMPATIBLE,
                           Text(N_("with CANN {cann} torch_npu accepts only {accepted}; {torch_npu} prints 'CANN "
                                   "package version … and PyTorch version … do not match'"), cann=entry.cann,
                                accepted=_list(entry.torch_npu), torch_npu=torch_npu),
                           entry.source, suggestion)
    if rows:
        canns = _list(sorted({r.cann for r in rows}))
        return unknown(Text(N_("torch_npu {torch_npu} is released for CANN {canns}; no source says it works with CANN "
                               "{cann}"), torch_npu=torch_npu, canns=canns, cann=cann),
                       suggestion, tuple(dict.fromkeys(s for r in rows for s in r.source)))
    return unknown(Text(N_("torch_npu {torch_npu} is not in the matrix"), torch_npu=torch_npu), suggestion)


def _cann_matches(row_cann: str, cann_v: AscendVersion) -> bool:
    version = try_ascend(row_cann)
    return version is not None and release_rank(version, cann_v) >= 0


def _suggest_for_cann(m: MatrixTables, cann_v: AscendVersion, torch_npu: Version) -> Optional[str]:
    rows = rows_for_cann(m, cann_v)
    if not rows:
        return None
    same_torch = [r for r in rows if Version(r.torch).release[:2] == torch_npu.release[:2]]
    pick = same_torch or rows
    versions = ", ".join(f"{r.version} (torch {r.torch})" for r in pick)
    return Text(N_("CANN {cann} is released with torch_npu {versions}"), cann=cann_v.release, versions=versions)


# -- Python -----------------------------------------------------------------------------------

def torch_vs_python(m: MatrixTables, torch: str, python: str) -> Verdict:
    torch_v = try_pypi(torch)
    if torch_v is None:
        return _cannot_read("torch", torch)
    if python_version(python) is None:
        return _cannot_read("Python", python)
    rows = [r for r in m.torch_python if same_public(Version(r.torch), torch_v)]
    if not rows:
        return unknown(Text(N_("PyTorch {torch} is not in the matrix"), torch=torch))
    row = rows[0]
    if not row.python:
        return unknown(Text(N_("no Python list is recorded for PyTorch {torch}"), torch=row.torch), None, row.source)
    shown = describe_python(row.python)
    if python_in(row.python, python):
        return Verdict(VerdictKind.COMPATIBLE, Text(N_("PyTorch {torch} supports Python {pythons}"), torch=row.torch,
                                                    pythons=shown), row.source)
    return Verdict(VerdictKind.INCOMPATIBLE,
                   Text(N_("PyTorch {torch} supports Python {pythons}, not {python}"), torch=row.torch, pythons=shown,
                        python=python),
                   row.source, Text(N_("use Python {pythons}, or a PyTorch release that supports Python {python}"),
                                    pythons=shown, python=python))


def torch_npu_vs_python(m: MatrixTables, torch_npu: str, python: str) -> Verdict:
    npu_v = try_pypi(torch_npu)
    if npu_v is None:
        return _cannot_read("torch_npu", torch_npu)
    if python_version(python) is None:
        return _cannot_read("Python", python)
    for entry in m.torch_npu_python:
        if any(try_pypi(v) == npu_v for v in entry.torch_npu):
            shown = describe_python(entry.python)
            if python_in(entry.python, python):
                return Verdict(VerdictKind.COMPATIBLE, Text(N_("torch_npu {torch_npu} supports Python {pythons}"),
                                                            torch_npu=torch_npu, pythons=shown), entry.source)
            return Verdict(VerdictKind.INCOMPATIBLE,
                           Text(N_("torch_npu {torch_npu} supports Python {pythons}, not {python}"),
                                torch_npu=torch_npu, pythons=shown, python=python),
                           entry.source, Text(N_("use Python {pythons}"), pythons=shown))
    rows = rows_for_torch_npu(m, npu_v)
    if rows:
        return torch_vs_python(m, rows[0].torch, python).with_prefix(f"torch_npu {torch_npu}: ")
    return unknown(Text(N_("torch_npu {torch_npu} is not in the matrix"), torch_npu=torch_npu))
