"""``tcab-blend``: run the model's build.py under headless Blender, then
check and preview what it exported (docs/asset-generation.md, "Blender
characters").

    blender --background --factory-startup --python-exit-code 2 \\
        --python-expr <registers tcab_blend_export> --python build.py -- blender.config.json

Bounded from outside: Blender runs in its own process group, killed whole
after ``timeout_seconds`` (the config's, or ``--timeout``), no file it
writes larger than :data:`MAX_FILE_BYTES`; what it prints is passed
through up to :data:`MAX_OUTPUT` bytes. The exported glb is read
with the bounded reader (:mod:`tcab.blender.glb`) and the preview drawn by
:mod:`tcab.blender.render`, both written atomically. Exit codes: 0 built,
1 usage or config, 2 build.py failed, 3 timed out, 4 no usable glb.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from tcab.blender import glb as glbmod
from tcab.blender.config import CONFIG_NAME, BlendConfigError, load_config
from tcab.blender.contract import contract_gaps
from tcab.blender.render import RenderError, render

MAX_OUTPUT = 1 << 20
#: The largest file Blender (and build.py) may write (RLIMIT_FSIZE): a
#: script that fills the disk stops at this per file, and at the timeout.
MAX_FILE_BYTES = 512 << 20
LIB = str(Path(__file__).resolve().parents[2])
USAGE = """\
tcab-blend [--config blender.config.json] [--timeout SECONDS]

Runs build.py (the config's outputs.script) under headless Blender:
  blender --background --python build.py -- blender.config.json
build.py ends with `import tcab_blend_export; tcab_blend_export.export(config)`,
which writes character.glb (skinned, animated glTF 2.0 binary, +Y up, custom
properties as extras). tcab-blend then checks the glb (a mesh, a skin, the
required animations by name, the caller joints' tcab_joint extras) and
renders the preview (model.png) with tcab's own renderer: bind pose,
orthographic, front-right. Blender is ended after timeout_seconds.

Exit codes: 0 built, 1 usage or config, 2 build.py failed,
3 timed out, 4 no usable character.glb.
"""


def _read(path: Path, limit: int) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        import stat
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{path}: not a regular file")
        if st.st_size > limit:
            raise OSError(f"{path}: {st.st_size} bytes, over {limit}")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read(limit + 1)[:limit]
    finally:
        os.close(fd)


def _write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tcab-blend.")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def _pump(stream, out) -> None:
    sent = dropped = 0
    for chunk in iter(lambda: stream.read1(65536), b""):
        if sent < MAX_OUTPUT:
            part = chunk[: MAX_OUTPUT - sent]
            out.write(part)
            out.flush()
            sent += len(part)
            dropped += len(chunk) - len(part)
        else:
            dropped += len(chunk)
    if dropped:
        out.write(f"\ntcab-blend: {dropped} more bytes of Blender output dropped\n".encode())
        out.flush()


def _limit_files() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))


def run_blender(config_path: Path, script: Path, timeout: float) -> int | None:
    """Blender's exit code, or None when it was ended at ``timeout``."""
    shim = (f"import sys; sys.path.insert(0, {LIB!r}); import tcab.blender.export as _m; "
            "sys.modules['tcab_blend_export'] = _m")
    cmd = ["blender", "--background", "--factory-startup", "--disable-autoexec", "--python-exit-code", "2",
           "--python-expr", shim, "--python", str(script), "--", str(config_path)]
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, preexec_fn=_limit_files)
    pump = threading.Thread(target=_pump, args=(proc.stdout, sys.stdout.buffer), daemon=True)
    pump.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        code = None
    # The whole group: build.py may have started children that outlive Blender.
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    pump.join(timeout=5)
    return code


def check(summary: glbmod.Summary, config: dict) -> list[str]:
    """What the glb lacks against the config's contract (empty: complete):
    the gaps scoring will flag. Entries of odd shapes are read as far as they go."""
    def entries(key: str) -> list[dict]:
        value = config.get(key)
        return [e for e in value if isinstance(e, dict)] if isinstance(value, list) else []

    animations = [str(a.get("name")) for a in entries("animations")]
    joints = [(str(j.get("name")), j.get("kind"), j.get("axis")) for j in entries("joints")]
    return contract_gaps(summary, animations, joints)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tcab-blend", usage=USAGE, add_help=False)
    parser.add_argument("--config", default=CONFIG_NAME)
    parser.add_argument("--timeout", type=int)
    parser.add_argument("-h", "--help", action="store_true")
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        return 1
    if args.help:
        sys.stdout.write(USAGE)
        return 0
    config_path = Path(args.config)
    try:
        config = load_config(_read(config_path, 1 << 20))
    except (OSError, BlendConfigError) as exc:
        print(f"tcab-blend: {config_path}: {exc}", file=sys.stderr)
        return 1
    outputs = config["outputs"]
    script, model, preview = Path(outputs["script"]), Path(outputs["model"]), Path(outputs["preview"])
    if not script.is_file() or script.is_symlink():
        print(f"tcab-blend: {script}: no such build script (a regular file)", file=sys.stderr)
        return 1
    for stale in (model, preview):
        # A link is removed, never followed; a directory is the workspace's to clear.
        try:
            os.unlink(stale)
        except FileNotFoundError:
            pass
        except IsADirectoryError:
            print(f"tcab-blend: {stale}: a directory is in the way of an output; remove it", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"tcab-blend: {stale}: the stale output cannot be removed: {exc.strerror}", file=sys.stderr)
            return 1
    timeout = args.timeout if args.timeout and args.timeout > 0 else config["timeout_seconds"]
    code = run_blender(config_path, script, timeout)
    if code is None:
        print(f"tcab-blend: Blender ended after {timeout} s (timeout_seconds)", file=sys.stderr)
        return 3
    if code != 0:
        print(f"tcab-blend: build.py failed (Blender exit {code})", file=sys.stderr)
        return 2
    try:
        parsed = glbmod.parse(_read(model, glbmod.MAX_GLB_BYTES))
        summary = glbmod.summary(parsed)
        _write(preview, render(glbmod.triangles(parsed), str(config.get("background", "transparent"))))
    except FileNotFoundError:
        print(f"tcab-blend: {model} was not written: build.py must end with "
              "tcab_blend_export.export(config)", file=sys.stderr)
        return 4
    except (OSError, glbmod.GlbError, RenderError) as exc:
        print(f"tcab-blend: {model}: {exc}", file=sys.stderr)
        return 4
    print("tcab-blend: " + json.dumps(summary.to_json(), sort_keys=True))
    for gap in check(summary, config):
        print(f"tcab-blend: note: {gap}")
    print(f"tcab-blend: wrote {model} and {preview}")
    return 0
