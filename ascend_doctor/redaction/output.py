"""The one redaction step of a run: the CLI hands the report it produced to ``redact_for_output`` once,
and every format it then renders shows that redacted report (renderers never redact again).

Secrets are always redacted (docs/redaction.md); identities too with ``--redact``, when the command
passes an ``IdentityRedactor`` (a fleet's arrives with every node's name already learned). Both walk
the report's own records: no Report -> dict -> Report round trip. A JSON report read back by
``report render --redact`` goes through the same step once it is a ``Report``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ascend_doctor.redaction.identity import IdentityRedactor
    from ascend_doctor.report import Report


def redact_for_output(report: Report, identities: Optional[IdentityRedactor] = None) -> Report:
    """``report`` with secrets redacted, and identities too when ``identities`` is given; identities
    first, as ``--redact`` did before the render step redacted secrets."""
    # Module attributes, looked up at call time: the planted-secrets tests switch one of them off. The
    # identity module (~2.4 ms) is imported only for --redact, not on every check.
    from ascend_doctor.redaction import secrets

    if identities is not None:
        from ascend_doctor.redaction import identity

        report = identity.redact_report(report, identities)
    return secrets.redact_report(report)
