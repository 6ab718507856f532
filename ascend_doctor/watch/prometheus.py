"""``watch --prometheus FILE``: write node_exporter textfile metrics so a scrape never sees half a file.

The textfile collector reads every ``*.prom`` file of its directory at each scrape, so the file
must never be seen half written: it is written to a hidden temporary file in the same folder
(``.NAME.XXXXXXXX.tmp``, which the collector ignores because it does not end in ``.prom``) and renamed
over the target (node_exporter README, "Textfile Collector":
https://github.com/prometheus/node_exporter#textfile-collector). The metrics themselves are
ascend_doctor/render/prometheus.py's.
"""

from __future__ import annotations


class PrometheusFileError(Exception):
    """The metrics file cannot be written where asked (one-line message)."""


def check_target(path: str) -> None:
    """Refuse a target that is not (or would not be) a regular file in an existing folder, or
    that is a symbolic link (safeio: no output is ever written through a link)."""
    from ascend_doctor import safeio

    try:
        safeio.check_output_target(path, "--prometheus")
    except safeio.OutputRefused as exc:
        raise PrometheusFileError(str(exc)) from None


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path`` (``.NAME.XXXXXXXX.tmp``, which the collector
    ignores) and rename it over ``path``: safeio's writer, as every output of the tool."""
    from ascend_doctor import safeio

    try:
        with safeio.atomic_output(path, "--prometheus") as fh:
            fh.write(text.encode("utf-8"))
    except safeio.OutputRefused as exc:
        raise PrometheusFileError(str(exc)) from None
    except OSError as exc:
        raise PrometheusFileError(f"cannot write {path}: {safeio.describe_os_error(exc)}") from None
