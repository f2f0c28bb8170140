"""The Blender image's fixtures, shared with tests/blender (a real container
builds tin-scout's character.glb once per session)."""

from tests.blender.conftest import blender_runtime, scout_glb  # noqa: F401
