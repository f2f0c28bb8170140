"""Secrets reach the session and nothing a run writes contains them."""

from __future__ import annotations

import pytest

from tcab.errors import HarnessError
from tcab.runs import RunOptions, execute_run, load_run
from tcab.runs.secrets import Redactor

TOKEN = "sk-test-3f9a1c7e5b2d4a6f8e0c"
EXTRA = "extra-secret-value-77aa"


def test_secrets_are_passed_in_and_never_written(settings, e2e_case, scripted, runtime, request) -> None:
    script = ('echo "token=$TCAB_TEST_TOKEN"; echo "extra=$TCAB_EXTRA" >&2; '
              'printf %s "$TCAB_TEST_TOKEN" > leak.txt; echo safe > safe.txt; '
              'echo x > "name-$TCAB_EXTRA.txt"; '
              'git add -A && git commit -qm "oops $TCAB_TEST_TOKEN"; '
              'echo "{\\"type\\":\\"result\\",\\"result\\":\\"$TCAB_TEST_TOKEN\\"}"; exit 5')
    harness = scripted(script, secrets=["TCAB_TEST_TOKEN"], adapter="claude-stream-json")
    record = execute_run(settings, e2e_case, e2e_case.variant(None), harness, RunOptions(
        runtime=runtime, secrets=("TCAB_EXTRA",),
        env={"TCAB_TEST_TOKEN": TOKEN, "TCAB_EXTRA": EXTRA}))
    assert runtime.list_run_containers(record.id) == []
    assert record.status == "harness_error"
    # The record names what the session was given (for validation to redact), never the values.
    assert record.secrets == ("TCAB_TEST_TOKEN", "TCAB_EXTRA")
    assert load_run(record.run_dir).secrets == record.secrets

    # The session saw the values: their redacted forms are in the log.
    raw = (record.run_dir / "raw.jsonl").read_text()
    assert "token=[secret:TCAB_TEST_TOKEN]" in raw and "extra=[secret:TCAB_EXTRA]" in raw
    reasons = {r.path: r.reason for r in record.refused}
    assert reasons["leak.txt"] == "contains the value of secret TCAB_TEST_TOKEN"
    assert reasons["name-[secret:TCAB_EXTRA].txt"].endswith("TCAB_EXTRA")
    assert (record.run_dir / "work" / "safe.txt").exists()

    # Grep everything the run wrote: run folder, database (+ WAL), temp folder.
    written = [p for p in settings.root.rglob("*") if p.is_file()]
    assert any(p.name == "results.db" for p in written) and any(p.name == "run.json" for p in written)
    for path in written:
        data = path.read_bytes()
        assert TOKEN.encode() not in data and EXTRA.encode() not in data, path
        assert EXTRA not in str(path) and TOKEN not in str(path), path
    if runtime.name == "kubernetes":  # exec URLs land in the API server's audit log
        urls = request.getfixturevalue("kube_standin").store.exec_urls
        assert urls and not any(TOKEN in u or EXTRA in u for u in urls)


def test_missing_secret_is_bad_input(settings, e2e_case, scripted) -> None:
    harness = scripted("true", secrets=["TCAB_NOT_SET_ANYWHERE"])
    with pytest.raises(HarnessError, match="secret TCAB_NOT_SET_ANYWHERE is not set"):
        execute_run(settings, e2e_case, e2e_case.variant(None), harness, RunOptions(env={}))
    assert not (settings.results_dir / "runs").exists()


def _stream(redactor: Redactor, data: bytes, step: int) -> bytes:
    filt = redactor.stream()
    out = b"".join(filt.feed(data[i:i + step]) for i in range(0, len(data), step))
    return out + filt.flush()


@pytest.mark.parametrize("step", [1, 2, 3, 7, 64, 10_000])
def test_stream_redactor_catches_values_across_every_chunk_boundary(step: int) -> None:
    odd = 'k\u00e9y"\\.*+?[(\u00fc)]$'
    redactor = Redactor({"A": TOKEN, "B": TOKEN[:12], "ODD": odd, "SHORT": "abc"})
    data = (f"x{TOKEN}y {TOKEN[:12]} {TOKEN[:20]}\n{odd}{odd}abc".encode() + b"\xff\xfe" + TOKEN.encode())
    out = _stream(redactor, data, step)
    assert out == (b"x[secret:A]y [secret:B] [secret:B]" + TOKEN[12:20].encode()
                   + b"\n[secret:ODD][secret:ODD]abc\xff\xfe[secret:A]")


def test_stream_redactor_holds_back_only_a_possible_beginning() -> None:
    filt = Redactor({"A": TOKEN}).stream()
    assert filt.feed(b"hello\n") == b"hello\n"  # nothing that could start a value is held
    assert filt.feed(b"then sk-te") == b"then "
    assert filt.feed(b"a") == b"sk-tea"
    assert filt.feed(b"sk-test-3f9a1c7e5b2d4a6f8e0") == b""
    assert filt.flush() == b"sk-test-3f9a1c7e5b2d4a6f8e0"  # never completed: not a value


def test_stream_redactor_matches_a_non_utf8_value_as_its_bytes() -> None:
    value = b"\xffsecret-bytes".decode("utf-8", "surrogateescape")  # as os.environ holds it
    out = _stream(Redactor({"RAW": value}), b"a\xffsecret-bytes b", 1)
    assert out == b"a[secret:RAW] b"


def test_redact_data_walks_decoded_json() -> None:
    odd = 'k\u00e9y"\\x'
    redactor = Redactor({"ODD": odd})
    assert redactor.redact_data({odd: [odd, 3, {"n": f"<{odd}>"}], "ok": None}) == {
        "[secret:ODD]": ["[secret:ODD]", 3, {"n": "<[secret:ODD]>"}], "ok": None}
