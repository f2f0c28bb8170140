"""What ``/web3d/<path>`` serves (tcab.web3d.library_file): the pinned
three.js build, its addons and our viewer, each a real file inside its
folder; anything else is not served (404), never a server error."""

from __future__ import annotations

import pytest

from tcab.web3d import STATIC, THREE, library_file


@pytest.fixture(autouse=True)
def _three_installed():
    if not THREE.is_dir():
        pytest.fail("three.js is not installed: make node-deps (npm ci --prefix tcab/web3d/node)")


def test_the_build_the_addons_and_the_viewer_are_served():
    assert library_file("three.module.js") == THREE / "build" / "three.module.js"
    assert library_file("addons/loaders/GLTFLoader.js").is_file()
    assert library_file("viewer.js") == STATIC / "viewer.js"


@pytest.mark.parametrize("rel", [
    "three.core.js",  # a later three's split build: not in the pinned 0.170.0
    "addons/loaders",  # a folder
    "addons/loaders/NoSuchLoader.js",
    "addons/../../package.json",
    "three.cjs",
    "",
])
def test_anything_else_is_not_served(rel):
    assert library_file(rel) is None
