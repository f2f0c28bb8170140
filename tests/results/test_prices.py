"""The price table (tcab.results.prices) and each run's cost in results.db and the report."""

from __future__ import annotations

import sqlite3

import pytest
from click.testing import CliRunner

from tcab.cli import _main, cli
from tcab.errors import InputError
from tcab.results import record_run
from tcab.results.costs import price_runs
from tcab.results.prices import load_prices
from tests.support.results_rows import run_row

GOOD = """\
currency = "USD"

[models."sonnet"]
input = 3.0
output = 15.0
cache_read = 0.3
cache_write = 3.75

[models.gpt]
input = 1.25
output = 10
"""


def _write(tmp_path, text):
    path = tmp_path / "prices.toml"
    path.write_text(text)
    return path


def test_a_good_table(tmp_path):
    table = load_prices(_write(tmp_path, GOOD))
    assert table.currency == "USD" and set(table.models) == {"sonnet", "gpt"}
    # 1M in, 100k out, 2M cache read, 10k cache write: 3 + 1.5 + 0.6 + 0.0375
    assert table.models["sonnet"].cost(1_000_000, 100_000, 2_000_000, 10_000) == pytest.approx(5.1375)
    assert table.models["gpt"].cache_read == 0.0
    assert table.price_of("unknown") is None and table.price_of(None) is None


@pytest.mark.parametrize("edit,message", [
    (("input = 3.0", "input = -3.0"), r'prices\.toml:4: \[models\."sonnet"\]\.input: expected a finite price >= 0, got -3\.0'),
    (("input = 3.0", "input = nan"), r'prices\.toml:4: \[models\."sonnet"\]\.input: expected a finite price >= 0, got nan'),
    (("input = 3.0", "input = inf"), r"prices\.toml:4: .*input: expected a finite price"),
    (("input = 3.0", 'input = "3"'), r"prices\.toml:4: .*input: expected a price per million tokens .* got '3'"),
    (("input = 3.0", "input = true"), r"prices\.toml:4: .*input: expected a price per million tokens"),
    (("cache_read = 0.3", "cache_reads = 0.3"), r"prices\.toml:6: .*cache_reads: unknown key; expected one of input"),
    (('currency = "USD"', 'currency = "USD"\nvendor = "x"'), r"prices\.toml:2: vendor: unknown key"),
    (('currency = "USD"', 'currency = "dollars"'), r"prices\.toml:1: currency: expected a three-letter"),
    (("output = 10\n", ""), r'prices\.toml:9: \[models\."gpt"\]\.output: required'),
    (("[models.gpt]", '[models."sonnet"]'), r'prices\.toml:9: models\."sonnet": duplicate model \(first declared on line 3\)'),
    (("[models.gpt]", "[models.sonnet]"), r'prices\.toml:9: models\."sonnet": duplicate model'),
])
def test_bad_tables_name_file_line_and_key(tmp_path, edit, message):
    with pytest.raises(InputError, match=message):
        load_prices(_write(tmp_path, GOOD.replace(*edit)))


def test_every_problem_at_once(tmp_path):
    text = GOOD.replace("input = 3.0", "input = -1").replace("output = 10", 'output = "ten"')
    with pytest.raises(InputError) as info:
        load_prices(_write(tmp_path, text))
    assert len(str(info.value).splitlines()) == 2


def test_every_duplicate_model_once_as_file_line_key(tmp_path):
    text = GOOD + '\n[models."gpt"]\ninput = 1\noutput = 1\n\n[models.sonnet]\ninput = 1\noutput = 1\n'
    with pytest.raises(InputError) as info:
        load_prices(_write(tmp_path, text))
    assert str(info.value).splitlines() == [
        f'{tmp_path / "prices.toml"}:13: models."gpt": duplicate model (first declared on line 9)',
        f'{tmp_path / "prices.toml"}:17: models."sonnet": duplicate model (first declared on line 3)',
    ], "each duplicate once, through the same list as every other problem (tomli's own complaint not repeated)"


@pytest.mark.parametrize("content", [b"", b"\x00\x01", b"= = ="])
def test_unreadable_tables(tmp_path, content):
    path = tmp_path / "prices.toml"
    path.write_bytes(content)
    with pytest.raises(InputError, match=r"prices\.toml"):
        load_prices(path)


@pytest.mark.parametrize("where", ["/dev/zero", "missing.toml", "huge.toml"])
def test_a_table_that_cannot_be_read(tmp_path, where):
    path = tmp_path / where if not where.startswith("/") else where
    if where == "huge.toml":
        path.write_text("# " + "x" * (2 << 20))
    with pytest.raises(InputError, match="cannot read the price table"):
        load_prices(path)


def _runs(db):
    record_run(db, run_row("a", harness="claude", model="sonnet", tokens_input=1_000_000, tokens_output=100_000), [])
    record_run(db, run_row("b", harness="claude", model="sonnet", tokens_input=2_000_000, tokens_output=0), [])
    record_run(db, run_row("c", harness="aider", model="mystery", tokens_input=5, tokens_output=5), [])


def test_price_runs_stores_costs_and_no_price(db, db_path, tmp_path):
    _runs(db)
    table = load_prices(_write(tmp_path, GOOD))
    with sqlite3.connect(db_path) as conn:
        assert price_runs(conn, table) == 3
        assert price_runs(conn, table) == 0, "priced once per price table"
        rows = dict((r[0], r[1:]) for r in conn.execute("SELECT run_id, priced, cost, detail FROM run_costs"))
    assert rows["a"][:2] == (1, pytest.approx(4.5)) and rows["b"][:2] == (1, pytest.approx(6.0))
    assert rows["c"][0] == 0 and rows["c"][1] is None and "no price for mystery" in rows["c"][2]
    changed = load_prices(_write(tmp_path, GOOD.replace("input = 3.0", "input = 1.0")))
    with sqlite3.connect(db_path) as conn:
        assert price_runs(conn, changed) == 3, "a new price table prices again"


def test_report_shows_cost_and_no_price_never_zero(db, db_path, tmp_path):
    _runs(db)
    prices = _write(tmp_path, GOOD)
    result = CliRunner().invoke(cli, ["report", "--db", str(db_path), "--prices", str(prices)])
    assert result.exit_code == 0, result.output
    assert "$10.50" in result.output and "no price" in result.output
    assert "$0.00" not in result.output
    csv = CliRunner().invoke(cli, ["report", "--db", str(db_path), "--csv"]).output.splitlines()
    header = csv[0].split(",")
    rows = {line.split(",")[header.index("harness")]: line.split(",") for line in csv[1:]}
    assert rows["claude"][header.index("cost")] == "10.5"
    assert rows["aider"][header.index("cost")] == "" and rows["aider"][header.index("unpriced_runs")] == "1"


def test_report_prices_from_the_environment(db, db_path, tmp_path):
    _runs(db)
    result = CliRunner().invoke(cli, ["report", "--db", str(db_path)], env={"TCAB_PRICES": str(_write(tmp_path, GOOD))})
    assert result.exit_code == 0 and "$10.50" in result.output


def test_report_with_a_bad_price_table_exits_2(db, db_path, tmp_path, capsys):
    _runs(db)
    prices = _write(tmp_path, GOOD.replace("output = 15.0", "output = -2"))
    assert _main(["report", "--db", str(db_path), "--prices", str(prices)]) == 2
    err = capsys.readouterr().err
    assert "prices.toml:5: [models.\"sonnet\"].output" in err and "Traceback" not in err
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM run_costs").fetchone()[0] == 0


def test_html_report_shows_cost(db, db_path, tmp_path):
    _runs(db)
    out = tmp_path / "html"
    result = CliRunner().invoke(cli, ["report", "--db", str(db_path), "--prices", str(_write(tmp_path, GOOD)),
                                      "--html", str(out)])
    assert result.exit_code == 0, result.output
    page = (out / "index.html").read_text()
    assert "$10.50" in page and "no price" in page


def test_view_home_shows_cost_and_success(db, db_path, tmp_path):
    """``tcab view``'s home page draws the same columns (Starlette's test client on the real app)."""
    from starlette.testclient import TestClient

    from tcab.view.app import ViewConfig, create_app

    _runs(db)
    with sqlite3.connect(db_path) as conn:
        price_runs(conn, load_prices(_write(tmp_path, GOOD)))
    (tmp_path / "catalog").mkdir()
    app = create_app(ViewConfig(db_path, db_path.parent, tmp_path / "catalog"))
    with TestClient(app, base_url="http://127.0.0.1") as client:
        page = client.get("/").text
    assert "$10.50" in page and "no price" in page
    assert "success (95% CI)" in page  # the adversarial runs have no build: 0 of their runs
    assert 'id="across"' in page and "0% [0%, 0%]" in page  # the mean over cases
