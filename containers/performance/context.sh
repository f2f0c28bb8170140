#!/bin/sh
# Gather what test-cabinet-performance carries from the repository into the
# build context CTX (build-images.sh runs this when an image folder has one):
#   repo/tcab/...      the scorer's own modules (tcab.performance.local and
#                      what it imports), so tcab-perf-score is the validator's code;
#   cases/<slug>/      per performance case: its workspace's training scenarios,
#                      the reference engines' sources (naive: the workspace,
#                      fast: the solution laid over it), the output schema and
#                      config.json (the [contract] entry and [sandbox] limits).
# Never a held-out scenario: only the folders seeding copies anyway, and the
# schemas. The digest of CTX is the image's label, so a change here rebuilds it.
set -eu
CTX=$1
REPO=$(cd "$(dirname "$0")/../.." && pwd)
PY=${PYTHON:-python3}
cd "$REPO"
PYTHONPATH="$REPO" "$PY" - "$CTX" <<'PY'
import json, shutil, sys, tomllib
from pathlib import Path

ctx, repo = Path(sys.argv[1]), Path.cwd()
import tcab.performance.local  # noqa: F401  (its import closure is what the image needs)

for name, module in sorted(sys.modules.items()):
    if name == "tcab" or name.startswith("tcab."):
        src = Path(module.__file__).resolve()
        dest = ctx / "repo" / src.relative_to(repo)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
for manifest in sorted((repo / "test-cases" / "performance").glob("*/*/v*/test-case.toml")):
    root, data = manifest.parent, tomllib.loads(manifest.read_text())
    out = ctx / "cases" / data["slug"]
    ws = root / data["workspace"]
    shutil.copytree(ws / "training", out / "training")
    shutil.copytree(ws, out / "references" / "naive", ignore=shutil.ignore_patterns("training"))
    shutil.copytree(ws, out / "references" / "fast", ignore=shutil.ignore_patterns("training"))
    shutil.copytree(root / data["solution"], out / "references" / "fast", dirs_exist_ok=True)
    (out / "schemas").mkdir()
    shutil.copyfile(root / data["contract"]["output"], out / "schemas" / "output.json")
    config = {"entry": data["contract"].get("entry", "simulate"), "fuel_limit": data["sandbox"]["fuel_limit"],
              "max_memory_bytes": data["sandbox"]["max_memory_bytes"], "output_schema": "schemas/output.json"}
    (out / "config.json").write_text(json.dumps(config, indent=1) + "\n")
    (out / "build.sh").write_text("#!/bin/sh\nset -e\n" + data["build"]["build"] + "\n")
PY
