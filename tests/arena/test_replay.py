"""Replays: canonical bytes, verification without wasm, tampering caught."""

from __future__ import annotations

import copy
import os
import subprocess
import sys

import pytest

from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import encode_replay, read_replay, verify_replay, write_replay
from tests.support.arena_corpus import controller
from tests.support.paths import ARENA_CATALOG as CATALOG
from tests.support.paths import REPO

SCRIPT = """
import sys
sys.path.insert(0, {here!r})
from tests.support.paths import ARENA_CATALOG as CATALOG
from tests.support.arena_corpus import controller
from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import encode_replay
from tcab.arena.resolve import resolve_game
from tcab.settings import Settings
spec = resolve_game(Settings.from_env(env={{"TCAB_CATALOG": str(CATALOG)}}), "tally", "long")[2]
rec = play_match(spec, [Entrant.from_bytes("a", controller(2)), Entrant.from_bytes("b", controller(3, moves=2))], 11)
sys.stdout.buffer.write(encode_replay(rec.replay))
"""


def _play_in_subprocess(hashseed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(here=str(REPO))], env=env,
                          capture_output=True, check=True, cwd=REPO)
    return proc.stdout


def test_replays_are_byte_identical_across_processes_and_hash_seeds():
    a, b = _play_in_subprocess("1"), _play_in_subprocess("4242")
    assert len(a) > 100 and a == b


def test_replay_round_trip_and_verify(tally, tmp_path):
    record = play_match(tally, [Entrant.from_bytes("a", controller(2)), Entrant.from_bytes("b", controller(1))], 3)
    path = tmp_path / "m.json.gz"
    write_replay(path, record.replay)
    doc = read_replay(path)
    assert doc == record.replay
    assert path.read_bytes() == encode_replay(doc)
    header = doc["header"]
    assert header["case"] == "tally" and header["seed"] == 3 and header["params"] == {"target": 30}
    assert [s["sha256"] for s in header["seats"]] == [Entrant.from_bytes("x", controller(n)).sha256 for n in (2, 1)]
    verdict = verify_replay(doc, tally.rules_path, tally.action_schema)
    assert verdict.ok and verdict.result == record.result and verdict.final_digest == record.final_digest


def test_tampered_replays_do_not_verify(tally):
    record = play_match(tally, [Entrant.from_bytes("a", controller(2)), Entrant.from_bytes("b", controller(1))], 3)

    def check(mutate):
        doc = copy.deepcopy(record.replay)
        mutate(doc)
        return verify_replay(doc, tally.rules_path, tally.action_schema)

    v = check(lambda d: d["ticks"][0][1]["moves"][0].update(dir=3))
    assert not v.ok and any("result differs" in p for p in v.problems)
    v = check(lambda d: d.update(final_digest="0" * 64))
    assert not v.ok and any("final digest differs" in p for p in v.problems)
    v = check(lambda d: d["ticks"][0][0]["moves"][0].update(agent=1))
    assert not v.ok and any("illegal action" in p for p in v.problems)
    v = check(lambda d: d["ticks"][0][0].update(moves="x"))
    assert not v.ok and any("schema" in p for p in v.problems)
    v = check(lambda d: d["ticks"].pop())
    assert not v.ok and any("without a result" in p for p in v.problems)
    v = check(lambda d: d["header"].update(seed=4))
    assert not v.ok and any("final digest differs" in p for p in v.problems)


# ---- damaged replay files: a clear error naming the file, never a traceback or "interrupted"

def _good(tally) -> bytes:
    record = play_match(tally, [Entrant.from_bytes("a", controller(2)), Entrant.from_bytes("b", controller(1))], 3)
    return encode_replay(record.replay)


def _bomb(size: int) -> bytes:
    """A gzip file of ``size`` decompressed zero bytes, about a thousandth of that on disk
    (gzip members of 16 MiB each, one after another: a reader inflates them all)."""
    import gzip

    member = gzip.compress(bytes(16 << 20), compresslevel=9, mtime=0)
    return member * max(1, size // (16 << 20))


def _damaged(good: bytes) -> dict[str, bytes]:
    import gzip

    garbled = bytearray(good)
    for i in range(20, len(garbled) - 8, 7):  # deflate data hit, header and trailer kept
        garbled[i] ^= 0x5A
    wrong_crc = good[:-8] + bytes(4) + good[-4:]
    return {
        "truncated": good[: len(good) // 2],
        "garbled": bytes(garbled),
        "bad crc": wrong_crc,
        "not gzip": b"this is not a replay\n" * 10,
        "empty": b"",
        "gzip of non-JSON": gzip.compress(b"\xff\xfe not json", mtime=0),
        "gzip of JSON not a replay": gzip.compress(b"[1, 2, 3]", mtime=0),
        "gzip of a replay with a wrong shape": gzip.compress(
            b'{"format": "tcab-replay/1", "header": {"seats": 5}, "ticks": {}, "forfeits": [7],'
            b' "result": null, "final_digest": 1}', mtime=0),
        "gzip bomb": _bomb(512 << 20),
    }


def test_read_replay_refuses_damaged_files_naming_them(tally, tmp_path):
    from tcab.errors import ReplayError

    for what, data in _damaged(_good(tally)).items():
        path = tmp_path / f"{what.replace(' ', '-')}.json.gz"
        path.write_bytes(data)
        try:
            read_replay(path)
        except ReplayError as exc:
            assert str(path) in str(exc), (what, exc)
        else:
            raise AssertionError(f"{what}: read without error")


def test_read_replay_bounds_what_it_decompresses(tally, tmp_path):
    import resource

    from tcab.arena.replay import DEFAULT_MAX_REPLAY_BYTES
    from tcab.errors import ReplayError

    good = tmp_path / "good.json.gz"
    good.write_bytes(_good(tally))
    assert read_replay(good, max_bytes=DEFAULT_MAX_REPLAY_BYTES)["header"]["case"] == "tally"
    try:
        read_replay(good, max_bytes=100)
    except ReplayError as exc:
        assert "more than 100 bytes" in str(exc) and str(good) in str(exc)
    else:
        raise AssertionError("a replay over the limit was read")
    for bad in (0, -1, float("nan"), float("inf"), 1.5, True, "10"):
        try:
            read_replay(good, max_bytes=bad)
        except ValueError as exc:
            assert "max_bytes" in str(exc)
        else:
            raise AssertionError(f"max_bytes={bad!r} accepted")
    # 4 GiB of zeros, 4 MB on disk: refused at the limit, without holding it in memory.
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(_bomb(4 << 30))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        read_replay(bomb)
    except ReplayError as exc:
        assert f"more than {DEFAULT_MAX_REPLAY_BYTES} bytes" in str(exc)
    else:
        raise AssertionError("a gzip bomb was read")
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 2 * DEFAULT_MAX_REPLAY_BYTES // 1024 + 64 * 1024


@pytest.mark.timeout(600)
def test_replay_verify_of_a_damaged_file_exits_2_naming_it(tally, tmp_path):
    env = {**os.environ, "TCAB_CATALOG": str(CATALOG), "TCAB_RESULTS": str(tmp_path / "results"),
           "TCAB_BUILD": str(tmp_path / "build"), "TCAB_TMP": str(tmp_path / "tmp")}
    for what, data in _damaged(_good(tally)).items():
        path = tmp_path / f"{what.replace(' ', '-')}.json.gz"
        path.write_bytes(data)
        proc = subprocess.run([sys.executable, "-m", "tcab", "replay", "verify", str(path)], env=env,
                              capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert proc.returncode == 2, (what, proc.returncode, proc.stderr)
        assert str(path) in proc.stderr, (what, proc.stderr)
        assert "Traceback" not in proc.stderr and "interrupted" not in proc.stderr, (what, proc.stderr)
    # The limit is the user's to move: the good replay refused under a tiny one, then verified.
    good = tmp_path / "good.json.gz"
    good.write_bytes(_good(tally))
    proc = subprocess.run([sys.executable, "-m", "tcab", "replay", "verify", str(good), "--max-bytes", "100"],
                          env=env, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 2 and "more than 100 bytes" in proc.stderr, proc.stderr
    for bad in ("0", "-5", "nan", "inf", "1e3x"):
        proc = subprocess.run([sys.executable, "-m", "tcab", "replay", "verify", str(good), "--max-bytes", bad],
                              env=env, capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert proc.returncode == 2 and "--max-bytes" in proc.stderr, (bad, proc.stderr)
    proc = subprocess.run([sys.executable, "-m", "tcab", "replay", "verify", str(good)], env=env,
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("ok: "), proc.stderr
