"""A toy third test type, registered only by tests (``TCAB_TEST_TYPES``).

It proves the seam of docs/contracts.md "Test types": nothing in ``tcab/``
names it. A toy case asks the agent to write one word into one file:

```toml
type = "toy"
[answer]
file = "ANSWER.txt"     # where the run must leave the word
word = "tally"          # the word; seeded as TOY.md, so the agent can read it
```

Its runs use the ``base-wasm`` image; seeding adds ``TOY.md``; after each
run a sweep scores it (``score:<run>``), writing a :class:`ToyScore` to
``results/sweep/toy-scores/<run>.json``; its report table (``toy-scores``) shows
each scored run's score, and its panel in ``tcab view`` shows the answer
file's first line. A toy run can be watched: ``watch_setup`` writes the live
endpoint to ``.tcab/live.json`` (``url``, ``token``) for a scripted session
to send frames to (tests/watch).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import ClassVar

from tcab.catalog.fields import Fields
from tcab.catalog.paths import check_dest
from tcab.results.columns import Column, TypeTable
from tcab.tasks.after import AfterRunTask
from tcab.testtypes import (
    AfterRun,
    BuildKeys,
    ParsedSection,
    SectionInput,
    SeedingInput,
    TestType,
)

ENTRY = "toy=tests.support.toy_type:ToyType"  # the TCAB_TEST_TYPES entry that registers it
MAX_ANSWER = 4096  # bytes of the run's answer file read: the tree is hostile


@dataclass(frozen=True, slots=True)
class ToySection:
    """A toy case's ``[answer]``."""

    file: str
    word: str


@dataclass(frozen=True, slots=True)
class ToyScore:
    """What scoring a toy run records: 1.0 when the file holds the word."""

    run_id: str
    score: float
    detail: str


class ToyType(TestType):
    name: ClassVar[str] = "toy"
    section_keys: ClassVar[tuple[str, ...]] = ("answer",)
    build: ClassVar[BuildKeys] = BuildKeys()
    run_image: ClassVar[str] = "base-wasm"
    after_run: ClassVar[tuple[AfterRun, ...]] = (AfterRun("score", "tests.support.toy_type:SCORE"),)
    evaluation_record: ClassVar[str | None] = "tests.support.toy_type:ToyScore"
    report_table: ClassVar[str | None] = "tests.support.toy_type:SCORES_TABLE"
    view_panel: ClassVar[str | None] = "tests.support.toy_type:panel"

    def parse_section(self, p: SectionInput) -> ParsedSection:
        table = p.f.table_of("answer", required=True)
        if table is None:
            return ParsedSection(None)
        a = Fields(table, p.source, ("file", "word"), table="answer")
        file = check_dest(a, "file", a.string("file", required=True))
        word = a.kebab("word", required=True)
        a.done()
        return ParsedSection(ToySection(file, word) if file and word else None)

    def seed_sources(self, case, variant) -> tuple[str | None, ...]:
        return ()  # TOY.md comes from the manifest, which every seed reads

    def seed_entries(self, case, variant, seeding: SeedingInput) -> list:
        from tcab.seeding.plan import MODE_FILE, SeedEntry

        text = f"# Toy\n\nWrite the word `{case.section.word}` into `{case.section.file}`.\n"
        return [SeedEntry("TOY.md", text.encode(), MODE_FILE, "toy answer sheet")]


    def watch_setup(self, case, variant, workspace: Path, live) -> None:
        (workspace / ".tcab").mkdir(exist_ok=True)
        (workspace / ".tcab" / "live.json").write_text(json.dumps({"url": live.url, "token": live.token}))


def score_record(ctx, spec) -> Path:
    return ctx.settings.results_dir / "sweep" / "toy-scores" / f"{spec.name}.json"


def score_inputs(ctx, spec) -> dict[str, str]:
    stamp = ctx.cache.stamp(ctx.layout.run_record(spec))
    if stamp is None:
        raise KeyError(f"run {spec.name} not recorded")
    return {"run": stamp, "case": ctx.cache.sha256(ctx.lookups.case(spec.case, spec.version).manifest) or ""}


def score_run(ctx, spec) -> bool:
    from tcab.tasks.keys import write_target

    run = ctx.cache.target(ctx.layout.run_record(spec))
    case = ctx.lookups.case(spec.case, spec.version)
    answer = ctx.settings.root / run["run_dir"] / "work" / case.section.file
    try:
        with open(answer, "rb") as fh:
            got = fh.read(MAX_ANSWER).decode("utf-8", "replace").strip()
    except OSError as exc:
        got, detail = None, f"{case.section.file}: {exc.strerror}"
    else:
        detail = f"{case.section.file}: {got[:80]!r}"
    score = ToyScore(run["run_id"], 1.0 if got == case.section.word else 0.0, detail)
    write_target(score_record(ctx, spec), score_inputs(ctx, spec), asdict(score))
    return True


SCORE = AfterRunTask(
    doc="Toy scores: does each toy run's answer file hold the word?",
    subdoc="score of run {name}",
    record=score_record,
    inputs=score_inputs,
    action=score_run,
)


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One scored toy run of a report group."""

    run_id: str
    harness: str
    score: float


def score_rows(conn, key: tuple[str, str, str], filters) -> list[ScoreRow]:
    """The group's scored runs: its runs in results.db, their scores from the
    records the ``score:`` tasks wrote beside it (results/sweep/toy-scores/)."""
    db = Path(conn.execute("PRAGMA database_list").fetchone()[2])
    runs = dict(conn.execute("SELECT id, harness FROM runs WHERE case_slug = ? AND case_version = ? AND variant = ?",
                             key).fetchall())
    rows = []
    for path in sorted((db.parent / "sweep" / "toy-scores").rglob("*.json")):
        doc = json.loads(path.read_text())
        if doc["run_id"] in runs:
            rows.append(ScoreRow(doc["run_id"], runs[doc["run_id"]], doc["score"]))
    return rows


SCORES_TABLE = TypeTable(
    key="toy-scores", title="Toy scores",
    columns=(
        Column("toy_run", "run", "toy-scores", lambda r: r.run_id, (("run_id", lambda r: r.run_id),), align="left"),
        Column("toy_harness", "harness", "toy-scores", lambda r: r.harness, (("harness", lambda r: r.harness),),
               align="left"),
        Column("toy_score", "score", "toy-scores", lambda r: f"{r.score:g}", (("score", lambda r: r.score),),
               tone=lambda r: "good" if r.score == 1.0 else "bad"),
    ),
    rows=score_rows,
)


def panel(case, run: dict, folder: Path | None, run_id: str) -> dict:
    """The toy's values on the run page: none the template draws (the seam only)."""
    return {"toy_answer": json.dumps(case.section.word)}
