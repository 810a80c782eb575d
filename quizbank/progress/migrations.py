"""The progress store's schema: one SQL script per version step, applied in order at open.

Each entry moves the schema from version i to i + 1 (`PRAGMA user_version`). Never edit a shipped entry; append
a new one. The connection reads `MIGRATIONS` and `SCHEMA_VERSION` from this module when it opens a store.
"""

from __future__ import annotations

__all__ = ["MIGRATIONS", "REQUIRED_TABLES", "SCHEMA_VERSION", "split_sql"]

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL                       -- JSON
    );
    CREATE TABLE cards (
        question_id TEXT PRIMARY KEY,
        card_json   TEXT NOT NULL,                -- fsrs.Card.to_json()
        state       INTEGER NOT NULL,             -- fsrs.State: 1 learning, 2 review, 3 relearning
        due         TEXT NOT NULL,
        last_review TEXT,
        stability   REAL,
        difficulty  REAL
    );
    CREATE INDEX cards_due ON cards (due);
    CREATE TABLE reviews (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        question_id  TEXT NOT NULL,
        rating       INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
        reviewed_at  TEXT NOT NULL,
        duration_ms  INTEGER,
        state_before INTEGER,                     -- NULL: the card was new
        card_before  TEXT,                        -- NULL: the card was new
        card_after   TEXT NOT NULL,
        UNIQUE (question_id, reviewed_at, rating)
    );
    CREATE INDEX reviews_question ON reviews (question_id, reviewed_at);
    CREATE INDEX reviews_time ON reviews (reviewed_at);
    CREATE TABLE attempts (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        question_id  TEXT NOT NULL,
        correct      INTEGER,                     -- 1, 0, or NULL (self-graded)
        response     TEXT NOT NULL,
        duration_ms  INTEGER,
        attempted_at TEXT NOT NULL,
        UNIQUE (question_id, attempted_at, response)
    );
    CREATE INDEX attempts_time ON attempts (attempted_at);
    """,
    """
    CREATE TABLE drill_attempts (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        drill        TEXT NOT NULL,
        passed       INTEGER NOT NULL,            -- 1 every case passed, 0 otherwise
        cases_passed INTEGER NOT NULL,
        cases_total  INTEGER NOT NULL,
        elapsed_ms   INTEGER,
        attempted_at TEXT NOT NULL
    );
    CREATE INDEX drill_attempts_time ON drill_attempts (attempted_at);
    CREATE TABLE mock_sessions (
        id          TEXT PRIMARY KEY,
        started_at  TEXT NOT NULL,
        minutes     INTEGER NOT NULL,
        level       TEXT NOT NULL,
        language    TEXT NOT NULL,
        ended_early INTEGER NOT NULL,
        score       REAL,                         -- 0..1, NULL when nothing was graded
        report_json TEXT NOT NULL                 -- the whole report (items, timings, grades)
    );
    CREATE INDEX mock_sessions_time ON mock_sessions (started_at);
    CREATE TABLE question_marks (
        question_id TEXT PRIMARY KEY,
        flagged     INTEGER NOT NULL DEFAULT 0,
        note        TEXT NOT NULL DEFAULT '',
        updated_at  TEXT NOT NULL
    );
    """,
    """
    CREATE TABLE id_migrations (
        old_id     TEXT PRIMARY KEY,              -- a merged-away question id
        new_id     TEXT NOT NULL,                 -- the question replacing it
        applied_at TEXT NOT NULL                  -- when this store first moved history old -> new
    );
    """,
    # a generated question's showing (quizbank/generated/instances.py): JSON {"seed": N, "params": {...}}; NULL otherwise
    """
    ALTER TABLE attempts ADD COLUMN instance TEXT;
    ALTER TABLE reviews ADD COLUMN instance TEXT;
    """,
    # typed answers to open questions with the judge's verdict per key point (progress/typed_answers.py)
    """
    CREATE TABLE typed_answers (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        question_id TEXT NOT NULL,
        answered_at TEXT NOT NULL,
        source      TEXT NOT NULL,                -- quiz, study or mock
        answer      TEXT NOT NULL,                -- what the candidate typed
        points_json TEXT NOT NULL,                -- per key point: {"verdict", "mark", "evidence", "rule"}
        UNIQUE (question_id, answered_at, answer)
    );
    CREATE INDEX typed_answers_question ON typed_answers (question_id, answered_at);
    """,
    # FSRS-6 parameters fitted to this store's reviews (`posenc progress optimize`, progress/fitted.py)
    """
    CREATE TABLE fitted_parameters (
        id          INTEGER PRIMARY KEY CHECK (id = 1),  -- one row: the parameters the scheduler uses
        parameters  TEXT NOT NULL,                -- JSON list of the 21 FSRS-6 weights w0..w20
        fitted_at   TEXT NOT NULL,
        reviews     INTEGER NOT NULL,             -- reviews the fit read
        report_json TEXT NOT NULL                 -- the fit's figures before and after (JSON object)
    );
    """,
    # Study cards no bank holds (the Demo lab's predictions, `own_cards.py`): the question as JSON
    """
    CREATE TABLE own_cards (
        question_id   TEXT PRIMARY KEY,
        topic         TEXT NOT NULL,
        question_json TEXT NOT NULL,
        created_at    TEXT NOT NULL
    );
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
REQUIRED_TABLES = frozenset(
    {
        "settings",
        "cards",
        "reviews",
        "attempts",
        "drill_attempts",
        "mock_sessions",
        "question_marks",
        "id_migrations",
        "typed_answers",
        "fitted_parameters",
        "own_cards",
    }
)


def split_sql(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]
