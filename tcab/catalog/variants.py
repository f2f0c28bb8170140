"""Parsing specs and standalone variant files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tcab.catalog.fields import Fields, Source, show
from tcab.catalog.model import SpecFile, Variant
from tcab.catalog.paths import check_dest, check_path
from tcab.catalog.toml import read_toml

SPEC_KEYS = ("source", "dest")
VARIANT_KEYS = ("slug", "name", "description", "spec", "workspace", "solution", "params")


def humanize(slug: str) -> str:
    """``"night-mode"`` -> ``"Night Mode"`` (the default display name)."""
    return " ".join(part.capitalize() for part in slug.split("-"))


def parse_spec(
    entry: Any, source: Source, root: Path, *, table: str, index: int
) -> SpecFile | None:
    """One spec entry: a table ``{source, dest}`` or, in a variant's ``spec``, a bare
    source path. ``dest`` defaults to ``source`` minus a trailing ``.hbs``."""
    if isinstance(entry, str):
        entry = {"source": entry}
    if not isinstance(entry, dict):
        source.add(None, f"expected a table with source (and dest), got {show(entry)}",
                   table=table, index=index)
        return None
    f = Fields(entry, source, SPEC_KEYS, table=table, index=index)
    src = check_path(f, "source", root, f.string("source", required=True), "file")
    dest_raw = f.string("dest")
    f.done()
    if src is None:
        return None
    if dest_raw is None:
        dest_raw = src[: -len(".hbs")] if src.endswith(".hbs") else src
    dest = check_dest(f, "dest", dest_raw)
    return SpecFile(src, dest) if dest is not None else None


def check_unique_dests(specs: list[SpecFile], source: Source, key: str, taken: set[str]) -> None:
    """Two specs with one ``dest`` are an error (``taken`` holds the dests seen so far)."""
    for spec in specs:
        if spec.dest in taken:
            source.add(key, f"two specs have the dest {show(spec.dest)}")
        taken.add(spec.dest)


def parse_variant(
    path: Path, rel: str, root: Path, common_dests: set[str]
) -> tuple[Variant | None, Source]:
    """Parse the variant file ``rel``; problems are recorded on the returned source."""
    source, data = read_toml(path)
    if data is None:
        return None, source
    f = Fields(data, source, VARIANT_KEYS)
    slug = f.kebab("slug", required=True)
    name = f.string("name")
    description = f.string("description", nonempty=False) or ""
    workspace = check_path(f, "workspace", root, f.string("workspace"), "dir")
    solution = check_path(f, "solution", root, f.string("solution"), "dir")
    params = f.table_of("params") or {}
    specs: list[SpecFile] = []
    raw_specs = data.get("spec", [])
    if not isinstance(raw_specs, list):
        f.problem("spec", f"expected an array of spec tables or paths, got {show(raw_specs)}")
        raw_specs = []
    for i, entry in enumerate(raw_specs, start=1):
        spec = parse_spec(entry, source, root, table="spec", index=i)
        if spec is not None:
            specs.append(spec)
    check_unique_dests(specs, source, "spec", set(common_dests))
    f.done()
    if slug is None:
        return None, source
    variant = Variant(
        slug=slug,
        name=name or humanize(slug),
        file=rel,
        description=description,
        spec=tuple(specs),
        workspace=workspace,
        solution=solution,
        params=params,
    )
    return variant, source
