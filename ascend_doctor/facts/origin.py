"""Where the facts come from, and how to say that something is absent.

A file that is not there means different things depending on the host:

============  ==================  ===============================================================
origin        ``HostInfo.source``  a missing driver/version.info, package, variable ... means
============  ==================  ===============================================================
live          ``live``            it is not installed / not set: a finding (often FAIL)
snapshot      ``snapshot``        it was not recorded, or not installed (a capture records every
                                  file the probes read, so absence is still evidence)
pasted text   ``pasted-text``     nothing: the text did not mention it; the check is SKIP
============  ==================  ===============================================================

This is the one place providers and checks ask. ``absent_phrase`` gives the words for a message;
``require_stated`` raises ``FactUnavailable`` (SKIP) for pasted text, where absence is no evidence.
"""

from __future__ import annotations

from typing import Callable, Sequence, Union

from ascend_doctor.facts import Facts, FactUnavailable
from ascend_doctor.host.base import Host
from ascend_doctor.i18n import N_
from ascend_doctor.i18n import gettext as _

LIVE = "live"
SNAPSHOT = "snapshot"
PASTED_TEXT = "pasted-text"

_PHRASES = {LIVE: N_("not installed"), SNAPSHOT: N_("not recorded in this snapshot"),
            PASTED_TEXT: N_("not in the pasted text")}


FactsOrHost = Union[Facts, Host]


def _host(facts_or_host: FactsOrHost) -> Host:
    return facts_or_host.host if isinstance(facts_or_host, Facts) else facts_or_host


def origin_kind(facts_or_host: FactsOrHost) -> str:
    """``live``, ``snapshot`` or ``pasted-text`` for a ``Facts`` or a ``Host``."""
    host = _host(facts_or_host)
    try:
        source = host.info().source
    except Exception:  # a host that cannot describe itself is treated as live: the strictest reading
        return LIVE
    return source if source in _PHRASES else LIVE


def absent_phrase(facts_or_host: FactsOrHost) -> str:
    """"not installed" (live), "not recorded in this snapshot", "not in the pasted text", in the
    chosen language (messages take it as a ``{field}``)."""
    return _(_PHRASES[origin_kind(facts_or_host)])


def absence_is_evidence(facts_or_host: FactsOrHost) -> bool:
    """False for pasted text: what a ticket does not mention may well be installed."""
    return origin_kind(facts_or_host) != PASTED_TEXT


def _covered(facts_or_host: FactsOrHost, ask: Callable[[Host], bool]) -> bool:
    """Live: yes. Pasted text: no. A snapshot: ``ask`` it (``Host.captured``, ``captured_command``,
    ``captured_disk``); hand-built and older snapshots record nothing of the kind, so: no."""
    kind = origin_kind(facts_or_host)
    if kind == LIVE:
        return True
    if kind == PASTED_TEXT:
        return False
    return ask(_host(facts_or_host))


def absence_known(facts_or_host: FactsOrHost, path: str) -> bool:
    """Whether "``path`` does not exist here" is a fact about the machine: a snapshot says so only
    for paths its capture covered (for others a message must say "not recorded in this snapshot")."""
    return _covered(facts_or_host, lambda host: host.captured(path))


def command_absence_known(facts_or_host: FactsOrHost, argv: Sequence[str]) -> bool:
    """Whether "``argv`` is not installed here" is a fact about the machine: a snapshot says so only
    when its capture ran that command (and so recorded that it was missing)."""
    return _covered(facts_or_host, lambda host: host.captured_command(argv))


def disk_absence_known(facts_or_host: FactsOrHost, path: str) -> bool:
    """Whether "the usage of ``path``'s own file system is not known" is a fact about the machine: a
    snapshot says so only when its capture asked that folder's usage."""
    return _covered(facts_or_host, lambda host: host.captured_disk(path))


def require_stated(facts_or_host: FactsOrHost, what: str) -> None:
    """For pasted text, raise ``FactUnavailable`` ("<what>: not in the pasted text") -> SKIP.

    Call it where a provider or check is about to turn the absence of ``what`` into a finding.
    """
    if not absence_is_evidence(facts_or_host):
        raise FactUnavailable(_("{what}: not in the pasted text").format(what=what))


def require_model_folder(facts: Facts, path: str) -> None:
    """``--model DIR`` with ``--from``/``--from-text``: a folder the snapshot lacks is SKIP, not FAIL.

    On the live machine a missing folder is a finding (ASC-MDL-001 says so); in a snapshot it
    only means the folder was not recorded (``snapshot --model DIR`` records it).
    """
    kind = origin_kind(facts)
    if kind == LIVE:
        return
    try:
        present = facts.host.exists(path)
    except Exception:  # a refused path and the like: let the inspection report it
        return
    if not present:
        if kind == PASTED_TEXT:
            raise FactUnavailable(_("{path} is not in the pasted text").format(path=path))
        raise FactUnavailable(_("{path} is not in the snapshot (record it there with "
                                "`ascend-doctor snapshot --model {path} -o FILE`)").format(path=path))


def require_weights(facts: Facts, path: str) -> None:
    """``--verify`` hashes the weights; a snapshot records only their sizes and headers: SKIP."""
    if origin_kind(facts) != LIVE and facts.host.recorded_model(path):  # a live machine records nothing
        raise FactUnavailable(_("the weights of {path} are not in the snapshot (it records their sizes and "
                                "headers only): run `ascend-doctor check --model DIR --verify MANIFEST` on the "
                                "machine that holds them").format(path=path))
