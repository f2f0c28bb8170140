"""A hostile tree written into /work by a real session in a real container,
collected by a real ``execute_run`` in a child process (so its peak memory
can be measured): every case at once, each checked for its listed refusal,
and the whole run for what must hold: nothing outside the run folder read
or written, no secret value anywhere under results/ (decompressed git
objects and results.db included), a recorded run, bounded memory.

Cases in the one tree:
- a symlink chain through another link (``d1/…/d12/l -> ../..``, then
  ``esc -> d1/…/d12/l/../../…/<host canary>``), a link to it, an absolute link;
- a file name and a symlink target that are not UTF-8, a name with a newline;
- a path deeper than the host's PATH_MAX (the engine cannot archive it);
- a 1.9 GB sparse file (over the per-file cap) and a 300 MB sparse one (kept, as holes);
- a FIFO; a hardlink;
- the secret value in a folder name, a directory symlink's name and target,
  and committed into git (a pack with deltas, and a loose object);
- ``core.fsmonitor`` in the collected git config (tcab must never run it).
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TOKEN = "sk-hostile-5e6f7a8b9c0d1e2f3a4b"
CANARY = b"CANARY-host-file-7f3e2d1c"
#: tcab's peak RSS for the whole run, in MiB. Measured ~66 MiB; reading the
#: sparse file whole (the old secret scan) cost ~2 GB.
PEAK_RSS_MIB = 256

DEEP_NAME = "a" * 100

SESSION = r"""
set -u
cd /work
D=d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12
mkdir -p $D
ln -s ../../../../../../../../../../../.. $D/l
UPS=$(for i in $(seq 1 40); do printf '../'; done)
ln -s "$D/l/$UPS${CANARY#/}" esc
ln -s esc via-esc
ln -s "$CANARY" abs-canary
ln -s "$D/l/zzz-after.txt" good-link
printf x > "$(printf 'bad\377name')"
ln -s "$(printf 'tgt\376')" badlink
printf x > "$(printf 'new\nline')"
mkfifo pipe
mkdir "dir-$TCAB_HOSTILE_TOKEN" && echo x > "dir-$TCAB_HOSTILE_TOKEN/f.txt"
mkdir real && ln -s real "dlink-$TCAB_HOSTILE_TOKEN" && ln -s "real/$TCAB_HOSTILE_TOKEN" dlink-target
truncate -s 1900M sparse-huge.bin
truncate -s 300M sparse-kept.bin && printf end >> sparse-kept.bin
echo shared > hard-a.txt && ln hard-a.txt hard-b.txt
(mkdir deep && cd deep && for i in $(seq 1 38); do mkdir DEEP && cd DEEP || break; done; echo deep > f.txt)
echo after > zzz-after.txt
seq 1 400 | sed 's/$/ an ordinary line that git will store as a delta/' > notes.txt
git add notes.txt && git commit -qm notes
sed -i "s/^200 /200 $TCAB_HOSTILE_TOKEN /" notes.txt && git add notes.txt && git commit -qm edit
git gc -q --prune=now
echo "loose $TCAB_HOSTILE_TOKEN" > loose.txt && git add loose.txt && git commit -qm loose
git rm -q loose.txt && git commit -qm clean && git checkout -q HEAD~3 -- notes.txt && git commit -qm restore
git config core.fsmonitor "touch $MARKER"
echo session done
""".replace("DEEP", DEEP_NAME)

CHILD = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    from tcab.catalog import load_version
    from tcab.harnesses import load_harness_file
    from tcab.runs import RunOptions, execute_run
    from tcab.settings import Settings

    a = json.loads(sys.argv[1])
    settings = Settings(**{k: Path(v) for k, v in a["settings"].items()})
    case, _ = load_version(Path(a["case"]))
    harness = load_harness_file(Path(a["harness"]))
    record = execute_run(settings, case, case.variant(None), harness,
                         RunOptions(secrets=("TCAB_HOSTILE_TOKEN",), env=a["env"]))
    print(json.dumps({"id": record.id, "run_dir": str(record.run_dir),
                      # VmHWM, not ru_maxrss: a fresh child's ru_maxrss starts
                      # at its parent's peak (recorded at exec), pytest's here.
                      "maxrss_kib": int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])}))
""")


def _all_files(root: Path):
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            yield Path(dirpath) / name


@pytest.mark.timeout(600)
def test_hostile_tree_through_a_real_run(settings, e2e_case, scripted, podman_runtime, tmp_path) -> None:
    canary = tmp_path / "outside" / "canary.txt"
    canary.parent.mkdir()
    canary.write_bytes(CANARY)
    marker = tmp_path / "outside" / "fsmonitor-ran"
    scripted(f'CANARY={canary} MARKER={marker}\n{SESSION}', secrets=["TCAB_HOSTILE_TOKEN"])
    # (scripted wrote harnesses/scripted.toml, which the child loads)
    args = {"settings": {k: str(getattr(settings, k)) for k in
                         ("root", "catalog_dir", "harnesses_dir", "build_dir", "results_dir", "tmp_dir")},
            "case": str(e2e_case.root), "harness": str(settings.harnesses_dir / "scripted.toml"),
            "env": {"TCAB_HOSTILE_TOKEN": TOKEN}}
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-c", CHILD, json.dumps(args)], capture_output=True, text=True,
                          env=env, timeout=540)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    run_dir, work = Path(result["run_dir"]), Path(result["run_dir"]) / "work"
    assert podman_runtime.list_run_containers(result["id"]) == []

    # A recorded run: run.json and the row, status completed, refusals listed.
    doc = json.loads((run_dir / "run.json").read_text())
    assert doc["status"] == "completed", doc["status_detail"]
    reasons = {r["path"]: r["reason"] for r in doc["artifact"]["refused"]}
    con = sqlite3.connect(settings.results_db)
    row = con.execute("SELECT status, refused FROM runs WHERE id = ?", [result["id"]]).fetchone()
    con.close()
    assert row[0] == "completed" and json.loads(row[1]) == doc["artifact"]["refused"]

    for name in ("esc", "via-esc", "abs-canary"):
        assert "outside the tree" in reasons[name], (name, reasons.get(name))
    assert reasons["bad\\xffname"] == "name is not UTF-8"
    assert reasons["badlink"] == "symlink target: name is not UTF-8"
    assert reasons["new\\nline"] == "name holds a control character"
    assert reasons["pipe"] == "FIFO refused"
    assert "per-file cap" in reasons["sparse-huge.bin"]
    assert any(p.startswith("deep/") and "deeper than" in r for p, r in reasons.items())
    assert reasons["dir-[secret:TCAB_HOSTILE_TOKEN]"].startswith("folder name contains")
    assert reasons["dlink-[secret:TCAB_HOSTILE_TOKEN]"].startswith("symlink name or target")
    assert reasons["dlink-target"].startswith("symlink name or target")
    git_hits = [p for p, r in reasons.items() if r == "git object contains the value of secret TCAB_HOSTILE_TOKEN"]
    assert any(p.endswith(".pack") for p in git_hits) and any("/objects/pack/" not in p for p in git_hits)

    # The rest of the tree is kept: after the deep path, the kept sparse file
    # (as holes), links that stay inside, the hardlink as a copy.
    assert (work / "zzz-after.txt").read_text() == "after\n"
    assert (work / "good-link").read_text() == "after\n"
    kept = work / "sparse-kept.bin"
    assert kept.stat().st_size == 300 * 1024**2 + 3 and kept.stat().st_blocks * 512 < 1024**2
    assert (work / "hard-b.txt").read_text() == "shared\n"
    assert doc["artifact"]["bytes"] < 50 * 1024**2 and doc["artifact"]["digest"]

    # Nothing outside the run folder was read or written.
    assert canary.read_bytes() == CANARY and not marker.exists()
    assert sorted(p.name for p in canary.parent.iterdir()) == ["canary.txt"]
    for path in _all_files(settings.results_dir):
        if path.is_symlink():
            assert path.resolve().is_relative_to(run_dir.resolve()), path
    # No secret value anywhere under results/ or tmp/: names, bytes, zlib
    # streams (loose objects), every object git can still read.
    for base in (settings.results_dir, settings.tmp_dir):
        for path in _all_files(base):
            assert TOKEN not in str(path), path
            if path.is_file() and not path.is_symlink():
                data = path.read_bytes() if path.stat().st_size < 50 * 1024**2 else b""
                assert TOKEN.encode() not in data and CANARY not in data, path
                if "objects" in path.parts:
                    import zlib
                    try:
                        assert TOKEN.encode() not in zlib.decompress(data), path
                    except zlib.error:
                        pass
    dump = subprocess.run(["git", "-c", "core.fsmonitor=", "cat-file", "--batch-all-objects", "--batch"],
                          cwd=work, capture_output=True, env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"})
    assert dump.returncode == 0 and len(dump.stdout) > 1000 and TOKEN.encode() not in dump.stdout
    assert not marker.exists()

    # Bounded memory for the whole run, sparse gigabytes included.
    print(f"hostile tree: tcab peak RSS {result['maxrss_kib'] / 1024:.0f} MiB")
    assert result["maxrss_kib"] < PEAK_RSS_MIB * 1024, result["maxrss_kib"]
