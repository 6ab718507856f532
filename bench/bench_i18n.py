"""Display-time translation benchmark: a large report written in Chinese, shown in English.

``report render --lang en`` of a Chinese JSON report converts every human text through the
catalogue (ascend_doctor.i18n.convert: exact entries, then the templates with ``{field}``s, per line
and per "; " piece). This builds one large report from the real Chinese reports of several fixtures
(their results and fix-plan steps repeated until ``--results`` results) and times, in this process:

* ``build``: the first conversion's set-up (reading the catalogue, indexing every template by its
  literal prefix; each template's regular expression is compiled later, on first use);
* ``convert``: ``localize_report`` of the whole report into English (every title, message,
  remediation, fix-plan text and note), the converter's cache of converted texts emptied before
  each run: the first run (which also compiles the regexes it needs), the median of the others,
  and once more with the cache kept (a fleet's reports repeat their messages);
* ``render``: the text rendering of the converted report, for scale (what the user waits for anyway).

English runs never pay any of it (tests/test_i18n_convert.py: an English run builds no converter).

    python bench/bench_i18n.py [--results 5000] [--runs 5]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ("no-driver", "cann-newer-than-driver", "firmware-newer-than-driver", "kernels-wrong-chip",
            "half-downloaded-weights", "container-missing-mounts", "network-faults-8x910B3")


def chinese_report(fixture: str) -> Dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "ascend_doctor", "check", "--from", str(ROOT / "fixtures" / fixture),
                           "--format", "json", "--lang", "zh"], capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1, 3):
        raise SystemExit(f"check --from {fixture} exited {done.returncode}: {done.stderr.strip()}")
    data: Dict[str, Any] = json.loads(done.stdout)
    return data


def large_report(count: int) -> Dict[str, Any]:
    reports = [chinese_report(name) for name in FIXTURES]
    big = copy.deepcopy(reports[0])
    results: List[Dict[str, Any]] = []
    steps: List[Dict[str, Any]] = []
    while len(results) < count:
        for report in reports:
            results.extend(copy.deepcopy(report["results"]))
            steps.extend(copy.deepcopy(report["fix_plan"]))
    big["results"] = results[:count]
    big["fix_plan"] = steps[:max(1, count // 10)]
    big["notes"] = [note for report in reports for note in report["notes"]]
    return big


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--results", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from ascend_doctor import i18n
    from ascend_doctor.render.localize import localize_report
    from ascend_doctor.render.text import report_to_text
    from ascend_doctor.reportio import report_from_dict

    data = large_report(args.results)
    texts = sum(3 for _ in data["results"]) + 3 * len(data["fix_plan"]) + len(data["notes"])
    report = report_from_dict(data)
    i18n.set_language("en")

    i18n._reverse.clear()
    start = time.perf_counter()
    i18n._converter("zh", "en")
    build = time.perf_counter() - start

    converter = i18n._converter("zh", "en")
    assert converter is not None
    runs = []
    english = report
    for _ in range(args.runs):
        converter.cache.clear()  # every run converts every text (the first also compiles the regexes)
        converter.memo.clear()
        start = time.perf_counter()
        english = localize_report(report)
        runs.append(time.perf_counter() - start)
    start = time.perf_counter()
    localize_report(report)  # texts seen before: from the converter's cache
    cached = time.perf_counter() - start
    start = time.perf_counter()
    report_to_text(english, color=False)
    render = time.perf_counter() - start
    convert = statistics.median(runs[1:] or runs)
    distinct = len(converter.cache)
    print(f"report: {len(data['results'])} results, {len(data['fix_plan'])} fix-plan steps, {texts} human texts "
          f"({distinct} distinct) from the Chinese reports of {len(FIXTURES)} fixtures")
    print(f"build (first use: catalogue read, templates indexed): {build * 1000:.1f} ms")
    print(f"convert zh->en, first run (regexes compiled on first use): {runs[0] * 1000:.1f} ms")
    print(f"convert zh->en, median of {max(1, args.runs - 1)} more: {convert * 1000:.1f} ms "
          f"({convert / texts * 1e6:.1f} µs per text, {convert / max(1, distinct) * 1e3:.2f} ms per distinct text)")
    print(f"convert zh->en again, texts already seen: {cached * 1000:.1f} ms")
    print(f"render text of the converted report, for scale: {render * 1000:.1f} ms")


if __name__ == "__main__":
    main()
