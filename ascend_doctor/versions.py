"""Ascend version strings: parse every spelling seen in the field, compare them, print them.

Ascend packages do not follow PEP 440. Spellings seen in version files, npu-smi headers and
release notes (see ``compat_matrix`` sources and ``../shared/research/compat_facts.md`` §1.4):

    24.1.RC2  24.1.rc2  24.1.rc2.2  24.1.rc3.7  24.1.rc1.b030  24.1.0  25.0.rc1.1
    8.0.RC3  8.0.RC3.beta1  8.0.RC2.alpha001  8.0.0  8.5.0  9.0.0-beta.1  8.0.T63
    7.7.0.1.231 (firmware)  2.1.RC1.B152 (MindIE)  V100R001C19SPC001B124 (release codes)

Ordering within one ``major.minor``: internal T builds < RC1 < RC2 < ... < final .0 < .1 ...;
alpha < beta < plain for the same release; a trailing patch (``rc2.2``) sorts after its base.
Build tags (``.b030``, ``.B152``) are kept for display and ignored when comparing.
"""

from __future__ import annotations

import functools
import re
from typing import Optional, Tuple

from msgspec import Struct

from ascend_doctor.lazy import lazy_re

_STAGE_T, _STAGE_RC, _STAGE_FINAL = 0, 1, 2
_PRE_RANK = {"alpha": -2, "beta": -1, "": 0}

_VERSION_RE = lazy_re(
    r"""^\s*v?
    (?P<major>\d+)\.(?P<minor>\d+)
    (?:\.(?:
        (?P<rc>rc)(?P<rcnum>\d+) |
        (?P<t>t)(?P<tnum>\d+) |
        (?P<patch>\d+)
    ))?
    (?P<rest>(?:\.\d+)*)
    (?:[.\-]?(?P<pre>alpha|beta)\.?(?P<prenum>\d*))?
    (?:[.\-]?b(?P<build>\d+))?
    \s*$""",
    re.IGNORECASE | re.VERBOSE | re.ASCII,
)
# Real version numbers are short; bounding the length keeps int() away from huge digit runs.
_MAX_VERSION_LEN = 64


class VersionError(ValueError):
    pass


@functools.total_ordering
class AscendVersion(Struct, frozen=True):
    """A parsed Ascend version. ``str()`` gives the canonical spelling (``24.1.RC2``)."""

    major: int
    minor: int
    stage: int  # _STAGE_T, _STAGE_RC or _STAGE_FINAL
    number: int  # RC number, T number or patch number (for 24.1.0 -> 0)
    extra: Tuple[int, ...] = ()  # trailing numeric parts: 24.1.rc2.2 -> (2,), 7.7.0.1.231 -> (1, 231)
    pre: str = ""  # alpha / beta
    pre_number: int = 0
    build: Optional[int] = None  # .b030 / .B152: a build tag, ignored in comparisons
    original: str = ""

    @classmethod
    def parse(cls, text: str) -> AscendVersion:
        if len(text or "") > _MAX_VERSION_LEN:
            raise VersionError(f"not an Ascend version (too long): {text[:40]!r}...")
        match = _VERSION_RE.match(text or "")
        if not match:
            raise VersionError(f"not an Ascend version: {text!r}")
        g = match.groupdict()
        if g["rc"]:
            stage, number = _STAGE_RC, int(g["rcnum"])
        elif g["t"]:
            stage, number = _STAGE_T, int(g["tnum"])
        elif g["patch"] is not None:
            stage, number = _STAGE_FINAL, int(g["patch"])
        else:  # "24.1" alone: the release family, treated as the final .0
            stage, number = _STAGE_FINAL, 0
        extra = tuple(int(p) for p in g["rest"].split(".") if p)
        pre = (g["pre"] or "").lower()
        return cls(
            major=int(g["major"]),
            minor=int(g["minor"]),
            stage=stage,
            number=number,
            extra=extra,
            pre=pre,
            pre_number=int(g["prenum"]) if g["prenum"] else 0,
            build=int(g["build"]) if g["build"] else None,
            original=text.strip(),
        )

    @classmethod
    def try_parse(cls, text: Optional[str]) -> Optional[AscendVersion]:
        if not text:
            return None
        try:
            return cls.parse(text)
        except VersionError:
            return None

    # -- comparison -------------------------------------------------------------------------
    @property
    def sort_key(self) -> Tuple[int, ...]:
        return (self.major, self.minor, self.stage, self.number, *self.extra_padded, _PRE_RANK[self.pre],
                self.pre_number)

    @property
    def extra_padded(self) -> Tuple[int, ...]:
        return (self.extra + (0, 0, 0, 0))[:4]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AscendVersion):
            return NotImplemented
        return self.sort_key == other.sort_key

    def __lt__(self, other: AscendVersion) -> bool:
        return self.sort_key < other.sort_key

    def __hash__(self) -> int:
        return hash(self.sort_key)

    # -- views ------------------------------------------------------------------------------
    @property
    def family(self) -> str:
        """``24.1`` for any 24.1.x: the driver family firmware ranges speak of."""
        return f"{self.major}.{self.minor}"

    @property
    def release(self) -> str:
        """The release without patch, pre-release or build: ``24.1.RC2`` for ``24.1.rc2.2``."""
        if self.stage == _STAGE_RC:
            return f"{self.major}.{self.minor}.RC{self.number}"
        if self.stage == _STAGE_T:
            return f"{self.major}.{self.minor}.T{self.number}"
        return f"{self.major}.{self.minor}.{self.number}"

    @property
    def is_prerelease(self) -> bool:
        return bool(self.pre) or self.stage == _STAGE_T

    def same_release(self, other: AscendVersion) -> bool:
        """True when both name the same release (24.1.rc2.2 and 24.1.RC2 do)."""
        return (self.major, self.minor, self.stage, self.number) == (
            other.major, other.minor, other.stage, other.number)

    def __str__(self) -> str:
        text = self.release
        if self.extra:
            text += "." + ".".join(str(p) for p in self.extra)
        if self.pre:
            text += f".{self.pre}{self.pre_number or ''}"
        return text


def parse_version(text: str) -> AscendVersion:
    return AscendVersion.parse(text)


def same_release(a: str, b: str) -> bool:
    """Whether two version strings name the same release, in any spelling; False if unparseable."""
    va, vb = AscendVersion.try_parse(a), AscendVersion.try_parse(b)
    return bool(va and vb and va.same_release(vb))


_RELEASE_CODE_RE = lazy_re(
    r"^V(?P<v>\d{1,6})R(?P<r>\d{1,6})C(?P<c>\d{1,6})(?:SPC(?P<spc>\d{1,6}))?(?:B(?P<b>\d{1,9}))?$", re.I | re.ASCII)


class ReleaseCode(Struct, frozen=True):
    """A Huawei internal release code such as ``V100R001C19SPC001B124``."""

    v: int
    r: int
    c: int
    spc: Optional[int] = None
    build: Optional[int] = None

    @classmethod
    def parse(cls, text: str) -> ReleaseCode:
        match = _RELEASE_CODE_RE.match((text or "").strip())
        if not match:
            raise VersionError(f"not a release code: {text!r}")
        g = match.groupdict()
        return cls(int(g["v"]), int(g["r"]), int(g["c"]),
                   int(g["spc"]) if g["spc"] else None, int(g["b"]) if g["b"] else None)

    @classmethod
    def try_parse(cls, text: Optional[str]) -> Optional[ReleaseCode]:
        try:
            return cls.parse(text or "")
        except VersionError:
            return None

    @property
    def base(self) -> str:
        """``V100R001C19``: the part compatibility lists speak of."""
        return f"V{self.v}R{self.r:03d}C{self.c:02d}"

    @property
    def key(self) -> Tuple[int, int, int]:
        return (self.v, self.r, self.c)

    def __str__(self) -> str:
        text = self.base
        if self.spc is not None:
            text += f"SPC{self.spc:03d}"
        if self.build is not None:
            text += f"B{self.build:03d}"
        return text
