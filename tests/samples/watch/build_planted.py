"""Build ``planted/``: a replay sequence for ``ascend-doctor watch`` with known alerts in it.

Every capture is the real ``npu-smi info`` of ``../npu-smi-info/gpustat-fixture-2x910B2C-processes-
25.0.rc1.2.txt`` (2x 910B2C, npu-smi 25.0.rc1.2, with processes) with *values* changed and the
layout untouched: the row templates below are asserted to reproduce the original rows byte for
byte before any value changes. One process row (PID 60575 "python") is added to NPU 0 in two
captures, in the same process-row layout.

The captures are meant to be 5 minutes apart (``watch --replay planted --interval 300``).
Planted, with the default thresholds:

* capture 4-5:  NPU 1 at 86 / 88 C                        -> temperature raised at 4, cleared at 6
* capture 5-6:  NPU 0 health "Warning"                    -> health raised at 5, cleared at 7
* every capture: PID 33777 on NPU 1 grows ~25 MB per 5 min while AICore stays ~88 %
                                                           -> leak (~300 MB/h) raised at 7 (30 min of history)
* capture 8-9:  a second process on NPU 0 takes HBM to 96.0 % -> memory raised at 8, cleared at 10
* capture 11-14: NPU 0 AICore 4, 2, 0, 0 % with its processes still there
                                                           -> aicore raised at 13 (3 samples in a row)

Run from the repository root: ``python tests/samples/watch/build_planted.py``; the output is
committed and must not change unless this script does.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

HERE = Path(__file__).resolve().parent
BASE = HERE.parent / "npu-smi-info" / "gpustat-fixture-2x910B2C-processes-25.0.rc1.2.txt"
OUT = HERE / "planted"
CAPTURES = 14

BANNER = """+------------------------------------------------------------------------------------------------+
| npu-smi 25.0.rc1.2               Version: 25.0.rc1.2                                           |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+"""
DEVICE_END = "+===========================+===============+====================================================+"
PROC_HEADER = """+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+"""


def first_row(npu: int, name: str, health: str, power: float, temp: int) -> str:
    return f"| {npu:<6}{name:<20}| {health:<14}| {power:<12}{temp:<18}0    / 0             |"


def second_row(chip: int, bus: str, aicore: int, hbm_used: int, hbm_total: int) -> str:
    return f"| {chip:<26}| {bus:<14}| {aicore:<12}0    / 0          {hbm_used:<5}/ {hbm_total:<14}|"


def process_row(npu: int, chip: int, pid: int, name: str, memory: int) -> str:
    return f"| {npu:<8}{chip:<18}| {pid:<14}| {name:<25}| {memory:<24}|"


def original() -> str:
    """The base capture rebuilt from the templates with its own values."""
    return "\n".join([
        BANNER,
        first_row(0, "910B2C", "OK", 118.6, 47),
        second_row(0, "0000:6B:02.0", 6, 35738, 65536),
        DEVICE_END,
        first_row(1, "910B2C", "OK", 143.2, 49),
        second_row(0, "0000:65:02.0", 11, 35761, 65536),
        DEVICE_END,
        PROC_HEADER,
        process_row(0, 0, 6513, "rayWorkerDict", 617),
        process_row(0, 0, 33776, "VLLMWorker_TP", 31747),
        DEVICE_END,
        process_row(1, 0, 33777, "VLLMWorker_TP", 31747),
        DEVICE_END,
    ]) + "\n"


def base_body() -> Tuple[str, str]:
    text = BASE.read_text(encoding="utf-8")
    head, _, body = text.partition("# ---\n")
    return head + "# ---\n", body


# Per capture (1-based index - 1): the values that change.
NPU0_HEALTH = ["OK"] * 4 + ["Warning"] * 2 + ["OK"] * 8
NPU0_AICORE = [88, 91, 86, 90, 87, 89, 92, 88, 90, 87, 4, 2, 0, 0]
NPU0_POWER = [312.4, 318.9, 305.2, 315.7, 309.8, 311.3, 320.1, 316.4, 314.0, 308.6, 131.5, 122.8, 118.9, 118.6]
NPU0_TEMP = [52, 53, 52, 53, 53, 52, 54, 53, 53, 52, 49, 48, 47, 47]
NPU1_AICORE = [88, 90, 87, 89, 91, 88, 86, 90, 89, 87, 90, 88, 89, 87]
NPU1_POWER = [321.7, 326.0, 318.5, 355.2, 362.9, 330.4, 322.8, 327.1, 324.6, 319.9, 325.3, 323.0, 326.8, 321.5]
NPU1_TEMP = [54, 55, 54, 86, 88, 79, 58, 55, 54, 55, 54, 55, 54, 54]
LEAK_STEPS = [0, 24, 26, 25, 23, 27, 25, 24, 26, 25, 24, 26, 25, 25]  # MB per 5 min on PID 33777
EXTRA_PROCESS = {7: 27200, 8: 27200}  # capture index -> MB of PID 60575 "python" on NPU 0
NOTES = {
    3: "NPU 1 temperature 86 C (hot)",
    4: "NPU 1 temperature 88 C (hot); NPU 0 health Warning",
    5: "NPU 1 temperature back to 79 C; NPU 0 health Warning",
    6: "NPU 0 health back to OK; PID 33777 on NPU 1 still growing (leak visible after 30 min)",
    7: "PID 60575 python (27200 MB) on NPU 0: HBM 62938 / 65536 = 96.0 %",
    8: "PID 60575 python still on NPU 0: HBM 96.0 %",
    9: "PID 60575 gone: HBM back to 35738 MB on NPU 0",
    10: "NPU 0 AICore 4 % with its two processes",
    11: "NPU 0 AICore 2 % with its two processes",
    12: "NPU 0 AICore 0 % with its two processes (third low sample)",
    13: "NPU 0 AICore 0 % with its two processes",
}


def capture(index: int) -> str:
    grown = sum(LEAK_STEPS[: index + 1])
    extra = EXTRA_PROCESS.get(index)
    npu0_hbm = 35738 + (extra or 0)
    rows: List[str] = [
        BANNER,
        first_row(0, "910B2C", NPU0_HEALTH[index], NPU0_POWER[index], NPU0_TEMP[index]),
        second_row(0, "0000:6B:02.0", NPU0_AICORE[index], npu0_hbm, 65536),
        DEVICE_END,
        first_row(1, "910B2C", "OK", NPU1_POWER[index], NPU1_TEMP[index]),
        second_row(0, "0000:65:02.0", NPU1_AICORE[index], 35761 + grown, 65536),
        DEVICE_END,
        PROC_HEADER,
        process_row(0, 0, 6513, "rayWorkerDict", 617),
        process_row(0, 0, 33776, "VLLMWorker_TP", 31747),
    ]
    if extra:
        rows.append(process_row(0, 0, 60575, "python", extra))
    rows += [DEVICE_END, process_row(1, 0, 33777, "VLLMWorker_TP", 31747 + grown), DEVICE_END]
    return "\n".join(rows) + "\n"


def main() -> None:
    header, body = base_body()
    assert body == original(), "the row templates no longer reproduce the base capture"
    source = header.splitlines()[0]
    OUT.mkdir(exist_ok=True)
    for index in range(CAPTURES):
        note = NOTES.get(index, "all chips busy and healthy; PID 33777 on NPU 1 growing ~25 MB per 5 min")
        what = (f"# what: watch replay 'planted', capture {index + 1} of {CAPTURES} (5 min apart), "
                f"built by build_planted.py: values changed, layout untouched. {note}")
        text = f"{source}\n{what}\n# ---\n{capture(index)}"
        (OUT / f"{index + 1:04d}.txt").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
