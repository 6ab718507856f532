"""A small inline SVG line chart for a result's ``evidence["chart"]`` (no script, no external asset).

The evidence shape is generic (the renderer knows nothing of the check that made it)::

    {"title": str, "x_label": str, "x": [label, ...],
     "series": [{"name": str, "unit": str, "values": [number or null, ...]}, ...]}

Each series gets its own small panel scaled to its own maximum, points labelled with their values.
Bounded: at most MAX_POINTS points and MAX_SERIES series are drawn.
"""

from __future__ import annotations

from html import escape
from typing import Any, List, Mapping, Optional, Sequence

MAX_POINTS = 64
MAX_SERIES = 4
WIDTH = 560
PANEL_H = 120
PAD_L, PAD_R, PAD_T, PAD_B = 48, 16, 22, 30


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if value == value and abs(value) != float("inf") else None


def _label(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _panel(x: Sequence[str], name: str, unit: str, values: Sequence[Optional[float]], x_label: str) -> str:
    top = max((v for v in values if v is not None), default=0.0) or 1.0
    count = len(x)
    inner_w = WIDTH - PAD_L - PAD_R
    inner_h = PANEL_H - PAD_T - PAD_B

    def px(index: int) -> float:
        return PAD_L + (inner_w * index / (count - 1) if count > 1 else inner_w / 2)

    def py(value: float) -> float:
        return PAD_T + inner_h - inner_h * value / top

    parts: List[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{PANEL_H}" role="img" '
        f'aria-label="{escape(name)}" style="display:block;font:11px sans-serif">',
        f'<text x="{PAD_L}" y="14" font-weight="bold">{escape(name)}{(" (" + escape(unit) + ")") if unit else ""}'
        "</text>",
        f'<line x1="{PAD_L}" y1="{PAD_T + inner_h}" x2="{WIDTH - PAD_R}" y2="{PAD_T + inner_h}" stroke="#8c959f"/>',
    ]
    points = [(px(i), py(v)) for i, v in enumerate(values) if v is not None]
    if len(points) > 1:
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in points)
        parts.append(f'<polyline fill="none" stroke="#0969da" stroke-width="2" points="{path}"/>')
    for i, value in enumerate(values):
        if value is None:
            continue
        parts.append(f'<circle cx="{px(i):.1f}" cy="{py(value):.1f}" r="3" fill="#0969da"/>')
        parts.append(f'<text x="{px(i):.1f}" y="{py(value) - 6:.1f}" text-anchor="middle">{_label(value)}</text>')
    for i, label in enumerate(x):
        parts.append(f'<text x="{px(i):.1f}" y="{PANEL_H - 14}" text-anchor="middle">{escape(label)}</text>')
    parts.append(f'<text x="{WIDTH - PAD_R}" y="{PANEL_H - 2}" text-anchor="end" fill="#57606a">'
                 f"{escape(x_label)}</text>")
    parts.append("</svg>")
    return "".join(parts)


def chart_svg(chart: Any) -> str:
    """The panels for one chart evidence, or "" when its shape is not the one above."""
    if not isinstance(chart, Mapping):
        return ""
    x = chart.get("x")
    series = chart.get("series")
    if not isinstance(x, list) or not x or not isinstance(series, list):
        return ""
    labels = [str(v) for v in x[:MAX_POINTS]]
    panels = []
    for entry in series[:MAX_SERIES]:
        if not isinstance(entry, Mapping) or not isinstance(entry.get("values"), list):
            continue
        values = [_number(v) for v in entry["values"][: len(labels)]]
        values += [None] * (len(labels) - len(values))
        panels.append(_panel(labels, str(entry.get("name") or ""), str(entry.get("unit") or ""), values,
                             str(chart.get("x_label") or "")))
    if not panels:
        return ""
    title = escape(str(chart.get("title") or ""))
    return f'<figure class="chart"><figcaption>{title}</figcaption>' + "".join(panels) + "</figure>"
