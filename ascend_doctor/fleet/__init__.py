"""``ascend-doctor fleet``: many node reports (and snapshots) merged into one verdict.

* :mod:`.inputs` expands the command line into node inputs (reports, snapshots, folders);
* :mod:`.merge` reads them one at a time into digests (:mod:`.digest`, :mod:`.network`), so
  memory grows with the digests, not the reports;
* :mod:`.facts` holds the digests and computes drift (:mod:`.drift`: which facts must agree);
* :mod:`.grade` runs the ``fleet`` suite of checks (``checks/flt_*.py``) into a ``Report``.
"""
