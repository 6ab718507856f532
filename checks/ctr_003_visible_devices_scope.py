"""ASC-CTR-003: ASCEND_VISIBLE_DEVICES names NPUs this container really has; states the run's scope."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.facts import Facts
from ascend_doctor.facts.origin import require_stated
from ascend_doctor.i18n import _, ngettext

from ._context import HostCheckContext

CHECK = CheckSpec(
    id="ASC-CTR-003",
    title="ASCEND_VISIBLE_DEVICES matches the devices present",
    what=("Parses ASCEND_VISIBLE_DEVICES (physical NPU ids given to the container by the Ascend container "
          "runtime) and checks that each id has its /dev/davinciN node; reports which NPUs the doctor treats as "
          "this deployment's (faults on the others are reported as information, not failures)."),
    why=("The Ascend docker runtime mounts /dev/davinciN for each id of ASCEND_VISIBLE_DEVICES when the "
         "container is created. An id without its node means the variable was set by hand or the container "
         "was created with other devices: the runtime will not see the NPUs the variable promises."),
    fix=("Recreate the container with the devices you mean: docker run -e ASCEND_VISIBLE_DEVICES=0-3 ... (Ascend "
         "runtime) or --device /dev/davinciN for each NPU, and do not set the variable by hand inside."),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    visible = ctx.facts.visible_devices
    scope = ctx.facts.npu_scope
    raw = visible.visible_raw
    bad = [e for e in visible.errors if e.startswith("ASCEND_VISIBLE_DEVICES")]
    if bad:
        yield Finding.fail(bad[0] + ".", _("Use a list or range of NPU ids: export ASCEND_VISIBLE_DEVICES=0,1,2,3 "
                                           "(or 0-3), set when the container is created"), value=raw)
        return
    if visible.visible is None:
        if not scope.in_container and scope.rt_visible is None:
            if not getattr(ctx.facts.maybe(Facts.container), "known", True):
                require_stated(ctx.facts, _("ASCEND_VISIBLE_DEVICES, and whether this ran in a container"))
            raise NotApplicable(_("ASCEND_VISIBLE_DEVICES is not set and this is not a container: every NPU is in "
                                  "scope"))
        yield Finding.passed(_("scope of this run: {reason}").format(reason=scope.reason))
        return
    nodes = ctx.facts.device_nodes
    present = set(nodes.davinci)
    if not present:
        require_stated(ctx.facts, _("the /dev/davinci* device nodes"))
        raise NotApplicable(_("no /dev/davinciN node to compare with (see ASC-CTR-001)"))
    absent = [i for i in visible.visible if i not in present]
    if absent:
        flags = " ".join(f"--device /dev/davinci{i}" for i in absent)
        yield Finding.fail(
            ngettext("ASCEND_VISIBLE_DEVICES={value} but {devices} is not in this container (it has {present}).",
                     "ASCEND_VISIBLE_DEVICES={value} but {devices} are not in this container (it has {present}).",
                     len(absent)).format(
                value=raw, devices="/dev/davinci" + ", /dev/davinci".join(str(i) for i in absent),
                present="davinci" + ", davinci".join(str(i) for i in sorted(present))),
            _("Recreate the container with those NPUs: docker run -e ASCEND_VISIBLE_DEVICES={value} ... (Ascend "
              "container runtime) or docker run {flags} ...; or set ASCEND_VISIBLE_DEVICES to the devices present: "
              "{present}").format(value=raw, flags=flags, present=",".join(str(i) for i in sorted(present))),
            absent=absent, present=sorted(present)).with_actions(
            # One docker run line, so the fix plan folds it into the single container re-creation with
            # the other findings' flags; setting the variable to what is there is the stated alternative.
            FixAction("container", _("Re-create the container with the NPUs ASCEND_VISIBLE_DEVICES names"),
                      (f"docker run {flags} <image> ...",), where="host",
                      alternative=_("set ASCEND_VISIBLE_DEVICES to the devices present: {present}").format(
                          present=",".join(str(i) for i in sorted(present)))))
        return
    yield Finding.passed(_("ASCEND_VISIBLE_DEVICES={value}: every id has its /dev/davinciN; scope of this run: "
                           "{reason}. Faults on other NPUs are reported as information.").format(value=raw,
                                                                                                reason=scope.reason))
