"""ascend_doctor.versions: every spelling of compat_facts §1.4, ordering, release codes."""

from __future__ import annotations

from typing import Optional, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascend_doctor.versions import AscendVersion, ReleaseCode, VersionError, parse_version, same_release

# spelling -> (str(), .release, .family, .build, .is_prerelease)
SPELLINGS = {
    "24.1.RC2": ("24.1.RC2", "24.1.RC2", "24.1", None, False),
    "24.1.rc2": ("24.1.RC2", "24.1.RC2", "24.1", None, False),
    "24.1.rc2.2": ("24.1.RC2.2", "24.1.RC2", "24.1", None, False),
    "24.1.rc3.7": ("24.1.RC3.7", "24.1.RC3", "24.1", None, False),
    "24.1.rc1.b030": ("24.1.RC1", "24.1.RC1", "24.1", 30, False),
    "24.1.rc3.b999": ("24.1.RC3", "24.1.RC3", "24.1", 999, False),
    "24.1.0": ("24.1.0", "24.1.0", "24.1", None, False),
    "24.1.0.1": ("24.1.0.1", "24.1.0", "24.1", None, False),
    "25.0.rc1.1": ("25.0.RC1.1", "25.0.RC1", "25.0", None, False),
    "8.0.RC3": ("8.0.RC3", "8.0.RC3", "8.0", None, False),
    "8.0.RC3.beta1": ("8.0.RC3.beta1", "8.0.RC3", "8.0", None, True),
    "8.0.0.beta1": ("8.0.0.beta1", "8.0.0", "8.0", None, True),
    "8.1.RC1.alpha001": ("8.1.RC1.alpha1", "8.1.RC1", "8.1", None, True),
    "8.2.rc1.alpha003": ("8.2.RC1.alpha3", "8.2.RC1", "8.2", None, True),
    "8.5.0.alpha001": ("8.5.0.alpha1", "8.5.0", "8.5", None, True),
    "9.0.0-beta.1": ("9.0.0.beta1", "9.0.0", "9.0", None, True),
    "9.1.0-beta.3": ("9.1.0.beta3", "9.1.0", "9.1", None, True),
    "8.0.T6": ("8.0.T6", "8.0.T6", "8.0", None, True),
    "8.0.T63": ("8.0.T63", "8.0.T63", "8.0", None, True),
    "7.0.T10": ("7.0.T10", "7.0.T10", "7.0", None, True),
    "2.1.RC1.B152": ("2.1.RC1", "2.1.RC1", "2.1", 152, False),
    "2.0.T3.B010": ("2.0.T3", "2.0.T3", "2.0", 10, True),
    "7.7.0.1.231": ("7.7.0.1.231", "7.7.0", "7.7", None, False),
    "8.5.0": ("8.5.0", "8.5.0", "8.5", None, False),
}


@pytest.mark.parametrize("text", sorted(SPELLINGS))
def test_every_field_spelling_parses(text: str) -> None:
    version = AscendVersion.parse(text)
    canonical, release, family, build, prerelease = SPELLINGS[text]
    assert str(version) == canonical
    assert (version.release, version.family, version.build, version.is_prerelease) == (
        release, family, build, prerelease)
    assert version.original == text
    assert parse_version(text) == version


def test_case_of_rc_does_not_matter() -> None:
    assert AscendVersion.parse("24.1.RC2") == AscendVersion.parse("24.1.rc2")
    assert hash(AscendVersion.parse("24.1.RC2")) == hash(AscendVersion.parse("24.1.rc2"))


def test_surrounding_whitespace_and_v_prefix() -> None:
    assert str(AscendVersion.parse("  v8.0.RC3 \n")) == "8.0.RC3"


@pytest.mark.parametrize("ordered", [
    ("8.0.RC3", "8.0.0", "8.1.RC1"),
    ("9.0.0-beta.1", "9.0.0"),
    ("8.0.RC3.beta1", "8.0.RC3"),
    ("8.1.RC1.alpha001", "8.1.RC1"),
    ("8.0.RC2.alpha001", "8.0.RC3.beta1"),
    ("8.0.T63", "8.0.RC1", "8.0.RC2", "8.0.RC3", "8.0.0"),
    ("24.1.rc2", "24.1.rc2.2", "24.1.rc3", "24.1.rc3.7", "24.1.0", "24.1.0.1", "25.0.rc1.1"),
    ("7.5.0.1.129", "7.7.0.1.231"),
    ("7.0.0", "7.2.99", "7.10.0"),
    ("23.0.rc3", "23.0.0", "23.0.7", "24.1.rc1"),
])
def test_ordering(ordered: Tuple[str, ...]) -> None:
    versions = [AscendVersion.parse(t) for t in ordered]
    assert versions == sorted(versions)
    for low, high in zip(versions, versions[1:]):
        assert low < high and high > low and low != high


def test_build_tags_are_ignored_in_comparisons() -> None:
    assert AscendVersion.parse("2.1.RC1.B152") == AscendVersion.parse("2.1.RC1")
    assert AscendVersion.parse("24.1.rc1.b030") == AscendVersion.parse("24.1.RC1")


def test_family_alone_is_the_final_release() -> None:
    assert AscendVersion.parse("24.1") == AscendVersion.parse("24.1.0")


@pytest.mark.parametrize(("a", "b", "expected"), [
    ("24.1.rc2.2", "24.1.RC2", True),
    ("24.1.RC2", "24.1.rc2", True),
    ("24.1.rc1.b030", "24.1.RC1", True),
    ("2.1.RC1.B152", "2.1.RC1", True),
    ("8.0.RC3.beta1", "8.0.RC3", True),
    ("7.7.0.1.231", "7.7.0", True),
    ("24.1.rc2", "24.1.rc3", False),
    ("8.0.0", "8.0.RC3", False),
    ("8.0.T63", "8.0.RC3", False),
    ("24.1.0", "24.1.rc1", False),
    ("garbage", "24.1.rc1", False),
    ("", "", False),
])
def test_same_release(a: str, b: str, expected: bool) -> None:
    assert same_release(a, b) is expected
    assert same_release(b, a) is expected


@pytest.mark.parametrize("text", ["", "   ", "abc", "24", "24.", "24.x", "V100R001C19", "MindIE 2.1.RC1",
                                  "8.0.RC", "1.2.3 4", "24.1.rc2..2"])
def test_not_versions(text: str) -> None:
    assert AscendVersion.try_parse(text) is None
    with pytest.raises(VersionError):
        AscendVersion.parse(text)


def test_try_parse_none() -> None:
    assert AscendVersion.try_parse(None) is None


# -- release codes -------------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "key", "base", "spc", "build"), [
    ("V100R001C19SPC001B124", (100, 1, 19), "V100R001C19", 1, 124),
    ("V100R001C23B001", (100, 1, 23), "V100R001C23", None, 1),
    ("V100R001C13", (100, 1, 13), "V100R001C13", None, None),
    ("V100R003C11", (100, 3, 11), "V100R003C11", None, None),
    ("v100r001c25spc001b212", (100, 1, 25), "V100R001C25", 1, 212),
])
def test_release_codes(text: str, key: Tuple[int, int, int], base: str, spc: Optional[int],
                       build: Optional[int]) -> None:
    code = ReleaseCode.parse(text)
    assert (code.key, code.base, code.spc, code.build) == (key, base, spc, build)
    assert str(code) == text.upper()


@pytest.mark.parametrize("text", ["", "24.1.rc2", "V100", "V100R001", "C19", "V100R001C19X", None])
def test_not_release_codes(text: Optional[str]) -> None:
    assert ReleaseCode.try_parse(text) is None


def test_release_codes_order_by_key() -> None:
    codes = ["V100R001C13", "V100R001C19SPC001B124", "V100R001C19SPC002B226", "V100R001C20", "V100R003C10"]
    keys = [ReleaseCode.parse(c).key for c in codes]
    assert keys == sorted(keys)


# -- robustness ----------------------------------------------------------------------------------
_PARTS = ["0", "1", "24", "231", "rc1", "RC3", "T63", "b030", "B152", "beta1", "alpha001", "beta", "x", "", "-"]


def _version_like() -> st.SearchStrategy[str]:
    """Dotted mixes of the parts real versions are made of (hits the parser's branches)."""
    return st.lists(st.sampled_from(_PARTS), min_size=1, max_size=7).map(".".join).flatmap(
        lambda text: st.sampled_from([text, "v" + text, text + "-beta.1", " " + text + " "]))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=60), _version_like()))
def test_try_parse_never_raises(text: str) -> None:
    version = AscendVersion.try_parse(text)
    if version is not None:
        # whatever parses must print and re-parse to an equal version
        assert AscendVersion.parse(str(version)) == version
        assert version.release and version.family
    ReleaseCode.try_parse(text)


@pytest.mark.parametrize("text", ["9" * 5000 + ".1", "V" + "1" * 5000 + "R1C1"], ids=["version", "code"])
def test_try_parse_survives_huge_numbers(text: str) -> None:
    AscendVersion.try_parse(text)
    ReleaseCode.try_parse(text)


def test_only_ascii_digits_are_versions() -> None:
    assert AscendVersion.try_parse("\u0663.\u0664") is None
