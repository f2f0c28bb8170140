"""``validate_run``: is what an end-to-end run produced a working static site?

1. The run's collected ``work/`` is built in a fresh ``test-cabinet-base-wasm``
   container (:mod:`tcab.validation.container`): untrusted code never runs on
   the host.
2. The ``[build].output`` folder is opened in headless Chromium
   (:mod:`tcab.validation.browser`) and one screenshot per ``[[reference]]``
   view is taken.
3. The record, its checks and the build log land in
   ``results/runs/<run-id>/validation/validation.json`` (atomically), the
   screenshots beside it as ``<view>.png``. Recording the row in
   ``results.db`` is the caller's (``tcab validate``, the ``validate`` task).
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from pathlib import Path

from tcab.atomic import write_bytes, write_text
from tcab.errors import ValidationError
from tcab.runtime import CollectLimits
from tcab.settings import Settings
from tcab.validation.browser import (
    DEFAULT_VIEWPORT,
    BrowserLimits,
    BrowserUnavailable,
    View,
    check_page,
    png_size,
)
from tcab.validation.record import Check, ValidationRecord

BUILD_TIMEOUT_S = 600
VALIDATION_DIR = "validation"


def _load_run(settings: Settings, run_id: str):
    """(run.json, collected tree, case, variant slug) of ``run_id``.

    Raises ``ValidationError`` for an unknown run, an unreadable record, a
    missing tree, an adversarial case or a case without ``[build].output``.
    """
    from tcab.catalog import scan_catalog
    from tcab.errors import CatalogError

    if not run_id or "/" in run_id or run_id.startswith("."):
        raise ValidationError(f"{run_id!r}: not a run id")
    run_dir = settings.runs_dir / run_id
    path = run_dir / "run.json"
    if not path.is_file():
        raise ValidationError(f"{path}: no such run {run_id!r} (see results/runs/)")
    try:
        run = json.loads(path.read_text())
        subject = run["subject"]
        slug, version = subject["case"], subject["version"]
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ValidationError(f"{path}: not a readable run record ({exc})") from exc
    tree = run_dir / (run.get("artifact") or {}).get("path", "work")
    if not tree.is_dir():
        raise ValidationError(f"{tree}: run {run_id} has no collected tree to validate")
    catalog, _ = scan_catalog(settings.catalog_dir)
    try:
        case = catalog.resolve(slug, version)
    except CatalogError as exc:
        raise ValidationError(f"{path}: the run's case {slug}@{version} is not in the catalog: {exc}") from exc
    if case.type != "end-to-end":
        raise ValidationError(f"run {run_id}: {slug} is an {case.type} case; "
                              f"validate only end-to-end runs (build its controller with `tcab build {run_id}`)")
    if case.build is None or not case.build.output:
        raise ValidationError(f"{case.manifest}: [build] with install, build and output is required to validate")
    variant = subject.get("variant") or case.variant(None).slug
    return run, tree, case, variant


def _views(case) -> list[View]:
    views = []
    for ref in case.references:
        size = png_size(case.path(ref.media)) if ref.media else None
        width, height = size or DEFAULT_VIEWPORT
        views.append(View(ref.view, width, height))
    return views or [View("page", *DEFAULT_VIEWPORT)]


def validate_run(settings: Settings, run_id: str, *, runtime="docker", timeout_s: float = BUILD_TIMEOUT_S,
                 limits: CollectLimits | None = None, settle_s: float | None = None,
                 browser: BrowserLimits | None = None) -> ValidationRecord:
    """Build and check run ``run_id``; return the record (also written to
    ``<run>/validation/validation.json``).

    ``runtime`` is a backend name or a ``Runtime``; ``browser`` bounds the
    browser check (``settle_s``, when given, overrides its ``settle_s``).
    Outcomes, including the engine or the browser failing (``error``), are
    the record's status.
    Raises ``ValidationError`` for bad input (see ``_load_run``) or a limit
    that is not finite and positive.
    """
    from tcab.catalog import case_digest
    from tcab.errors import RuntimeBackendError
    from tcab.runtime import get_runtime
    from tcab.validation.container import build_site

    browser = browser or BrowserLimits()
    if settle_s is not None:
        browser = dataclasses.replace(browser, settle_s=settle_s)
    _, tree, case, variant = _load_run(settings, run_id)
    started = time.perf_counter()
    out_dir = settings.runs_dir / run_id / VALIDATION_DIR
    checks: list[Check] = []
    log, image_digest, status, shots = "", None, "failed", {}
    settings.tmp_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tcab-validate-", dir=settings.tmp_dir) as tmp:
        try:
            rt = get_runtime(runtime) if isinstance(runtime, str) else runtime
            site = build_site(rt, tree, case.build, Path(tmp) / "output", container_name=f"validate-{run_id}",
                              timeout_s=timeout_s, limits=limits or CollectLimits())
            checks += site.checks
            log, image_digest = site.log, site.image_digest
            if site.output is not None:
                page = check_page(site.output, _views(case), browser)
                checks += page.checks
                shots = page.shots
            failed = [c for c in checks if not c.ok]
            status = "failed" if failed else "passed"
            detail = f"{failed[0].name}: {failed[0].detail}" if failed else "all checks passed"
        except RuntimeBackendError as exc:
            status, detail = "error", f"runtime: {exc}"
        except BrowserUnavailable as exc:
            status, detail = "error", f"browser: {exc}"
    screenshots = []
    for name, png in shots.items():
        write_bytes(out_dir / f"{name}.png", png)
        screenshots.append(f"{VALIDATION_DIR}/{name}.png")
    record = ValidationRecord(run_id, case.slug, case.version, case_digest(case), variant, status,
                              tuple(checks), detail, log, tuple(screenshots), image_digest,
                              time.perf_counter() - started)
    write_text(out_dir / "validation.json", json.dumps(record.to_json(), indent=1, sort_keys=True))
    return record
