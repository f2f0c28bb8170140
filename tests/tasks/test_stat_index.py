"""The stat index is a cache: a garbled one costs reads, never a crash or a redo.

After a complete sweep, ``results/sweep/.stat-index.json`` is rewritten with
hostile rows of every shape (wrong types, short rows, a required file named by
an integer, which ``os.stat`` would take for a file descriptor); the next sweep
must finish, do no work again (calls.log unchanged), and leave the sweep after
it with nothing to do.
"""

from __future__ import annotations

import json

import pytest

INDEX = "results/sweep/.stat-index.json"


def _rows(project) -> dict:
    return json.loads(project.path(INDEX).read_text())


def _garble_all(make_row):
    def damage(project):
        rows = _rows(project)
        project.path(INDEX).write_text(json.dumps({p: make_row(r) for p, r in rows.items()}))
    return damage


GARBLED = {
    "not a map": lambda p: p.path(INDEX).write_text("[1, 2, 3]"),
    "not JSON": lambda p: p.path(INDEX).write_text("{\"a\": [1, 2"),
    "short rows": _garble_all(lambda r: r[:3]),
    "long rows": _garble_all(lambda r: [*r, [], [], "x"]),
    "strings for stats": _garble_all(lambda r: [str(r[0]), r[1], r[2], r[3], *r[4:]]),
    "a number for the key": _garble_all(lambda r: [r[0], r[1], 7, r[3], *r[4:]]),
    "requires not a list": _garble_all(lambda r: [*r[:4], "requires"]),
    "short requirement": _garble_all(lambda r: [*r[:4], [[0, None]]]),
    "a descriptor for a path": _garble_all(lambda r: [*r[:4], [[0, "0" * 64, 1, 1]]]),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", sorted(GARBLED))
def test_a_garbled_stat_index_redoes_no_work(project, case):
    code, _, out = project.doit()
    assert code == 0, out
    calls = project.calls()
    assert calls and _rows(project), "the first sweep runs and writes the index"
    GARBLED[case](project)
    code, _, out = project.doit()
    assert code == 0, out
    assert "Traceback" not in out
    assert project.calls() == calls, "a garbled cache must not redo any work"
    code, ran, _ = project.doit()
    assert code == 0 and ran == set(), "the sweep after it has nothing to do"
