"""The default text report prints the problems in full and counts PASS and SKIP per area (the SKIPs
of inputs not given, --model, --config..., only in the coverage line); -v prints every result."""

from __future__ import annotations

from ascend_doctor.checkapi import Status
from ascend_doctor.render.text import report_to_text
from ascend_doctor.report import Report, Result


def _report() -> Report:
    folded = Result("ASC-MDL-001", "Model folder is readable", Status.SKIP, "no --model given", "",
                    {"precondition": "model"})
    same_check = Result("ASC-MDL-001", "Model folder is readable", Status.WARN, "weights half written",
                        "copy them again", {"precondition": "model"}, scope="shard 3")
    twin = Result("ASC-MDL-001", "Model folder is readable", Status.SKIP, "no --model given", "",
                  {"precondition": "model"})  # equal to the folded one, another object
    other = Result("ASC-DRV-001", "Ascend driver is installed", Status.PASS, "driver 24.1.rc2")
    return Report("0.1.0", {}, {"hostname": "node-07", "source": "snapshot"}, {}, [folded, other, same_check, twin])


def test_problems_printed_passes_counted_and_inputs_not_given_in_the_coverage_line() -> None:
    text = report_to_text(_report())
    assert "weights half written" in text and "driver 24.1.rc2" not in text
    assert "Driver 1/0" in text  # passed/skipped
    assert "no --model given" not in text


def test_verbose_prints_them_all() -> None:
    text = report_to_text(_report(), verbose=True)
    assert text.count("no --model given") == 2 and "weights half written" in text and "driver 24.1.rc2" in text
