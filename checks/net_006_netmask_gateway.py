"""ASC-NET-006: the NPUs' netmasks and gateways agree with each other and with /etc/hccn.conf."""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._network import SRC_MINDIE_RANKTABLE, SRC_TOOLBOX, SRC_VLLM_MULTINODE, conf, devices, ids, scope, system_fix

CHECK = CheckSpec(
    id="ASC-NET-006",
    title="NPU netmask and gateway consistent",
    what=("For every NPU with an address: its netmask equals netmask_N of /etc/hccn.conf; its default gateway "
          "(`hccn_tool -i N -route -g`) equals gateway_N and lies inside the device's subnet; a gateway_N that the "
          "device has no route for FAILs. Devices with different netmasks WARN."),
    why=("A wrong netmask or gateway lets a device reach its own segment and nothing else: nodes whose devices "
         "sit in other subnets never connect and HCCL times out (EI0006). Sources: " + SRC_TOOLBOX + "; "
         + SRC_VLLM_MULTINODE + "; " + SRC_MINDIE_RANKTABLE),
    fix=("Netmask: hccn_tool -i N -ip -s address <address> netmask <netmask> (as root, on the host). Gateway: set "
         "the planned one with hccn_tool's gateway setting (the hccn_tool guide of your driver; `hccn_tool -i N "
         "-gateway -g` shows the current one) or correct gateway_N in /etc/hccn.conf, whichever is wrong."),
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def _gateway_fix(device_id: int, gateway: str) -> str:
    # No published capture or guide page here shows hccn_tool's gateway setter: name where to look.
    return _("set NPU {device}'s gateway to {gateway} with hccn_tool's gateway setting (see the hccn_tool guide "
             "of your driver version), then check `{command}`").format(
                 device=device_id, gateway=gateway, command=f"hccn_tool -i {device_id} -route -g")


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.facts.network import set_ip_command
    from ascend_doctor.parsers.hccn import is_ipv4, is_netmask, network_of

    usable = [d for d in devices(ctx) if d.ip is not None and is_ipv4(d.ip.address)]
    if not usable:
        raise NotApplicable(_("no device reports an address (see ASC-NET-004)"))
    plan = conf(ctx)
    problems = 0
    masks: Dict[str, List[int]] = {}
    for device in usable:
        n, ip = device.device_id, device.ip
        assert ip is not None and ip.address is not None
        mask = ip.netmask
        if mask:
            masks.setdefault(mask, []).append(n)
        want_mask = plan.netmask(n) if plan is not None else None
        if mask and not is_netmask(mask):
            problems += 1
            yield Finding.fail(_("device {device}: netmask {netmask} is not a netmask").format(
                                   device=n, netmask=repr(mask)),
                               f"`{set_ip_command(n, ip.address, want_mask)}`", netmask=mask).scoped(scope(n))
            continue
        if want_mask and mask and want_mask != mask:
            problems += 1
            command = set_ip_command(n, ip.address, want_mask)
            yield Finding.fail(_("device {device}: netmask {netmask}, but /etc/hccn.conf records "
                                 "{key}={planned}").format(device=n, netmask=mask, key=f"netmask_{n}",
                                                           planned=want_mask),
                               _("If {planned} is the plan: `{command}`; otherwise correct {key} in "
                                 "/etc/hccn.conf.").format(planned=want_mask, command=command, key=f"netmask_{n}"),
                               netmask=mask, conf_netmask=want_mask).scoped(scope(n)).with_actions(
                system_fix(_("Set NPU {device}'s netmask").format(device=n), (command,), direction="set",
                           subject=f"npu {n}"))
        subnet = network_of(ip.address, mask)
        gateway = device.gateway
        want_gateway = plan.gateway(n) if plan is not None else None
        if want_gateway and gateway and want_gateway != gateway:
            problems += 1
            yield Finding.fail(_("device {device}: default gateway {gateway}, but /etc/hccn.conf records "
                                 "{key}={planned}").format(device=n, gateway=gateway, key=f"gateway_{n}",
                                                           planned=want_gateway),
                               _("If {planned} is the plan, {fix}; otherwise correct {key} in /etc/hccn.conf.").format(
                                   planned=want_gateway, fix=_gateway_fix(n, want_gateway), key=f"gateway_{n}"),
                               gateway=gateway, conf_gateway=want_gateway).scoped(scope(n)).with_actions(
                system_fix(_("Set NPU {device}'s gateway to {gateway}").format(device=n, gateway=want_gateway),
                           (f"hccn_tool -i {n} -route -g",), direction="set", subject=f"npu {n}"))
        elif want_gateway and gateway is None and device.routes:
            problems += 1
            yield Finding.fail(_("device {device} has no default route, but /etc/hccn.conf records "
                                 "{key}={planned}").format(device=n, key=f"gateway_{n}", planned=want_gateway),
                               # English kept as str.capitalize() made it ("npu" lower-cased)
                               _("Set npu {device}'s gateway to {gateway} with hccn_tool's gateway setting (see the "
                                 "hccn_tool guide of your driver version), then check `{command}`.").format(
                                   device=n, gateway=want_gateway, command=f"hccn_tool -i {n} -route -g"),
                               conf_gateway=want_gateway).scoped(scope(n)).with_actions(
                system_fix(_("Set NPU {device}'s gateway to {gateway}").format(device=n, gateway=want_gateway),
                           (f"hccn_tool -i {n} -route -g",), direction="set", subject=f"npu {n}"))
        effective: Optional[str] = gateway or want_gateway
        if effective and subnet is not None and is_ipv4(effective) and \
                network_of(effective, mask) != subnet:
            problems += 1
            yield Finding.fail(_("device {device}: gateway {gateway} is outside its subnet {subnet}").format(
                                   device=n, gateway=effective, subnet=subnet),
                               _("The gateway must be an address of {subnet}: correct {key} (and the device's "
                                 "gateway) to the planned one, or fix the device's address and netmask.").format(
                                   subnet=subnet, key=f"gateway_{n}"),
                               gateway=effective, subnet=str(subnet)).scoped(scope(n))
    if len(masks) > 1:
        problems += 1
        detail = "; ".join(_("{netmask} on {devices}").format(netmask=m, devices=ids(devs))
                           for m, devs in sorted(masks.items(), key=lambda kv: -len(kv[1])))
        yield Finding.warn(_("the devices use different netmasks: {detail}").format(detail=detail),
                           _("One network plan gives every device of a plane the same netmask; set the odd ones with "
                             "`hccn_tool -i N -ip -s address <address> netmask <netmask>`."),
                           netmasks={m: devs for m, devs in masks.items()})
    if not problems:
        gateways = sorted({g for g in (d.gateway for d in usable) if g})
        netmasks = ", ".join(sorted(masks))
        if netmasks:
            text = (_("netmask {netmasks} on {count} device(s); gateway {gateways}") if gateways else
                    _("netmask {netmasks} on {count} device(s); no default gateway set"))
        else:
            text = (_("netmask not reported on {count} device(s); gateway {gateways}") if gateways else
                    _("netmask not reported on {count} device(s); no default gateway set"))
        yield Finding.passed(text.format(netmasks=netmasks, count=len(usable), gateways=", ".join(gateways)))

