"""What a hostile run costs tcab, against the same case's harmless twin.

Each case runs twice, twin first, each time in a fresh Python child (so its
peak memory is its own): the harmless twin does the same work with honest
input of the same size (the same files with honest names, links that stay
inside, the same bytes of output without the secret, a page that does not
spin, an honest controller, an intact replay), the hostile case does the
attack. The child times only the step itself (imports excluded) and reports
its own peak RSS (VmHWM) and the largest of its waited-for descendants
(RUSAGE_CHILDREN: Chromium, the wasm compile worker), column "desc.".

Prints one row per case: wall time and peak RSS of both, their ratios, the
descendants' peak and what tcab made of the attack (status, refusal, check).
A ratio near 1 means the attack costs nothing extra; a larger wall ratio is
the limit doing its job (the `yes` flood runs until --max-runtime, the busy
page until the browser's wall time). Then the compile bomb's rejection time
(the preflight, and the compile clock for a bomb let past it).

Target: no attack adds more than TARGET_GROWTH_MIB to tcab's own peak RSS
(its gigabytes are refused or bounded, never held; the replay bomb is held
to the 64 MiB read bound, so that case shows the bound, not its twin).
The Blender cases: a character.glb whose accessors claim 10^9 vertices or
whose JSON is 8 MiB of nesting, against an honest glb of the same size; a
build.py that loops, fills the disk or opens sockets, rebuilt by tcab-blend
in an offline container of the Blender image (30 s), against tin-scout's
reference build.py.
Peak RSS of a fresh child is its VmHWM: ru_maxrss would start at the
parent's peak (Linux records it at exec), and RUSAGE_CHILDREN of a
descendant likewise includes what the child held when it started it. Needs `make images` and the
Podman socket (the run cases) and Chromium (the page cases).
The "(kubernetes)" cases run through the stand-in API server
(tests/kube_standin/, started in this process, so its memory is not
tcab's): pods as Podman containers. Ratios measured: docs/security.md.
Run: python bench/hostile.py [--only NAME,...]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ARENA_TESTS = ROOT / "tests" / "arena"  # the hostile wasm corpus and the tally game live there
CASE_DIR = ROOT / "test-cases" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"
TIN_SCOUT = ROOT / "test-cases" / "asset-generation" / "medium" / "tin-scout" / "v1.0.0"
TIN_SCOUT_BUILD = TIN_SCOUT / "solution" / "build.py"
TOKEN = "sk-bench-0a1b2c3d4e5f60718293"
HONEST = "honest-value-0000000000000000"  # as long as TOKEN: the twin's names and output
MIB = 1024 * 1024
TARGET_GROWTH_MIB = 128  # what the worst attack may add to tcab's peak RSS

# ---------------------------------------------------------------- run cases
# (twin session, hostile session, RunOptions keywords). Both sessions of a
# case write the same amount; only the hostile one attacks.
D = "d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12"
UPS = "../" * 40
DEEP = "a" * 100
RUN_CASES: dict[str, tuple[str, str, dict]] = {
    "symlink chain": (
        f"mkdir -p {D} && echo x > {D}/x && ln -s . {D}/l && ln -s {D}/l/x esc && ln -s esc via-esc",
        f"mkdir -p {D} && echo x > {D}/x && ln -s ../../../../../../../../../../../.. {D}/l && "
        f"ln -s {D}/l/{UPS}etc/shadow esc && ln -s esc via-esc",
        {},
    ),
    "secret in names and git": (
        'V=$HONEST_VALUE; mkdir "dir-$V" real && echo x > "dir-$V/f" && ln -s real "dlink-$V" && '
        'seq 1 400 | sed "s/^200 /200 $V /" > notes.txt && git add notes.txt && git commit -qm n && git gc -q',
        'V=$TCAB_BENCH_TOKEN; mkdir "dir-$V" real && echo x > "dir-$V/f" && ln -s real "dlink-$V" && '
        'seq 1 400 | sed "s/^200 /200 $V /" > notes.txt && git add notes.txt && git commit -qm n && git gc -q',
        {},
    ),
    "non-UTF-8 names": (
        "printf x > badxname && ln -s tgtx badlink",
        r"""printf x > "$(printf 'bad\377name')" && ln -s "$(printf 'tgt\376')" badlink""",
        {},
    ),
    "path past PATH_MAX": (
        f"for i in $(seq 1 38); do mkdir {DEEP}$i; done; echo deep > {DEEP}1/f.txt",
        f"mkdir deep && cd deep && for i in $(seq 1 38); do mkdir {DEEP} && cd {DEEP} || break; done; "
        "echo deep > f.txt",
        {},
    ),
    "sparse 1.9 GB file": (
        "head -c 4096 /dev/zero | tr '\\0' x > sparse.bin",  # the same allocated bytes, honestly
        "truncate -s 1900M sparse.bin",
        {},
    ),
    "secret across the line cut": (
        'head -c 1048566 /dev/zero | tr "\\0" y; printf %s "$HONEST_VALUE"; echo',
        'head -c 1048566 /dev/zero | tr "\\0" y; printf %s "$TCAB_BENCH_TOKEN"; echo',
        {},
    ),
    # The twin writes what the flood gets to keep (the log cap) and exits;
    # the flood runs until --max-runtime.
    "yes flood": (
        "yes | head -c 4000000",
        "yes",
        {"max_runtime_s": 6.0, "max_log_bytes": 4 * MIB},
    ),
    "container killed": (
        "echo started",
        "echo started; sleep 300",
        {"kill_on_start": True},
    ),
    # Issue 21, items 10 and 12: holes cost the engine 3-5 s per GiB to
    # archive; their apparent size now crosses the cap at the third header.
    "20 sparse files of 1 GiB": (
        "for i in $(seq 1 20); do head -c 4096 /dev/zero | tr '\\0' x > s$i; done",
        "for i in $(seq 1 20); do truncate -s 1073741823 s$i; done",
        {},
    ),
    "20 sparse files of 1 GiB (kubernetes)": (
        "for i in $(seq 1 20); do head -c 4096 /dev/zero | tr '\\0' x > s$i; done",
        "for i in $(seq 1 20); do truncate -s 1073741823 s$i; done",
        {"kubernetes": True},
    ),
    # Item 13: a daemon rewriting files while /work is collected.
    "rewriting daemon (kubernetes)": (
        "mkdir keep && for i in $(seq 1 73); do echo $i > keep/f$i; done",
        "mkdir keep && for i in $(seq 1 73); do echo $i > keep/f$i; done; setsid sh -c 'while :; do "
        "for i in 1 2 3 4 5 6 7 8; do head -c 200000 /dev/urandom > hot$i; : > hot$i; done; done' "
        ">/dev/null 2>&1 </dev/null &",
        {"kubernetes": True},
    ),
    # Item 17: a daemon that stops the pod's tar and writes a forged archive to its stdout.
    "stream forger (kubernetes)": (
        "for i in $(seq 1 35); do echo real$i > r$i.txt; done",
        "for i in $(seq 1 35); do echo real$i > r$i.txt; done; "
        "printf '%s\\n' \"$FORGER\" > /tmp/forge.py; setsid python3 /tmp/forge.py >/dev/null 2>&1 </dev/null &",
        {"kubernetes": True},
    ),
    # Item 16: files the pod's tar cannot read (100,000 here; the report had 300,000).
    "100k unreadable files (kubernetes)": (
        "mkdir u && cd u && seq 1 100000 | xargs touch",
        "mkdir u && cd u && seq 1 100000 | xargs touch && chmod 000 *",
        {"kubernetes": True},
    ),
}

FORGER = (
    "import io, os, signal, tarfile, time\n"
    "def forged():\n"
    "    buf = io.BytesIO()\n"
    "    with tarfile.open(fileobj=buf, mode='w') as t:\n"
    "        info = tarfile.TarInfo('work/forged.txt'); info.size = 6; t.addfile(info, io.BytesIO(b'forged'))\n"
    "    return buf.getvalue()\n"
    "end = time.time() + 120\n"
    "while time.time() < end:\n"
    "    for p in os.listdir('/proc'):\n"
    "        try: cmd = open(f'/proc/{p}/cmdline', 'rb').read() if p.isdigit() else b''\n"
    "        except OSError: continue\n"
    "        if cmd.startswith(b'tar\\0-c'):\n"
    "            os.kill(int(p), signal.SIGSTOP)\n"
    "            open(f'/proc/{p}/fd/1', 'wb').write(forged())\n"
    "            os.kill(int(p), signal.SIGCONT); raise SystemExit\n"
    "    time.sleep(0.002)\n"
)

RUN_CHILD = textwrap.dedent("""
    import json, resource, sys, threading, time
    from pathlib import Path
    from tcab.catalog import load_version
    from tcab.harnesses import load_harness_file
    from tcab.catalog import case_digest
    from tcab.runs import RunOptions, SeededRepo, execute_run
    from tcab.runtime import get_runtime
    from tcab.seeding import render_prompt
    from tcab.settings import Settings

    a = json.loads(sys.argv[1])
    work = Path(a["work"])
    settings = Settings(root=work, catalog_dir=Path(a["catalog"]), harnesses_dir=work / "harnesses",
                        build_dir=work / "build", results_dir=work / "results", tmp_dir=work / "tmp")
    case, _ = load_version(Path(a["case"]))
    harness = load_harness_file(Path(a["harness"]))
    options = dict(a["options"])
    if options.pop("kubernetes", False):
        options["runtime"] = get_runtime("kubernetes", kubeconfig=a["kubeconfig"])
    on_event = None
    if options.pop("kill_on_start", False):
        runtime = get_runtime("docker")
        def on_event(event):
            if event["kind"] == "message" and event["text"] == "started":
                threading.Thread(target=lambda: [runtime.api.kill(c) for c in runtime.list_run_containers(a["id"])]).start()
    import pygit2
    seed = SeededRepo(Path(a["seed"]), str(pygit2.Repository(a["seed"]).head.target),
                      render_prompt(case, case.variant(None)), case_digest(case))
    started = time.perf_counter()
    record = execute_run(settings, case, case.variant(None), harness,
                         RunOptions(secrets=("TCAB_BENCH_TOKEN",), env=a["env"], seed=seed,
                                    run_id=a["id"], on_event=on_event, **options))
    wall = time.perf_counter() - started
    refused = record.refused
    outcome = record.status + (f", {len(refused)} refused" if refused else "") + f", {record.files} files"
    if record.status not in ("completed", "timed_out"):
        outcome += ": " + (record.detail or "")[:300]
    elif refused and ("tree" in refused[0].reason or " more " in refused[-1].reason):
        outcome += ": " + (refused[0] if "tree" in refused[0].reason else refused[-1]).reason[:50]
    print(json.dumps({"wall": wall, "self_kib": int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]),
                      "children_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                      "outcome": outcome}))
""")

# ------------------------------------------------------- in-process cases
# Each: a snippet that defines ``step()`` returning the outcome text; the
# twin and the hostile variant differ by ``HOSTILE``.
PAGE_STEP = """
from tcab.validation import BrowserLimits
from tcab.browser.page import View, check_page
site = Path(A["work"]) / ("site-hostile" if HOSTILE else "site-twin")
site.mkdir()
(site / "index.html").write_text(A["page_hostile" if HOSTILE else "page_twin"])
for name, target in A.get("links", {}).items():
    os.symlink(target if HOSTILE else "real.txt", site / name)
(site / "real.txt").write_text("real")
def step():
    result = check_page(site, [View("page", 640, 480)], BrowserLimits(settle_s=0.5, wall_time_s=8))
    bad = [c for c in result.checks if not c.ok]
    return bad[-1].name + ": " + bad[-1].detail[:60] if bad else "all checks ok"
"""

SPIN = "<!doctype html><title>spin</title><script>setTimeout(() => { for (;;) {} }, 50);</script>"
CALM = "<!doctype html><title>spin</title><script>setTimeout(() => { document.title = 'calm'; }, 50);</script>"
FETCH = ("<!doctype html><title>links</title><script>for (const p of ['secret', 'root/etc/passwd'])"
         " fetch(p).then(r => r.text()).then(t => { document.title = t; });</script>")

COMPILE_STEP = """
sys.path.insert(0, A["arena_tests"])
from arena_corpus import controller, many_functions
from tcab.arena.engine import ModuleCache
from tcab.arena.preflight import LoadLimits
from tcab.arena.sandbox import Controller, Limits
wasm = many_functions(999_000) if HOSTILE else controller(2)
load = LoadLimits(**A.get("load", {}))
def step():
    ctrl = Controller(wasm, Limits(100_000, 1 << 20, load=load), ModuleCache())
    f = ctrl.forfeit
    return f"forfeit {f.reason}: {f.detail[:60]}" if f else "loaded"
def finish():  # stop the worker, so RUSAGE_CHILDREN counts it
    from tcab.arena import compiler
    compiler.close_workers()
"""

REPLAY_STEP = """
import gzip
sys.path.insert(0, A["arena_tests"])
from arena_corpus import controller
from arena_support import CATALOG
from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import read_replay, verify_replay, write_replay
from tcab.arena.resolve import resolve_game
from tcab.errors import ReplayError
from tcab.settings import Settings
spec = resolve_game(Settings.from_env(env={"TCAB_CATALOG": str(CATALOG)}), "tally", "long")[2]
path = Path(A["work"]) / ("bomb.json.gz" if HOSTILE else "good.json.gz")
if HOSTILE:  # a replay target swapped for 1 GiB of zeros in about 1 MB
    path.write_bytes(gzip.compress(bytes(16 << 20), compresslevel=9, mtime=0) * 64)
else:
    rec = play_match(spec, [Entrant.from_bytes("a", controller(2)), Entrant.from_bytes("b", controller(3))], 11)
    write_replay(path, rec.replay)
def step():
    try:
        doc = read_replay(path)
    except ReplayError as exc:
        return "refused: " + str(exc).split(": ", 1)[-1][:60]
    return "verified" if verify_replay(doc, spec.rules_path, spec.action_schema).ok else "not verified"
"""

GLB_STEP = """
import struct
sys.path.insert(0, A["root"])
from tcab.catalog import load_version
from tcab.testtypes.asset_blender import score_blender
from tests.blender.support import TRIANGLE_BIN, make_glb, triangle_doc
section = load_version(Path(A["tin_scout"]))[0].section
tree = Path(A["work"]) / "tree"
tree.mkdir()
attack = A["attack"]
if not HOSTILE:  # the same size of honest bytes: a padded, well-formed triangle
    doc = triangle_doc()
    doc["extras"] = {"pad": "x" * A["size"]}
    glb = make_glb(doc, TRIANGLE_BIN)
elif attack == "vertices":  # accessors claiming 10^9 vertices over a few bytes
    doc = triangle_doc(count=10**9)
    doc["extras"] = {"pad": "x" * A["size"]}
    glb = make_glb(doc, TRIANGLE_BIN)
else:  # a JSON chunk of nothing but nesting
    glb = make_glb(b"[" * (A["size"] // 2) + b"]" * (A["size"] // 2))
(tree / "character.glb").write_bytes(glb)
def step():
    score = score_blender(section, tree, Path(A["work"]) / "run", None)
    return f"{score.status}: {(score.detail or score.frames[0].detail)[:60]}"
"""

BUILD_STEP = """
sys.path.insert(0, A["root"])
from tcab.catalog import load_version
from tcab.runtime import get_runtime
from tcab.testtypes.asset_blender import container_rebuild
from tcab.blender import glb
section = load_version(Path(A["tin_scout"]))[0].section
script = Path(A["reference"]).read_bytes() if not HOSTILE else A["script"].encode()
rebuild = container_rebuild(get_runtime("docker"), "bench-hostile", Path(A["work"]), timeout_s=30)
def step():
    data, why = rebuild(section, script)
    if data is None:
        return "no glb: " + why.strip().splitlines()[-1][:60] if why.strip() else "no glb"
    return f"built: {glb.summary(glb.parse(data)).animation_names}"
"""

VOXEL_STEP = """
import struct
from tcab.gltf.reader import GltfError, read_glb
from tcab.voxel.errors import VoxelError
from tcab.voxel.log import replay
from tcab.voxel.mesh import mesh_volume
from tcab.voxel.tool import load_rig
work, attack = Path(A["work"]), A["attack"]
def glb(text):
    text += b" " * (-len(text) % 4)
    body = struct.pack("<I4s", len(text), b"JSON") + text + struct.pack("<I4s", 36, b"BIN\\0") + bytes(36)
    return struct.pack("<4sII", b"glTF", 2, 12 + len(body)) + body
acc = '{"asset":{"version":"2.0"},"buffers":[{"byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],' \\
      '"accessors":[{"bufferView":0,"componentType":5126,"count":%d,"type":"VEC3"}],' \\
      '"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}]}'
line = b'{"op":"set-voxel","x":1,"y":2,"z":3,"color":"#ff0000"}\\n'
if attack == "ops":  # 10^6 ops (the twin: 10^5, the most a log may hold)
    (work / "a.json").write_bytes(line * (1_000_000 if HOSTILE else 100_000))
elif attack == "sphere":  # radius 2^62 against an honest radius
    r = (1 << 62) if HOSTILE else 40
    (work / "a.json").write_bytes(b'{"op":"fill-sphere","cx":40,"cy":35,"cz":40,"radius":%d,"color":"#ff0000"}\\n' % r)
elif attack == "glb-count":
    (work / "m.glb").write_bytes(glb((acc % (10 ** 9 if HOSTILE else 3)).encode()))
elif attack == "glb-json":  # 1M-deep nesting and 16 MiB of JSON against an honest file
    (work / "m.glb").write_bytes(glb(b"[" * (8 << 20) + b"]" * (8 << 20) if HOSTILE else (acc % 3).encode()))
elif attack == "parts":
    import json as j
    n = 10_000 if HOSTILE else 256
    (work / ".tcab").mkdir()
    (work / ".tcab" / "voxel.json").write_text(j.dumps({"kind": "voxel-animation", "width": 8, "height": 8, "depth": 8}))
    parts = [{"name": f"p{i}", "parent": None if i == 0 else "p0"} for i in range(n)]
    cycle = [{"name": "p0", "parent": None}, {"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}]
    (work / "rig.json").write_text(j.dumps({"parts": parts + (cycle[1:] if HOSTILE else [])}))
def step():
    try:
        if attack in ("ops", "sphere"):
            vol = replay(str(work / "a.json"), (80, 70, 80))
            return f"replayed: {vol.count()} voxels, {mesh_volume(vol).faces} faces"
        if attack.startswith("glb"):
            return f"read: {read_glb(str(work / 'm.glb')).vertex_count} vertices"
        from tcab.voxel.config import VoxelWorkspace
        return f"rig: {len(load_rig(VoxelWorkspace(str(work / '.tcab' / 'voxel.json')))['parts'])} parts"
    except (VoxelError, GltfError) as exc:
        return "refused: " + str(exc).split(": ", 1)[-1][:60]
"""

STEP_CHILD = """
import json, os, resource, sys, time
from pathlib import Path
A = json.loads(sys.argv[1])
HOSTILE = A["hostile"]
{setup}
started = time.perf_counter()
outcome = step()
wall = time.perf_counter() - started
globals().get("finish", lambda: None)()
print(json.dumps({{"wall": wall, "self_kib": int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0]),
                  "children_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "outcome": outcome}}))
"""

STEP_CASES: dict[str, tuple[str, dict]] = {
    "busy page": (PAGE_STEP, {"page_twin": CALM, "page_hostile": SPIN}),
    "links to host files": (PAGE_STEP, {"page_twin": FETCH, "page_hostile": FETCH,
                                        "links": {"secret": "/etc/shadow", "root": "/"}}),
    "compile bomb (preflight)": (COMPILE_STEP, {}),
    # Let past the preflight: the compile worker's clock stops it.
    "compile bomb (compile clock)": (COMPILE_STEP, {"load": {"max_functions": 2_000_000,
                                                             "max_code_bytes": 64 << 20, "compile_seconds": 2}}),
    "gzip-bombed replay target": (REPLAY_STEP, {}),
    "voxel log of 10^6 ops": (VOXEL_STEP, {"attack": "ops"}),
    "fill-sphere radius 2^62": (VOXEL_STEP, {"attack": "sphere"}),
    "glb claiming 10^9 vertices": (VOXEL_STEP, {"attack": "glb-count"}),
    "glb JSON bomb": (VOXEL_STEP, {"attack": "glb-json"}),
    "rig of 10^4 parts": (VOXEL_STEP, {"attack": "parts"}),
    # Blender characters (issue 23): the run's glb read bounded, build.py rebuilt in its container.
    "character.glb 1e9 vertices": (GLB_STEP, {"attack": "vertices", "size": 8 << 20}),
    "character.glb JSON nesting": (GLB_STEP, {"attack": "nesting", "size": 8 << 20}),
    "build.py loops forever": (BUILD_STEP, {"script": "while True:\n    pass\n"}),
    "build.py fills the disk": (BUILD_STEP, {"script": "f = open('fill', 'wb')\nwhile True:\n"
                                                       "    f.write(b'x' * (1 << 20))\n"}),
    "build.py opens sockets": (BUILD_STEP, {"script": "import socket\nfor h in ('1.1.1.1', '10.88.0.1'):\n"
                                                      "    socket.create_connection((h, 53), timeout=5)\n"}),
}


def harness_toml(slug: str, script: str) -> str:
    args = json.dumps(["-c", script])
    return (f'slug = "{slug}"\nname = "Bench {slug}"\nbinary = "sh"\nversion_args = ["-c", "echo bench 1.0"]\n'
            f'args = {args}\nsecrets = ["TCAB_BENCH_TOKEN"]\n')


def child(code: str, args: dict, timeout: float = 240) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, json.dumps(args)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_case(work: Path, seed: Path, name: str, index: int, hostile: bool, kubeconfig: str = "") -> dict:
    twin_script, hostile_script, options = RUN_CASES[name]
    side = "h" if hostile else "t"
    slug = f"bench{index}{side}"
    forger = "FORGER=" + shlex.quote(FORGER) + "; " if "$FORGER" in hostile_script else ""
    script = f"set -u; cd /work; HONEST_VALUE={HONEST}; {forger}{hostile_script if hostile else twin_script}"
    (work / "harnesses" / f"{slug}.toml").write_text(harness_toml(slug, script))
    return child(RUN_CHILD, {"work": str(work), "catalog": str(ROOT / "test-cases"), "case": str(CASE_DIR),
                             "harness": str(work / "harnesses" / f"{slug}.toml"), "seed": str(seed),
                             "id": f"bench-hostile-{index}-{side}-{os.getpid()}", "options": options,
                             "env": {"TCAB_BENCH_TOKEN": TOKEN}, "kubeconfig": kubeconfig})


def step_case(work: Path, name: str, hostile: bool) -> dict:
    setup, extra = STEP_CASES[name]
    sub = work / f"step-{abs(hash(name))}-{int(hostile)}"
    sub.mkdir()
    return child(STEP_CHILD.format(setup=setup), {"work": str(sub), "hostile": hostile,
                                                   "arena_tests": str(ARENA_TESTS), "root": str(ROOT),
                                                   "tin_scout": str(TIN_SCOUT), "reference": str(TIN_SCOUT_BUILD),
                                                   **extra})


def row(name: str, twin: dict, bad: dict) -> str:
    t_mib, h_mib = twin["self_kib"] / 1024, bad["self_kib"] / 1024
    return (f"{name:<29}{twin['wall']:>8.3f}{bad['wall']:>8.3f}{bad['wall'] / twin['wall']:>7.2f}x"
            f"{t_mib:>8.0f}{h_mib:>8.0f}{h_mib / t_mib:>6.2f}x{bad['children_kib'] / 1024:>8.0f}  {bad['outcome']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="comma-separated case names (default: all)")
    only = {x.strip() for x in parser.parse_args().only.split(",") if x.strip()}
    names = [n for n in (*RUN_CASES, *STEP_CASES) if not only or n in only]
    work = Path(tempfile.mkdtemp(prefix="tcab-bench-hostile-"))
    rows, worst, grown = [], 0.0, 0.0
    standin = None
    try:
        (work / "harnesses").mkdir()
        seed = work / "seed"
        if any(n in RUN_CASES for n in names):
            subprocess.run([sys.executable, "-m", "tcab", "seed", "lights-out", "--out", str(seed)], check=True,
                           capture_output=True, cwd=ROOT,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "TCAB_TMP": str(work / "tmp"),
                                "TCAB_BUILD": str(work / "build")})
        kubeconfig = ""
        if any(RUN_CASES.get(n, ("", "", {}))[2].get("kubernetes") for n in names):
            sys.path.insert(0, str(ROOT))
            from tests.kube_standin import StandIn  # in this process: its memory is not tcab's

            standin = StandIn().start()
            kubeconfig = str(standin.write_kubeconfig(work / "kubeconfig"))
        started = time.perf_counter()
        for index, name in enumerate(names):
            if name in RUN_CASES:
                twin = run_case(work, seed, name, index, False, kubeconfig)
                bad = run_case(work, seed, name, index, True, kubeconfig)
            else:
                twin, bad = step_case(work, name, False), step_case(work, name, True)
            rows.append(row(name, twin, bad))
            print(rows[-1], file=sys.stderr, flush=True)  # progress, the table follows on stdout
            worst = max(worst, bad["self_kib"] / twin["self_kib"])
            grown = max(grown, (bad["self_kib"] - twin["self_kib"]) / 1024)
            if name == "compile bomb (preflight)":
                rejection = bad["wall"]
        total = time.perf_counter() - started
    finally:
        if standin is not None:
            standin.stop()
        shutil.rmtree(work, ignore_errors=True)
    print("one run each, twin then hostile, each in a fresh child; s = the step's wall time, MiB = tcab's peak RSS")
    print(f"{'case':<29}{'twin s':>8}{'host. s':>8}{'ratio':>8}{'twin':>8}{'host.':>8}{'ratio':>7}"
          f"{'desc.':>8}  outcome of the hostile case")
    print("\n".join(rows))
    if "compile bomb (preflight)" in names:
        print(f"compile bomb (999,000 functions, 7 MB) rejected by the preflight in {rejection * 1000:.0f} ms "
              "(it cost ~120 s and 5.3 GB to load before)")
    print(f"worst tcab peak RSS hostile / twin: {worst:.2f}x, +{grown:.0f} MiB "
          f"(target: at most +{TARGET_GROWTH_MIB} MiB); {len(names)} cases in {total:.0f} s")


if __name__ == "__main__":
    main()
