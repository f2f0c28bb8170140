"""Inline SVG charts for the HTML report: no script, no external file.

Each function returns one ``<svg>`` element as a string; every text in it is
escaped.
"""

from __future__ import annotations

from html import escape

from tcab.outcomes import RunStatus
from tcab.results.report import RunSummary, Standing

_LABEL_W = 220
_BAR_W = 440
_ROW_H = 24


def outcome_chart(summaries: tuple[RunSummary, ...] | list[RunSummary]) -> str:
    """Stacked horizontal bars: the share of each run status per harness and model."""
    width = _LABEL_W + _BAR_W + 60
    legend = _legend_rows(width)
    height = _ROW_H * len(summaries) + 24 + 16 * len(legend)
    parts = [f'<svg class="chart" role="img" aria-label="run outcomes" width="{width}" '
             f'height="{height}" viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">']
    for i, summary in enumerate(summaries):
        y = i * _ROW_H + 4
        name = summary.harness + (f" / {summary.model}" if summary.model else "")
        parts.append(f'<text x="{_LABEL_W - 8}" y="{y + 15}" text-anchor="end">{escape(name)}</text>')
        x = float(_LABEL_W)
        for status in RunStatus:
            count = summary.outcomes.get(status, 0)
            if not count:
                continue
            w = _BAR_W * count / summary.runs
            parts.append(
                f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{_ROW_H - 6}" '
                f'fill="{status.colour}"><title>{escape(status)}: {count} of '
                f'{summary.runs}</title></rect>'
            )
            x += w
        parts.append(f'<text x="{_LABEL_W + _BAR_W + 6}" y="{y + 15}">{summary.runs}</text>')
    y = len(summaries) * _ROW_H + 14
    for row in legend:
        for x, status in row:
            parts.append(f'<rect x="{x}" y="{y}" width="10" height="10" fill="{status.colour}"/>'
                         f'<text x="{x + 14}" y="{y + 10}" class="legend">{status}</text>')
        y += 16
    parts.append("</svg>")
    return "".join(parts)


def _legend_rows(width: int) -> list[list[tuple[int, RunStatus]]]:
    """Every status with its colour, wrapped into rows that fit ``width``."""
    rows: list[list[tuple[int, RunStatus]]] = [[]]
    x = 10
    for status in RunStatus:
        step = 14 + 7 * len(status) + 14
        if rows[-1] and x + step > width:
            rows.append([])
            x = 10
        rows[-1].append((x, status))
        x += step
    return rows


def rating_chart(standings: tuple[Standing, ...] | list[Standing]) -> str:
    """One row per participant: its rating as a dot and its confidence interval as a bar."""
    rated = [s for s in standings if s.rating is not None]
    if not rated:
        return ""
    values = [v for s in rated for v in (s.rating, s.ci_low, s.ci_high) if v is not None]
    low, high = min(values), max(values)
    if high - low < 1e-9:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.05
    low, high = low - pad, high + pad

    def px(value: float) -> float:
        return _LABEL_W + _BAR_W * (value - low) / (high - low)

    height = _ROW_H * len(rated) + 36
    width = _LABEL_W + _BAR_W + 80
    parts = [f'<svg class="chart" role="img" aria-label="ratings with confidence intervals" '
             f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
             f'xmlns="http://www.w3.org/2000/svg">']
    axis_y = len(rated) * _ROW_H + 8
    parts.append(f'<line x1="{_LABEL_W}" y1="{axis_y}" x2="{_LABEL_W + _BAR_W}" y2="{axis_y}" '
                 'stroke="#999"/>')
    for tick in range(5):
        value = low + (high - low) * tick / 4
        x = px(value)
        parts.append(f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}" stroke="#999"/>'
                     f'<text x="{x:.1f}" y="{axis_y + 16}" text-anchor="middle" class="legend">'
                     f'{value:.2f}</text>')
    for i, s in enumerate(rated):
        y = i * _ROW_H + 4 + (_ROW_H - 6) / 2
        parts.append(f'<text x="{_LABEL_W - 8}" y="{y + 5}" text-anchor="end">'
                     f'{escape(str(s.rank or "-"))}. {escape(s.label)}</text>')
        if s.ci_low is not None and s.ci_high is not None:
            parts.append(f'<line x1="{px(s.ci_low):.1f}" y1="{y}" x2="{px(s.ci_high):.1f}" y2="{y}" '
                         'stroke="#1565c0" stroke-width="4" stroke-linecap="round" opacity="0.45"/>')
        ci = (f" [{s.ci_low:.2f}, {s.ci_high:.2f}]"
              if s.ci_low is not None and s.ci_high is not None else "")
        parts.append(f'<circle cx="{px(s.rating):.1f}" cy="{y}" r="5" fill="#0d47a1">'
                     f'<title>{escape(s.label)}: {s.rating:.3f}{ci}</title></circle>')
        parts.append(f'<text x="{_LABEL_W + _BAR_W + 8}" y="{y + 5}">{s.rating:.2f}</text>')
    parts.append("</svg>")
    return "".join(parts)
