"""The results.db schema: tables, their columns, and the ordered migrations.

A migration is a name and a list of SQL statements. They are applied in
order by :func:`tcab.results.store.migrate`, each in one transaction together
with the ``schema_migrations`` row that records it. The schema version is the
number of migrations applied; a database whose version is higher than
``SCHEMA_VERSION`` was written by a newer tcab and is refused.

Never edit a migration that has shipped: append a new one. The column lists
below (``COLUMNS``) are what the ``record_*`` functions accept; keep them in
step with the migrations (a test checks it against a migrated database).
"""

from __future__ import annotations

from dataclasses import dataclass

from tcab.outcomes import RUN_STATUSES, SEAT_OUTCOMES, VALIDATION_STATUSES

__all__ = ["ASSET_STATUSES", "DECISION_SOURCES", "DECISION_VERDICTS", "MIGRATIONS", "PERFORMANCE_STATUSES", "PROOF_STATUSES", "REVIEW_RATINGS", "REVIEW_VERDICTS", "RUN_STATUSES", "SCHEMA_VERSION", "SEAT_OUTCOMES", "TABLES", "VALIDATION_STATUSES", "VOXEL_PART_STATUSES", "Migration"]

# What the shipped migrations checked; later statuses come with a migration
# of their own (0005, 0006, 0009), so these stay as they were.
_VALIDATION_STATUSES_0004 = ("passed", "failed", "error")
_RUN_STATUSES_0001 = ("completed", "timed_out", "hung", "harness_error", "infrastructure", "canceled")
_RUN_STATUSES_0005 = ("completed", "timed_out", "hung", "harness_error", "limit_exceeded", "infrastructure",
                      "canceled", "catastrophic")
_SEAT_OUTCOMES_0001 = ("win", "draw", "loss", "forfeit")
#: A proof found in a run's tree (tcab.validation.proofs), as 0007 checks it.
PROOF_STATUSES = ("present", "missing", "refused")
#: The original's functional rating of a domain, best to worst; a run's
#: rating is the worst of its domains'.
REVIEW_RATINGS = ("flawless", "great", "passable", "scuffed", "broken")
REVIEW_VERDICTS = ("pass", "fail")


@dataclass(frozen=True, slots=True)
class Migration:
    """One named schema step: SQL statements applied in one transaction."""

    name: str
    statements: tuple[str, ...]


def _in(values: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


_INITIAL = (
    f"""
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_type TEXT,
        case_digest TEXT,
        variant TEXT NOT NULL,
        harness TEXT NOT NULL,
        harness_version TEXT,
        harness_digest TEXT,
        model TEXT,
        image TEXT,
        image_digest TEXT,
        runtime TEXT,
        seed_commit TEXT,
        status TEXT NOT NULL CHECK (status IN {_in(_RUN_STATUSES_0001)}),
        status_detail TEXT,
        started_at TEXT,
        finished_at TEXT,
        duration_s REAL,
        tokens_input INTEGER,
        tokens_output INTEGER,
        tokens_cache_read INTEGER,
        tokens_cache_write INTEGER,
        artifact_digest TEXT,
        refused TEXT,
        run_dir TEXT,
        plan_digest TEXT
    )""",
    """
    CREATE TABLE stages (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        stage TEXT NOT NULL,
        seq INTEGER NOT NULL,
        status TEXT,
        started_at TEXT,
        duration_s REAL,
        exit_code INTEGER,
        detail TEXT,
        PRIMARY KEY (run_id, stage)
    )""",
    """
    CREATE TABLE builds (
        source TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_digest TEXT,
        status TEXT NOT NULL,
        module_sha256 TEXT,
        module_size INTEGER,
        log_excerpt TEXT,
        image TEXT,
        image_digest TEXT,
        source_digest TEXT,
        duration_s REAL,
        built_at TEXT
    )""",
    """
    CREATE TABLE matches (
        key TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_digest TEXT NOT NULL,
        variant TEXT NOT NULL,
        seed INTEGER NOT NULL,
        ticks INTEGER,
        winner_seat INTEGER,
        reason TEXT,
        final_digest TEXT,
        replay_path TEXT,
        replay_sha256 TEXT,
        duration_s REAL,
        played_at TEXT
    )""",
    f"""
    CREATE TABLE match_seats (
        match_key TEXT NOT NULL REFERENCES matches(key) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        module_sha256 TEXT NOT NULL,
        label TEXT,
        outcome TEXT NOT NULL CHECK (outcome IN {_in(_SEAT_OUTCOMES_0001)}),
        score INTEGER,
        forfeit_reason TEXT,
        forfeit_tick INTEGER,
        fuel_total INTEGER,
        fuel_peak INTEGER,
        PRIMARY KEY (match_key, seat)
    )""",
    """
    CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_digest TEXT,
        variant TEXT NOT NULL,
        structure TEXT,
        rounds INTEGER,
        seed INTEGER,
        participants TEXT,
        created_at TEXT,
        finished_at TEXT,
        plan_digest TEXT
    )""",
    """
    CREATE TABLE tournament_matches (
        tournament_id TEXT NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
        match_key TEXT NOT NULL,
        round INTEGER NOT NULL,
        pairing TEXT,
        PRIMARY KEY (tournament_id, match_key, round)
    )""",
    """
    CREATE TABLE ratings (
        tournament_id TEXT NOT NULL REFERENCES tournaments(id) ON DELETE CASCADE,
        module_sha256 TEXT NOT NULL,
        label TEXT NOT NULL,
        rank INTEGER,
        rating REAL,
        ci_low REAL,
        ci_high REAL,
        wins INTEGER,
        draws INTEGER,
        losses INTEGER,
        forfeits INTEGER,
        PRIMARY KEY (tournament_id, label)
    )""",
)

_REPORT_INDEXES = (
    "CREATE INDEX idx_runs_group ON runs (case_slug, case_version, variant, harness, model, status)",
    "CREATE INDEX idx_runs_started ON runs (started_at)",
    "CREATE INDEX idx_builds_case ON builds (case_slug, case_version)",
    "CREATE INDEX idx_builds_module ON builds (module_sha256)",
    "CREATE INDEX idx_matches_group ON matches (case_slug, case_version, variant)",
    "CREATE INDEX idx_match_seats_module ON match_seats (module_sha256)",
    "CREATE INDEX idx_tournaments_group ON tournaments (case_slug, case_version, variant)",
    "CREATE INDEX idx_tournament_matches_match ON tournament_matches (match_key)",
)

# The report must stay fast on 100,000s of rows. Run outcomes come from one
# covering index scan; per-participant match records would need a join of
# every seat with its match, so they are kept as running totals, maintained by
# triggers inside the same transaction as the rows they count.
_SEAT_GROUP = "FROM matches m WHERE m.key = {row}.match_key"
_PLAYER_ADD = f"""
        INSERT INTO player_totals (case_slug, case_version, variant, label, matches, wins,
                                   draws, losses, forfeits)
        SELECT m.case_slug, m.case_version, m.variant, coalesce(NEW.label, NEW.module_sha256), 1,
               NEW.outcome = 'win', NEW.outcome = 'draw', NEW.outcome = 'loss',
               NEW.outcome = 'forfeit'
        {_SEAT_GROUP.format(row="NEW")}
        ON CONFLICT (case_slug, case_version, variant, label) DO UPDATE SET
            matches = matches + 1, wins = wins + excluded.wins, draws = draws + excluded.draws,
            losses = losses + excluded.losses, forfeits = forfeits + excluded.forfeits;"""
_PLAYER_SUB = f"""
        UPDATE player_totals SET matches = matches - 1, wins = wins - (OLD.outcome = 'win'),
            draws = draws - (OLD.outcome = 'draw'), losses = losses - (OLD.outcome = 'loss'),
            forfeits = forfeits - (OLD.outcome = 'forfeit')
        WHERE (case_slug, case_version, variant) = (SELECT m.case_slug, m.case_version, m.variant
                                                    {_SEAT_GROUP.format(row="OLD")})
          AND label = coalesce(OLD.label, OLD.module_sha256);
        DELETE FROM player_totals WHERE matches <= 0;"""
_REPORT_TOTALS = (
    "DROP INDEX idx_runs_group",
    "CREATE INDEX idx_runs_report ON runs (case_slug, case_version, variant, harness, model, "
    "status, tokens_input, tokens_output, tokens_cache_read, tokens_cache_write, duration_s)",
    """
    CREATE TABLE player_totals (
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        variant TEXT NOT NULL,
        label TEXT NOT NULL,
        matches INTEGER NOT NULL,
        wins INTEGER NOT NULL,
        draws INTEGER NOT NULL,
        losses INTEGER NOT NULL,
        forfeits INTEGER NOT NULL,
        PRIMARY KEY (case_slug, case_version, variant, label)
    )""",
    f"CREATE TRIGGER match_seats_ai AFTER INSERT ON match_seats BEGIN {_PLAYER_ADD} END",
    f"CREATE TRIGGER match_seats_ad AFTER DELETE ON match_seats BEGIN {_PLAYER_SUB} END",
    f"CREATE TRIGGER match_seats_au AFTER UPDATE ON match_seats BEGIN {_PLAYER_SUB} {_PLAYER_ADD} END",
    # A deleted match would cascade to its seats after the match row is gone,
    # when the seat triggers can no longer find its group: delete seats first.
    "CREATE TRIGGER matches_bd BEFORE DELETE ON matches BEGIN "
    "DELETE FROM match_seats WHERE match_key = OLD.key; END",
    # A match whose case or variant is edited in place moves its seats' totals.
    """CREATE TRIGGER matches_au AFTER UPDATE OF case_slug, case_version, variant ON matches
    WHEN (OLD.case_slug, OLD.case_version, OLD.variant) IS NOT (NEW.case_slug, NEW.case_version,
                                                                NEW.variant)
    BEGIN
        UPDATE player_totals SET matches = matches - x.n, wins = wins - x.w,
            draws = draws - x.d, losses = losses - x.l, forfeits = forfeits - x.f
        FROM (SELECT coalesce(label, module_sha256) AS who, count(*) AS n,
                     sum(outcome = 'win') AS w, sum(outcome = 'draw') AS d,
                     sum(outcome = 'loss') AS l, sum(outcome = 'forfeit') AS f
              FROM match_seats WHERE match_key = NEW.key GROUP BY 1) AS x
        WHERE player_totals.case_slug = OLD.case_slug
          AND player_totals.case_version = OLD.case_version
          AND player_totals.variant = OLD.variant AND player_totals.label = x.who;
        INSERT INTO player_totals (case_slug, case_version, variant, label, matches, wins,
                                   draws, losses, forfeits)
        SELECT NEW.case_slug, NEW.case_version, NEW.variant, coalesce(label, module_sha256),
               count(*), sum(outcome = 'win'), sum(outcome = 'draw'), sum(outcome = 'loss'),
               sum(outcome = 'forfeit')
        FROM match_seats WHERE match_key = NEW.key GROUP BY 4
        ON CONFLICT (case_slug, case_version, variant, label) DO UPDATE SET
            matches = matches + excluded.matches, wins = wins + excluded.wins,
            draws = draws + excluded.draws, losses = losses + excluded.losses,
            forfeits = forfeits + excluded.forfeits;
        DELETE FROM player_totals WHERE matches <= 0;
    END""",
    """
    INSERT INTO player_totals
    SELECT m.case_slug, m.case_version, m.variant, coalesce(s.label, s.module_sha256), count(*),
           sum(s.outcome = 'win'), sum(s.outcome = 'draw'), sum(s.outcome = 'loss'),
           sum(s.outcome = 'forfeit')
    FROM match_seats s JOIN matches m ON m.key = s.match_key
    GROUP BY 1, 2, 3, 4""",
)

# End-to-end validations (docs/validation.md): one row per run, replaced when
# the run is validated again. The report counts passed/total per harness and
# model by joining runs on the primary key, so the index only has to serve
# lookups by case.
_VALIDATIONS = (
    f"""
    CREATE TABLE validations (
        run_id TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_digest TEXT,
        variant TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN {_in(_VALIDATION_STATUSES_0004)}),
        checks TEXT,
        detail TEXT,
        screenshots TEXT,
        image_digest TEXT,
        duration_s REAL,
        validated_at TEXT
    )""",
    "CREATE INDEX idx_validations_group ON validations (case_slug, case_version, variant, status)",
)

# limit_exceeded (the harness's own ceiling) and catastrophic (validation) join
# the run statuses. SQLite cannot change a CHECK in place: the runs table is
# rebuilt, and stages with it (dropping runs would cascade-delete the stages
# of any table still pointing at it), with the same columns in the same order.
# stages_new points at runs_new; renaming runs_new to runs rewrites that
# reference. Then the indexes again.
_RUN_STATUS_VOCABULARY = (
    f"""
    CREATE TABLE runs_new (
        id TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_type TEXT,
        case_digest TEXT,
        variant TEXT NOT NULL,
        harness TEXT NOT NULL,
        harness_version TEXT,
        harness_digest TEXT,
        model TEXT,
        image TEXT,
        image_digest TEXT,
        runtime TEXT,
        seed_commit TEXT,
        status TEXT NOT NULL CHECK (status IN {_in(_RUN_STATUSES_0005)}),
        status_detail TEXT,
        started_at TEXT,
        finished_at TEXT,
        duration_s REAL,
        tokens_input INTEGER,
        tokens_output INTEGER,
        tokens_cache_read INTEGER,
        tokens_cache_write INTEGER,
        artifact_digest TEXT,
        refused TEXT,
        run_dir TEXT,
        plan_digest TEXT
    )""",
    "INSERT INTO runs_new SELECT * FROM runs",
    """
    CREATE TABLE stages_new (
        run_id TEXT NOT NULL REFERENCES runs_new(id) ON DELETE CASCADE,
        stage TEXT NOT NULL,
        seq INTEGER NOT NULL,
        status TEXT,
        started_at TEXT,
        duration_s REAL,
        exit_code INTEGER,
        detail TEXT,
        PRIMARY KEY (run_id, stage)
    )""",
    "INSERT INTO stages_new SELECT * FROM stages",
    "DROP TABLE stages",
    "DROP TABLE runs",
    "ALTER TABLE runs_new RENAME TO runs",
    "ALTER TABLE stages_new RENAME TO stages",
    "CREATE INDEX idx_runs_report ON runs (case_slug, case_version, variant, harness, model, "
    "status, tokens_input, tokens_output, tokens_cache_read, tokens_cache_write, duration_s)",
    "CREATE INDEX idx_runs_started ON runs (started_at)",
)

# catastrophic (the build never produced a loadable page) joins the
# validation statuses: the validations table is rebuilt with every row (no
# table references it), then its index.
_VALIDATION_VOCABULARY = (
    f"""
    CREATE TABLE validations_new (
        run_id TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_digest TEXT,
        variant TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN {_in(VALIDATION_STATUSES)}),
        checks TEXT,
        detail TEXT,
        screenshots TEXT,
        image_digest TEXT,
        duration_s REAL,
        validated_at TEXT
    )""",
    "INSERT INTO validations_new SELECT * FROM validations",
    "DROP TABLE validations",
    "ALTER TABLE validations_new RENAME TO validations",
    "CREATE INDEX idx_validations_group ON validations (case_slug, case_version, variant, status)",
)

# The [toolchain] commands of a validation (docs/validation.md): one row per
# command, replaced with the validation. No foreign key to validations: a
# later migration that rebuilds validations (as 0006 did) would cascade-delete
# them; record_validation keeps the two in step in one transaction. ``gates``
# is 1 for a typecheck that ran and failed: the run is rated "broken".
_TOOLCHAIN_STATUSES_0008 = ("passed", "failed", "timed_out", "not_run")
#: How a [toolchain] command ended (tcab.validation.toolchain.TOOL_STATUSES).
TOOLCHAIN_STATUSES = _TOOLCHAIN_STATUSES_0008
_TOOLCHAIN_RESULTS = (
    f"""
    CREATE TABLE toolchain_results (
        run_id TEXT NOT NULL,
        name TEXT NOT NULL CHECK (name IN ('typecheck', 'lint', 'format', 'test')),
        seq INTEGER NOT NULL,
        command TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN {_in(_TOOLCHAIN_STATUSES_0008)}),
        exit_code INTEGER,
        duration_s REAL,
        output TEXT,
        detail TEXT,
        gates INTEGER NOT NULL DEFAULT 0 CHECK (gates IN (0, 1)),
        PRIMARY KEY (run_id, name)
    )""",
    "CREATE INDEX idx_toolchain_results_name ON toolchain_results (name, status)",
)

# Proofs found per run (written with its validation); the reviewer material of
# each case version and variant (domains, checklist items), replaced when a
# review is recorded against it; and the reviews themselves. A run has at most
# one current review (the partial unique index); a new one marks the previous
# one not current in the same transaction, so the history stays. Reviews point
# at no other table: rebuilding runs (as 0005 did) must never drop them.
_REVIEWS = (
    f"""
    CREATE TABLE proofs (
        run_id TEXT NOT NULL,
        proof_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        name TEXT,
        dest TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN {_in(PROOF_STATUSES)}),
        size INTEGER,
        sha256 TEXT,
        detail TEXT,
        PRIMARY KEY (run_id, proof_id)
    )""",
    """
    CREATE TABLE review_domains (
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        variant TEXT NOT NULL,
        domain_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        name TEXT NOT NULL,
        description TEXT,
        case_digest TEXT,
        PRIMARY KEY (case_slug, case_version, variant, domain_id)
    )""",
    """
    CREATE TABLE review_items (
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        variant TEXT NOT NULL,
        item_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        title TEXT NOT NULL,
        text TEXT NOT NULL,
        weight REAL NOT NULL CHECK (weight > 0),
        reference TEXT,
        proof TEXT,
        domain TEXT,
        case_digest TEXT,
        PRIMARY KEY (case_slug, case_version, variant, item_id)
    )""",
    f"""
    CREATE TABLE reviews (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        current INTEGER NOT NULL CHECK (current IN (0, 1)),
        reviewer TEXT NOT NULL,
        reviewed_at TEXT NOT NULL,
        note TEXT NOT NULL,
        score REAL NOT NULL,
        max_score REAL NOT NULL,
        rating TEXT CHECK (rating IS NULL OR rating IN {_in(REVIEW_RATINGS)}),
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        variant TEXT NOT NULL,
        case_digest TEXT
    )""",
    "CREATE UNIQUE INDEX idx_reviews_current ON reviews (run_id) WHERE current = 1",
    "CREATE INDEX idx_reviews_run ON reviews (run_id, id)",
    f"""
    CREATE TABLE review_verdicts (
        review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
        item_id TEXT NOT NULL,
        verdict TEXT NOT NULL CHECK (verdict IN {_in(REVIEW_VERDICTS)}),
        weight REAL NOT NULL,
        PRIMARY KEY (review_id, item_id)
    )""",
    f"""
    CREATE TABLE review_ratings (
        review_id INTEGER NOT NULL REFERENCES reviews(id) ON DELETE CASCADE,
        domain_id TEXT NOT NULL,
        rating TEXT NOT NULL CHECK (rating IN {_in(REVIEW_RATINGS)}),
        PRIMARY KEY (review_id, domain_id)
    )""",
)

# internal_error (a bug in tcab stopped the run; its traceback is the run
# folder's internal-error.txt) joins the run statuses. The runs table is
# rebuilt as in 0005, with the same columns in the same order, stages with
# it; no other table points at runs (0007, 0008 chose so). The summary of a
# bug stays in run.json (``internal_error``): no column, nothing queries it.
_RUN_INTERNAL_ERROR = (
    _RUN_STATUS_VOCABULARY[0].replace(f"CHECK (status IN {_in(_RUN_STATUSES_0005)})",
                                      f"CHECK (status IN {_in(RUN_STATUSES)})"),
    *_RUN_STATUS_VOCABULARY[1:],
)

#: How a performance run's module scored (tcab.performance.score.ScoreRecord).
PERFORMANCE_STATUSES = ("correct", "incorrect", "no_module")
# The score of each performance run's module on its case's held-out
# scenarios (issue 24): one row per run, replaced when it is scored again;
# ``cases`` holds every scenario's status and fuel (JSON), ``total_fuel`` the
# stress scenarios' total when the run is correct. It points at no other
# table (runs is rebuilt by migrations, as 0005 did).
_PERFORMANCE_SCORES = (
    f"""
    CREATE TABLE performance_scores (
        source TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_digest TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN {_in(PERFORMANCE_STATUSES)}),
        module_sha256 TEXT,
        total_fuel INTEGER CHECK (total_fuel IS NULL OR total_fuel >= 0),
        cases TEXT NOT NULL,
        score_key TEXT,
        detail TEXT,
        duration_s REAL,
        scored_at TEXT NOT NULL
    )""",
    "CREATE INDEX idx_performance_scores_case ON performance_scores (case_slug, case_version, status)",
)

#: How regenerating an asset run ended (tcab.testtypes.asset_score): its logs
#: replayed to frames, or no asset (a log missing, unreadable or refused).
ASSET_STATUSES = ("regenerated", "no_asset")
# Each asset run's regeneration (issue 22): one row per run, replaced when it
# is regenerated again, with the drawing library version the run's tool
# recorded (and whether it differs from the host's); one row per frame with
# its op count and its preview's divergence from the regenerated image.
_ASSET_REGENERATIONS = (
    f"""
    CREATE TABLE asset_regenerations (
        run_id TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        case_digest TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN {_in(ASSET_STATUSES)}),
        draw_version TEXT,
        version_mismatch INTEGER NOT NULL CHECK (version_mismatch IN (0, 1)),
        flagged INTEGER NOT NULL CHECK (flagged IN (0, 1)),
        regen_key TEXT,
        detail TEXT,
        regenerated_at TEXT NOT NULL
    )""",
    """
    CREATE TABLE asset_frames (
        run_id TEXT NOT NULL,
        frame TEXT NOT NULL,
        seq INTEGER NOT NULL,
        ops INTEGER NOT NULL CHECK (ops >= 0),
        divergence REAL CHECK (divergence IS NULL OR (divergence >= 0 AND divergence <= 1)),
        flagged INTEGER NOT NULL CHECK (flagged IN (0, 1)),
        image TEXT,
        detail TEXT,
        PRIMARY KEY (run_id, frame)
    )""",
    "CREATE INDEX idx_asset_regenerations_case ON asset_regenerations (case_slug, case_version, status)",
)

#: What decided a checklist item of a run (tcab.results.decisions): the case
#: author's validation script, or a reviewer overriding it.
DECISION_SOURCES = ("script", "override")
#: A script that threw, hung or wrote an undeclared output decides nothing.
DECISION_VERDICTS = ("pass", "fail", "undecided")
# The categories of a [review] format = 2 checklist beside review_items (which
# gains each item's category and validation script), and every decision on an
# item of a run: a script's, or a reviewer's override with its note; the
# newest row of each source is current, earlier ones are the history.
_REVIEW_CATEGORIES = (
    """
    CREATE TABLE review_categories (
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        variant TEXT NOT NULL,
        category_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        title TEXT NOT NULL,
        case_digest TEXT,
        PRIMARY KEY (case_slug, case_version, variant, category_id)
    )""",
    "ALTER TABLE review_items ADD COLUMN category TEXT",
    "ALTER TABLE review_items ADD COLUMN validation TEXT",
    f"""
    CREATE TABLE item_decisions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        run_id TEXT NOT NULL,
        item_id TEXT NOT NULL,
        source TEXT NOT NULL CHECK (source IN {_in(DECISION_SOURCES)}),
        current INTEGER NOT NULL CHECK (current IN (0, 1)),
        verdict TEXT NOT NULL CHECK (verdict IN {_in(DECISION_VERDICTS)}),
        outputs TEXT,
        log_tail TEXT,
        detail TEXT,
        author TEXT,
        note TEXT,
        decided_at TEXT NOT NULL,
        CHECK (source = 'script' OR (verdict != 'undecided' AND author IS NOT NULL AND note IS NOT NULL))
    )""",
    "CREATE UNIQUE INDEX idx_item_decisions_current ON item_decisions (run_id, item_id, source) WHERE current = 1",
    "CREATE INDEX idx_item_decisions_run ON item_decisions (run_id, item_id, id)",
)

# Every attempt of a sweep's run (issue 26): an ``infrastructure`` run is
# retried inside the sweep under a new run id; each attempt keeps its row here,
# and the plan entry's result is its last attempt.
_RUN_ATTEMPTS = (
    f"""
    CREATE TABLE run_attempts (
        entry TEXT NOT NULL,
        attempt INTEGER NOT NULL CHECK (attempt >= 1),
        run_id TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN {_in(RUN_STATUSES)}),
        detail TEXT,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (entry, run_id)
    )""",
    "CREATE INDEX idx_run_attempts_run ON run_attempts (run_id)",
)

# Issue 26: each run's cost from the operator's price table (one row per run,
# replaced when it is priced again; ``cost`` NULL with ``priced`` 0 when the
# run's model has no price: "no price", never $0; the run's group is copied
# so that the report's cost per group reads this table's index alone), and the mean check
# similarity's inputs: one row per run and ``[[check]]`` (replaced with its
# validation). Neither points at runs (runs is rebuilt by migrations, as 0005 did).
_RUN_COSTS_AND_CHECK_SCORES = (
    """
    CREATE TABLE run_costs (
        run_id TEXT PRIMARY KEY,
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        variant TEXT NOT NULL,
        harness TEXT NOT NULL,
        model TEXT,
        currency TEXT,
        priced INTEGER NOT NULL CHECK (priced IN (0, 1)),
        cost REAL CHECK (cost IS NULL OR cost >= 0),
        plan_digest TEXT,
        prices_digest TEXT,
        detail TEXT,
        priced_at TEXT NOT NULL
    )""",
    "CREATE INDEX idx_run_costs_plan ON run_costs (plan_digest, cost, priced)",
    # The report's cost per group: a scan of this index alone (no run lookups).
    "CREATE INDEX idx_run_costs_report ON run_costs (case_slug, case_version, variant, harness, model, "
    "currency, priced, cost)",
    """
    CREATE TABLE check_scores (
        run_id TEXT NOT NULL,
        name TEXT NOT NULL,
        seq INTEGER NOT NULL,
        view TEXT,
        similarity REAL CHECK (similarity IS NULL OR (similarity >= -1 AND similarity <= 1)),
        detail TEXT,
        PRIMARY KEY (run_id, name)
    )""",
)

#: How a voxel part scored (tcab.testtypes.asset_voxel_score).
VOXEL_PART_STATUSES = ("regenerated", "empty")
# A voxel run's regeneration (issue 23) is its asset_regenerations row (the
# voxel library's version in draw_version); beside it, one row per part with
# its op, voxel and face counts and whether the run's own mesh has the bytes
# its log regenerates, and one row per required animation with its gap.
_ASSET_VOXEL_PARTS = (
    f"""
    CREATE TABLE asset_voxel_parts (
        run_id TEXT NOT NULL,
        part TEXT NOT NULL,
        seq INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN {_in(VOXEL_PART_STATUSES)}),
        ops INTEGER NOT NULL CHECK (ops >= 0),
        voxels INTEGER NOT NULL CHECK (voxels >= 0),
        faces INTEGER NOT NULL CHECK (faces >= 0),
        mesh_match INTEGER CHECK (mesh_match IS NULL OR mesh_match IN (0, 1)),
        mesh TEXT,
        image TEXT,
        detail TEXT,
        PRIMARY KEY (run_id, part)
    )""",
    """
    CREATE TABLE asset_voxel_animations (
        run_id TEXT NOT NULL,
        name TEXT NOT NULL,
        seq INTEGER NOT NULL,
        present INTEGER NOT NULL CHECK (present IN (0, 1)),
        keyframes INTEGER NOT NULL CHECK (keyframes >= 0),
        gap TEXT,
        PRIMARY KEY (run_id, name)
    )""",
)

# The report's cost per group kept up to date as runs are priced (as
# player_totals keeps the standings): the report reads one row per group, not
# a scan of every run's cost. A group is run_costs' own copy of the run's
# (case, version, variant, harness, model) and its currency; model and
# currency may be NULL, hence IS rather than a unique key. A replaced row
# (INSERT OR REPLACE, as pricing writes) is first deleted here, so its
# delete trigger subtracts it whether or not recursive triggers are on.
_COST_GROUP = ("case_slug IS {row}.case_slug AND case_version IS {row}.case_version AND variant IS {row}.variant "
               "AND harness IS {row}.harness AND model IS {row}.model AND currency IS {row}.currency")
_COST_ADD = f"""
        INSERT INTO run_cost_totals (case_slug, case_version, variant, harness, model, currency,
                                     priced, unpriced, cost)
        SELECT NEW.case_slug, NEW.case_version, NEW.variant, NEW.harness, NEW.model, NEW.currency, 0, 0, 0
        WHERE NOT EXISTS (SELECT 1 FROM run_cost_totals WHERE {_COST_GROUP.format(row="NEW")});
        UPDATE run_cost_totals SET priced = priced + NEW.priced,
            unpriced = unpriced + (NEW.priced = 0), cost = cost + coalesce(NEW.cost, 0)
        WHERE {_COST_GROUP.format(row="NEW")};"""
# Back to exactly 0 when no priced run is left (no float residue shown as a cost).
_COST_SUB = f"""
        UPDATE run_cost_totals SET priced = priced - OLD.priced,
            unpriced = unpriced - (OLD.priced = 0),
            cost = CASE WHEN priced - OLD.priced <= 0 THEN 0 ELSE cost - coalesce(OLD.cost, 0) END
        WHERE {_COST_GROUP.format(row="OLD")};
        DELETE FROM run_cost_totals WHERE priced + unpriced <= 0;"""
_RUN_COST_TOTALS = (
    "DROP INDEX idx_run_costs_report",  # the report's scan of every cost, which this table replaces
    """
    CREATE TABLE run_cost_totals (
        case_slug TEXT NOT NULL,
        case_version TEXT NOT NULL,
        variant TEXT NOT NULL,
        harness TEXT NOT NULL,
        model TEXT,
        currency TEXT,
        priced INTEGER NOT NULL,
        unpriced INTEGER NOT NULL,
        cost REAL NOT NULL
    )""",
    "CREATE INDEX idx_run_cost_totals_group ON run_cost_totals (case_slug, case_version, variant, harness, model, "
    "currency)",
    "CREATE TRIGGER run_costs_bi BEFORE INSERT ON run_costs BEGIN "
    "DELETE FROM run_costs WHERE run_id = NEW.run_id; END",
    f"CREATE TRIGGER run_costs_ai AFTER INSERT ON run_costs BEGIN {_COST_ADD} END",
    f"CREATE TRIGGER run_costs_ad AFTER DELETE ON run_costs BEGIN {_COST_SUB} END",
    f"CREATE TRIGGER run_costs_au AFTER UPDATE ON run_costs BEGIN {_COST_SUB} {_COST_ADD} END",
    """
    INSERT INTO run_cost_totals
    SELECT case_slug, case_version, variant, harness, model, currency, total(priced = 1),
           total(priced = 0), total(cost)
    FROM run_costs GROUP BY 1, 2, 3, 4, 5, 6""",
)

MIGRATIONS: tuple[Migration, ...] = (
    Migration("0001_initial_tables", _INITIAL),
    Migration("0002_report_indexes", _REPORT_INDEXES),
    Migration("0003_report_totals", _REPORT_TOTALS),
    Migration("0004_validations", _VALIDATIONS),
    Migration("0005_run_status_vocabulary", _RUN_STATUS_VOCABULARY),
    Migration("0006_validation_catastrophic", _VALIDATION_VOCABULARY),
    Migration("0007_proofs_and_reviews", _REVIEWS),
    Migration("0008_toolchain_results", _TOOLCHAIN_RESULTS),
    Migration("0009_run_internal_error", _RUN_INTERNAL_ERROR),
    Migration("0010_performance_scores", _PERFORMANCE_SCORES),
    Migration("0011_asset_regenerations", _ASSET_REGENERATIONS),
    Migration("0012_review_categories", _REVIEW_CATEGORIES),
    Migration("0013_run_attempts", _RUN_ATTEMPTS),
    Migration("0014_run_costs_and_check_scores", _RUN_COSTS_AND_CHECK_SCORES),
    Migration("0015_asset_voxel_parts", _ASSET_VOXEL_PARTS),
    Migration("0016_run_cost_totals", _RUN_COST_TOTALS),
)
SCHEMA_VERSION = len(MIGRATIONS)


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What a record dict may hold for one table: its columns, key and required keys."""

    name: str
    columns: tuple[str, ...]
    pk: tuple[str, ...]
    required: tuple[str, ...]
    json_columns: tuple[str, ...] = ()


def _spec(name: str, columns: str, pk: str, required: str = "", json: str = "") -> TableSpec:
    return TableSpec(name, tuple(columns.split()), tuple(pk.split()), tuple(required.split()),
                     tuple(json.split()))


TABLES: dict[str, TableSpec] = {
    spec.name: spec
    for spec in (
        _spec(
            "runs",
            "id case_slug case_version case_type case_digest variant harness harness_version "
            "harness_digest model image image_digest runtime seed_commit status status_detail "
            "started_at finished_at duration_s tokens_input tokens_output tokens_cache_read "
            "tokens_cache_write artifact_digest refused run_dir plan_digest",
            "id", "id case_slug case_version variant harness status", json="refused",
        ),
        _spec("stages", "run_id stage seq status started_at duration_s exit_code detail",
              "run_id stage", "stage"),
        _spec(
            "builds",
            "source case_slug case_version case_digest status module_sha256 module_size "
            "log_excerpt image image_digest source_digest duration_s built_at",
            "source", "source case_slug case_version status",
        ),
        _spec(
            "matches",
            "key case_slug case_version case_digest variant seed ticks winner_seat reason "
            "final_digest replay_path replay_sha256 duration_s played_at",
            "key", "case_slug case_version case_digest variant seed",
        ),
        _spec(
            "match_seats",
            "match_key seat module_sha256 label outcome score forfeit_reason forfeit_tick "
            "fuel_total fuel_peak",
            "match_key seat", "seat module_sha256 outcome",
        ),
        _spec(
            "tournaments",
            "id case_slug case_version case_digest variant structure rounds seed participants "
            "created_at finished_at plan_digest",
            "id", "id case_slug case_version variant", json="participants",
        ),
        _spec("tournament_matches", "tournament_id match_key round pairing",
              "tournament_id match_key round", "match_key round"),
        _spec(
            "ratings",
            "tournament_id module_sha256 label rank rating ci_low ci_high wins draws losses "
            "forfeits",
            "tournament_id label", "module_sha256 label",
        ),
        _spec(
            "validations",
            "run_id case_slug case_version case_digest variant status checks detail screenshots "
            "image_digest duration_s validated_at",
            "run_id", "run_id case_slug case_version variant status", json="checks screenshots",
        ),
        _spec("toolchain_results", "run_id name seq command status exit_code duration_s output detail gates",
              "run_id name", "run_id name command status"),
        _spec("proofs", "run_id proof_id seq name dest kind status size sha256 detail",
              "run_id proof_id", "run_id proof_id dest kind status"),
        _spec(
            "performance_scores",
            "source case_slug case_version case_digest status module_sha256 total_fuel cases score_key "
            "detail duration_s scored_at",
            "source", "source case_slug case_version case_digest status scored_at", json="cases",
        ),
        _spec(
            "asset_regenerations",
            "run_id case_slug case_version case_digest status draw_version version_mismatch flagged regen_key "
            "detail regenerated_at",
            "run_id", "run_id case_slug case_version case_digest status version_mismatch flagged regenerated_at",
        ),
        _spec("run_costs", "run_id case_slug case_version variant harness model currency priced cost plan_digest "
              "prices_digest detail priced_at", "run_id", "run_id case_slug case_version variant harness priced priced_at"),
        _spec("check_scores", "run_id name seq view similarity detail", "run_id name", "run_id name seq"),
        _spec("asset_frames", "run_id frame seq ops divergence flagged image detail",
              "run_id frame", "run_id frame seq ops flagged"),
        _spec("run_attempts", "entry attempt run_id status detail recorded_at",
              "entry run_id", "entry attempt run_id status recorded_at"),
        _spec("asset_voxel_parts", "run_id part seq status ops voxels faces mesh_match mesh image detail",
              "run_id part", "run_id part seq status ops voxels faces"),
        _spec("asset_voxel_animations", "run_id name seq present keyframes gap",
              "run_id name", "run_id name seq present keyframes"),
    )
}
