"""ASC-NET-009: each NPU's optical module is present, and its readings are inside its own thresholds."""

from __future__ import annotations

from typing import Iterator, List, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._network import SRC_MINDCLUSTER, devices, ids, scope, system_fix

CHECK = CheckSpec(
    id="ASC-NET-009",
    title="NPU optical modules present and in range",
    what=("Reads `hccn_tool -i N -optical -g` where a device reports it. A module that is not present FAILs when "
          "the link is not UP (information when it is: an electrical cable has no module); for a present module, "
          "each reading with Low/High thresholds (Tx Power, Rx Power, Vcc, temperature...) outside them WARNs, "
          "and so does a non-zero loss-of-signal or loss-of-lock flag."),
    why=("A missing, dirty or failing optical module is the usual cause of a link that is down, flaps, or drops "
         "packets under load; the module's own thresholds say when a reading is abnormal. Source: "
         + SRC_MINDCLUSTER),
    fix=("Reseat or replace the optical module (and clean the fibre) of the device named; then "
         "`hccn_tool -i N -optical -g` and `hccn_tool -i N -link -g` again."),
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    reported = [d for d in devices(ctx) if d.optical is not None]
    if not reported:
        raise NotApplicable(_("no device reports its optical module (`hccn_tool -i N -optical -g`)"))
    good: List[int] = []
    for device in reported:
        n, optical = device.device_id, device.optical
        assert optical is not None
        fix = system_fix(_("Reseat or replace NPU {device}'s optical module").format(device=n),
                         (f"hccn_tool -i {n} -optical -g", f"hccn_tool -i {n} -link -g"), subject=f"npu {n}")
        if optical.present is False:
            if (device.link or "").upper() == "UP":
                yield Finding(Status.INFO, _("device {device}: no optical module reported ({present}) and the link "
                                             "is UP (an electrical cable?)").format(device=n,
                                                                                    present=optical.present_text),
                              "", {"present": optical.present_text}, scope(n))
                good.append(n)
            else:
                yield Finding.fail(
                    (_("device {device}: optical module {present}, link {link}") if device.link else
                     _("device {device}: optical module {present}, link unknown")).format(
                        device=n, present=optical.present_text, link=device.link),
                    _("Plug in (or reseat) the optical module of NPU {device}'s port and check the fibre; then "
                      "`{command}`.").format(device=n, command=f"hccn_tool -i {n} -link -g"),
                    present=optical.present_text).scoped(scope(n)).with_actions(fix)
            continue
        out_of_range = [r for r in optical.readings() if not r.in_range]
        flags = {k: v for k, v in optical.flags().items() if v}
        if not out_of_range and not flags:
            good.append(n)
            continue
        parts = [_("{name} {value} {unit} outside {low}..{high} {unit}").format(
                     name=r.name, value=f"{r.value:g}", unit=r.unit, low=_number(r.low), high=_number(r.high))
                 for r in out_of_range]
        parts += [f"{k} {v:#x}" for k, v in sorted(flags.items())]
        yield Finding.warn(_("device {device}: optical module {readings}").format(device=n, readings="; ".join(parts)),
                           _("Clean the fibre and reseat or replace NPU {device}'s optical module; compare with "
                             "`{command}` afterwards (the thresholds are the module's own).").format(
                               device=n, command=f"hccn_tool -i {n} -optical -g"),
                           readings=[r.to_dict() for r in out_of_range], flags=flags).scoped(scope(n)).with_actions(fix)
    if len(good) == len(reported):
        yield Finding.passed(_("optical modules fine on {count} device(s): {devices}").format(
            count=len(good), devices=ids(good)))


def _number(value: Optional[float]) -> str:
    """A threshold as the module prints it; ``?`` for one it does not report."""
    return "?" if value is None else f"{value:g}"
