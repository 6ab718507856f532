"""What a JSON check of a snapshot folder no longer imports (start-up, issue 10 item 7), beyond
test_startup.NOT_ON_THE_JSON_PATH: modules only an error, a checkout or a tie-break needed.
(``textwrap``, once listed here as traceback's import, is imported by msgspec itself.)"""

from __future__ import annotations

import sys
from pathlib import Path

from .imports_util import modules_imported_by
from .test_startup import HEALTHY

# Name -> why it would be a regression.
NOT_IMPORTED = {
    "traceback": "the runner imports it only for a check that raised (runner._run_one)",
    "ascend_doctor.host.model_record": "only a snapshot holding a model/ folder (snapshot --model) needs it",
    "ascend_doctor.parsers.rank_table": "only a run that names a rank table parses one (facts/ranktable.py)",
    "ascend_doctor.tempdirs": "only an archive is unpacked; the fixture is a folder",
}
if sys.version_info >= (3, 10):  # Python 3.9's collections imports heapq itself
    NOT_IMPORTED["heapq"] = "Counter.most_common(1) imports it: the chip name and the CANN version use max()"


def test_a_json_check_imports_none_of_them(tmp_path: Path) -> None:
    modules = modules_imported_by(tmp_path, "check", "--from", str(HEALTHY), "--format", "json")
    assert "ascend_doctor.runner" in modules  # it did run
    found = {name: why for name, why in NOT_IMPORTED.items() if name in modules}
    assert not found, f"imported on the JSON path of `check --from`: {found}"
