"""Facts about the installed Ascend software stack: driver, firmware, CANN packages.

Where files live (``compat_facts.md`` §5): the driver root comes from
``/etc/ascend_install.info`` (``Driver_Install_Path_Param``, default ``/usr/local/Ascend``);
CANN ≤ 8.3 installs under ``ascend-toolkit/<ver>/<arch>-linux`` with a ``latest`` link,
CANN ≥ 8.5 under ``cann-<ver>/<arch>-linux`` with ``cann`` / ``ascend-toolkit/latest`` links; NNAE
under ``nnae/<ver>``. A root install records its root in ``/etc/Ascend/ascend_cann_install.info``
(``Install_Path=``; a non-root one in ``~/Ascend/``), and a sourced set_env.sh names the CANN home
in ``ASCEND_HOME_PATH`` / ``ASCEND_TOOLKIT_HOME``: both are searched too. A CANN home that has lost
its ``*_install.info`` (copied into an image) is still found from ``opp/version.info``.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, TypeVar

from ascend_doctor.facts import Facts, provider
from ascend_doctor.facts.reads import Reads
from ascend_doctor.facts.records.stack import CannInstall, ParsedFile, StackFacts
from ascend_doctor.host.base import Host, HostFileError, HostInfo, PythonEnv

if TYPE_CHECKING:
    from ascend_doctor.parsers.driver_firmware_info import DriverVersionInfo, FirmwareVersionInfo

DEFAULT_ROOT = "/usr/local/Ascend"
ASCEND_INSTALL_INFO = "/etc/ascend_install.info"
CANN_INSTALL_INFO = "/etc/Ascend/ascend_cann_install.info"
ARCH_DIRS = ("aarch64-linux", "x86_64-linux")
T = TypeVar("T")


def _read_parsed(facts: Facts, path: str, parse: Callable[[str], T]) -> Optional[ParsedFile[T]]:
    """Read and parse one file; None when absent, ParsedFile(error=...) when unusable."""
    host = facts.host
    if not host.exists(path):
        return None
    try:
        text = host.read_text(path, max_bytes=256 * 1024)
    except HostFileError as exc:
        return ParsedFile(path, None, exc.message)
    try:
        return ParsedFile(path, parse(text))
    except ValueError as exc:  # the parsers' documented VersionFileError is a ValueError
        return ParsedFile(path, None, str(exc))


def _add_version_file(facts: Facts, path: str, parse: Callable[[str], T], bucket: List[ParsedFile[T]]) -> None:
    """Read ``path`` into ``bucket`` unless it is absent or a file already there (through a link)."""
    host = facts.host
    found = _read_parsed(facts, path, parse)
    if found and all(host.realpath(found.path) != host.realpath(f.path) for f in bucket):
        bucket.append(found)


def root_candidates(env: Mapping[str, str], install_root: Optional[str],
                    cann_roots: Sequence[str] = ()) -> List[str]:
    """Where Ascend software may be installed: the recorded driver root, the default, the roots
    ``/etc/Ascend/ascend_cann_install.info`` names, a non-root user's ``$HOME/Ascend`` and the roots
    behind the CANN environment variables."""
    candidates = [install_root, DEFAULT_ROOT, *cann_roots]
    home = env.get("HOME")
    if home:
        candidates.append(posixpath.join(home, "Ascend"))  # non-root installs
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = env.get(var, "")
        if "/ascend-toolkit" in value:
            candidates.append(value.split("/ascend-toolkit")[0])
        elif "/cann" in value:
            candidates.append(value.split("/cann")[0])
    out: List[str] = []
    for root in candidates:
        root = (root or "").rstrip("/")
        if root.startswith("/") and root not in out:
            out.append(root)
    return out


def cann_install_roots(host: Host) -> List[str]:
    """The install roots ``/etc/Ascend/ascend_cann_install.info`` names (empty when absent or unreadable)."""
    from ascend_doctor.parsers.cann_install_path import CannInstallPathError, parse_cann_install_paths

    try:
        if not host.exists(CANN_INSTALL_INFO):
            return []
        return parse_cann_install_paths(host.read_text(CANN_INSTALL_INFO, max_bytes=64 * 1024)).roots()
    except (HostFileError, CannInstallPathError, UnicodeDecodeError):
        return []


def _roots(facts: Facts, install_root: Optional[str]) -> List[str]:
    candidates = root_candidates(facts.host.env(), install_root, cann_install_roots(facts.host))
    return [root for root in candidates if facts.host.is_dir(root)]


# Where the stack provider looks (docs/snapshot-format.md; {root} = each install root).
STACK_READS = Reads(
    present=("{root}", "{root}/ascend-toolkit/*", "{root}/nnae/*", "{root}/cann*", "{env_path}"),
    files=("/etc/ascend_install.info", CANN_INSTALL_INFO, "{root}/driver/version.info",
           "{root}/firmware/version.info",
           "{root}/ascend-toolkit/*/ascend_*_install.info", "{root}/ascend-toolkit/*/*-linux/ascend_*_install.info",
           "{root}/nnae/*/ascend_*_install.info", "{root}/nnae/*/*-linux/ascend_*_install.info",
           "{root}/cann*/ascend_*_install.info", "{root}/cann*/*-linux/ascend_*_install.info",
           "{root}/ascend-toolkit/*/opp/version.info", "{root}/nnae/*/opp/version.info",
           "{root}/cann*/opp/version.info",
           "{env_path}/ascend_*_install.info", "{env_path}/*-linux/ascend_*_install.info",
           "{env_path}/opp/version.info", "{env_path}/version.info"),
    listings=("{root}", "{root}/ascend-toolkit", "{root}/nnae"),
    host=("env",),
)


@provider("stack", reads=STACK_READS)
def stack(facts: Facts) -> StackFacts:
    # The specific parser modules, not the version_files facade: a run needs only these two.
    from ascend_doctor.parsers import driver_firmware_info as dfi
    from ascend_doctor.parsers import install_info as ii

    host = facts.host
    install_info = _read_parsed(facts, ASCEND_INSTALL_INFO, ii.parse_ascend_install_info)
    driver_root = DEFAULT_ROOT
    notes: List[str] = []
    recorded_root = install_info.info.driver_install_path if install_info and install_info.info else None
    if recorded_root:
        driver_root = recorded_root.rstrip("/") or "/"
    roots = _roots(facts, driver_root)

    drivers: List[ParsedFile[DriverVersionInfo]] = []
    firmwares: List[ParsedFile[FirmwareVersionInfo]] = []
    # The active driver is the one under the recorded driver root; others are leftovers.
    for root in [driver_root] + [r for r in roots if r != driver_root]:
        _add_version_file(facts, posixpath.join(root, "driver", "version.info"), dfi.parse_driver_version_info,
                          drivers)
        _add_version_file(facts, posixpath.join(root, "firmware", "version.info"), dfi.parse_firmware_version_info,
                          firmwares)

    cann: List[CannInstall] = []
    seen_real: Dict[str, int] = {}
    installs = [install for root in roots for install in _find_cann(facts, root)]
    installs += _find_cann_in_places(facts, _env_places(facts, installs))
    for install in installs:
        real = host.realpath(install.info_file)
        if real in seen_real:
            # Same file reached twice (through `latest` and directly): keep one, remember the link.
            idx = seen_real[real]
            if install.via_latest and not cann[idx].via_latest:
                cann[idx] = install
            continue
        seen_real[real] = len(cann)
        cann.append(install)
    return StackFacts(tuple(roots), install_info, driver_root, tuple(drivers), tuple(firmwares), tuple(cann),
                      tuple(notes))


_INFO_FILES = (
    ("toolkit", "ascend_toolkit_install.info"),
    ("nnae", "ascend_nnae_install.info"),
    ("ops", "ascend_ops_install.info"),
)


def _env_places(facts: Facts, found: List[CannInstall]) -> List[Tuple[str, bool]]:
    """CANN homes named by a sourced set_env.sh that the install roots did not already cover."""
    env = facts.host.env()
    known = {posixpath.normpath(c.path) for c in found} | {posixpath.dirname(posixpath.normpath(c.path))
                                                           for c in found}
    places: List[Tuple[str, bool]] = []
    for var in ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"):
        value = (env.get(var) or "").strip().rstrip("/")
        if not value.startswith("/") or posixpath.normpath(value) in known:
            continue
        try:
            if facts.host.is_dir(value) and all(value != p for p, _ in places):
                places.append((value, True))  # what set_env.sh selected is the active one
        except HostFileError:
            continue
    return places


def _find_cann(facts: Facts, root: str) -> List[CannInstall]:
    """Every *_install.info under the usual CANN places of one install root."""
    host = facts.host
    places: List[Tuple[str, bool]] = []  # (directory containing <arch>-linux, via_latest)
    for product in ("ascend-toolkit", "nnae"):
        base = posixpath.join(root, product)
        for name in host.listdir(base):
            if name in ("set_env.sh",):
                continue
            full = posixpath.join(base, name)
            if host.is_dir(full):
                places.append((full, name == "latest"))
    for name in host.listdir(root):
        full = posixpath.join(root, name)
        if (name == "cann" or name.startswith("cann-")) and host.is_dir(full):
            places.append((full, name == "cann"))
    return _find_cann_in_places(facts, places)


def _find_cann_in_places(facts: Facts, places: List[Tuple[str, bool]]) -> List[CannInstall]:
    """The installs in each CANN home: its *_install.info files, else a bare ``opp/version.info``."""
    host = facts.host
    found: List[CannInstall] = []
    for place, via_latest in places:
        before = len(found)
        for arch_dir in ARCH_DIRS:
            directory = posixpath.join(place, arch_dir)
            for kind, file_name in _INFO_FILES:
                path = posixpath.join(directory, file_name)
                if host.exists(path):
                    found.append(_cann_install(facts, kind, path, directory, via_latest))
        # nnae and some images keep the info file directly in the version folder
        for kind, file_name in _INFO_FILES:
            path = posixpath.join(place, file_name)
            if host.exists(path):
                found.append(_cann_install(facts, kind, path, place, via_latest))
        if len(found) == before:
            bare = _bare_opp(facts, place, via_latest)
            if bare is not None:
                found.append(bare)
    return found


def _bare_opp(facts: Facts, place: str, via_latest: bool) -> Optional[CannInstall]:
    """A CANN home without *_install.info (copied into an image, a partial uninstall): its
    ``opp/version.info`` still names the release (``version_dir=8.5.0``, compat_facts §5.5)."""
    from ascend_doctor.parsers.cann_component_info import parse_component_version_info

    path = posixpath.join(place, "opp", "version.info")
    parsed = _read_parsed(facts, path, parse_component_version_info)
    if parsed is None:
        return None
    release = getattr(parsed.info, "cann_release", None) if parsed.info is not None else None
    if not release:
        return CannInstall("toolkit", None, None, place, path, package_name="CANN (opp/version.info only)",
                           via_latest=via_latest, error=parsed.error or "opp/version.info names no CANN release")
    return CannInstall("toolkit", str(release), None, place, path, package_name="CANN (opp/version.info only)",
                       via_latest=via_latest)


def _cann_install(facts: Facts, kind: str, path: str, directory: str, via_latest: bool) -> CannInstall:
    from ascend_doctor.parsers.install_info import parse_cann_install_info

    parsed = _read_parsed(facts, path, parse_cann_install_info)
    info = parsed.info if parsed else None
    if info is None:
        return CannInstall(kind, None, None, directory, path, via_latest=via_latest,
                           error=parsed.error if parsed else "unreadable")
    return CannInstall(
        kind=kind,
        version=getattr(info, "version", None),
        arch=getattr(info, "arch", None),
        path=directory,
        info_file=path,
        innerversion=getattr(info, "innerversion", None),
        compatible_version=tuple(getattr(info, "compatible_version", ()) or ()),
        package_name=getattr(info, "package_name", None),
        via_latest=via_latest,
    )


@provider("python_env", reads=Reads(host=("python",)))
def python_env(facts: Facts) -> PythonEnv:
    return facts.host.python_env()


@provider("env", reads=Reads(host=("env",)))
def env(facts: Facts) -> Dict[str, str]:
    return dict(facts.host.env())


@provider("host_info", reads=Reads(host=("info",)))
def host_info(facts: Facts) -> HostInfo:
    return facts.host.info()
