"""One seed store for sweeps and commands (issue 20, "one key per artifact"):
the sweep's seed task stores its seed in build/seed-cache/ under the key
``tcab seed`` and ``tcab run`` look up, and its record says where."""

from __future__ import annotations

import json

from tcab.catalog import load_catalog
from tcab.seeding.cache import cache_entry, is_complete, seed_from_cache, store_dir
from tcab.settings import Settings


def test_the_sweep_seeds_into_the_store_the_commands_read(project, tmp_path):
    code, ran, _ = project.doit("seed")
    assert code == 0 and "seed:mini/v1.0.0/one" in ran
    settings = Settings.from_env(project.root, {})
    record = json.loads(project.path("build/seeds/mini/v1.0.0/one/seed.json").read_text())
    case = load_catalog(settings.catalog_dir).resolve("mini", "v1.0.0")
    entry = cache_entry(store_dir(settings.build_dir), case, case.variant("one"))
    assert project.path(record["repo"]) == entry / "repo" and is_complete(entry)
    before = sorted(p.name for p in entry.iterdir())
    # The command finds the sweep's entry: the same commit, nothing seeded again.
    copied = seed_from_cache(store_dir(settings.build_dir), case, case.variant("one"), tmp_path / "copy")
    assert copied.commit == record["commit"] and copied.case_digest == record["case_digest"]
    assert sorted(p.name for p in entry.iterdir()) == before
    # A store emptied by hand makes the seed stale, and the sweep stores it again.
    import shutil

    shutil.rmtree(store_dir(settings.build_dir))
    code, ran, _ = project.doit("seed")
    assert code == 0 and "seed:mini/v1.0.0/one" in ran and is_complete(entry)
