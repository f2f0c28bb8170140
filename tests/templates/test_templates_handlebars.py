"""tcab's templates render byte for byte as handlebars.js does (strict, noEscape).

``handlebars_corpus.json`` holds template/context pairs and what handlebars.js
4.7.8 made of them (``output`` or ``error``), written by
``node tests/templates/node/render.js --write tests/templates/handlebars_corpus.json``.
One test re-runs real handlebars.js (installed by ``make node-deps``) to show
the corpus still says what handlebars.js says; one renders each pair with tcab.
Pairs marked ``tcab`` are where tcab is stricter on purpose (docs/seeding.md).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tcab.errors import TemplateError
from tcab.templates import render_template

HERE = Path(__file__).resolve().parent
NODE_DIR = HERE / "node"
CORPUS = json.loads((HERE / "handlebars_corpus.json").read_text("utf-8"))


def test_corpus_is_big_enough():
    assert len(CORPUS) >= 100
    assert sum("error" in item for item in CORPUS) >= 10


@pytest.mark.timeout(120)
def test_corpus_matches_live_handlebars_js():
    node = shutil.which("node")
    assert node, "node is needed (Debian: apt-get install nodejs)"
    assert (NODE_DIR / "node_modules/handlebars").is_dir(), "run `make node-deps`"
    inputs = [{"template": i["template"], "context": i["context"]} for i in CORPUS]
    done = subprocess.run([node, str(NODE_DIR / "render.js")], input=json.dumps(inputs),
                          capture_output=True, text=True, check=True, timeout=100)
    live = json.loads(done.stdout)
    recorded = [{k: i[k] for k in ("output", "error") if k in i} for i in CORPUS]
    stale = [(i["template"], want, got)
             for i, want, got in zip(CORPUS, recorded, live, strict=True) if want != got]
    assert stale == []


@pytest.mark.parametrize("item", CORPUS, ids=[repr(i["template"])[:60] for i in CORPUS])
def test_tcab_renders_as_handlebars_js(item):
    template, context = item["template"], item["context"]
    if "tcab_output" in item:  # a documented difference (docs/seeding.md)
        assert render_template(template, "corpus.hbs", context) == item["tcab_output"]
    elif "error" in item or "tcab" in item:
        with pytest.raises(TemplateError) as info:
            render_template(template, "corpus.hbs", context)
        assert str(info.value).startswith("corpus.hbs:")
    else:
        assert render_template(template, "corpus.hbs", context) == item["output"]
