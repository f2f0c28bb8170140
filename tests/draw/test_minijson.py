"""The config's JSON subset reader agrees with json wherever it answers
(tcab/draw/minijson.py)."""

from __future__ import annotations

import json

import pytest

from tcab.draw.config import Live, ToolConfig
from tcab.draw.logs import op_line
from tcab.draw.minijson import loads

SAMPLES = [
    "{}", "[]", '{"a": 1, "b": [1, -2, 0], "c": null, "d": true, "e": false, "f": "x/y{frame}.png"}',
    '{"a": {"b": {"c": [1]}}}', '  [ 1 ,2 ]  ', '{"a": 1, "a": 2}', '"\u00e9t\u00e9"', "-0", "0",
]
OUTSIDE = ['{"a": "x\\ny"}', "1.5", "1e3", "01", "NaN", "[1,]", "{,}", '{"a" 1}', "[[[[[1]]]]]", "tru", "",
           '{"a": 1} x', "-", '"a\tb"', "[1 2]"]


@pytest.mark.parametrize("text", SAMPLES)
def test_it_reads_what_json_reads(text: str) -> None:
    assert loads(text) == json.loads(text)


@pytest.mark.parametrize("text", OUTSIDE)
def test_outside_the_subset_it_defers_to_json(text: str) -> None:
    assert loads(text) is None


def test_every_config_seeding_writes_is_read_without_json() -> None:
    for config in (
        ToolConfig(kind="sprite", width=96, height=96, background="transparent", actions="actions.json",
                   preview="canvas.png", layers=".tcab/layers.jsonl"),
        ToolConfig(kind="sprite-sheet", width=48, height=48, background="#10203040",
                   actions="frames/{frame}.actions.json", preview="frames/{frame}.png", layers=".tcab/layers.jsonl",
                   frames=(0, 1, 2, 3, 4, 5), live=Live("http://host.docker.internal:41234/live", "a1B2-c3_d4")),
    ):
        text = config.to_json().decode()
        assert loads(text) == json.loads(text)
        assert ToolConfig.from_json(config.to_json()) == config


def test_op_lines_are_what_json_would_write() -> None:
    for name, values in (("fill-rect", {"x": -3, "y": 1 << 62, "width": 0, "height": 2, "color": "#ff00aaff"}),
                         ("animate-layer", {"layer": "ball.1_x", "property": "scale-x", "frame": 3, "value": 5,
                                            "interp": "ease-in-out", "handle_in": [-1, 2], "handle_out": None}),
                         ("mirror-horizontal", {"axis_x": 16}), ("odd", {"name": 'quote"d'})):
        assert op_line(name, values) == (json.dumps({"op": name, **values}, separators=(",", ":")) + "\n").encode()
