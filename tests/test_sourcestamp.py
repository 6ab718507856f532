"""sourcestamp: a file matches the stamp of the bytes it was compiled from, and only those."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from ascend_doctor.sourcestamp import file_has, stamp


def test_the_same_bytes_match_and_any_change_does_not(tmp_path: Path) -> None:
    source = tmp_path / "module.py"
    source.write_bytes(b"VALUE = 1\n")
    size, crc = stamp(b"VALUE = 1\n")
    assert file_has(str(source), size, crc)
    source.write_bytes(b"VALUE = 2\n")  # same size, other content
    assert not file_has(str(source), size, crc)
    source.write_bytes(b"VALUE = 1\n# more\n")  # longer: read stops one byte past the size
    assert not file_has(str(source), size, crc)
    source.write_bytes(b"VALUE")
    assert not file_has(str(source), size, crc)
    assert not file_has(str(tmp_path / "missing.py"), size, crc)
    assert not file_has(str(tmp_path), size, crc)  # a folder


def test_a_fifo_in_a_sources_place_is_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "module.py"
    os.mkfifo(fifo)
    answer = []
    worker = threading.Thread(target=lambda: answer.append(file_has(str(fifo), 10, 0)), daemon=True)
    worker.start()
    worker.join(5)
    assert answer == [False]
