"""ASC-CTR-004: ASCEND_RT_VISIBLE_DEVICES lists only devices the process can see."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable

CHECK = CheckSpec(
    id="ASC-CTR-004",
    title="ASCEND_RT_VISIBLE_DEVICES within the visible devices",
    what=("Parses ASCEND_RT_VISIBLE_DEVICES (logical device indices for the CANN runtime) and compares every "
          "index with the number of devices this process can address: the /dev/davinciN nodes present, else the "
          "chips npu-smi lists (an A3 NPU counts as two)."),
    why=("Indices are logical, 0..n-1 among the devices the process sees -- inside a container given NPUs 4 and "
         "5 they are 0 and 1. A physical id there fails at start with `EE1001 ... set ASCEND_RT_VISIBLE_DEVICES:4 "
         "error, input data rang[0-2)` and `aclrtGetDeviceCount ... error code is 207004` (gpustack#3352)."),
    fix="Use logical indices: export ASCEND_RT_VISIBLE_DEVICES=0,1 (0..n-1 of the devices this container has).",
)


def run(ctx: CheckContext) -> Iterator[Finding]:
    visible = ctx.facts.get("visible_devices")
    raw = visible.rt_visible_raw
    bad = [e for e in visible.errors if e.startswith("ASCEND_RT_VISIBLE_DEVICES")]
    if bad:
        yield Finding.fail(bad[0] + ": the runtime rejects it at start.",
                           "export ASCEND_RT_VISIBLE_DEVICES=0,1   # comma-separated logical indices", value=raw)
        return
    if visible.rt_visible is None:
        raise NotApplicable("ASCEND_RT_VISIBLE_DEVICES is not set")
    scope = ctx.facts.get("npu_scope")
    count = scope.visible_chip_count
    if count is None:
        raise NotApplicable("cannot count the devices this process sees (no /dev/davinciN, no npu-smi table)")
    indices = list(visible.rt_visible)
    dupes = sorted({i for i in indices if indices.count(i) > 1})
    good = ",".join(str(i) for i in range(min(count, max(1, len(set(indices))))))
    if scope.out_of_range:
        yield Finding.fail(
            f"ASCEND_RT_VISIBLE_DEVICES={raw} but this process sees {count} device(s) (logical 0-{count - 1}): "
            f"{', '.join(str(i) for i in scope.out_of_range)} out of range. The runtime stops with `EE1001 ... set "
            f"ASCEND_RT_VISIBLE_DEVICES:{scope.out_of_range[0]} error, input data rang[0-{count})` / 207004.",
            f"export ASCEND_RT_VISIBLE_DEVICES={good}   # logical indices of the devices this container has",
            value=raw, visible_count=count, out_of_range=list(scope.out_of_range))
        return
    if dupes:
        yield Finding.warn(f"ASCEND_RT_VISIBLE_DEVICES={raw} repeats {', '.join(map(str, dupes))}.",
                           f"export ASCEND_RT_VISIBLE_DEVICES={','.join(str(i) for i in sorted(set(indices)))}",
                           value=raw)
        return
    yield Finding.passed(f"ASCEND_RT_VISIBLE_DEVICES={raw} is within the {count} visible device(s)")
