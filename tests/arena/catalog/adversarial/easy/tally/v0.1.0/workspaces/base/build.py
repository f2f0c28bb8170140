"""Compile controller.wat to controller.wasm (the Tally test game's build).

Uses wasmtime's wat2wasm when the Python package is there (host builds of
baselines), else wabt's ``wat2wasm`` (the adversarial container image).
"""
import pathlib
import subprocess

try:
    import wasmtime
except ImportError:
    subprocess.run(["wat2wasm", "controller.wat", "-o", "controller.wasm"], check=True)
else:
    pathlib.Path("controller.wasm").write_bytes(wasmtime.wat2wasm(pathlib.Path("controller.wat").read_text()))
