"""Build ``serving/`` and ``growing/``: replay sequences of a healthy serving node and of one whose
memory grows past the level it settled at after its engine started.

Both reuse the real ``npu-smi info`` layout of build_planted.py's base capture (2x 910B2C, npu-smi
25.0.rc1.2; values changed, layout untouched) and the real ``npu-smi info -t ecc -i N`` layout of
``../npu-smi-other/npu-smi-reference-ecc-hbm-next-isolated.txt`` (Huawei npu-smi command reference).
Captures are 5 minutes apart (``watch --replay DIR --interval 300``).

* serving/ (8 captures): a vLLM engine holds both chips at 93.0 % HBM (60948 / 65536 MB, the
  reservation an engine makes at start), AICore 0-3 % (idle: nobody sends requests), 45-48 C,
  health OK, ECC counters 0. Expected with the default thresholds: no alert at all.
* growing/ (10 captures): the same node; from capture 4 on NPU 0's worker grows 400 MB per
  capture, and at capture 9 one uncorrectable ECC error and one retired page appear on NPU 1.
  Expected: memory_growth on NPU 0 raised at capture 7 (+1600 MB > 2 % of 65536 MB), and with
  --ecc an ECC FAIL on NPU 1 at capture 9.

Run from the repository root: ``python tests/samples/watch/build_serving.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from build_planted import (  # noqa: E402
    BANNER,
    DEVICE_END,
    PROC_HEADER,
    base_body,
    first_row,
    process_row,
    second_row,
)

ECC_BASE = HERE.parent / "npu-smi-other" / "npu-smi-reference-ecc-hbm-next-isolated.txt"
RESERVED_MB = 60948  # 93.0 % of 65536 MB
WORKER_MB = RESERVED_MB - 617 - 1200  # the rest is the runtime's own


def capture(index: int, grow_from: int = 99, step_mb: int = 400) -> str:
    grown = max(0, index - grow_from + 1) * step_mb
    jitter = (index * 7) % 5 - 2  # a few MB of noise, as a real engine shows
    aicore = [0, 1, 3, 0, 2, 0, 1, 0, 2, 1][index % 10]
    rows: List[str] = [
        BANNER,
        first_row(0, "910B2C", "OK", 96.4 + index % 3, 46 + index % 2),
        second_row(0, "0000:6B:02.0", aicore, RESERVED_MB + jitter + grown, 65536),
        DEVICE_END,
        first_row(1, "910B2C", "OK", 98.1 + index % 2, 47 + index % 2),
        second_row(0, "0000:65:02.0", aicore, RESERVED_MB - jitter, 65536),
        DEVICE_END,
        PROC_HEADER,
        process_row(0, 0, 6513, "rayWorkerDict", 617),
        process_row(0, 0, 33776, "VLLMWorker_TP", WORKER_MB + jitter + grown),
        DEVICE_END,
        process_row(1, 0, 33777, "VLLMWorker_TP", WORKER_MB + 617 - jitter),
        DEVICE_END,
    ]
    return "\n".join(rows) + "\n"


def ecc(npu: int, double: int = 0, isolated: int = 0) -> str:
    header, _, body = ECC_BASE.read_text(encoding="utf-8").partition("# ---\n")
    pad = " " * 35
    body = body.replace(f"NPU ID{pad}: 0", f"NPU ID{pad}: {npu}")
    body = body.replace("HBM Double Bit Error Count               : 0",
                        f"HBM Double Bit Error Count               : {double}")
    body = body.replace("HBM Double Bit Isolated Pages Count      : 0",
                        f"HBM Double Bit Isolated Pages Count      : {isolated}")
    source = header.splitlines()[0]
    return f"{source}\n# what: ECC counters of NPU {npu}, built by build_serving.py\n# ---\n{body}"


def write(name: str, count: int, note: str, grow_from: int = 99, ecc_from: int = 99) -> None:
    header, _ = base_body()
    source = header.splitlines()[0]
    out = HERE / name
    out.mkdir(exist_ok=True)
    for index in range(count):
        what = (f"# what: watch replay '{name}', capture {index + 1} of {count} (5 min apart), built by "
                f"build_serving.py: values changed, layout untouched. {note}")
        (out / f"{index + 1:04d}.txt").write_text(f"{source}\n{what}\n# ---\n{capture(index, grow_from)}",
                                                   encoding="utf-8")
        folder = out / f"{index + 1:04d}.ecc"
        folder.mkdir(exist_ok=True)
        bad = index >= ecc_from
        (folder / "0.txt").write_text(ecc(0), encoding="utf-8")
        (folder / "1.txt").write_text(ecc(1, double=int(bad), isolated=int(bad)), encoding="utf-8")


def main() -> None:
    write("serving", 8, "healthy serving node: HBM 93.0 % reserved by the engine, idle")
    write("growing", 10, "from capture 4 NPU 0's worker grows 400 MB per capture; capture 9 on: one "
          "double-bit ECC error and one isolated page on NPU 1", grow_from=3, ecc_from=8)


if __name__ == "__main__":
    main()
