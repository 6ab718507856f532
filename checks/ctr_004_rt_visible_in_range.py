"""ASC-CTR-004: ASCEND_RT_VISIBLE_DEVICES lists only devices the process can see."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckContext, CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

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
    visible = ctx.facts.visible_devices
    raw = visible.rt_visible_raw
    bad = [e for e in visible.errors if e.startswith("ASCEND_RT_VISIBLE_DEVICES")]
    if bad:
        yield Finding.fail(_("{error}: the runtime rejects it at start.").format(error=bad[0]),
                           "export ASCEND_RT_VISIBLE_DEVICES=0,1   # " + _("comma-separated logical indices"),
                           value=raw)
        return
    if visible.rt_visible is None:
        raise NotApplicable(_("ASCEND_RT_VISIBLE_DEVICES is not set"))
    scope = ctx.facts.npu_scope
    count = scope.visible_chip_count
    if count is None:
        raise NotApplicable(_("cannot count the devices this process sees (no /dev/davinciN, no npu-smi table)"))
    indices = list(visible.rt_visible)
    dupes = sorted({i for i in indices if indices.count(i) > 1})
    good = ",".join(str(i) for i in range(min(count, max(1, len(set(indices))))))
    if scope.out_of_range:
        yield Finding.fail(
            _("ASCEND_RT_VISIBLE_DEVICES={value} but this process sees {count} device(s) (logical 0-{last}): {ids} out "
              "of range. The runtime stops with `EE1001 ... set ASCEND_RT_VISIBLE_DEVICES:{first} error, input data "
              "rang[0-{count})` / 207004.").format(value=raw, count=count, last=count - 1,
                                                   ids=", ".join(str(i) for i in scope.out_of_range),
                                                   first=scope.out_of_range[0]),
            f"export ASCEND_RT_VISIBLE_DEVICES={good}   # " + _("logical indices of the devices this container has"),
            value=raw, visible_count=count, out_of_range=list(scope.out_of_range))
        return
    if dupes:
        yield Finding.warn(_("ASCEND_RT_VISIBLE_DEVICES={value} repeats {ids}.").format(
                               value=raw, ids=", ".join(map(str, dupes))),
                           f"export ASCEND_RT_VISIBLE_DEVICES={','.join(str(i) for i in sorted(set(indices)))}",
                           value=raw)
        return
    yield Finding.passed(_("ASCEND_RT_VISIBLE_DEVICES={value} is within the {count} visible device(s)").format(
        value=raw, count=count))
