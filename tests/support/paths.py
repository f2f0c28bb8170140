"""Where the tests' inputs are: the repository, its sample catalog and the
test catalogs kept next to the tests."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
# The shipped catalog and its sample cases.
CATALOG = REPO / "test-cases"
LIGHTS_OUT = CATALOG / "end-to-end" / "easy" / "lights-out" / "v1.0.0"
CAPTURE = CATALOG / "adversarial" / "hard" / "capture" / "v1.0.0"
# The arena tests' own catalog: Tally, a game small enough to reason about.
ARENA_CATALOG = TESTS / "arena" / "catalog"
TALLY = ARENA_CATALOG / "adversarial/easy/tally/v0.1.0"
# The catalog fixtures (good and broken) of tests/fixtures/catalogs.
CATALOG_FIXTURES = TESTS / "fixtures" / "catalogs"
