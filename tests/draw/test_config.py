"""The tool config: round trip, strictness, limits named (tcab/draw/config.py)."""

from __future__ import annotations

import json

import pytest

from tcab.draw.config import Live, ToolConfig, check_canvas
from tcab.draw.errors import ConfigError
from tcab.draw.limits import MAX_CONFIG_BYTES

SPRITE = dict(kind="sprite", width=32, height=32, background="transparent", actions="actions.json",
              preview="canvas.png", layers=".tcab/layers.jsonl")
SHEET = dict(kind="sprite-sheet", width=48, height=48, background="#102030", actions="frames/{frame}.actions.json",
             preview="frames/{frame}.png", layers=".tcab/layers.jsonl", frames=(0, 1, 5))


def test_round_trip_and_replace() -> None:
    for keys in (SPRITE, SHEET):
        config = ToolConfig(**keys)
        assert ToolConfig.from_json(config.to_json()) == config
    watched = ToolConfig(**SHEET).replace(live=Live("http://host.docker.internal:4000/frames", "t0k"))
    assert ToolConfig.from_json(watched.to_json()) == watched
    assert watched.actions_path(5) == "frames/5.actions.json" and watched.frame_keys() == (0, 1, 5)
    assert ToolConfig(**SPRITE).frame_keys() == (None,)
    with pytest.raises(AttributeError):
        watched.width = 3  # type: ignore[misc]


@pytest.mark.parametrize("change, message", [
    ({"kind": "voxel"}, "kind: expected one of sprite, sprite-sheet"),
    ({"width": 0}, "width: expected an integer from 1 to 4096"),
    ({"width": True}, "width: expected an integer"),
    ({"height": 10**6}, "height: expected an integer from 1 to 4096 (MAX_SIDE)"),
    ({"background": "red"}, "background: expected 'transparent'"),
    ({"actions": "../out.json"}, "actions: no empty, '.' or '..' part"),
    ({"actions": "/abs.json"}, "actions: expected a relative path"),
    ({"preview": "frames/{frame}.png"}, "preview: a sprite's path may not contain {frame}"),
    ({"frames": (1,)}, "frames: a sprite has no frames"),
    ({"layers": "a/{x}.json"}, "layers: only {frame} may be templated"),
])
def test_a_bad_sprite_config_names_its_key(change, message) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)").replace("{", r"\{")
                       .replace("}", r"\}")):
        ToolConfig(**{**SPRITE, **change})


@pytest.mark.parametrize("change, message", [
    ({"frames": ()}, "frames: a sheet declares 1 to 256"),
    ({"frames": (1, 1)}, "frames: an index is declared twice"),
    ({"frames": (10**5,)}, "frames: index 100000"),
    ({"actions": "frames/0.json"}, "actions: a sheet's path must contain"),
    ({"frames": tuple(range(256)), "width": 4096, "height": 4096}, "MAX_SHEET_PIXELS"),
])
def test_a_bad_sheet_config_names_its_key(change, message) -> None:
    with pytest.raises(ConfigError, match=message):
        ToolConfig(**{**SHEET, **change})


def test_from_json_is_strict() -> None:
    good = json.loads(ToolConfig(**SPRITE).to_json())
    cases = [
        (b"not json", "not valid JSON"),
        (b"[1]", "expected a JSON object"),
        (json.dumps({**good, "extra": 1}).encode(), "extra: unknown key"),
        (json.dumps({k: v for k, v in good.items() if k != "preview"}).encode(), "preview: missing"),
        (json.dumps({**good, "width": 3.0}).encode(), "width: expected an integer"),
        (json.dumps({**good, "width": "32"}).encode(), "width: expected an integer"),
        (json.dumps({**good, "live": {"url": "ftp://x:1/", "token": "t"}}).encode(), "live.url"),
        (json.dumps({**good, "live": {"url": "http://x:1/"}}).encode(), "live: expected null or an object"),
        (b'{"width": NaN}', "NaN is not allowed"),
        (b"[" * 60_000, "not valid JSON"),
        (b" " * (MAX_CONFIG_BYTES + 1), "over the"),
    ]
    for data, message in cases:
        with pytest.raises(ConfigError, match=message):
            ToolConfig.from_json(data)


def test_check_canvas_names_the_limit_for_the_manifest() -> None:
    assert check_canvas(64, 64) is None
    assert "MAX_SIDE" in check_canvas(10**6, 10**6)
    assert "MAX_PIXELS" not in (check_canvas(4096, 4096) or "")
