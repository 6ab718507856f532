"""The HTML report laid out in headless Chromium at a phone's, a laptop's and a wide screen's width
(390, 1280 and 1920 px): nothing leaves its NPU card or its finding, no copy button covers a
command, the page never scrolls sideways, and a screenshot of each width is the size the DOM says.

The geometry is measured by a script added to the page for the test only (the page's policy is
widened to its hash). The page is shown in an iframe of the width under test (headless Chromium
will not make a window narrower than 500 px), and the script posts what it found to the page
around it, which writes it into the DOM that ``--dump-dom`` prints.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from html import unescape as html_unescape
from pathlib import Path
from typing import Any, Dict

import pytest

from ascend_doctor import i18n
from ascend_doctor.render.html import report_to_html

from .render_util import report_of
from .test_render_html import chromium, needs_chromium, png_size_and_colours

WIDTHS = (390, 1280, 1920)
# 8 cards and long commands; 16 dies of an A3; a 310P without HBM; a report a container cannot use.
PAGES = ("mixed-driver-stacks", "a3-server", "cann-newer-than-driver", "container-missing-mounts")

MEASURE = """
(function () {
  var out = {outside: [], covered: [], width: document.documentElement.scrollWidth, view: window.innerWidth};
  function name(el) { return (el.textContent || '').slice(0, 40); }
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.right > window.innerWidth + 0.5 && !el.closest('pre') && !el.closest('details:not([open])')) {
      out.wide = (out.wide || []).concat([el.tagName + '.' + el.className + ' "' + name(el) + '"']);
    }
  });
  function inside(inner, outer) {
    return inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 &&
           inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
  }
  document.querySelectorAll('.card, article.finding').forEach(function (box, n) {
    var outer = box.getBoundingClientRect();
    box.querySelectorAll('*').forEach(function (el) {
      var closed = el.closest('details:not([open])');
      if (closed && !el.closest('summary')) { return; }  // folded away: not on the screen
      var r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) { return; }
      if (!inside(r, outer)) {
        out.outside.push(box.className + ' #' + n + ' ' + el.tagName + ' "' + name(el) + '"');
      }
    });
  });
  document.querySelectorAll('.code').forEach(function (block, n) {
    var button = block.querySelector('button.copy'), pre = block.querySelector('pre');
    if (!button || !pre) { return; }
    var a = button.getBoundingClientRect(), b = pre.getBoundingClientRect();
    if (a.width && !(a.bottom <= b.top || a.top >= b.bottom || a.right <= b.left || a.left >= b.right)) {
      out.covered.push(n);
    }
  });
  parent.postMessage(JSON.stringify(out), '*');
})();
""".strip()


def _with_measure(page: str) -> str:
    digest = "'sha256-" + base64.b64encode(hashlib.sha256(MEASURE.encode()).digest()).decode() + "'"
    page = re.sub(r"script-src ", "script-src " + digest + " ", page, count=1)
    return page.replace("</body>", f"<script>{MEASURE}</script></body>")


FRAME = """<!DOCTYPE html><html><body style="margin:0"><pre id="layout-result"></pre>
<script>window.addEventListener('message', function (e) {
  document.getElementById('layout-result').textContent = e.data; });</script>
<iframe src="{page}" style="width:{width}px;height:2000px;border:0"></iframe></body></html>"""


def _measure(tmp_path: Path, html: str, width: int, name: str) -> Dict[str, Any]:
    page = tmp_path / f"{name}-{width}.html"
    page.write_text(_with_measure(html), encoding="utf-8")
    frame = tmp_path / f"{name}-{width}-frame.html"
    frame.write_text(FRAME.replace("{page}", page.name).replace("{width}", str(width)), encoding="utf-8")
    dom = chromium(tmp_path, f"--window-size={max(width, 500) + 40},2100", "--dump-dom", frame.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r'<pre id="layout-result">(.*?)</pre>', dom.stdout, flags=re.S)
    assert found, "the measuring script did not run"
    data: Dict[str, Any] = json.loads(html_unescape(found.group(1)))
    return data


@needs_chromium
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("fixture", PAGES)
def test_every_box_stays_in_its_card_and_no_button_covers_code(tmp_path: Path, fixture: str, width: int) -> None:
    html = report_to_html(report_of(fixture))
    found = _measure(tmp_path, html, width, fixture)
    assert found["view"] == width
    assert found["width"] <= width, f"the page scrolls sideways at {width} px: {found.get('wide', [])[:5]}"
    assert found["outside"] == [], found["outside"][:10]
    assert found["covered"] == []


@needs_chromium
@pytest.mark.parametrize("width", WIDTHS)
def test_screenshots_are_the_width_the_dom_measured(tmp_path: Path, width: int) -> None:
    html = report_to_html(report_of("mixed-driver-stacks"))
    found = _measure(tmp_path, html, width, "shot")
    assert found["view"] == width and found["width"] <= width
    page = tmp_path / "plain.html"
    page.write_text(html, encoding="utf-8")
    shot = tmp_path / f"shot-{width}.png"
    # Below 500 px the window is the frame's: the screenshot is of the framed page at that width.
    target = page if width >= 500 else tmp_path / f"shot-{width}-frame.html"
    window = max(width, 500) + (0 if width >= 500 else 40)
    done = chromium(tmp_path, f"--window-size={window},2000", f"--screenshot={shot}", target.as_uri())
    assert shot.is_file(), done.stderr[-2000:]
    shot_width, shot_height, colours = png_size_and_colours(shot.read_bytes())
    assert (shot_width, shot_height) == (window, 2000)
    assert colours > 64, "the screenshot looks blank"


@needs_chromium
def test_the_chinese_page_keeps_its_boxes_too(tmp_path: Path) -> None:
    from ascend_doctor.render.localize import localize_report

    i18n.set_language("zh")
    try:
        html = report_to_html(localize_report(report_of("mixed-driver-stacks")))
    finally:
        i18n.set_language("en")
    assert "Noto Sans CJK SC" in html and 'lang="zh-CN"' in html
    found = _measure(tmp_path, html, 390, "zh")
    assert found["outside"] == [] and found["covered"] == [] and found["width"] <= 390
