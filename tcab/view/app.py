"""The ``tcab view`` web app: Starlette routes over results.db and the run folders.

Read-only but for one form: every route answers GET (and HEAD) only, the
database is opened ``mode=ro``, and nothing is written, except the human
review of a run (``POST /runs/<id>/review``, :mod:`tcab.view.review`),
which :class:`Guard` fences (loopback client, same origin, bounded form)
and which must carry the run page's token. Every path taken from a URL goes
through :mod:`tcab.view.paths` (confined to results/ or the catalog); the
raw bytes of a run's files are served with ``Content-Security-Policy:
sandbox`` so a hostile HTML or SVG file cannot script this origin, and a
replay plays in a sandboxed frame whose page may fetch nothing.
"""

from __future__ import annotations

import importlib
import ipaddress
import json
import re
import secrets
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from tcab.catalog.model import Proof
from tcab.catalog.typetable import report_columns, report_table, success_rule
from tcab.errors import CatalogError, ResultsError
from tcab.results import pages
from tcab.results.charts import outcome_chart, rating_chart
from tcab.results.columns import group_tables
from tcab.results.decisions import item_states, record_override
from tcab.results.report import build_report
from tcab.results.reviews import ReviewMaterial, record_review, run_reviews
from tcab.results.schema import SCHEMA_VERSION
from tcab.runs.record import read_internal_error
from tcab.validation.proofs import read_proof
from tcab.view import files, review, transcript
from tcab.view.paths import NAME_MAX, PathMissing, PathRefused, confined, inside, smuggled
from tcab.view.player import player_page, renderer_path

# Runs listed per group on the home page, and per page of a group's run list.
HOME_RUNS = 10
RUNS_PER_PAGE = 100
# Matches of one tournament shown in its cross table and match list.
TOURNAMENT_MATCHES = 2000
# The largest replay file (gzip) the app serves or plays.
MAX_REPLAY_FILE = 16 * 1024 * 1024

# The app's own pages run no script at all and fetch nothing but their images,
# proofs and frames from the app itself: run-derived text in them (escaped by
# the templates) could not reach the network even if it became markup.
_PAGE_CSP = ("default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; "
             "script-src 'none'; connect-src 'none'; frame-src 'self'; object-src 'none'; "
             "base-uri 'none'; form-action 'self'; frame-ancestors 'self'")


# The one path a POST may reach (the review form of a run).
_REVIEW_PATH = re.compile(r"/runs/[^/]+/(review|override)")
# A case's HTML mockup shown beside a review item: no script, and nothing
# loaded from anywhere but this app (its stylesheets and images).
_MOCKUP_CSP = ("sandbox; default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
               "font-src 'self' data:; script-src 'none'; object-src 'none'")

_FAVICON = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
            b'<rect width="16" height="16" rx="3" fill="#263238"/></svg>')


@dataclass(frozen=True, slots=True)
class ViewConfig:
    """What the app serves: the database, the results folder holding the runs, the catalog."""

    db_path: Path
    results_dir: Path
    catalog_dir: Path
    hosts: tuple[str, ...] = ("127.0.0.1", "localhost", "[::1]")


class _Cached:
    """One value computed from results.db, kept until the database changes.

    The report scans every run (a second at 10^5 runs); a sweep writing
    changes the size or modification time of results.db or its WAL, which
    is what the value is keyed by.
    """

    def __init__(self, db_path: Path):
        self.paths = (db_path, db_path.with_name(db_path.name + "-wal"))
        self.lock = threading.Lock()
        self.stamp: tuple | None = None
        self.value = None

    def _stamp(self) -> tuple:
        stamps = []
        for path in self.paths:
            try:
                st = path.stat()
                stamps.append((st.st_mtime_ns, st.st_size, st.st_ino))
            except FileNotFoundError:
                stamps.append(None)
        return tuple(stamps)

    def get(self, compute):
        with self.lock:
            stamp = self._stamp()
            if stamp != self.stamp:
                self.value, self.stamp = compute(), stamp
            return self.value


class NotFound(Exception):
    """A page whose subject (run, match, file) does not exist."""


def check_database(db_path: Path) -> None:
    """Raises ResultsError unless ``db_path`` is a results.db of this schema
    (an older one must be migrated by ``tcab report`` first: the app never writes)."""
    if not db_path.is_file():
        raise ResultsError(f"{db_path}: no results database here (run a sweep first, or pass --db)")
    conn = _open(db_path)
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise ResultsError(f"{db_path}: not a usable SQLite database: {exc}") from exc
    finally:
        conn.close()
    if version != SCHEMA_VERSION:
        raise ResultsError(f"{db_path}: schema version {version}, this tcab reads {SCHEMA_VERSION}; "
                           "run `tcab report` once to migrate it (tcab view never writes)")


def _open(db_path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, check_same_thread=False, timeout=10)
    conn.execute("PRAGMA query_only = ON")
    return conn


def _env() -> Environment:
    env = Environment(loader=PackageLoader("tcab.view", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True))
    env.filters["secs"] = _secs
    env.filters["num"] = lambda v, d=2: f"{v:,.{d}f}" if _number(v) else "—"
    env.filters["count"] = lambda v: f"{v:,}" if _number(v) else "—"
    # The home page's report tables: the columns as tcab.results.columns defines them.
    env.globals["report_tables"] = group_tables
    env.globals["cell_link"] = _cell_link
    env.globals["tone_class"] = lambda c, row: {"good": "ok", "bad": "bad", "muted": "muted"}.get(
        c.tone(row) if c.tone else "", "")
    return env


def _cell_link(column, row, group) -> str | None:
    """Where a report cell of the home page links to, if anywhere."""
    if column.key == "harness":
        return (f"/runs?case={quote(group.case_slug, safe='')}&version={quote(group.case_version, safe='')}"
                f"&variant={quote(group.variant, safe='')}")
    if column.key == "origin" and row.source and row.harness:
        return f"/runs/{quote(row.source, safe='')}"
    if column.key == "review_run":
        return f"/runs/{quote(row.run_id, safe='')}"
    return None


def _number(value) -> bool:
    """A value the number filters format (a run's files may hold anything)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _secs(value) -> str:
    if not _number(value):
        return "—"
    return f"{value:.1f} s" if value < 120 else f"{value / 60:.1f} min"


def create_app(config: ViewConfig) -> Starlette:
    """The ASGI app over ``config`` (checked with :func:`check_database` first)."""
    check_database(config.db_path)
    env = _env()
    # Signs the review form's token: made anew each start, never written anywhere.
    key = secrets.token_bytes(32)
    results = config.results_dir.resolve()

    def render(name: str, status: int = 200, **context) -> HTMLResponse:
        return HTMLResponse(env.get_template(name).render(**context), status_code=status)

    def db() -> sqlite3.Connection:
        return _open(config.db_path)

    cache = _Cached(config.db_path)

    def home_parts():
        conn = db()
        try:
            report = build_report(conn, database=str(config.db_path), type_columns=report_columns,
                                  type_table=report_table, success_rule=success_rule)
            groups = [(g, Markup(outcome_chart(g.runs)) if g.runs else "",
                       pages.group_runs(conn, g.case_slug, g.case_version, g.variant, limit=HOME_RUNS))
                      for g in report.groups]
        finally:
            conn.close()
        return report, groups

    def home(request: Request):
        report, groups = cache.get(home_parts)
        return render("home.html", report=report, groups=groups)

    def run_list(request: Request):
        q = request.query_params
        case, version, variant = q.get("case", ""), q.get("version", ""), q.get("variant", "")
        page = _page(q.get("page"))
        conn = db()
        try:
            rows = pages.group_runs(conn, case, version, variant, limit=RUNS_PER_PAGE + 1,
                                    offset=page * RUNS_PER_PAGE)
        finally:
            conn.close()
        return render("runs.html", case=case, version=version, variant=variant, page=page,
                      rows=rows[:RUNS_PER_PAGE], more=len(rows) > RUNS_PER_PAGE)

    def run_folder(run_id: str) -> tuple[dict, Path | None]:
        """:func:`run_dir` on a connection of its own."""
        conn = db()
        try:
            return run_dir(conn, run_id)
        finally:
            conn.close()

    def run_dir(conn: sqlite3.Connection, run_id: str) -> tuple[dict, Path | None]:
        row = pages.run_row(conn, run_id)
        if row is None:
            raise NotFound(f"no run {run_id!r} in results.db")
        folder = None
        if row.get("run_dir"):
            try:
                folder = inside(results, row["run_dir"])
            except (PathRefused, PathMissing):
                folder = None  # a run folder recorded outside results/ (or a loop) is not served
        return row, folder

    def run_page(request: Request):
        run_id = request.path_params["run_id"]
        conn = db()
        try:
            row, folder = run_dir(conn, run_id)
            stages = pages.run_stages(conn, run_id)
            validation = pages.run_validation(conn, run_id)
            builds = pages.run_builds(conn, run_id)
            proofs = pages.run_proofs(conn, run_id)
        finally:
            conn.close()
        page = _page(request.query_params.get("page"))
        events = transcript.read_page(folder / "events.jsonl", page) if folder else transcript.TranscriptPage()
        tree = None
        if folder and (folder / "work").is_dir():
            tree, skipped = files.listing(folder / "work")
        checks = _json_list(validation.get("checks")) if validation else []
        shots = {Path(str(s)).stem: str(s) for s in _json_list(validation.get("screenshots"))} \
            if validation else {}
        panel = _type_panel(config.catalog_dir, row, folder, run_id)
        rev = review_part(row, proofs)
        bug = read_internal_error(folder) if folder else None  # a bug in tcab met during the run
        return render("run.html", run=row, stages=stages, validation=validation, checks=checks,
                      shots=shots, builds=builds, events=events,
                      tree=tree, has_folder=folder is not None, review=rev, proofs=proofs,
                      internal_error=bug, **panel)

    def review_part(row: dict, proofs: list[dict]) -> dict | None:
        """What the Human review section shows, or None when there is nothing to review."""
        case = _case(config.catalog_dir, row["case_slug"], row["case_version"])
        if case is None or not case.test_type.reviewed:
            return None
        try:
            items, domains = review.review_items(case, row["variant"], row["id"],
                                                 {p["proof_id"]: p for p in proofs})
        except CatalogError:
            return None
        if not items and not domains:  # a case rated as a whole (one domain, no items) is reviewed too
            return None
        conn = db()
        try:
            past = run_reviews(conn, row["id"])
            states = item_states(conn, row["id"])
        finally:
            conn.close()
        return {"entries": items, "domains": domains, "ratings": review.RATINGS, "limits": review.LIMITS,
                "token": review.form_token(key, row["id"]), "reviews": past,
                "groups": review.group_items(case, row["variant"], items), "states": states,
                "current": past[0] if past and past[0]["current"] else None}

    async def reviewed_post(request: Request, what: str, parse, write, anchor, needs_folder: bool):
        """A review or an item override: the signed form, the run's reviewed
        case, then ``write(submitted, material, folder)``; ``anchor`` is where
        the run's page is shown after it."""
        run_id = request.path_params["run_id"]
        try:
            fields = await review.read_form(request.receive)
            submitted = parse(run_id, fields, key)
        except review.ForgedReview as exc:
            return render("error.html", 403, title="Refused", message=str(exc))
        except review.BadReview as exc:
            return render("error.html", 400, title=f"{what} not recorded", message=str(exc))
        row, folder = run_folder(run_id)
        case = _case(config.catalog_dir, row["case_slug"], row["case_version"])
        if case is None or not case.test_type.reviewed or (needs_folder and folder is None):
            return render("error.html", 400, title=f"{what} not recorded",
                          message="this run has nothing to review (its case's type is not reviewed"
                                  + (", or no run folder)" if needs_folder else ")"))
        try:
            material = ReviewMaterial.of_case(case, row["variant"], row.get("case_digest"))
            await run_in_threadpool(write, submitted, material, folder)
        except (ResultsError, CatalogError) as exc:
            return render("error.html", 400, title=f"{what} not recorded", message=str(exc))
        return RedirectResponse(f"/runs/{run_id}#{anchor(submitted)}", status_code=303)

    async def override_post(request: Request):
        return await reviewed_post(
            request, "Override", review.parse_override,
            lambda submitted, material, _folder: _write_override(config.db_path, submitted, material),
            lambda submitted: f"item-{submitted.item_id}", needs_folder=False)

    def decision_output(request: Request):
        """A medium a validation script wrote for an item (its current decision's
        output), read like a proof: inside the run folder, bounded, sniffed."""
        run_id, item_id, output_id = (request.path_params[k] for k in ("run_id", "item_id", "output_id"))
        _, folder = run_folder(run_id)
        conn = db()
        try:
            state = item_states(conn, run_id).get(item_id)
        finally:
            conn.close()
        outputs = (state.script or {}).get("outputs", []) if state else []
        out = next((o for o in outputs if o.get("id") == output_id), None)
        found = None
        if out is not None and folder is not None and out.get("kind") in ("image", "video"):
            dest = str(out.get("path") or "")
            if Path(dest).suffix.lower() in (".png", ".webm"):
                found = read_proof(folder, Proof(output_id, output_id, dest))
        if found is None:
            raise NotFound(f"no output {output_id!r} of item {item_id!r} present in run {run_id}")
        data, media = found
        return Response(data, media_type=media, headers={"Content-Security-Policy": "sandbox"})

    async def review_post(request: Request):
        return await reviewed_post(
            request, "Review", review.parse_review,
            lambda submitted, material, folder: _write_review(config.db_path, submitted, material, folder),
            lambda _submitted: "review", needs_folder=True)

    def run_proof(request: Request):
        run_id, proof_id = request.path_params["run_id"], request.path_params["proof_id"]
        row, folder = run_folder(run_id)
        case = _case(config.catalog_dir, row["case_slug"], row["case_version"])
        proof = None
        if case is not None and folder is not None:
            try:
                proof = next((p for p in case.proofs_for(case.variant(row["variant"])) if p.id == proof_id), None)
            except CatalogError:
                proof = None
        found = read_proof(folder / "work", proof) if proof is not None else None
        if found is None:
            raise NotFound(f"no proof {proof_id!r} present in run {run_id}")
        data, media = found
        return Response(data, media_type=media, headers={"Content-Security-Policy": "sandbox"})

    def case_mockup(request: Request):
        p = request.path_params
        case = _case(config.catalog_dir, p["slug"], p["version"])
        if case is None:
            raise NotFound(f"no case {p['slug']}@{p['version']} in the catalog")
        path = confined(case.root, p["path"])
        if path.suffix.lower() not in (".html", ".htm") or not path.is_file():
            raise NotFound(f"{p['path']}: no such mockup")
        with open(path, "rb") as fh:
            data = fh.read(files.MAX_SHOWN * 8)
        return Response(data, media_type="text/html; charset=utf-8",
                        headers={"Content-Security-Policy": _MOCKUP_CSP})

    def run_tree(request: Request):
        run_id, rel = request.path_params["run_id"], request.path_params.get("path", "")
        _, folder = run_folder(run_id)
        if folder is None:
            raise NotFound(f"run {run_id} has no folder under results/")
        target = confined(folder / "work", rel)
        parts = [p for p in rel.split("/") if p]
        crumbs = [("/".join(parts[:i + 1]), p) for i, p in enumerate(parts)]
        if target.is_dir():
            items, skipped = files.listing(target)
            return render("tree.html", run_id=run_id, rel="/".join(parts), crumbs=crumbs, items=items,
                          skipped=skipped)
        if not target.is_file():
            raise NotFound(f"{rel}: no such file in run {run_id}")
        shown = files.show_file(target)
        return render("tree.html", run_id=run_id, rel="/".join(parts), crumbs=crumbs, shown=shown,
                      source=Markup(shown.html), css=Markup(files.source_css()))

    def run_raw(request: Request):
        run_id, rel = request.path_params["run_id"], request.path_params["path"]
        _, folder = run_folder(run_id)
        if folder is None:
            raise NotFound(f"run {run_id} has no folder under results/")
        return _raw(confined(folder, rel))

    def run_viewer(request: Request):
        # A voxel run's model or a Blender run's character turned in three.js
        # (tcab.web3d): one page carrying the .glb.
        from tcab.reading import read_bytes
        from tcab.testtypes import asset_blender_view, asset_voxel_view
        from tcab.testtypes.asset_voxel import VoxelSection
        from tcab.web3d import MAX_VIEW_GLB, viewer_page

        run_id = request.path_params["run_id"]
        row, folder = run_folder(run_id)
        case = _case(config.catalog_dir, row["case_slug"], row["case_version"]) if row else None
        rel = meta = None
        if case is not None and folder is not None and isinstance(case.section, VoxelSection):
            rel = asset_voxel_view.model_file(case, folder)
            meta = asset_voxel_view.viewer_meta(case, folder) if rel else None
        elif case is not None and folder is not None and getattr(case.section, "blender", False):
            rel = asset_blender_view.model_file(folder)
            meta = asset_blender_view.viewer_meta(case) if rel else None
        if rel is None or meta is None:
            raise NotFound(f"run {run_id} has no 3D model to view")
        # Over MAX_VIEW_GLB or a link: ReadRefused, the app's OSError page.
        page = viewer_page(read_bytes(confined(folder, rel), MAX_VIEW_GLB, follow=False, what="model"), meta)
        return Response(page.html, media_type="text/html", headers={"Content-Security-Policy": page.policy})

    def web3d(request: Request):
        from tcab.web3d import LibraryMissing, library_file

        try:
            path = library_file(request.path_params["path"])
        except LibraryMissing as exc:
            raise NotFound(str(exc)) from exc
        if path is None:
            raise NotFound("not a file of the 3D viewer")
        # Public library code: a sandboxed (opaque-origin) viewer frame loads it as modules.
        return Response(path.read_bytes(), media_type="text/javascript",
                        headers={"Access-Control-Allow-Origin": "*", "Cache-Control": "max-age=3600"})

    def case_raw(request: Request):
        p = request.path_params
        case = _case(config.catalog_dir, p["slug"], p["version"])
        if case is None:
            raise NotFound(f"no case {p['slug']}@{p['version']} in the catalog")
        return _raw(confined(case.root, p["path"]))

    def match_page(request: Request):
        key = request.path_params["key"]
        conn = db()
        try:
            row = pages.match_row(conn, key)
            if row is None:
                raise NotFound(f"no match {key!r} in results.db")
            seats = pages.match_seats(conn, key)
            tournaments = pages.match_tournaments(conn, key)
        finally:
            conn.close()
        replay, problem = _replay_file(row)
        renderer_problem = None
        if replay is not None:
            renderer_problem = _renderer_problem(config.catalog_dir, row)
        return render("match.html", match=row, seats=seats, tournaments=tournaments,
                      playable=replay is not None and renderer_problem is None,
                      problem=problem or renderer_problem, tick=request.query_params.get("tick", ""))

    def _replay_file(row: dict) -> tuple[Path | None, str | None]:
        if not row.get("replay_path"):
            return None, "no replay was recorded for this match"
        try:
            path = inside(results, row["replay_path"])
        except PathRefused:
            return None, "its replay is recorded outside results/ and is not served"
        except PathMissing:
            return None, "its replay path is a symlink loop or an overlong name"
        if not path.is_file():
            return None, "its replay file is missing"
        if path.stat().st_size > MAX_REPLAY_FILE:
            return None, f"its replay file is larger than {MAX_REPLAY_FILE} bytes"
        return path, None

    def match_replay(request: Request, *, player: bool):
        key = request.path_params["key"]
        conn = db()
        try:
            row = pages.match_row(conn, key)
        finally:
            conn.close()
        if row is None:
            raise NotFound(f"no match {key!r} in results.db")
        path, problem = _replay_file(row)
        if path is None:
            raise NotFound(problem)
        data = path.read_bytes()
        if not player:
            # The recorded gzip bytes, declared as JSON content encoded with gzip.
            return Response(data, media_type="application/json",
                            headers={"Content-Encoding": "gzip", "Content-Security-Policy": "sandbox"})
        try:
            renderer = renderer_path(config.catalog_dir, row["case_slug"], row["case_version"])
        except Exception as exc:  # noqa: BLE001 - catalog and replay errors alike: no player
            raise NotFound(f"no renderer: {exc}") from exc
        page = player_page(renderer.read_bytes(), data)
        return Response(page.html, media_type="text/html", headers={"Content-Security-Policy": page.policy})

    def tournament_page(request: Request):
        tid = request.path_params["tid"]
        conn = db()
        try:
            found = pages.tournament(conn, tid)
            if found is None:
                raise NotFound(f"no tournament {tid!r} in results.db")
            cells = pages.tournament_cells(conn, tid, TOURNAMENT_MATCHES * 2)
        finally:
            conn.close()
        group, report = found
        labels, table, matches = _cross_table(report, cells)
        return render("tournament.html", group=group, t=report, chart=Markup(rating_chart(report.standings)),
                      labels=labels, table=table, matches=matches,
                      capped=len(cells) >= TOURNAMENT_MATCHES * 2)

    routes = [
        Route("/", home),
        Route("/runs", run_list),
        Route("/runs/{run_id}", run_page),
        Route("/runs/{run_id}/tree/", run_tree),
        Route("/runs/{run_id}/tree/{path:path}", run_tree),
        Route("/runs/{run_id}/raw/{path:path}", run_raw),
        Route("/runs/{run_id}/viewer", run_viewer),
        Route("/web3d/{path:path}", web3d),
        Route("/runs/{run_id}/review", review_post, methods=["POST"]),
        Route("/runs/{run_id}/override", override_post, methods=["POST"]),
        Route("/runs/{run_id}/outputs/{item_id}/{output_id}", decision_output),
        Route("/runs/{run_id}/proof/{proof_id}", run_proof),
        Route("/cases/{slug}/{version}/raw/{path:path}", case_raw),
        Route("/cases/{slug}/{version}/mockup/{path:path}", case_mockup),
        Route("/matches/{key}", match_page),
        Route("/matches/{key}/replay.json", lambda r: match_replay(r, player=False)),
        Route("/matches/{key}/player", lambda r: match_replay(r, player=True)),
        Route("/tournaments/{tid}", tournament_page),
        # Browsers ask for it on every page; an answer keeps their consoles free of 404s.
        Route("/favicon.ico", lambda r: Response(_FAVICON, media_type="image/svg+xml")),
    ]

    def not_found(request: Request, exc: Exception):
        return render("error.html", 404, title="Not found", message=str(exc))

    def refused(request: Request, exc: Exception):
        return render("error.html", 403, title="Refused", message="this path is not served")

    def bad_page(request: Request, exc: Exception):
        return render("error.html", 400, title="Bad request", message=str(exc))

    def unreadable(request: Request, exc: OSError):
        # A file of a run that cannot be read (a name the system refuses, a
        # vanished folder): the page names the error, never a traceback.
        return render("error.html", 404, title="Not found",
                      message=f"cannot read {Path(str(exc.filename or '?')).name[:80]}: {exc.strerror or exc}")

    app = Starlette(routes=routes, exception_handlers={
        NotFound: not_found, PathMissing: not_found, PathRefused: refused, ValueError: bad_page,
        OSError: unreadable})
    return Guard(app, config.hosts)


class Guard:
    """ASGI wrapper: GET/HEAD only (and a fenced POST to a run's review form),
    known Host names only (no DNS rebinding), no smuggled separators, and the
    security headers on every answer."""

    def __init__(self, app, hosts: tuple[str, ...]):
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        problem = self._problem(scope)
        if problem is not None:
            status, text = problem
            response = Response(text + "\n", status_code=status, media_type="text/plain",
                                headers={"Allow": "GET, HEAD"} if status == 405 else None)
            return await response(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", _PAGE_CSP.encode()))
                headers += [(b"x-content-type-options", b"nosniff"),
                            # Nothing of a URL of the app leaves it; within it, the
                            # browser states the real Origin the review form is checked by
                            # (under no-referrer it would send "Origin: null").
                            (b"referrer-policy", b"same-origin"),
                            (b"cache-control", b"no-store")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _problem(self, scope) -> tuple[int, str] | None:
        headers = dict(scope.get("headers", []))
        host = headers.get(b"host", b"").decode("latin-1").lower()
        if scope["method"] == "POST" and _REVIEW_PATH.fullmatch(scope["path"]):
            refused = _post_problem(scope, headers, host)
            if refused is not None:
                return refused
        elif scope["method"] not in ("GET", "HEAD"):
            return 405, "tcab view is read-only: GET only (and the review form)"
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if name not in self.hosts:
            return 421, f"unknown Host {host!r}: this server answers only {', '.join(sorted(self.hosts))}"
        raw = scope.get("raw_path") or scope["path"].encode()
        if not name:
            return 421, "a request must name this server's Host"
        if any(len(part) > NAME_MAX for part in scope["path"].encode("utf-8", "surrogateescape").split(b"/")):
            return 404, f"no such page: a path component is longer than {NAME_MAX} bytes"
        if smuggled(raw.split(b"?", 1)[0]):
            return 400, "encoded separators, dots and NULs are refused in paths"
        if any(part in ("..", ".") for part in scope["path"].split("/")):
            return 400, "'.' and '..' are refused in paths"
        return None


def _post_problem(scope, headers: dict, host: str) -> tuple[int, str] | None:
    """Why a POST to the review form is refused, or None: it must come from
    this machine, from a page of this server (Origin, and Sec-Fetch-Site when
    the browser sends it), as a URL-encoded form of a bounded, declared size."""
    client = (scope.get("client") or ("", 0))[0]
    try:
        loopback = ipaddress.ip_address(client).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        return 403, "reviews are taken only from this machine (a loopback client)"
    origin = headers.get(b"origin", b"").decode("latin-1").lower()
    if origin != f"http://{host}":
        return 403, "a review must be posted from this server's own page (Origin)"
    if headers.get(b"sec-fetch-site", b"same-origin") != b"same-origin":
        return 403, "a review must be posted from this server's own page (Sec-Fetch-Site)"
    kind = headers.get(b"content-type", b"").split(b";", 1)[0].strip().decode("latin-1").lower()
    if kind != review.FORM_TYPE:
        return 415, f"a review is a {review.FORM_TYPE} form"
    length = headers.get(b"content-length", b"")
    if not length.isdigit():
        return 411, "a review form must declare its Content-Length"
    if int(length) > review.MAX_REVIEW_BYTES:
        return 413, f"a review form is at most {review.MAX_REVIEW_BYTES} bytes"
    return None


def _write_override(db_path: Path, o: review.Override, material) -> None:
    conn = review.open_writer(db_path)
    try:
        record_override(conn, o.run_id, o.item_id, o.verdict, author=o.author, note=o.note, material=material)
    finally:
        conn.close()


def _write_review(db_path: Path, submitted, material, folder: Path) -> None:
    conn = review.open_writer(db_path)
    try:
        record_review(conn, submitted, material, run_dir=folder)
    finally:
        conn.close()


def _page(value: str | None) -> int:
    if value is None or value == "":
        return 0
    if not value.isdigit() or len(value) > 9:
        raise ValueError(f"page: expected a whole number, got {value[:20]!r}")
    return int(value)


def _json_list(value) -> list:
    if not value:
        return []
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return []
    return parsed if isinstance(parsed, list) else []


def _raw(path: Path) -> Response:
    """A file's bytes: images as themselves, everything else as plain text, all sandboxed."""
    if not path.is_file():
        raise NotFound(f"{path.name}: no such file")
    media = files.IMAGE_TYPES.get(path.suffix.lower(), "text/plain; charset=utf-8")
    with open(path, "rb") as fh:
        data = fh.read(files.MAX_SHOWN * 8)
    return Response(data, media_type=media, headers={"Content-Security-Policy": "sandbox"})


def _case(catalog_dir: Path, slug: str, version: str):
    from tcab.catalog import resolve_case
    from tcab.errors import CatalogError

    try:
        return resolve_case(catalog_dir, slug, version, experimental=True)
    except CatalogError:
        return None


def _type_panel(catalog_dir: Path, run: dict, folder: Path | None, run_id: str) -> dict:
    """The values of the run page's part drawn by the case's test type
    (``TestType.view_panel``, ``"module:function"``); none without one."""
    case = _case(catalog_dir, run["case_slug"], run["case_version"])
    target = case.test_type.view_panel if case is not None else None
    if target is None:
        return {}
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)(case, run, folder, run_id)


def _renderer_problem(catalog_dir: Path, row: dict) -> str | None:
    try:
        renderer_path(catalog_dir, row["case_slug"], row["case_version"])
    except Exception as exc:  # noqa: BLE001 - shown on the page, not raised
        return f"no renderer to play it: {exc}"
    return None


def _cross_table(report, cells: list[dict]):
    """Participants in standings order; table[a][b] = (wins, draws, losses, match keys) of a against b."""
    labels = [s.label for s in report.standings]
    by_match: dict[str, list[dict]] = {}
    for c in cells:
        by_match.setdefault(c["match_key"], []).append(c)
    table: dict[str, dict[str, list]] = {}
    matches = []
    for key, seats in by_match.items():
        matches.append((key, seats))
        for a in seats:
            for b in seats:
                if a is b:
                    continue
                for lab in (a["label"], b["label"]):
                    if lab not in labels:
                        labels.append(lab)
                cell = table.setdefault(a["label"], {}).setdefault(b["label"], [0, 0, 0, []])
                cell[{"win": 0, "draw": 1}.get(a["outcome"], 2)] += 1
                cell[3].append(key)
    return labels, table, matches


__all__ = ["ViewConfig", "check_database", "create_app"]
