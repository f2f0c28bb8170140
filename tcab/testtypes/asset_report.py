"""The asset-generation type's own report table: each regenerated run of a
group with its frames' op counts, its largest preview divergence, and what
was flagged (``TestType.report_table``)."""

from __future__ import annotations

from dataclasses import dataclass

from tcab.results.columns import Column, TypeTable

KEY = "asset-regenerations"


@dataclass(frozen=True, slots=True)
class RegeneratedRun:
    run_id: str
    harness: str
    model: str | None
    status: str                     # regenerated | no_asset
    frames: int
    ops: int                        # over every frame
    divergence: float | None        # the largest of its frames' (None: no preview compared)
    flagged: bool
    draw_version: str | None
    version_mismatch: bool
    detail: str


def regenerated_runs(conn, key: tuple[str, str, str], filters) -> list[RegeneratedRun]:
    if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'asset_regenerations'").fetchone() \
            is None:  # a database older than the table has no regenerations
        return []
    slug, version, variant = key
    params: list = [slug, version, variant]
    where = ""
    if getattr(filters, "harness", None):
        where, params = " AND r.harness = ?", [*params, filters.harness]
    rows = conn.execute(
        f"""SELECT r.id, r.harness, r.model, a.status, a.flagged, a.draw_version, a.version_mismatch, a.detail,
                   count(f.frame), coalesce(sum(f.ops), 0), max(f.divergence),
                   group_concat(CASE WHEN f.flagged THEN f.frame || ': ' || coalesce(f.detail, '') END, '; ')
            FROM asset_regenerations a JOIN runs r ON r.id = a.run_id
            LEFT JOIN asset_frames f ON f.run_id = a.run_id
            WHERE r.case_slug = ? AND r.case_version = ? AND r.variant = ?{where}
            GROUP BY a.run_id ORDER BY a.status DESC, r.id""", params).fetchall()
    return [RegeneratedRun(run_id, harness, model, status, frames, ops, worst, bool(flagged), draw_version,
                           bool(mismatch), detail or flagged_frames or "")
            for (run_id, harness, model, status, flagged, draw_version, mismatch, detail, frames, ops, worst,
                 flagged_frames) in rows]


def _version(r: RegeneratedRun) -> str:
    return (r.draw_version or "unknown") + (" (differs)" if r.version_mismatch else "")


TABLE = TypeTable(
    key=KEY, title="Asset regenerations (each run's frames replayed from its recorded logs)",
    columns=(
        Column("asset_run", "run", KEY, lambda r: r.run_id, (("run_id", lambda r: r.run_id),), align="left"),
        Column("asset_harness", "harness", KEY, lambda r: r.harness + (f" / {r.model}" if r.model else ""),
               (("harness", lambda r: r.harness), ("model", lambda r: r.model or "")), align="left"),
        Column("asset_status", "status", KEY, lambda r: r.status, (("status", lambda r: r.status),), align="left",
               tone=lambda r: "good" if r.status == "regenerated" and not r.flagged else "bad"),
        Column("asset_frames", "frames", KEY, lambda r: str(r.frames), (("frames", lambda r: r.frames),)),
        Column("asset_ops", "ops", KEY, lambda r: f"{r.ops:,}", (("ops", lambda r: r.ops),),
               help="drawing operations over every frame's log"),
        Column("asset_divergence", "divergence", KEY,
               lambda r: "—" if r.divergence is None else f"{r.divergence:.3f}",
               (("divergence", lambda r: r.divergence),),
               help="the largest mean |ΔRGB|/255 between a frame's preview and its regeneration; flagged over 0.05"),
        Column("asset_version", "draw version", KEY, _version,
               (("draw_version", lambda r: r.draw_version or ""), ("version_mismatch", lambda r: r.version_mismatch)),
               tone=lambda r: "bad" if r.version_mismatch else ""),
        Column("asset_detail", "flagged", KEY, lambda r: r.detail or "—", (("detail", lambda r: r.detail),),
               align="left"),
    ),
    rows=regenerated_runs,
)
