"""The static HTML report: one self-contained ``index.html`` (inline CSS and SVG).

Links to run folders are relative to the page, so the results folder and
the report can be moved or served together. Each replay is linked to a page
of its own written next to the report (``replays/<match key>.html``, made by
:func:`tcab.view.player.export_replay`, which the caller passes: the report
sits below the view, tests/core/test_import_graph.py): the case's renderer
with the replay inside, which plays from ``file://``. Without a catalog or
an exporter, or for a replay that cannot be exported (no renderer,
unreadable file), the link is the raw ``.json.gz``. A relative
``run_dir`` or ``replay_path`` in the database is taken relative to the
results folder (the folder holding results.db).
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Callable
from html import escape
from pathlib import Path

from tcab.atomic import write_text
from tcab.outcomes import RunStatus
from tcab.results.charts import outcome_chart, rating_chart
from tcab.results.columns import Table, group_tables, secs
from tcab.results.report import GroupReport, Report, recent_runs, tournament_replays
from tcab.results.stats import interval_text

RUNS_PER_GROUP = 50
# A match key names the exported page: only plain hex keys become file names.
_KEY = re.compile(r"[0-9a-f]{16,128}")
REPLAYS_PER_TOURNAMENT = 100

# The page runs no script and loads nothing: every text of it is escaped, and
# were one not, it could still reach no network (links are only followed).
REPORT_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
              "form-action 'none'")

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.6em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
h3{margin:1.2em 0 .4em}table{border-collapse:collapse;margin:.4em 0 1em}
th,td{padding:3px 9px;border-bottom:1px solid #eee;text-align:right}
th{background:#f5f5f5}td{white-space:nowrap}td.l,th.l{text-align:left}.muted{color:#777}
.chart text{font:12px system-ui,sans-serif;fill:#222}.chart .legend{font-size:11px;fill:#555}
code{font-size:12px}.status{display:inline-block;width:.8em;height:.8em;border-radius:2px}
details{margin:.4em 0 1em}td.bad{color:#c62828}td.good{color:#2e7d32}
"""


def write_html(report: Report, conn: sqlite3.Connection, out_dir: Path | str,
               results_dir: Path | str, catalog_dir: Path | str | None = None, *,
               export_replay: Callable[[Path, Path, Path], Path] | None = None) -> Path:
    """Write ``out_dir/index.html`` atomically and return its path; with
    ``catalog_dir`` and ``export_replay`` (``tcab.view.player.export_replay``),
    also one playable page per linked replay (``out_dir/replays/``)."""
    out_dir = Path(out_dir).resolve()
    results_dir = Path(results_dir).resolve()
    linker = _Linker(out_dir, results_dir, Path(catalog_dir) if catalog_dir else None, export_replay)
    body = [f"<h1>tcab report</h1><p class=muted>{escape(report.database)} · schema "
            f"{report.schema_version} · " + " · ".join(
                f"{n:,} {t}" for t, n in report.totals.items()) + "</p>"]
    if not report.groups:
        body.append("<p>No results recorded yet.</p>")
    body.append(_toc(report))
    for group in report.groups:
        body.append(_group(group, conn, linker))
    if report.across:
        body.append(_across(report))
    page = ("<!doctype html><html lang=en><head><meta charset=utf-8>"
            f'<meta http-equiv="Content-Security-Policy" content="{REPORT_CSP}">'
            "<meta name=viewport content='width=device-width,initial-scale=1'>"
            f"<title>tcab report</title><style>{_CSS}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")
    path = out_dir / "index.html"
    write_text(path, page)
    # The atomic write's temp file is private (0600); a report is meant to be served and shared.
    path.chmod(0o644)
    return path


class _Linker:
    def __init__(self, out_dir: Path, results_dir: Path, catalog_dir: Path | None = None,
                 export_replay: Callable[[Path, Path, Path], Path] | None = None):
        self.out_dir = out_dir
        self.results_dir = results_dir
        self.catalog_dir = catalog_dir
        self.export_replay = export_replay

    def replay(self, key: str, stored: str | None) -> str | None:
        """A link to the exported page of a replay, or to the raw file when it cannot be exported."""
        if not stored or self.catalog_dir is None or self.export_replay is None or not _KEY.fullmatch(key):
            return self.href(stored)
        from tcab.errors import TcabError

        source = Path(stored) if Path(stored).is_absolute() else self.results_dir / stored
        page = self.out_dir / "replays" / f"{key}.html"
        try:
            page.parent.mkdir(parents=True, exist_ok=True)
            self.export_replay(source, page, self.catalog_dir)
        except (TcabError, OSError):
            return self.href(stored)
        return f"replays/{key}.html"

    def href(self, stored: str | None) -> str | None:
        if not stored:
            return None
        target = Path(stored)
        if not target.is_absolute():
            target = self.results_dir / target
        return Path(os.path.relpath(target, self.out_dir)).as_posix()


def _anchor(group: GroupReport) -> str:
    return escape(f"{group.case_slug}-{group.case_version}-{group.variant}")


def _title(group: GroupReport) -> str:
    variant = f" · {group.variant}" if group.variant else ""
    return escape(f"{group.case_slug} {group.case_version}") + escape(variant)


def _toc(report: Report) -> str:
    items = "".join(f'<li><a href="#{_anchor(g)}">{_title(g)}</a></li>' for g in report.groups)
    return f"<ul>{items}</ul>" if items else ""


def _table(headers: list[str], rows: list[list[str]], left: int = 1, key: str = "") -> str:
    head = "".join(f'<th class="{"l" if i < left else ""}">{h}</th>' for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f'<td class="{"l" if i < left else ""}">{c}</td>' for i, c in enumerate(r))
        + "</tr>" for r in rows
    )
    data = f' data-table="{key}"' if key else ""
    return f"<table{data}><tr>{head}</tr>{body}</table>"


def _columns_table(table: Table, linker: _Linker) -> str:
    """One report table, its columns as :mod:`tcab.results.columns` defines them."""
    cols = table.columns
    head = "".join(f'<th class="{"l" if c.align == "left" else ""}">{_heading(c)}</th>' for c in cols)
    rows = []
    for row in table.rows:
        cells = []
        for c in cols:
            tone = c.tone(row) if c.tone else ""
            cls = " ".join(x for x in ("l" if c.align == "left" else "", _TONE.get(tone, "")) if x)
            cells.append(f'<td class="{cls}">{_cell(c, row, linker)}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table data-table="{table.key}"><tr>{head}</tr>{"".join(rows)}</table>'


_TONE = {"bad": "bad", "good": "good", "muted": "muted"}
_STATUSES = {s.value: s for s in RunStatus}


def _heading(c) -> str:
    title = escape(c.title)
    if c.key in _STATUSES:
        status = _STATUSES[c.key]
        return (f'<span class=status style="background:{status.colour}"></span> '
                f'<abbr title="{escape(status)}">{title}</abbr>')
    return f'<abbr title="{escape(c.help)}">{title}</abbr>' if c.help else title


def _cell(c, row, linker: _Linker) -> str:
    text = c.text(row)
    if c.key == "origin" and row.harness:
        return _link(linker.href(row.run_dir), text)
    if c.key == "review_run":
        return _link(linker.href(row.run_dir), text)
    return escape(text)


def _typecheck_cell(status: str | None) -> str:
    """A run's ``[toolchain].typecheck``: a failure is the original's "broken" rating."""
    if status is None:
        return "—"
    return "failed (broken)" if status == "failed" else escape(status)


def _link(href: str | None, text: str) -> str:
    return f'<a href="{escape(href)}">{escape(text)}</a>' if href else escape(text)


def _across(report: Report) -> str:
    """Each harness and model's mean success over cases, with its bootstrap interval."""
    return ('<h2 id="across">All cases</h2><p class=muted>Mean of the per-case success rates, '
            "bootstrap 95% interval over cases</p>" + _table(
                ["harness", "model", "cases", "mean success (95% CI)"],
                [[escape(a.harness), escape(a.model or "—"), str(a.cases), interval_text(a.mean)] for a in report.across],
                left=2))


def _group(group: GroupReport, conn: sqlite3.Connection, linker: _Linker) -> str:
    out = [f'<h2 id="{_anchor(group)}">{_title(group)}</h2>']
    for table in group_tables(group):
        if table.key == "runs":
            out.append("<h3>Runs</h3>")
            out.append(outcome_chart(group.runs))
            out.append(_columns_table(table, linker))
            runs = recent_runs(conn, group.case_slug, group.case_version, group.variant, RUNS_PER_GROUP)
            out.append(f"<details><summary>Latest {len(runs)} runs</summary>" + _table(
                ["run", "harness", "model", "status", "started", "time", "typecheck"],
                [[_link(linker.href(r[6]), r[0]), escape(r[1]), escape(r[2] or "—"), escape(r[3]),
                  escape(r[4] or ""), escape(secs(r[5])), _typecheck_cell(r[7])] for r in runs], left=5)
                + "</details>")
        elif table.key == "standings":
            t = table.subject
            out.append(f"<h3>Tournament {escape(t.id)}</h3><p class=muted>{escape(t.structure or '')}"
                       f" · {t.rounds or '?'} rounds · {t.matches} matches · seed {t.seed}"
                       f" · finished {escape(t.finished_at or '—')}</p>")
            out.append(rating_chart(t.standings))
            out.append(_columns_table(table, linker))
            replays = tournament_replays(conn, t.id, REPLAYS_PER_TOURNAMENT)
            out.append(f"<details><summary>{len(replays)} matches and replays</summary>" + _table(
                ["round", "pairing", "match", "winner seat", "reason", "ticks"],
                [[str(r[0]), escape(r[1] or ""), _link(linker.replay(r[2], r[6]), r[2][:12]),
                  str(r[3] if r[3] is not None else "draw"), escape(r[4] or ""), str(r[5] or "")]
                 for r in replays], left=3) + "</details>")
        else:
            out.append(f"<h3>{escape(table.title)}</h3>" + _columns_table(table, linker))
    return "\n".join(out)
