"""`--format html`: one self-contained page, checked as text and rendered in headless Chromium."""

from __future__ import annotations

import base64
import hashlib
import os
import re
import struct
import subprocess
import zlib
from html.parser import HTMLParser
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import pytest

from ascend_doctor.render import render_report
from ascend_doctor.render.common import questions, split_remediation
from ascend_doctor.render.html import SCRIPT, STYLE, report_to_html
from ascend_doctor.reportio import report_from_dict

from .render_util import SCENARIOS, downgrade_to_v1, every_status_report, report_dict, report_of

CHROMIUM = "/usr/bin/chromium"


class _Collector(HTMLParser):
    """Tags with their attributes, and the page's visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: List[Tuple[str, Dict[str, Optional[str]]]] = []
        self.text: List[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.text.append(data)


def parse(page: str) -> _Collector:
    collector = _Collector()
    collector.feed(page)
    return collector


def assert_self_contained(page: str) -> None:
    tags = parse(page).tags
    for tag, attrs in tags:
        for name in ("src", "href", "action", "poster", "data"):
            value = attrs.get(name) or ""
            assert not value or value.startswith("#"), f"<{tag} {name}={value!r}> loads something"
        assert tag not in ("link", "iframe", "img", "object", "embed", "base", "form")
    assert "@import" not in page and "url(" not in STYLE
    assert [t for t, _ in tags].count("script") == 1 and [t for t, _ in tags].count("style") == 1
    # the policy allows exactly this page's style and script, nothing from anywhere
    csp = next(a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert csp and "default-src 'none'" in csp
    for source in (STYLE, SCRIPT):
        digest = base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp
        assert source in page


@pytest.mark.parametrize("fixture", SCENARIOS)
def test_html_of_every_scenario(fixture: str) -> None:
    report = report_of(fixture)
    page = report_to_html(report)
    assert page.startswith("<!DOCTYPE html>")
    assert_self_contained(page)
    collector = parse(page)
    text = " ".join(collector.text)
    assert f"ascend-doctor report: {report.host['hostname']}" in text
    assert report.tool_version in text and report.matrix["version"] in text and report.started_at in text
    cards = [a for t, a in collector.tags if t == "div" and a.get("class") == "card"]
    assert len(cards) == len(report.facts.get("devices") or [])
    meters = [a for t, a in collector.tags if t == "meter"]
    assert len(meters) == sum(1 for d in report.facts.get("devices") or []
                              if d.get("hbm_total_mb") or d.get("memory_total_mb"))
    findings = [r for r in report.results if r.status.value in ("FAIL", "ERROR", "WARN", "INFO")]
    assert len([a for t, a in collector.tags if t == "article"]) == len(findings)
    # every copy button copies an existing block
    ids = {a.get("id") for _, a in collector.tags}
    buttons = [a for t, a in collector.tags if t == "button"]
    assert len(buttons) == (sum(1 for r in findings if r.remediation and split_remediation(r)[1])
                            + sum(1 for s in report.fix_plan if s.commands) + (1 if questions(report) else 0))
    assert all(b.get("data-target") in ids for b in buttons)


def test_untrusted_text_is_escaped_everywhere() -> None:
    page = report_to_html(every_status_report())
    assert_self_contained(page)
    assert "<script>alert" not in page and "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert "\x1b" not in page and "\x01" not in page
    text = " ".join(parse(page).text)
    assert '<script>alert("x")</script>' in text  # shown as text
    assert 'href="#finding-1"' in page  # the fix plan links to the finding it fixes


def test_schema_v1_report_renders_as_html() -> None:
    old = report_from_dict(downgrade_to_v1(report_dict("cann-newer-than-driver")), "v1")
    page = render_report(old, "html")
    assert_self_contained(page)
    assert "ASC-CANN-002" in page and 'id="fix-plan"' not in page


# -- in a browser ---------------------------------------------------------------------------------

needs_chromium = pytest.mark.skipif(
    not os.access(CHROMIUM, os.X_OK),
    reason=f"{CHROMIUM} not found: install Debian's chromium package (.ci/run does) to render the HTML report")


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / "chromium-profile"
    profile.mkdir(exist_ok=True)
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               f"--user-data-dir={profile}", *args]
    env = dict(os.environ, HOME=str(tmp_path))  # chromium writes caches under HOME
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=env, check=False)


def png_size_and_colours(data: bytes) -> Tuple[int, int, int]:
    """(width, height, distinct byte values of the decoded scanlines): a blank page has a handful."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    chunks, pos = [], 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            chunks.append(data[pos + 8:pos + 8 + length])
        pos += 12 + length
    pixels = zlib.decompress(b"".join(chunks))
    return width, height, len(set(pixels))


@needs_chromium
def test_chromium_renders_the_page(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    page.write_text(report_to_html(every_status_report()), encoding="utf-8")
    shot = tmp_path / "report.png"
    done = chromium(tmp_path, "--window-size=1200,1600", f"--screenshot={shot}", page.as_uri())
    assert shot.is_file(), done.stderr[-2000:]
    width, height, colours = png_size_and_colours(shot.read_bytes())
    assert (width, height) == (1200, 1600)
    assert colours > 64, f"the screenshot looks blank ({colours} distinct values)"
    assert shot.stat().st_size > 20_000

    dom = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    # the script ran (the policy's hash matches it): it marks <html class="js"> and shows copy buttons
    assert re.search(r'<html[^>]*class="js"', html), html[:300]
    for needle in ("ascend-doctor report: node07", "NOT READY", "ASC-DRV-001", "Devices (2)", "Fix plan",
                   "2026.11.29", "2026-12-01T08:00:00+00:00", "./Ascend-hdk-910b-npu-driver_24.1.rc3"):
        assert needle in html, needle
    # hostile text is still text in the live DOM: no element came out of it
    assert "&lt;script&gt;alert" in html and "<script>alert" not in html


@needs_chromium
def test_chromium_renders_a_real_run(tmp_path: Path) -> None:
    page = tmp_path / "a3.html"
    page.write_text(report_to_html(report_of("a3-server")), encoding="utf-8")
    dom = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert dom.stdout.count('class="card"') == 16
