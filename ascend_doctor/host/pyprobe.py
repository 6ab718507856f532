# NOTE: this module is also run *inside the target interpreter* (``python -c <source>``), which
# may be as old as Python 3.6: no ``from __future__ import annotations`` (3.7+), no walrus, no
# 3.7+ APIs in the probe part, and no import of torch or any third-party package (importing
# torch takes seconds and can crash on a broken CANN; we only want installed versions).
"""Inspect a Python interpreter: its executable, version and installed distributions.

The top part (down to ``main``) is the probe that runs in the target interpreter and prints
one JSON object. The bottom part (``probe_source``, ``parse_probe_output``) runs in the doctor.
"""

import json
import os
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

if TYPE_CHECKING:  # typing only: the probe must not import the doctor at run time
    from ascend_doctor.host.base import PythonEnv

_MAX_METADATA_BYTES = 256 * 1024


def _header_value(text: str, key: str) -> Optional[str]:
    """Value of an RFC 822 header (``Name: torch``) in the header block of METADATA."""
    prefix = key.lower() + ":"
    for line in text.splitlines():
        if not line.strip():
            break  # end of the header block; the long description follows
        if line.lower().startswith(prefix):
            return line[len(prefix):].strip()
    return None


def _read_small(path: str) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(_MAX_METADATA_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError):
        return ""


def _metadata_file(entry: str, name: str) -> Optional[str]:
    full = os.path.join(entry, name)
    if name.endswith(".dist-info"):
        return os.path.join(full, "METADATA")
    if name.endswith(".egg-info"):
        # setuptools writes either a directory with PKG-INFO or a single file.
        return os.path.join(full, "PKG-INFO") if os.path.isdir(full) else full
    return None


def scan_distributions(paths: List[str]) -> Dict[str, str]:
    """Installed distributions found on ``paths`` (first one wins, as for imports)."""
    found = {}  # type: Dict[str, str]
    for entry in paths:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for name in names:
            meta_path = _metadata_file(entry, name)
            if meta_path is None:
                continue
            text = _read_small(meta_path)
            dist = _header_value(text, "Name")
            version = _header_value(text, "Version")
            if not dist or not version:
                # Fall back on the folder name: torch_npu-2.1.0.post8.dist-info
                stem = name.rsplit(".", 1)[0]
                if "-" not in stem:
                    continue
                dist, version = stem.split("-", 1)
                version = version.split("-py")[0]
            if dist not in found:
                found[dist] = version
    return found


def _importlib_distributions() -> Optional[Dict[str, str]]:
    try:
        from importlib import metadata  # Python 3.8+
    except ImportError:
        return None
    found = {}  # type: Dict[str, str]
    try:
        for dist in metadata.distributions():
            try:
                name = dist.metadata["Name"]
                version = dist.version
            except Exception:  # one broken METADATA must not hide the rest
                continue
            if name and version and name not in found:
                found[str(name)] = str(version)
    except Exception:
        return None
    return found


def collect() -> Dict[str, Any]:
    packages = _importlib_distributions()
    if packages is None:
        packages = scan_distributions([p for p in sys.path if p])
    return {
        "executable": sys.executable,
        "version": "{}.{}.{}".format(*sys.version_info[:3]),
        "packages": packages,
        # Where packages live (capture copies torch's TorchConfig.cmake from there).
        "path": [p for p in sys.path if p],
    }


def main() -> None:
    sys.stdout.write(json.dumps(collect(), sort_keys=True))
    sys.stdout.write("\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()


# ---------------------------------------------------------------------------------------------
# Doctor side (runs in the doctor's own interpreter).

# Runs first in the target: keep a file in the current directory from shadowing json/os.
_PROBE_PRELUDE = (
    "import sys\n"
    "sys.path[:] = [p for p in sys.path if p not in ('', '.')]\n"
)


def probe_source() -> str:
    """Source to pass to ``python -c``: this file, with the current directory off sys.path."""
    with open(os.path.abspath(__file__), encoding="utf-8") as fh:
        return _PROBE_PRELUDE + fh.read()


def parse_probe_output(stdout: str, executable: str) -> "PythonEnv":
    """Turn the probe's JSON into a ``PythonEnv``; garbage gives an error, never an exception."""
    return parse_probe_record(stdout, executable)[0]


def parse_probe_record(stdout: str, executable: str) -> "Tuple[PythonEnv, Dict[str, Any]]":
    """The ``PythonEnv`` and the raw JSON object ({} when the output was unusable)."""
    from ascend_doctor.host.base import PythonEnv

    text = stdout.strip()
    # Some sitecustomize / .pth files print banners: use the last line that looks like JSON.
    candidates = [line for line in text.splitlines() if line.startswith("{")]
    if not candidates:
        return PythonEnv(executable=executable, version=None,
                         error=f"{executable} did not print the expected JSON: {_snippet(text)}"), {}
    from ascend_doctor import boundedjson  # doctor side only: the probe part must not import the doctor

    try:
        data = boundedjson.loads(candidates[-1], what="the probe's JSON")
    except ValueError:
        return PythonEnv(executable=executable, version=None,
                         error=f"{executable} printed malformed JSON: {_snippet(candidates[-1])}"), {}
    if not isinstance(data, dict):
        return PythonEnv(executable=executable, version=None,
                         error=f"{executable} printed JSON that is not an object"), {}
    return python_env_from_dict(data, executable), data


def python_env_from_dict(data: Dict[str, Any], default_executable: Optional[str]) -> "PythonEnv":
    """Build a ``PythonEnv`` from the probe JSON (also the snapshot's python.json)."""
    from ascend_doctor.host.base import PythonEnv

    exe = data.get("executable")
    version = data.get("version")
    raw_packages = data.get("packages")
    error = data.get("error")
    packages = {}  # type: Dict[str, str]
    if isinstance(raw_packages, dict):
        for key, value in raw_packages.items():
            if isinstance(key, str) and isinstance(value, (str, int, float)) and key:
                # a name or version is one line of plain text: a control character in it (a newline in a
                # hostile python.json) would otherwise start a line of its own in any message that quotes it
                packages[_one_line(key)] = _one_line(str(value))
    elif raw_packages is not None and error is None:
        error = "the package list is not a JSON object"
    return PythonEnv(
        executable=_one_line(exe) if isinstance(exe, str) else default_executable,
        version=_one_line(version) if isinstance(version, str) else None,
        packages=packages,
        error=str(error) if error else None,
    )


def _one_line(text: str) -> str:
    """``text`` with every control character (newline, escape, NUL, DEL) shown as ``?``."""
    return "".join("?" if (ord(ch) < 32 or ord(ch) == 127) else ch for ch in text)


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    if not flat:
        return "(no output)"
    return flat[:120] + ("..." if len(flat) > 120 else "")
