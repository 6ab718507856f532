"""The context the ``check`` suite's checks receive: facts about one host (``ctx.facts``, typed
attributes of :class:`~ascend_doctor.facts.Facts`), the compatibility matrix and the run's options.
Not a check (the registry skips ``_`` modules). The ``fleet`` and ``probe`` suites' contexts are in
checks/_fleet.py and checks/_probe.py, over their own facts."""

from __future__ import annotations

from ascend_doctor.checkapi import CheckContext
from ascend_doctor.facts import Facts

HostCheckContext = CheckContext[Facts]
