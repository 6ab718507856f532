"""Which modules one CLI run imports: the start-up and renderer tests ask it of a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import List, Set

_PROGRAM = """
import json, sys
from ascend_doctor.cli import main
try:
    main(sys.argv[2:], prog_name="ascend-doctor")
except SystemExit:
    pass
with open(sys.argv[1], "w") as fh:
    json.dump(sorted(sys.modules), fh)
"""


def modules_imported_by(tmp_path: Path, *args: str) -> Set[str]:
    """Every module in sys.modules after `ascend-doctor ARGS` ran in a new process (cwd: tmp_path)."""
    listing = tmp_path / "modules.json"
    done = subprocess.run([sys.executable, "-c", _PROGRAM, str(listing), *args], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    modules: List[str] = json.loads(listing.read_text(encoding="utf-8"))
    return set(modules)
