"""``validate_run``: is what an end-to-end run produced a working static site?

1. The run's collected ``work/`` is built in a fresh ``test-cabinet-base-wasm``
   container (:mod:`tcab.validation.container`): untrusted code never runs on
   the host.
2. The ``[build].output`` folder is opened in headless Chromium
   (:mod:`tcab.browser.page`) and one screenshot per ``[[reference]]``
   view is taken. The case's ``[toolchain]`` commands run in the same
   container after the build (:mod:`tcab.validation.toolchain`); a typecheck
   that fails is the check ``typecheck`` and rates the run ``broken``.
3. Each ``CheckSpec`` given (the case's ``[[check]]``s) is run on the built
   site (:mod:`tcab.validation.checks`): actions, screenshot
   ``validation/checks/<view>.png``, SSIM against the reference.
4. Each review item with a ``validation`` script is decided by it on the
   built site (:mod:`tcab.validation.scripts`): its outputs under
   ``validation/items/<item>/``, its decision in ``item_decisions``.
5. The record, its checks and the build log land in
   ``results/runs/<run-id>/validation/validation.json`` (atomically), the
   screenshots beside it as ``<view>.png``, with each ``[[proof]]`` found
   present, missing or refused in the collected tree
   (:mod:`tcab.validation.proofs`). Recording the row in
   ``results.db`` is the caller's (``tcab validate``, the ``validate`` task).
6. A page that never loaded makes a ``completed`` run ``catastrophic``:
   ``run.json`` is rewritten with that status (and back to ``completed``
   when a later validation loads the page); ``record_validation`` moves the
   ``runs`` row the same way (both from :func:`~tcab.outcomes.validated_run`).

The caller hands over the case and the run record it already holds
(``tcab validate`` reads them once from the run id, a sweep task from its
own records); nothing here reads ``run.json`` or scans the catalog.
"""

from __future__ import annotations

import dataclasses
import json
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tcab.atomic import write_bytes, write_text
from tcab.browser.mockup_cache import mockup_cache_dir
from tcab.browser.page import (
    DEFAULT_VIEWPORT,
    BrowserLimits,
    BrowserUnavailable,
    View,
    check_page,
    png_size,
)
from tcab.catalog import CaseVersion, case_digest
from tcab.errors import RuntimeBackendError, ValidationError
from tcab.outcomes import validated_run
from tcab.runs.record import RunRecord
from tcab.runs.secrets import Redactor
from tcab.runtime import BuildLimits, CollectLimits, Runtime
from tcab.runtime.build import BUILD_TIMEOUT_S
from tcab.runtime.choice import RuntimeChoice, open_runtime
from tcab.settings import Settings
from tcab.validation.case_checks import case_check_specs
from tcab.validation.checks import CheckLimits, CheckSpec, ViewCheckResult, check_specs, run_checks
from tcab.validation.container import build_site
from tcab.validation.proofs import collect_proofs
from tcab.validation.record import Check, ValidationRecord, judge
from tcab.validation.scripts import (
    ItemDecision,
    ScriptItem,
    ScriptLimits,
    run_scripts,
    script_items,
)
from tcab.validation.toolchain import GATING_COMMAND, ToolchainLimits, ToolResult, run_secrets

VALIDATION_DIR = "validation"
CHECKS_DIR = "checks"    # the [[check]] screenshots, under VALIDATION_DIR
ITEMS_DIR = "items"      # the validation scripts' outputs, under VALIDATION_DIR/<item>/


def _check_run(case: CaseVersion, run: RunRecord) -> None:
    """Raises ``ValidationError`` for a run of another case, a run without a
    collected tree, an adversarial case or a case without ``[build]`` (without
    ``output`` the site is the first of dist/, build/, out/ the build produced)."""
    if (run.case_slug, run.case_version) != (case.slug, case.version):
        raise ValidationError(f"run {run.id} is a run of {run.case_slug}@{run.case_version}, not of {case.ref}")
    if case.test_type.evaluate_command != "validate":
        raise ValidationError(f"run {run.id}: {case.slug} is an {case.type} case; `tcab validate` takes "
                              f"the runs of types it validates (end-to-end); {case.test_type.evaluate_hint(run.id)}")
    if case.build is None:
        raise ValidationError(f"{case.manifest}: [build] with install and build is required to validate")
    if not run.has_tree():
        raise ValidationError(f"{run.tree}: run {run.id} has no collected tree to validate")


# A reference image smaller than this either way is shown at DEFAULT_VIEWPORT:
# headless Chromium never finishes a screenshot of a viewport under ~100 px high.
MIN_VIEW_PX = 100


def _views(case: CaseVersion, variant: str) -> list[View]:
    """The run's variant's reference views (the common ones, then its own)."""
    known = {v.slug: v for v in case.variants}
    if variant not in known:
        raise ValidationError(f"the run's variant {variant!r} is not a variant of {case.ref} "
                              f"(known: {', '.join(known)})")
    views = []
    for ref in case.references_for(known[variant]):
        size = png_size(case.path(ref.media)) if ref.media else None
        if size is not None and min(size) < MIN_VIEW_PX:
            size = None  # an icon (a moon, 8x8), not a screen: Chromium cannot capture such a viewport
        width, height = size or DEFAULT_VIEWPORT
        views.append(View(ref.view, width, height))
    return views or [View("page", *DEFAULT_VIEWPORT)]


def validate_run(settings: Settings, case: CaseVersion, run: RunRecord, *,
                 runtime: str | RuntimeChoice | Runtime = "docker",
                 timeout_s: float = BUILD_TIMEOUT_S, limits: CollectLimits | None = None,
                 settle_s: float | None = None, browser: BrowserLimits | None = None,
                 checks: Sequence[CheckSpec] | None = None, check_limits: CheckLimits | None = None,
                 toolchain: ToolchainLimits | None = None, secrets: Mapping[str, str] | None = None,
                 scripts: ScriptLimits | None = None) -> ValidationRecord:
    """Build and check ``run`` (a run of ``case``); return the record (also
    written to ``<run>/validation/validation.json``).

    ``runtime`` is a backend name, a ``RuntimeChoice`` (opened with the
    build container's lifetime as its leak guard) or a ``Runtime``; ``timeout_s`` bounds each
    of install and build, ``limits`` the output folder copied out, ``browser``
    the browser check (``settle_s``, when given, overrides its ``settle_s``);
    ``checks`` (default: the case's ``[[check]]``s) are run on the site
    under ``check_limits`` (their results are ``record.check_results``;
    they do not change the status);
    ``toolchain`` each ``[toolchain]`` command; ``scripts`` the review
    items' validation scripts (their decisions are ``record.item_decisions``;
    they do not change the status either). ``secrets`` ({name: value})
    are redacted from everything the record holds (toolchain tails, build
    log, check details); by default the secrets every harness definition
    declares, as set in the environment, and every secret the run was given
    (a given one unset is a ``ValidationError``). Outcomes,
    including the engine or the browser failing (``error``), are the
    record's status. Raises ``ValidationError`` for bad input (see
    ``_check_run``) or a limit that is not finite and positive.
    """
    _check_run(case, run)
    if checks is None:
        checks = case_check_specs(case, case.variant(run.variant), mockup_cache_dir(settings.build_dir),
                                  run.run_dir / VALIDATION_DIR)
    checks = check_specs(checks)
    items = script_items(case, case.variant(run.variant))
    # The [[proof]]s, as the run left them (informational: no status depends on them).
    proofs = collect_proofs(case.proofs_for(case.variant(run.variant)), run.tree)
    browser = browser or BrowserLimits()
    if settle_s is not None:
        browser = dataclasses.replace(browser, settle_s=settle_s)
    started = time.perf_counter()
    build_limits = BuildLimits(timeout_s=timeout_s)
    toolchain = toolchain or ToolchainLimits()
    if secrets is None:
        secrets = run_secrets(settings.harnesses_dir, run.secrets, str(run.run_dir / "run.json"))
    redactor = Redactor(secrets)
    settings.tmp_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tcab-validate-", dir=settings.tmp_dir) as tmp:
        out = _build_and_check(case, run, runtime, Path(tmp) / "output", build_limits,
                               limits or CollectLimits(), browser, toolchain, redactor,
                               checks, check_limits or CheckLimits(), items, scripts or ScriptLimits())
    screenshots = _write_screenshots(run.run_dir / VALIDATION_DIR, out.shots)
    record = ValidationRecord(run.id, case.slug, case.version, case_digest(case), run.variant, out.status,
                              tuple(out.checks), out.detail, out.log, screenshots, out.image_digest,
                              time.perf_counter() - started, toolchain=out.toolchain,
                              check_results=out.check_results, proofs=proofs, item_decisions=out.item_decisions)
    # Every text in the record may come from the run's own code (a build
    # script that rebuilds a secret from its hex): redacted whole, once more.
    record = redactor.redact_fields(record)
    write_text(run.run_dir / VALIDATION_DIR / "validation.json", json.dumps(record.to_json(), indent=1, sort_keys=True))
    _mark_run(run, record)
    return record


def _mark_run(run: RunRecord, record: ValidationRecord) -> None:
    """Rewrite ``run.json`` when the validation changes the run's status
    (completed <-> catastrophic); the detail says which check failed."""
    status, detail = validated_run(run.status, record.status, record.detail, run.status_detail)
    if status == run.status:
        return
    dataclasses.replace(run, status=status, status_detail=detail).write()


@dataclass(slots=True)
class _Outcome:
    status: str = "failed"
    detail: str = ""
    checks: list[Check] = field(default_factory=list)
    log: str = ""
    image_digest: str | None = None
    shots: dict[str, bytes] = field(default_factory=dict)
    check_results: tuple[ViewCheckResult, ...] = ()
    toolchain: tuple[ToolResult, ...] = ()
    item_decisions: tuple[ItemDecision, ...] = ()


def _build_and_check(case: CaseVersion, run: RunRecord, runtime: str | RuntimeChoice | Runtime, dest: Path,
                     build_limits: BuildLimits, collect: CollectLimits, browser: BrowserLimits,
                     toolchain: ToolchainLimits, redactor: Redactor,
                     checks: tuple[CheckSpec, ...] = (), check_limits: CheckLimits | None = None,
                     items: tuple[ScriptItem, ...] = (), scripts: ScriptLimits | None = None) -> _Outcome:
    """The site built in a container, then opened in the browser; the engine
    or the browser failing is status ``error``, a page that never loaded
    ``catastrophic`` (:func:`~tcab.validation.record.judge`)."""
    out = _Outcome()
    try:
        steps = len(case.section.toolchain.commands()) if case.section.toolchain else 0
        rt = open_runtime(runtime, max_runtime_s=build_limits.lifetime_s(steps * toolchain.timeout_s))
        site = build_site(rt, run.tree, case.build, dest, container_name=f"validate-{run.id}",
                          limits=build_limits, collect=collect, toolchain=case.section.toolchain,
                          toolchain_limits=toolchain, redactor=redactor)
        out.checks += site.checks
        out.log, out.image_digest = redactor.redact(site.log), site.image_digest
        out.toolchain = site.toolchain
        if site.output is not None:
            page = check_page(site.output, _views(case, run.variant), browser)
            out.checks += page.checks
            out.shots = page.shots
        out.check_results = _run_case_checks(site.output, checks, run.run_dir / VALIDATION_DIR, check_limits,
                                             browser)
        out.item_decisions = _run_item_scripts(site.output, items, case, run.run_dir / VALIDATION_DIR, scripts,
                                               browser)
        out.checks += _gate_checks(site.toolchain)
        out.status, out.detail = judge(out.checks)
    except RuntimeBackendError as exc:
        out.status, out.detail = "error", f"runtime: {exc}"
    except BrowserUnavailable as exc:
        out.status, out.detail = "error", f"browser: {exc}"
    return out


def _run_case_checks(site: Path | None, checks: tuple[CheckSpec, ...], validation_dir: Path,
                     limits: CheckLimits | None, browser: BrowserLimits) -> tuple[ViewCheckResult, ...]:
    """The [[check]]s on the built site; each is not reached when there is none."""
    if site is None:
        return tuple(ViewCheckResult(c.name, c.view, None, None, "not run: the build produced no site", 0.0)
                     for c in checks)
    results = run_checks(site, checks, validation_dir / CHECKS_DIR, limits=limits, browser=browser)
    return tuple(dataclasses.replace(r, screenshot=f"{VALIDATION_DIR}/{CHECKS_DIR}/{r.screenshot}")
                 if r.screenshot else r for r in results)


def _run_item_scripts(site: Path | None, items: tuple[ScriptItem, ...], case: CaseVersion, validation_dir: Path,
                      limits: ScriptLimits | None, browser: BrowserLimits) -> tuple[ItemDecision, ...]:
    """The review items' validation scripts on the built site; each decides
    nothing when there is none, or when the scripts' browser cannot start.
    Output paths are made relative to the run folder."""
    if not items:
        return ()
    if site is None:
        return tuple(ItemDecision(i.item, None, "not run: the build produced no site") for i in items)
    instrumentation = case.instrumentation
    try:
        decisions = run_scripts(site, items, validation_dir / ITEMS_DIR, handle=instrumentation.handle,
                                tick_hz=instrumentation.tick_hz, limits=limits, browser=browser)
    except BrowserUnavailable as exc:
        # The build, the page check and the [[check]]s already stand; only these items wait for a browser.
        reason = f"not run: the browser is unavailable: {str(exc)[:500]}"
        return tuple(ItemDecision(i.item, None, reason) for i in items)
    return tuple(dataclasses.replace(d, outputs={k: f"{VALIDATION_DIR}/{ITEMS_DIR}/{d.item}/{v}"
                                                 for k, v in d.outputs.items()}) for d in decisions)


def _gate_checks(results: tuple[ToolResult, ...]) -> list[Check]:
    """The typecheck as a check, when it ran to an exit: a page that loads
    but does not typecheck is ``failed``. One that timed out or never ran
    says nothing about the code and adds no check (recorded only)."""
    return [Check(r.name, r.status == "passed", f"[toolchain].{r.name} `{r.command}` {r.detail}")
            for r in results if r.name == GATING_COMMAND and r.status in ("passed", "failed")]


def _write_screenshots(out_dir: Path, shots: dict[str, bytes]) -> tuple[str, ...]:
    for name, png in shots.items():
        write_bytes(out_dir / f"{name}.png", png)
    return tuple(f"{VALIDATION_DIR}/{name}.png" for name in shots)
