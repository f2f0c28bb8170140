"""The 3D viewer of ``tcab view``: three.js from npm (``tcab/web3d/node``,
pinned in its package.json and lock, installed by ``make node-deps``),
served by the app itself, nothing from the network.

:func:`library_file` resolves ``/web3d/<path>``: ``three.module.js`` (the
build), ``addons/<path>.js`` (three's ``examples/jsm``) and ``viewer.js``
(ours), each resolved physically inside its folder. :func:`viewer_page`
builds the page a run's model is turned in: the .glb's bytes carried in the
page (base64 in a data block, bounded), the import map allowed by its hash,
and a policy under which the page fetches nothing but the scripts above.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
THREE = HERE / "node" / "node_modules" / "three"
STATIC = HERE / "static"
#: The largest .glb a viewer page carries (base64 grows it by a third).
MAX_VIEW_GLB = 32 << 20

_IMPORTS = json.dumps({"imports": {"three": "/web3d/three.module.js", "three/addons/": "/web3d/addons/"}})
_POLICY = ("default-src 'none'; script-src 'self' '{hash}'; style-src 'unsafe-inline'; img-src data: blob:; "
           "connect-src data: blob:; worker-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; "
           "frame-ancestors 'self'")


class LibraryMissing(LookupError):
    """three.js is not installed (``make node-deps``)."""


def library_file(rel: str) -> Path | None:
    """The file ``/web3d/<rel>`` serves, or None (not served). Raises
    LibraryMissing when three.js is not installed."""
    if rel == "viewer.js":
        return STATIC / "viewer.js"
    if not THREE.is_dir():
        raise LibraryMissing("three.js is not installed: run `make node-deps` "
                             "(npm ci --prefix tcab/web3d/node)")
    if rel == "three.module.js":
        return THREE / "build" / "three.module.js"
    if rel.startswith("addons/") and rel.endswith(".js"):
        base = (THREE / "examples" / "jsm").resolve()
        target = (base / rel[len("addons/"):]).resolve()
        if target.is_relative_to(base) and target.is_file():
            return target
    return None


@dataclass(frozen=True, slots=True)
class ViewerPage:
    html: str
    policy: str


def viewer_page(glb: bytes, meta: dict) -> ViewerPage:
    """The page turning ``glb``; ``meta`` (JSON-able: title, animations with
    loop/auto_play, caller joints) is carried beside it. Raises ValueError
    for a .glb over :data:`MAX_VIEW_GLB`."""
    if len(glb) > MAX_VIEW_GLB:
        raise ValueError(f"the model's .glb is {len(glb)} bytes, over the viewer's {MAX_VIEW_GLB} (MAX_VIEW_GLB)")
    digest = base64.b64encode(hashlib.sha256(_IMPORTS.encode()).digest()).decode()
    # '<' escaped: nothing in the metadata (part and joint names) can close the data block.
    data = json.dumps({"glb": base64.b64encode(glb).decode(), **meta}).replace("<", "\\u003c")
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(str(meta.get("title", "model")))}</title>
<style>body{{margin:0;font:13px system-ui,sans-serif;background:#f4f4f2}}#view{{width:100%;height:420px;display:block}}
#controls{{padding:6px 8px}}button{{margin:2px}}label{{display:inline-block;margin:2px 10px 2px 0}}</style>
<script type="importmap">{_IMPORTS}</script>
<script type="application/json" id="model">{data}</script>
</head><body><canvas id="view"></canvas><div id="controls"><span id="status">loading…</span></div>
<script type="module" src="/web3d/viewer.js"></script></body></html>
"""
    return ViewerPage(page, _POLICY.format(hash=f"sha256-{digest}"))
