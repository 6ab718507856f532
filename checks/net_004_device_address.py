"""ASC-NET-004: every NPU has an address, and it is the one /etc/hccn.conf records."""

from __future__ import annotations

from typing import Iterator, List

from ascend_doctor.checkapi import CheckSpec, Finding, NotApplicable, Status
from ascend_doctor.facts import Facts
from ascend_doctor.i18n import _

from ._context import HostCheckContext
from ._network import SRC_MINDIE_RANKTABLE, SRC_TOOLBOX, SRC_VLLM_MULTINODE, conf, devices, ids, scope, system_fix

CHECK = CheckSpec(
    id="ASC-NET-004",
    title="Every NPU has an address, the one /etc/hccn.conf records",
    what=("Reads `hccn_tool -i N -ip -g` for every NPU and address_N/netmask_N of /etc/hccn.conf. A device "
          "that answers 'Get ipconf failed, because no ip was preset there!' FAILs with the command that gives "
          "it its address (the one hccn.conf records when there is one); a device whose address is not a valid "
          "IPv4 address, or differs from hccn.conf, FAILs."),
    why=("HCCL reaches each rank at its device_ip: a device without an address cannot join a multi-node job, "
         "and a device whose address differs from the plan (hccn.conf, and the rank tables written from it) is "
         "looked for at the wrong address. Sources: " + SRC_TOOLBOX + "; " + SRC_MINDIE_RANKTABLE + "; "
         + SRC_VLLM_MULTINODE),
    fix="hccn_tool -i N -ip -s address <address> netmask <netmask> (as root, on the host)",
    requires=("family:A2,A3,910,none", "fact:hccn"),
    tags=("network",),
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    from ascend_doctor.facts.network import set_ip_command
    from ascend_doctor.parsers.hccn import is_ipv4

    answered = [d for d in devices(ctx) if d.ip is not None]
    if not answered:
        raise NotApplicable(_("no device answered `hccn_tool -i N -ip -g` (see ASC-NET-001)"))
    plan = conf(ctx)
    conf_info = ctx.facts.maybe(Facts.hccn_conf)
    bad: List[int] = []
    for device in answered:
        n, ip = device.device_id, device.ip
        assert ip is not None
        want_addr = plan.address(n) if plan is not None else None
        want_mask = plan.netmask(n) if plan is not None else None
        command = set_ip_command(n, want_addr, want_mask or ip.netmask)
        fix = system_fix(_("Give NPU {device} its address").format(device=n), (command, f"hccn_tool -i {n} -ip -g"),
                         direction="set", subject=f"npu {n}")
        give = (_("Give it the address /etc/hccn.conf records for it: `{command}`") if want_addr else
                _("Give it the address your network plan gives it (/etc/hccn.conf has none for this device): "
                  "`{command}`")).format(command=command)
        if ip.missing:
            bad.append(n)
            yield Finding.fail(_("device {device} has no address: hccn_tool says 'Get ipconf failed, because no ip "
                                 "was preset there!'").format(device=n), give, conf_address=want_addr,
                               ).scoped(scope(n)).with_actions(fix)
        elif not is_ipv4(ip.address):
            bad.append(n)
            yield Finding.fail(_("device {device} reports address {address}, which is not an IPv4 address").format(
                                   device=n, address=repr(ip.address)),
                               give, address=ip.address).scoped(scope(n)).with_actions(fix)
        elif want_addr and want_addr != ip.address:
            bad.append(n)
            yield Finding.fail(
                _("device {device} has address {address}, but /etc/hccn.conf records {key}={planned}").format(
                    device=n, address=ip.address, key=f"address_{n}", planned=want_addr),
                _("If {planned} is the planned address, set it: `{command}`; if {address} is right, correct {key} in "
                  "/etc/hccn.conf (and every rank table naming this device). Then compare `{ip_command}` with "
                  "`{grep_command}` again.").format(
                    planned=want_addr, command=command, address=ip.address, key=f"address_{n}",
                    ip_command=f"hccn_tool -i {n} -ip -g", grep_command=f"grep _{n}= /etc/hccn.conf"),
                address=ip.address, conf_address=want_addr).scoped(scope(n)).with_actions(fix)
    if bad:
        return
    addresses = ", ".join(f"{d.device_id}={d.ip.address}" for d in answered if d.ip is not None)
    # A pasted /etc/hccn.conf is often cut ("..."): say which devices it did not cover, never "as it records".
    uncovered = [d.device_id for d in answered if plan is not None and not plan.address(d.device_id)]
    if plan is not None and uncovered:
        text = _("{count} device(s) have an address: {addresses}; /etc/hccn.conf holds no address_N line for "
                 "device(s) {devices}, so those are not compared with it")
    elif plan is not None:
        text = _("{count} device(s) have their address as /etc/hccn.conf records: {addresses}")
    else:
        text = _("{count} device(s) have their address (no /etc/hccn.conf to compare with): {addresses}")
    yield Finding.passed(text.format(count=len(answered), addresses=addresses, devices=ids(uncovered)))
    if plan is None and getattr(ctx.facts.maybe(Facts.container), "in_container", False):
        error = getattr(conf_info, "error", None)
        yield Finding(Status.INFO, (_("/etc/hccn.conf is unusable ({error}): the addresses cannot be compared with "
                                      "the node's plan.") if error else
                                    _("/etc/hccn.conf is not in this container: the addresses cannot be compared "
                                      "with the node's plan.")).format(error=error),
                      _("Mount it read-only: {command}").format(
                          command="docker run ... -v /etc/hccn.conf:/etc/hccn.conf ..."))
    elif plan is None and conf_info is not None and conf_info.error:
        yield Finding(Status.WARN, _("/etc/hccn.conf cannot be used: {error}").format(error=conf_info.error),
                      _("Look at /etc/hccn.conf: hccn_tool keeps one key_N=value line per setting and device "
                        "(devices here: {devices}).").format(devices=ids(d.device_id for d in answered)))
