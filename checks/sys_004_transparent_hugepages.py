"""ASC-SYS-004: transparent huge pages set as the MindIE tuning guide recommends."""

from __future__ import annotations

from typing import Iterator

from ascend_doctor.checkapi import CheckSpec, Finding, FixAction, NotApplicable
from ascend_doctor.i18n import _

from ._context import HostCheckContext

SOURCE = ("MindIE Service performance tuning (hiascend.com mindie/10RC2 mindie_service0293: 开启透明大页 "
          "echo always > /sys/kernel/mm/transparent_hugepage/enabled); MindIE Turbo server tuning (mindie/20RC1 "
          "mindie-turbo-0009)")

CHECK = CheckSpec(
    id="ASC-SYS-004",
    title="Transparent huge pages: always",
    what="Reads /sys/kernel/mm/transparent_hugepage/enabled; WARNs unless the selected mode is `always`.",
    why=("Huawei's MindIE tuning pages recommend enabling transparent huge pages on inference servers for "
         "performance and stability: the engines' large host buffers (weights staging, KV swap, tokenizer) then "
         f"take fewer TLB misses. Source: {SOURCE}."),
    fix="On the host (root): echo always > /sys/kernel/mm/transparent_hugepage/enabled",
)


def run(ctx: HostCheckContext) -> Iterator[Finding]:
    res = ctx.facts.resources
    if res.thp is None:
        raise NotApplicable(_("/sys/kernel/mm/transparent_hugepage/enabled is not readable here"))
    if res.thp == "always":
        yield Finding.passed(_("transparent huge pages: always"), thp=res.thp)
        return
    yield Finding.warn(
        _("transparent huge pages are '{thp}'; the MindIE tuning guide enables them ('always') on inference servers "
          "({source}).").format(thp=res.thp, source=SOURCE),
        _("On the host (root): {command}").format(command="echo always > /sys/kernel/mm/transparent_hugepage/enabled")
        + "\n" + _("(persist it with transparent_hugepage=always on the kernel command line)"), thp=res.thp
    ).with_actions(FixAction("system", _("Enable transparent huge pages"), (
        "echo always > /sys/kernel/mm/transparent_hugepage/enabled   # "
        + _("persist: transparent_hugepage=always on the kernel command line"),), where="host"))
