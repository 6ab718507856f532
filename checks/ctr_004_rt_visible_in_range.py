"""ASC-CTR-004: ASCEND_RT_VISIBLE_DEVICES lists only devices the process can see."""

from __future__ import annotations

from typing import Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _, joiner
from ascend_doctor.shellcmd import Placeholder, argv, export, with_comment

from ._context import HostCheckContext

CONTROL_DEVICES = ("/dev/davinci_manager", "/dev/devmm_svm", "/dev/hisi_hdc")

CHECK = CheckSpec(
    id="ASC-CTR-004",
    title="ASCEND_RT_VISIBLE_DEVICES within the visible devices",
    what=("Parses ASCEND_RT_VISIBLE_DEVICES (logical device indices for the CANN runtime) and compares every "
          "index with the number of devices this process can address: the /dev/davinciN nodes present, else the "
          "chips npu-smi lists (an A3 NPU counts as two)."),
    why=("Indices are logical, 0..n-1 among the devices the process sees -- inside a container given NPUs 4 and "
         "5 they are 0 and 1. A physical id there fails at start with `EE1001 ... set ASCEND_RT_VISIBLE_DEVICES:4 "
         "error, input data rang[0-2)` and `aclrtGetDeviceCount ... error code is 207004` (gpustack#3352)."),
    fix=("Decide which NPUs were meant: the ids are logical, 0..n-1 of the devices this container has. If physical "
         "NPUs were meant, re-create the container with their /dev/davinciN; otherwise pick among the container's "
         "own devices (export ASCEND_RT_VISIBLE_DEVICES=<ids in 0..n-1>). Never renumber silently: another id can "
         "be another job's NPU."),
)


def _out_of_range_fix(ctx: HostCheckContext, raw: str, count: int, out_of_range: List[int]) -> Finding:
    """Ask which NPUs were meant (advice review 2, P20): the ids out of range look like physical ids; renumbering
    them from 0 would silently move the job to other NPUs, possibly another job's."""
    scope = ctx.facts.npu_scope
    nodes = ctx.facts.maybe(Facts.device_nodes)
    own = sorted(int(n) for n in getattr(nodes, "davinci", None) or ())
    mapping = ", ".join(f"{i} = /dev/davinci{n}" for i, n in enumerate(own)) if len(own) == count else ""
    choose = with_comment(export("ASCEND_RT_VISIBLE_DEVICES", Placeholder(f"ids in 0-{count - 1}")),
                          _("logical ids of this container's own devices")
                          + (joiner("colon") + mapping if mapping else ""))
    meant = [f"/dev/davinci{int(i)}" for i in out_of_range]
    lines = [_("ASCEND_RT_VISIBLE_DEVICES counts the devices this process sees from 0 (logical 0-{last}); {ids} "
               "look like physical NPU ids. Which NPUs were meant?").format(
                   last=count - 1, ids=", ".join(map(str, out_of_range)))]
    recreate = ""
    if scope.in_container:
        words: List[str] = ["docker", "run"]
        for node in meant:
            words += ["--device", node]
        for control in CONTROL_DEVICES:
            words += ["--device", control]
        words += [Placeholder("image"), "..."]
        recreate = with_comment(argv(*words), _("keep the container's other flags; inside it the NPU(s) are then "
                                                "logical 0-{last}").format(last=len(meant) - 1))
        lines += [_("If physical NPU(s) {ids} were meant, re-create the container with them (on the host):").format(
                      ids=", ".join(map(str, out_of_range))), "  " + recreate]
    lines += [_("Or choose among the devices this container has:") if scope.in_container else
              _("Or choose among the devices this machine has:"), "  " + choose]
    action = FixAction("environment", _("Say which NPUs ASCEND_RT_VISIBLE_DEVICES={value} was meant for").format(
        value=raw), (choose,), where="either", subject="ASCEND_RT_VISIBLE_DEVICES",
        alternative=(_("re-create the container with {devices}").format(devices=", ".join(meant)) if recreate
                     else ""))
    return Finding.fail(
        _("ASCEND_RT_VISIBLE_DEVICES={value} but this process sees {count} device(s) (logical 0-{last}): {ids} out "
          "of range. The runtime stops with `EE1001 ... set ASCEND_RT_VISIBLE_DEVICES:{first} error, input data "
          "rang[0-{count})` / 207004.").format(value=raw, count=count, last=count - 1,
                                               ids=", ".join(str(i) for i in out_of_range), first=out_of_range[0]),
        "\n".join(lines), value=raw, visible_count=count, out_of_range=list(out_of_range),
        logical_ids=list(range(count)), own_devices=[f"/dev/davinci{n}" for n in own],
        meant_devices=meant if recreate else [], in_container=scope.in_container).with_actions(action)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    visible = ctx.facts.visible_devices
    raw = visible.rt_visible_raw
    bad = [e for e in visible.errors if e.startswith("ASCEND_RT_VISIBLE_DEVICES")]
    if bad:
        yield Finding.fail(_("{error}: the runtime rejects it at start.").format(error=bad[0]),
                           with_comment(export("ASCEND_RT_VISIBLE_DEVICES", Placeholder("ids")),
                                        _("comma-separated logical indices, e.g. 0,1")),
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
    if scope.out_of_range:
        yield _out_of_range_fix(ctx, raw or "", count, list(scope.out_of_range))
        return
    if dupes:
        yield Finding.warn(_("ASCEND_RT_VISIBLE_DEVICES={value} repeats {ids}.").format(
                               value=raw, ids=", ".join(map(str, dupes))),
                           export("ASCEND_RT_VISIBLE_DEVICES", ",".join(str(int(i)) for i in sorted(set(indices)))),
                           value=raw)
        return
    yield Finding.passed(_("ASCEND_RT_VISIBLE_DEVICES={value} is within the {count} visible device(s)").format(
        value=raw, count=count))
