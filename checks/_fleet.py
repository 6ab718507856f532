"""Helpers shared by the ASC-FLT-* checks (the ``fleet`` suite); not a check (the registry skips
``_`` modules). ``ascend-doctor fleet`` merges the node reports first (ascend_doctor/fleet/) and
hands the checks a ``FleetFacts`` as ``ctx.facts``; the checks compare and say how to bring the
odd nodes in line, with the matrix's package names for the fleet's chip family and architecture.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

from ascend_doctor.checkapi import CheckContext, Finding, FixAction, NotApplicable, Status
from ascend_doctor.fleet import drift
from ascend_doctor.fleet.facts import DriftView, FleetFacts
from ascend_doctor.i18n import _, ngettext
from ascend_doctor.shellcmd import Placeholder, argv, comment, fits, one_line, shaped

MAX_NAMES = 8  # node names spelled out in a message before "and N more"

# Sources of the network remediation (facts only; see docs/fleet.md).
TLS_SOURCE = ("gitcode.com/cann/hixl FAQ, issue #72: the two ends of a link must have the same TLS setting, a TLS "
              "device cannot connect to a non-TLS one (connect timeout); `hccn_tool -i $i -tls -s enable 0|1`")
FEC_SOURCE = "MindCluster ascend-fd knowledge graph Comp_Network_Custom_02 'Abnormal FEC mode': " \
             "`hccn_tool -i $i -fec -s encoding rs`"
SET_IP_SOURCE = "hiascend MindCluster toolbox guide toolboxug_0142: `hccn_tool -i devid -ip -s address %s netmask %s`"
INTRA_ROCE_SOURCE = ("gitcode.com/cann/hixl FAQ, issue #15: HCCL_INTRA_ROCE_ENABLE must be set to 1 on both ends, or "
                     "on neither")


# What a fleet check receives: the merged node reports as facts, and the matrix.
FleetCheckContext = CheckContext[FleetFacts]


def set_ip_command(device_id: str, address: Optional[str], netmask: Optional[str]) -> str:
    return argv("hccn_tool", "-i", shaped(device_id, "device_id", "N"), "-ip", "-s",
                "address", shaped(address, "ipv4", "free address"), "netmask", shaped(netmask, "ipv4", "netmask"))


def fleet_facts(ctx: FleetCheckContext) -> FleetFacts:
    facts: object = ctx.facts  # a test or a plugin may still hand a fleet check another suite's facts
    if not isinstance(facts, FleetFacts):
        raise NotApplicable(_("graded by `ascend-doctor fleet` only"))
    return facts


def names(nodes: Sequence[str], limit: int = MAX_NAMES) -> str:
    shown = list(nodes[:limit])
    rest = len(nodes) - len(shown)
    listed = ", ".join(shown)
    return _("{names} and {count} more").format(names=listed, count=rest) if rest > 0 else listed


def plain_names(nodes: Sequence[str], limit: int = MAX_NAMES) -> str:
    """:func:`names` in English whatever the language: for a result's scope, which stays the same."""
    shown = list(nodes[:limit])
    rest = len(nodes) - len(shown)
    return ", ".join(shown) + (f" and {rest} more" if rest > 0 else "")


def count(n: int, what: str = "node") -> str:
    """``n`` things, in the current language: "1 node", "16 nodes", "3 entries" (16 个节点).

    A value of the messages around it. The noun is its own field-less entry on purpose: a
    catalogue template "{n} node" would match any text that ends in " node" (a command line of a
    remediation included) when a report is converted between languages (ascend_doctor/i18n.py)."""
    if what == "node":
        noun = ngettext("node", "nodes", n)
    elif what == "device":
        noun = ngettext("device", "devices", n)
    elif what == "subnet":
        noun = ngettext("subnet", "subnets", n)
    elif what == "entry":
        noun = ngettext("entry", "entries", n)
    elif what == "device_ip":
        noun = ngettext("device_ip", "device_ips", n)
    elif what == "server":
        noun = ngettext("server", "servers", n)
    else:
        raise ValueError(f"count(): no message for {what!r}")
    return f"{n} {noun}"


def label_of(view: DriftView) -> str:
    """The compared fact's name for people, in the current language (``DriftKey.label`` holds an
    ``N_``-marked literal, or the name of an environment variable, which stays as it is)."""
    return view.spec.label if view.spec.group == drift.HCCL_ENV else _(view.spec.label)


def shown_value(value: str) -> str:
    """A compared value for a message: the readers' "not installed" / "unset" in the current
    language, anything else (a version, a digest) as it is."""
    if value == drift.NOT_INSTALLED:
        return _("not installed")
    if value == drift.UNSET:
        return _("unset")
    return value


def require_nodes(facts: FleetFacts, minimum: int = 2) -> None:
    readable = facts.readable()
    if len(readable) < minimum:
        raise NotApplicable(_("needs at least {minimum} readable node reports to compare ({count} given)").format(
            minimum=minimum, count=len(readable)))


# -- targets ---------------------------------------------------------------------------------------


def _version_key(value: str) -> Tuple[int, Any]:
    from ascend_doctor.versions import AscendVersion

    parsed = AscendVersion.try_parse(value)
    if parsed is not None:
        return (1, parsed.sort_key)
    try:
        from packaging.version import Version

        return (1, Version(value))
    except Exception:
        return (0, value)


def target_of(view: DriftView) -> Tuple[str, str]:
    """(the value to bring every node to, why): the majority, or on a tie the newest value."""
    if view.majority is not None:
        return view.majority, _("the value of {nodes}").format(nodes=count(len(view.groups[view.majority])))
    candidates = [v for v in view.groups if v not in (drift.NOT_INSTALLED, drift.UNSET)] or list(view.groups)
    try:
        newest = max(candidates, key=_version_key)
    except TypeError:  # values of mixed shapes: take the first in name order
        newest = sorted(candidates)[0]
    return newest, _("no value has a majority; the newest is proposed")


def spread(view: DriftView) -> str:
    """``15 nodes on 24.1.rc2.2; node03 on 23.0.7`` (groups largest first)."""
    parts = []
    for value, nodes in view.ranked():
        if value == view.majority:
            parts.append(_("{nodes} on {value}").format(nodes=count(len(nodes)), value=shown_value(value)))
        else:
            parts.append(_("{nodes} on {value}").format(nodes=names(nodes), value=shown_value(value)))
    return "; ".join(parts)


# -- findings --------------------------------------------------------------------------------------

Fixer = Callable[[FleetCheckContext, DriftView, str, List[str]], Tuple[str, Tuple[FixAction, ...]]]


def drift_findings(ctx: FleetCheckContext, views: Sequence[DriftView], severity: Callable[[DriftView], Status],
                   fixer: Fixer) -> Iterator[Finding]:
    """One finding per compared fact: PASS when every node agrees, else ``severity(view)`` naming the
    majority, every node that differs and the remediation ``fixer`` gives for them."""
    for view in views:
        label = label_of(view)
        scope = view.spec.label
        unknown = count(len(view.unknown))  # nodes that did not report the fact
        if not view.differs:
            (value, nodes), = view.groups.items()
            text = (_("{fact}: all {nodes} on {value} ({unknown} did not report it)") if view.unknown else
                    _("{fact}: all {nodes} on {value}"))
            yield Finding.passed(text.format(fact=label, nodes=count(len(nodes)), value=shown_value(value),
                                             unknown=unknown),
                                 fact=view.spec.key, value=value, nodes=len(nodes)).scoped(scope)
            continue
        target, why = target_of(view)
        odd = [node for node, value in view.odd() if value != target]
        remediation, actions = fixer(ctx, view, target, odd)
        status = severity(view)
        if view.majority is None:
            head = (_("{fact} differs across the fleet: {spread} ({unknown} did not report it) ({why})")
                    if view.unknown else _("{fact} differs across the fleet: {spread} ({why})"))
        else:
            head = (_("{fact} differs across the fleet: {spread} ({unknown} did not report it)") if view.unknown
                    else _("{fact} differs across the fleet: {spread}"))
        yield Finding(status, head.format(fact=label, spread=spread(view), unknown=unknown, why=why), remediation,
                      view.to_dict(), scope, actions)


def on_nodes(odd: Sequence[str]) -> str:
    return comment(f"on {names(odd, 20)} (as root):")


def pip_pin(subject: str, version: str) -> str:
    """``pip install NAME==VERSION`` for the fleet's majority version (read from node reports): a version that
    is not shaped like one, or a name that is not a package name, is a placeholder to fill in."""
    name = shaped(subject, "package", "package")
    if fits(version, "version") and not isinstance(name, Placeholder):
        return argv("pip", "install", f"{name}=={version}")
    return argv("pip", "install", Placeholder(f"{name.strip('<>')}==version"))


def action(view: DriftView, target: str, odd: Sequence[str], summary: str, commands: Sequence[str],
           where: str = "host", direction: str = "") -> FixAction:
    spec = view.spec
    # The summary names values read from node reports: one line, so that no value starts a line of its own.
    return FixAction(component=spec.component, summary=one_line(_("On {nodes}: {summary}").format(
                         nodes=names(odd, 20), summary=summary)),
                     commands=tuple(commands),
                     where=where, target=target, direction=direction, subject=spec.subject or spec.key,
                     accepts=(target,))


def direction_to(target: str, current: Sequence[str]) -> str:
    """"upgrade" when the target is newer than every differing value, "downgrade" when older."""
    try:
        keys = [_version_key(v) for v in current if v not in (drift.NOT_INSTALLED, drift.UNSET)]
        wanted = _version_key(target)
        if keys and all(k < wanted for k in keys):
            return "upgrade"
        if keys and all(k > wanted for k in keys):
            return "downgrade"
    except TypeError:
        pass
    return "install"


def values_of(view: DriftView, odd: Sequence[str]) -> List[str]:
    wanted = set(odd)
    return [value for value, nodes in view.groups.items() if wanted.intersection(nodes)]


# -- package names ---------------------------------------------------------------------------------


def package_set(ctx: FleetCheckContext) -> Optional[Any]:
    """The matrix's package names for the fleet's (majority) chip family and architecture."""
    facts = fleet_facts(ctx)
    family, arch = facts.majority_of("family"), facts.majority_of("arch")
    packages = getattr(ctx.matrix, "packages", None)
    if not family or not arch or not callable(packages):
        return None
    try:
        return packages(family, arch)
    except Exception:  # a broken matrix: the lookup command instead
        return None


def fleet_family(ctx: FleetCheckContext) -> str:
    return fleet_facts(ctx).majority_of("family") or "<chip>"


def majority_value(ctx: FleetCheckContext, key: str) -> Optional[str]:
    """The target value of another drift key (torch for torch_npu...), when the fleet states it."""
    spec = drift.KEYS_BY_NAME.get(key)
    if spec is None:
        return None
    view = fleet_facts(ctx).drift(spec)
    if not view.groups:
        return None
    return target_of(view)[0]


def lookup_hint(what: str, version: str) -> str:
    # The version is the fleet's majority, read from node reports: only a version goes into the command.
    return comment(f"no {what} file name is recorded for this chip family/architecture: "
                   + argv("ascend-doctor", "matrix", "lookup", "--cann", shaped(version, "version"), "--chip",
                          Placeholder("chip")))

