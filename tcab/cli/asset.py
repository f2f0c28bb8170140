"""``tcab asset export`` and ``tcab asset render-reference``: a sprite sheet's
frames as an atlas (PNG + Aseprite JSON) and animated PNGs, from a run's
regeneration or from a case's reference implementation
(docs/asset-generation.md, "Exports" and "Rendering a case's reference")."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import click

from tcab.cli.params import bounded, maximum
from tcab.settings import Settings


def _check_out(out: Path) -> None:
    """--out must be absent or a folder (not a link to one, not a file)."""
    try:
        mode = os.lstat(out).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(mode):
        kind = "a symbolic link" if stat.S_ISLNK(mode) else "not a folder"
        raise click.BadParameter(f"{out} exists and is {kind}; give a folder (new or existing)",
                                 param_hint="'--out'")


def _echo(written: list[Path]) -> None:
    for path in written:
        click.echo(str(path))


@click.group("asset")
def asset():
    """Work with asset-generation runs and cases: export a sprite sheet's
    frames (atlas + Aseprite JSON + animated PNGs), render a case's reference."""


@asset.command("export")
@click.argument("run_id")
@click.option("--out", required=True, type=click.Path(path_type=Path),
              help="Folder to write into (made if absent; an existing non-folder is refused).")
@click.pass_obj
def export(settings: Settings, run_id: str, out: Path):
    """Export sprite-sheet run RUN_ID's regenerated frames (results/runs/
    RUN_ID/regenerated/, written by the sweep's regenerate task) into OUT:

    \b
      atlas.png               every frame, one row per sequence (then the
                              frames no sequence names), each cell the canvas
      atlas.json              Aseprite's JSON array format: frames[] with each
                              rectangle and duration (1000/fps ms), meta with
                              frameTags (one per sequence, a from..to range)
      sequences/<slug>.png    each sequence as an animated PNG at its fps, looping

    A voxel run (voxel-model, voxel-animation) exports its model instead:

    \b
      model.glb               the run's scene (an animated model, its animations
                              baked) or the regenerated model (a static one)
      turntable.png           the regenerated model turning, an animated PNG

    A Blender character run exports its character.glb and turntable.png
    (the regenerate task's animated PNG of the model turned once).

    Each file is written atomically; the same frames give the same bytes.
    Exit 2 for an id that names no run, a run of another type or of a single
    sprite, a run with no regenerated frames or model, a model or turntable
    that is a link, not a regular file or too large (each named), or an OUT
    that is not a folder or holds a name it cannot write.

    \b
    Example:
      tcab asset export 20261204-platformer-hero-run-reference-1 --out hero/
    """
    from tcab.cli.runref import open_run
    from tcab.errors import RunError
    from tcab.testtypes.asset_export import ExportError, export_sheet, read_frames
    from tcab.testtypes.asset_generation import AssetSection
    from tcab.testtypes.asset_score import REGENERATED_DIR

    _check_out(out)
    try:
        case, run = open_run(settings, run_id)
    except RunError as exc:
        raise click.BadParameter(str(exc), param_hint="'RUN_ID'") from None
    from tcab.testtypes.asset_voxel import VoxelSection

    voxel = isinstance(case.section, VoxelSection)
    if voxel or getattr(case.section, "blender", False):
        try:
            if voxel:
                from tcab.testtypes.asset_voxel_view import export_model
                written = export_model(case, run.run_dir, out)
            else:
                from tcab.testtypes.asset_blender import export_run
                written = export_run(run.run_dir, out)
        except ExportError as exc:  # the run's file: missing, a link, too large
            raise click.BadParameter(f"{run_id}: {exc}", param_hint="'RUN_ID'") from None
        except OSError as exc:  # the run's files were read: what failed is a write into OUT
            raise click.BadParameter(f"{exc.filename or out}: {exc.strerror or exc}", param_hint="'--out'") from None
        _echo(written)
        return
    if not isinstance(case.section, AssetSection):
        raise click.BadParameter(f"{run_id} is a run of {case.slug}, a {case.type} case; only an "
                                 "asset-generation sprite sheet exports", param_hint="'RUN_ID'")
    if not case.section.sheet:
        raise click.BadParameter(f"{run_id} is a run of {case.slug}, a single sprite (its frame is "
                                 f"{REGENERATED_DIR}/sprite.png); only a sprite sheet exports",
                                 param_hint="'RUN_ID'")
    try:
        pixels = read_frames(case.section, run.run_dir / REGENERATED_DIR, f"run {run_id}")
        written = export_sheet(case.section, pixels, out)
    except ExportError as exc:
        raise click.BadParameter(str(exc), param_hint="'RUN_ID'") from None
    _echo(written)


@asset.command("render-reference")
@click.argument("case", metavar="CASE")
@click.option("--variant", metavar="X", help="Variant slug (default: the first).")
@click.option("--experimental", is_flag=True, help="Allow picking the newest version among experimental ones.")
@click.option("--out", required=True, type=click.Path(path_type=Path),
              help="Folder to write into (made if absent; an existing non-folder is refused).")
@click.option("--timeout", type=bounded("--timeout"), default=120, show_default=True,
              help=f"Seconds the reference script may take before it is killed, at most {maximum('--timeout')}.")
@click.pass_obj
def render_reference(settings: Settings, case: str, variant: str | None, experimental: bool, out: Path,
                     timeout: int):
    """Render asset case CASE's reference implementation (CASE is a slug,
    optionally `slug@vX.Y.Z`) the way a reference run would, on the host:
    seed the variant into a temporary folder, lay its solution over it, run
    its `.reference/draw.sh` there with `sh` and this checkout's `draw` /
    `draw-sheet` first on PATH (a clean environment, killed after --timeout),
    regenerate the recorded logs as a sweep does, and write into OUT:

    \b
      frames/<frame>.png      each regenerated frame (frames/sprite.png for a sprite)
      atlas.png, atlas.json,  a sheet's exports, as `tcab asset export` writes them
      sequences/<slug>.png
      character.glb, model.png, a Blender character's: its solution's build.py run by
      summary.json            tcab-blend in a container of the Blender image

    Exit 2 for an unknown case, a case of another type, one without a
    reference script, a script that fails, times out or draws nothing that
    regenerates, or an OUT that is not a folder.

    \b
    Example:
      tcab asset render-reference candle-flicker --out /tmp/candle
    """
    from tcab.catalog import resolve_case
    from tcab.errors import CatalogError
    from tcab.testtypes.asset_generation import AssetSection
    from tcab.testtypes.asset_reference import ReferenceError
    from tcab.testtypes.asset_reference import render_reference as render
    from tcab.testtypes.asset_voxel import VoxelSection

    _check_out(out)
    try:
        resolved = resolve_case(settings.catalog_dir, case, experimental=experimental)
    except CatalogError as exc:
        raise click.BadParameter(str(exc), param_hint="'CASE'") from None
    blender = getattr(resolved.section, "blender", False)
    if not isinstance(resolved.section, AssetSection | VoxelSection) and not blender:
        raise click.BadParameter(f"{resolved.ref} is a {resolved.type} case; only an asset-generation "
                                 "case has a drawn reference", param_hint="'CASE'")
    try:
        chosen = resolved.variant(variant)
    except CatalogError as exc:
        raise click.BadParameter(str(exc), param_hint="'--variant'") from None
    try:
        if blender:  # built by tcab-blend in a container of the Blender image
            from tcab.testtypes.asset_blender_reference import render_blender_reference
            rendered = render_blender_reference(resolved, chosen, out, settings.tmp_dir, timeout_s=timeout)
        else:
            rendered = render(resolved, chosen, out, settings.tmp_dir, timeout_s=timeout)
    except ReferenceError as exc:
        raise click.BadParameter(str(exc), param_hint="'CASE'") from None
    _echo(list(rendered.written))
    for frame in getattr(rendered.score, "frames", ()):
        if frame.flagged:
            click.secho(f"warning: frame {frame.name}: {frame.detail}", fg="yellow", err=True)
    for note in getattr(rendered.score, "notes", ()):  # a voxel reference's animation gaps
        click.secho(f"warning: {note}", fg="yellow", err=True)


__all__ = ["asset"]
