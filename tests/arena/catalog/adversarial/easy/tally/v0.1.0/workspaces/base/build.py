"""Compile controller.wat to controller.wasm (the Tally test game's build)."""
import pathlib

import wasmtime

pathlib.Path("controller.wasm").write_bytes(wasmtime.wat2wasm(pathlib.Path("controller.wat").read_text()))
