"""Progress backups, format version 2 (docs/backup.md): a restore is exact (a hypothesis property over stores
the app can produce), merges are idempotent and keep both sides, version 1 files from the earlier format still
import, and bad input exits 2 naming the record."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quizbank.progress.backup import (
    BackupError,
    backup_json,
    decode_backup_json,
    export_backup,
    import_backup,
    parse_backup,
)
from quizbank.progress.own_cards import question_text
from quizbank.progress.records import POINT_STATES, PointMark
from quizbank.progress.scheduler import DEFAULT_PARAMETERS, Rating, State
from quizbank.progress.store import DB_NAME, StoreError, open_store
from quizbank.safetext import UNSAFE_RE
from tui.cli import main

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
SHOWN = {"seed": 190211, "params": {"head": 1, "n_heads": 8, "base": 10000.0, "scheme": "rope"}}
IDS = ("q.alpha", "q.beta", "q.gamma", "drill:alibi-slopes", "q.old")
SAFE_ZH = "误差 5% 以内。"
# A Demo lab prediction kept as a Study card (quizbank.predictions): the store keeps its question as given.
OWN_CARD = {
    "id": "predict.alibi-slopes.0123456789",
    "type": "numeric",
    "prompt": {
        "en": "Demo alibi-slopes (n_heads=8): predict the value first_slope. Within 5%.",
        "zh": "预测",
    },
    "value": 0.5,
    "tolerance": 0.025,
    "tags": ["prediction", "alibi"],
}
# Row ids of AUTOINCREMENT tables are the store's own numbering, not data: a restore renumbers them.
ROW_ID_TABLES = ("reviews", "attempts", "drill_attempts", "typed_answers")


pytestmark = pytest.mark.usefixtures("env")  # data and user banks in tmp_path (conftest)


def table_rows(folder: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (less AUTOINCREMENT row ids), sorted: what 'the same store' means."""
    conn = sqlite3.connect(folder / DB_NAME)
    try:
        tables = [
            name
            for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            if name != "sqlite_sequence"
        ]
        out = {}
        for table in tables:
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            if table in ROW_ID_TABLES:
                columns.remove("id")
            rows = conn.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
            out[table] = sorted(rows, key=repr)
        return out
    finally:
        conn.close()


def exported(folder: Path, **options: Any) -> dict[str, Any]:
    with open_store(folder) as store:
        data = export_backup(store, **options)
    data.pop("exported_at")
    return data


# ---------------------------------------------------------------------------------------------------- the property

SAFE_TEXT = st.text(
    st.characters(blacklist_categories=("Cs", "Cc", "Cf"), blacklist_characters="\x85")
    | st.sampled_from("\n\t"),
    max_size=40,
)
JSON_LEAF = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False, allow_infinity=False)
    | SAFE_TEXT
)
# The fields every report has (quizbank.mock.report_shape), under any other JSON a later posenc may add.
REPORT = {"id": "s", "started_at": "2025-03-01T09:00:00+00:00", "minutes": 30, "level": "basic",
          "ended_early": False, "score": None, "elapsed_seconds": 0.0, "items": [], "by_topic": {},
          "by_skill": {}, "weakest_topics": []}  # fmt: skip
REPORTS = st.dictionaries(
    SAFE_TEXT,
    st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(SAFE_TEXT, inner, max_size=3),
                 max_leaves=12),
    max_size=5,
).map(lambda extra: {**extra, **REPORT})  # fmt: skip
# A generated question's showing, as the app records it (`instance=` of review / record_attempt).
INSTANCES = st.none() | st.fixed_dictionaries(
    {
        "seed": st.integers(1, 2**31 - 1),
        "params": st.dictionaries(
            st.from_regex(r"[a-z_][a-z0-9_]{0,11}", fullmatch=True),
            st.integers(-(10**9), 10**9)
            | st.floats(-1e12, 1e12, allow_nan=False)
            | st.booleans()
            | SAFE_TEXT,
            max_size=4,
        ),
    }
)
QIDS = st.sampled_from(IDS)
DURATIONS = st.none() | st.integers(0, 86_400_000)
STEP = st.integers(1, 60 * 24 * 40)  # minutes since the previous action: the app's clock moves forward

# A key point of a typed answer as the app keeps it: the judge's verdict, the candidate's mark, the evidence.
POINTS = st.builds(
    PointMark, st.sampled_from(POINT_STATES), st.sampled_from(POINT_STATES), SAFE_TEXT, SAFE_TEXT
)

ACTIONS = st.one_of(
    st.tuples(st.just("review"), QIDS, st.sampled_from(list(Rating)), DURATIONS, INSTANCES, STEP),
    st.tuples(st.just("quiz"), QIDS, st.none() | st.booleans(), SAFE_TEXT, DURATIONS, INSTANCES, STEP),
    st.tuples(st.just("drill"), st.sampled_from(("alibi-slopes", "rope-rotate")), st.booleans(),
              st.integers(0, 9), DURATIONS, STEP),
    st.tuples(st.just("mock"), st.integers(0, 3), st.integers(5, 180), st.sampled_from(("basic", "deep")),
              st.sampled_from(("en", "zh")), st.booleans(), st.none() | st.floats(0, 1), REPORTS, STEP),
    st.tuples(st.just("due"), st.lists(QIDS, max_size=3), STEP),
    st.tuples(st.just("mark"), QIDS, st.none() | st.booleans(), st.none() | SAFE_TEXT),
    st.tuples(st.just("setting"), st.sampled_from((("new_per_day", 7), ("desired_retention", 0.85),
              ("language", "zh"), ("enable_fuzzing", False), ("keymap", {"posenc.study.undo": "z"})))),
    st.tuples(st.just("typed"), QIDS, st.sampled_from(("quiz", "study", "mock")),
              SAFE_TEXT.filter(str.strip), st.lists(POINTS, max_size=4), STEP),
    st.tuples(st.just("fit"), st.floats(0.1, 0.8), st.integers(0, 10**6), STEP),
    st.tuples(st.just("undo")),
    st.tuples(st.just("migrate"), st.sampled_from((("q.old", "q.alpha"), ("q.gamma", "q.beta")))),
    st.tuples(st.just("own"), st.sampled_from((OWN_CARD, {**OWN_CARD, "id": "predict.x.1", "zh": SAFE_ZH})),
              st.sampled_from(("alibi", ""))),
)  # fmt: skip


def play(folder: Path, actions: list[tuple[Any, ...]]) -> None:
    """Apply what the app does (Study, Quiz, Drill, Mock, marks, settings, undo, bank id merges) to a store.
    After a bank merges an id away, the app never shows the old id again: later actions use the new one."""
    now = T0
    replaced: dict[str, str] = {}
    with open_store(folder) as store:
        for action in actions:
            kind, *args = action
            if kind in ("review", "quiz", "mark", "typed"):
                args[0] = replaced.get(args[0], args[0])
            elif kind == "due":
                args[0] = [replaced.get(qid, qid) for qid in args[0]]
            if kind in ("review", "quiz", "drill", "mock", "due", "typed", "fit"):
                now += timedelta(minutes=args[-1])
            if kind == "review":
                qid, rating, duration, instance, _ = args
                store.review(qid, rating, now, duration_ms=duration, instance=instance)
            elif kind == "quiz":
                qid, correct, response, duration, instance, _ = args
                store.record_attempt(qid, correct, response, duration, now, instance=instance)
                if correct is False:  # the app: wrong = Again, with the numbers shown
                    store.review(qid, Rating.Again, now, duration_ms=duration, instance=instance)
            elif kind == "drill":
                name, passed, cases, elapsed, _ = args
                store.record_drill_attempt(name, passed, cases if not passed else 9, 9, elapsed, now)
            elif kind == "mock":
                n, minutes, level, language, early, score, report, _ = args
                store.save_mock_session(f"s{n}", now, minutes, level, language, early, score, report)
            elif kind == "due":
                store.make_due_now(args[0], now)
            elif kind == "fit":  # `posenc progress optimize` kept a fit (its decay w20 drawn here)
                decay, reviews, _ = args
                store.save_fitted((*DEFAULT_PARAMETERS[:20], decay), reviews, {"reason": "fitted"}, now)
            elif kind == "typed":
                qid, source, answer, points, _ = args
                store.record_typed_answer(qid, answer, points, source, now)
            elif kind == "mark":
                qid, flagged, note = args
                store.set_question_mark(qid, flagged=flagged, note=note)
            elif kind == "setting":
                store.set_setting(*args[0])
            elif kind == "undo":
                with contextlib.suppress(StoreError):  # e.g. the card was made due since: the app says so
                    store.undo_last()
            elif kind == "own":
                question, topic = args
                store.add_own_cards([(question["id"], topic, question_text(question))], now)
            elif kind == "migrate":
                old, new = args[0]
                new = replaced.get(new, new)
                replaced[old] = new
                store.migrate_replaced_ids({old: new})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(actions=st.lists(ACTIONS, max_size=25))
def test_a_restore_is_exact_and_a_second_import_changes_nothing(tmp_path_factory, actions) -> None:
    """Property: any store the app can produce, exported and imported into an empty data folder, exports again
    to the same JSON (less the export time) and has the same rows in every table; importing again changes
    nothing."""
    root = tmp_path_factory.mktemp("roundtrip")
    play(root / "old", actions)
    with open_store(root / "old") as store:
        text = backup_json(export_backup(store))
    first = json.loads(text)
    with open_store(root / "new") as store:
        import_backup(store, decode_backup_json(text))
    again = exported(root / "new")
    first.pop("exported_at")
    assert again == first
    assert table_rows(root / "new") == table_rows(root / "old")
    with open_store(root / "new") as store:
        report = import_backup(store, decode_backup_json(text))
    assert report.reviews_added == report.attempts_added == report.cards_added == report.cards_rebuilt == 0
    assert report.drill_attempts_added == report.mock_sessions_added == report.marks_changed == 0
    assert table_rows(root / "new") == table_rows(root / "old")


# ---------------------------------------------------------------------------------------------------- the walk


def walk(folder: Path) -> None:
    """The candidate's walk: quiz answers (two wrong), two typed answers to an open question, a flag, a note, a
    drill, two mock interviews whose missed items were added to Study, one setting, a fit of FSRS parameters, a prediction saved from the Demo lab."""
    play(
        folder,
        [
            ("quiz", "q.alpha", False, "B", 4000, None, 1),
            ("quiz", "q.beta", False, "C", 3000, None, 1),
            ("quiz", "q.gamma", True, "A", 2000, None, 1),
            (
                "typed",
                "q.gamma",
                "quiz",
                "RoPE rotates q and k",
                [PointMark("covered", "covered", "rotates")],
                1,
            ),
            (
                "typed",
                "q.gamma",
                "study",
                "它旋转 q 和 k\nnot v",
                [PointMark("not_found", "covered")],
                60 * 24,
            ),
            ("mark", "q.gamma", True, None),
            ("mark", "q.beta", None, "NTK vs YaRN: ask"),
            ("drill", "alibi-slopes", False, 3, 900, 5),
            ("drill", "alibi-slopes", True, 9, 700, 5),
            ("mock", 1, 30, "basic", "en", False, 0.5, {**REPORT, "id": "s1", "missed": ["q.delta"]}, 60),
            ("due", ["q.delta"], 1),
            ("mock", 2, 20, "deep", "zh", True, None, {**REPORT, "id": "s2", "missed": []}, 60),
            ("setting", ("new_per_day", 12)),
            ("fit", 0.3, 1200, 1),
            ("own", OWN_CARD, "alibi"),
        ],
    )


def test_the_walk_restores_every_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    walk(tmp_path / "old")
    backup = tmp_path / "backup.json"
    assert main(["--data-dir", str(tmp_path / "old"), "progress", "export", "--out", str(backup)]) == 0
    assert (
        "wrote 4 cards, 2 reviews, 3 attempts, 2 drill attempts, 2 mock sessions, 2 marks, 0 id migrations, "
        "2 typed answers, 1 own cards, 1 settings"
    ) in capsys.readouterr().err
    assert main(["--data-dir", str(tmp_path / "new"), "progress", "import", str(backup)]) == 0
    out = capsys.readouterr().out
    assert "imported 2 reviews (0 already present), 3 attempts; rebuilt 0 cards; 4 cards taken" in out
    assert (
        "2 drill attempts; 2 mock interviews; 2 flags/notes; 2 typed answers; 1 own cards; 1 settings" in out
    )
    assert out.rstrip().endswith("; the fitted FSRS parameters")
    old, new = table_rows(tmp_path / "old"), table_rows(tmp_path / "new")
    assert new == old
    counts = {table: len(rows) for table, rows in new.items()}
    assert counts == {
        "attempts": 3,
        "cards": 4,  # q.alpha, q.beta (wrong: Again reviews), q.delta (mock: added), drill:alibi-slopes
        "drill_attempts": 2,
        "fitted_parameters": 1,
        "id_migrations": 0,
        "mock_sessions": 2,
        "own_cards": 1,  # the prediction, with its question
        "question_marks": 2,
        "reviews": 2,
        "settings": 1,
        "typed_answers": 2,
    }
    with open_store(tmp_path / "new") as store:
        assert store.question_marks() == {"q.gamma": (True, ""), "q.beta": (False, "NTK vs YaRN: ask")}
        assert [s["id"] for s in store.mock_sessions()] == ["s1", "s2"]
        assert store.fitted().parameters[20] == 0.3 and store.fitted().reviews == 1200
        typed = store.typed_answers("q.gamma")
        assert [(t.source, t.answer, t.covered) for t in typed] == [
            ("quiz", "RoPE rotates q and k", 1),
            ("study", "它旋转 q 和 k\nnot v", 1),
        ]
        assert typed[0].points == (PointMark("covered", "covered", "rotates"),)
        assert store.card("q.delta").state == State.Learning and store.card("drill:alibi-slopes") is not None
        assert json.loads(store.own_card(OWN_CARD["id"])) == OWN_CARD


def test_no_settings_leaves_them_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    walk(tmp_path / "old")
    assert main(["--data-dir", str(tmp_path / "old"), "progress", "export", "--no-settings"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "settings" not in data and len(data["cards"]) == 4
    backup = tmp_path / "b.json"
    backup.write_text(backup_json({**exported(tmp_path / "old"), "exported_at": "2025-03-01T00:00:00+00:00"}))
    assert (
        main(["--data-dir", str(tmp_path / "new"), "progress", "import", "--no-settings", str(backup)]) == 0
    )
    with open_store(tmp_path / "new") as store:
        assert store.stored_settings() == {} and len(store.cards()) == 4


# ---------------------------------------------------------------------------------------------------- merging


def test_merging_into_a_store_with_history_keeps_both_without_duplicates(tmp_path: Path) -> None:
    play(tmp_path / "laptop", [("review", "q.alpha", Rating.Good, None, SHOWN, 1), ("review", "q.beta", Rating.Good, 1, None, 1),
                               ("mark", "q.alpha", True, "from the laptop"), ("drill", "rope-rotate", True, 9, 5, 2)])  # fmt: skip
    play(tmp_path / "desktop", [("review", "q.alpha", Rating.Hard, None, None, 3000), ("due", ["q.gamma"], 1),
                                ("mark", "q.alpha", False, "from the desktop")])  # fmt: skip
    with open_store(tmp_path / "laptop") as store:
        backup = export_backup(store)
    with open_store(tmp_path / "desktop") as store:
        first = import_backup(store, backup)
        rows = table_rows(tmp_path / "desktop")
        second = import_backup(store, backup)
        assert table_rows(tmp_path / "desktop") == rows  # twice changes nothing
        # q.beta and the drill card exist only on the laptop: taken as they were
        assert (first.reviews_added, first.cards_rebuilt, first.cards_added) == (2, 1, 2)
        assert (second.reviews_added, second.reviews_skipped, second.cards_added) == (0, 2, 0)
        # q.alpha: reviews from both sides, in time order, and the card replays them all (each review keeps
        # the numbers its generated question showed)
        assert [(r.question_id, int(r.rating), r.instance) for r in store.review_rows()] == [
            ("q.alpha", 3, SHOWN),
            ("q.beta", 3, None),
            ("q.alpha", 2, None),
        ]
        assert store.card("q.alpha").last_review == T0 + timedelta(minutes=3000)
        # q.beta only on the laptop: its card exactly; q.gamma only here (no review): kept
        [beta] = [card for card in backup["cards"] if card["question_id"] == "q.beta"]
        assert store.card_json("q.beta") == json.dumps(
            {k: v for k, v in beta.items() if k not in ("question_id", "reps", "lapses")}
        )
        assert store.card("q.gamma") is not None
        # the mark set last wins (the desktop's was set after the laptop's)
        assert store.question_marks()["q.alpha"] == (False, "from the desktop")
        assert len(store.drill_attempts()) == 1


def test_a_backup_with_old_ids_lands_on_the_replacement(tmp_path: Path) -> None:
    play(tmp_path / "old", [("review", "q.old", Rating.Good, None, None, 1), ("mark", "q.old", True, None)])
    with open_store(tmp_path / "old") as store:
        backup = export_backup(store)  # taken before the bank merged q.old into q.alpha
    play(tmp_path / "new", [("migrate", ("q.old", "q.alpha"))])
    with open_store(tmp_path / "new") as store:
        import_backup(store, backup)
        assert [r.question_id for r in store.review_rows()] == ["q.alpha"]
        assert store.card("q.old") is None and store.card("q.alpha") is not None
        assert store.question_marks() == {"q.alpha": (True, "")}
        assert [(old, new) for old, new, _ in store.id_migrations()] == [("q.old", "q.alpha")]


# ---------------------------------------------------------------------------------------------------- version 1

# What `posenc progress export` wrote before version 2 (format version 1), verbatim in shape.
V1_BACKUP = {
    "format": "posenc-progress",
    "version": 1,
    "exported_at": "2025-03-02T08:00:00.000000+00:00",
    "settings": {"new_per_day": 9},
    "cards": [
        {"question_id": "q.alpha", "state": 2, "step": None, "stability": 3.17, "difficulty": 5.3,
         "due": "2025-03-04T09:10:00.000000+00:00", "last_review": "2025-03-01T09:10:00.000000+00:00",
         "reps": 2, "lapses": 0},
        {"question_id": "q.delta", "state": 1, "step": 0, "stability": None, "difficulty": None,
         "due": "2025-03-01T10:00:00.000000+00:00", "last_review": None, "reps": 0, "lapses": 0},
    ],
    "reviews": [
        {"question_id": "q.alpha", "rating": 3, "reviewed_at": "2025-03-01T09:00:00.000000+00:00",
         "duration_ms": 2000},
        {"question_id": "q.alpha", "rating": 3, "reviewed_at": "2025-03-01T09:10:00.000000+00:00",
         "duration_ms": 1500},
    ],
    "attempts": [
        {"question_id": "q.alpha", "correct": True, "response": "A", "duration_ms": 900,
         "attempted_at": "2025-03-01T09:00:00.000000+00:00"},
    ],
}  # fmt: skip


def test_version_1_files_still_import(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(V1_BACKUP), encoding="utf-8")
    for _ in range(2):
        assert main(["--data-dir", str(tmp_path / "data"), "progress", "import", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "imported 2 reviews (0 already present), 1 attempts; rebuilt 1 cards; 1 cards taken as they were; 1 settings"
    )
    assert out[1] == "imported 0 reviews (2 already present), 0 attempts; rebuilt 0 cards"
    with open_store(tmp_path / "data") as store:
        # q.alpha is replayed from its two Good reviews; q.delta (no review, step 0) is kept as it was
        replay = open_store(tmp_path / "replay")
        replay.review("q.alpha", 3, T0, duration_ms=1)
        replay.review("q.alpha", 3, T0 + timedelta(minutes=10), duration_ms=1)
        assert store.card_json("q.alpha") == replay.card_json("q.alpha")
        replay.close()
        assert store.card("q.delta").step == 0 and store.card("q.delta").state == State.Learning
        assert store.get_setting("new_per_day") == 9 and len(store.attempts()) == 1


# ---------------------------------------------------------------------------------------------------- bad input


def test_a_number_of_5000_digits_exits_2_naming_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(json.dumps(V1_BACKUP))
    path = tmp_path / "huge.json"
    text = json.dumps(data).replace('"rating": 3, "reviewed_at": "2025-03-01T09:10', '"rating": ' + "9" * 5000
                                    + ', "reviewed_at": "2025-03-01T09:10')  # fmt: skip
    path.write_text(text, encoding="utf-8")
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "reviews[1].rating" in err and "a number of 5,000 digits" in err
    assert not (tmp_path / "data").exists()  # refused before the store was opened


@pytest.mark.parametrize(
    ("record", "where"),
    [
        ({"marks": [{"question_id": "q", "flagged": "yes", "note": "", "updated_at": "2025-01-01T00:00:00+00:00"}]},
         "marks[0].flagged"),
        ({"marks": [{"question_id": "q", "flagged": True, "note": "a\x1bb", "updated_at": "2025-01-01T00:00:00+00:00"}]},
         "marks[0].note"),
        ({"drill_attempts": [{"drill": "x", "passed": True, "cases_passed": -1, "cases_total": 2, "elapsed_ms": 1,
                              "attempted_at": "2025-01-01T00:00:00+00:00"}]}, "drill_attempts[0].cases_passed"),
        ({"mock_sessions": [{"id": "s", "started_at": "2025-01-01T00:00:00+00:00", "minutes": 30, "level": "basic",
                             "language": "en", "ended_early": False, "score": 2, "report": {}}]},
         "mock_sessions[0].score"),
        ({"mock_sessions": [{"id": "s", "started_at": "2025-01-01T00:00:00+00:00", "minutes": 30, "level": "basic",
                             "language": "en", "ended_early": False, "score": None,
                             "report": {"items": [{"answer": "\u202e"}]}}]},
         "mock_sessions[0].report.items[0].answer"),
        ({"mock_sessions": [{"id": "s", "started_at": "2025-01-01T00:00:00+00:00", "minutes": 30, "level": "basic",
                             "language": "en", "ended_early": False, "score": None, "report": {}}]},
         "mock_sessions[0].report: the field 'id' is missing"),
        ({"mock_sessions": [{"id": "s", "started_at": "2025-01-01T00:00:00+00:00", "minutes": 30, "level": "basic",
                             "language": "en", "ended_early": False, "score": None,
                             "report": {**REPORT, "items": [{"id": "q"}]}}]},
         "mock_sessions[0].report.items[0]: the field 'kind' is missing"),
        ({"mock_sessions": [{"id": "s", "started_at": "2025-01-01T00:00:00+00:00", "minutes": 30, "level": "basic",
                             "language": "en", "ended_early": False, "score": None,
                             "report": {**REPORT, "weakest_topics": ["rope"]}}]},
         "mock_sessions[0].report.weakest_topics: must be a list of topics in by_topic"),
        ({"id_migrations": [{"old_id": "", "new_id": "b", "applied_at": "2025-01-01T00:00:00+00:00"}]},
         "id_migrations[0].old_id"),
        ({"reviews": [{"question_id": "q", "rating": 3, "reviewed_at": "2025-01-01T00:00:00+00:00",
                       "duration_ms": 1, "state_before": None, "card_before": None,
                       "card_after": {"state": 7, "due": "2025-01-02T00:00:00+00:00"}}]},
         "reviews[0].card_after.state"),
        ({"typed_answers": [{"question_id": "q", "answered_at": "2025-01-01T00:00:00+00:00", "source": "exam",
                             "answer": "a", "points": []}]}, "typed_answers[0].source"),
        ({"typed_answers": [{"question_id": "q", "answered_at": "2025-01-01T00:00:00+00:00", "source": "quiz",
                             "answer": " ", "points": []}]}, "typed_answers[0].answer: must not be empty"),
        ({"typed_answers": [{"question_id": "q", "answered_at": "2025-01-01T00:00:00+00:00", "source": "quiz",
                             "answer": "a", "points": [{"verdict": "covered", "mark": "maybe"}]}]},
         "typed_answers[0].points[0].mark"),
        ({"typed_answers": [{"question_id": "q", "answered_at": "2025-01-01T00:00:00+00:00", "source": "mock",
                             "answer": "a", "points": [{"verdict": "covered", "mark": "covered",
                                                        "evidence": "\u202e"}]}]},
         "typed_answers[0].points[0].evidence"),
    ],
)  # fmt: skip
def test_version_2_records_are_checked_and_named(tmp_path: Path, record: dict, where: str) -> None:
    data = {"format": "posenc-progress", "version": 2, "cards": [], "reviews": [], **record}
    with pytest.raises(BackupError) as info:
        parse_backup(data)
    assert where in str(info.value) and len(str(info.value).splitlines()) == 1


def test_the_backup_file_shows_no_control_character(tmp_path: Path) -> None:
    """Text an older posenc may have stored raw (a C1 CSI, ESC, a bidi override) is written as JSON escapes: the
    file is safe to `cat`, and the data reads back unchanged."""
    folder = tmp_path / "data"
    with open_store(folder) as store:
        store.record_attempt("q.alpha", None, "x\x9b2J\x1b[31m\u202e", 10, T0)
        text = backup_json(export_backup(store))
    assert UNSAFE_RE.search(text) is None
    assert json.loads(text)["attempts"][0]["response"] == "x\x9b2J\x1b[31m\u202e"


# ---------------------------------------------------------------------------------------------------- instances


def _v2(**records: Any) -> dict[str, Any]:
    return {"format": "posenc-progress", "version": 2, "cards": [], "reviews": [], **records}


def _attempt(instance: Any) -> dict[str, Any]:
    return {"question_id": "live.slope", "correct": True, "response": "0.0625", "duration_ms": 10,
            "attempted_at": "2025-01-01T00:00:00+00:00", "instance": instance}  # fmt: skip


def test_a_hostile_instance_exits_2_naming_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Control characters in a parameter and a number far too big: refused with one line, before the store opens."""
    hostile = {"seed": 3, "params": {"label": "a\x1b[2J\x9bb\u202e", "n": 10**90}}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(_v2(attempts=[_attempt(None), _attempt(hostile)])), encoding="utf-8")
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and UNSAFE_RE.search(err) is None
    assert "attempts[1].instance.params.label: contains" in err
    assert "attempts[1].instance.params.n: must be a finite number up to 1e+18" in err
    assert "attempts[0]" not in err
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize(
    ("instance", "where"),
    [
        ({"seed": -1, "params": {}}, "instance.seed"),
        ({"seed": 2**31, "params": {}}, "instance.seed"),
        ({"seed": True, "params": {}}, "instance.seed"),
        ({"seed": "7", "params": {}}, "instance.seed"),
        ({"params": {}}, "instance.seed"),
        ({"seed": 1}, "instance.params"),
        ({"seed": 1, "params": [1, 2]}, "instance.params"),
        ({"seed": 1, "params": {f"p{i}": i for i in range(65)}}, "instance.params"),
        ({"seed": 1, "params": {"n": [1, 2]}}, "instance.params.n"),
        ({"seed": 1, "params": {"n": {"deep": 1}}}, "instance.params.n"),
        ({"seed": 1, "params": {"n": None}}, "instance.params.n"),
        ({"seed": 1, "params": {"n": float("nan")}}, "instance.params.n"),
        ({"seed": 1, "params": {"n": -1e19}}, "instance.params.n"),
        ({"seed": 1, "params": {"n": "x" * 1001}}, "instance.params.n"),
        ({"seed": 1, "params": {"a\u202eb": 1}}, "instance.params key"),
        ({"seed": 1, "params": {"": 1}}, "instance.params key"),
        ({"seed": 1, "params": {}, "answer": 3}, "instance: unexpected key 'answer'"),
        ([1, 2], "instance: must be an object"),
        ("seed=1", "instance: must be an object"),
    ],
)
def test_malformed_instances_are_named(instance: Any, where: str) -> None:
    review = {"question_id": "live.slope", "rating": 3, "reviewed_at": "2025-01-01T00:00:00+00:00",
              "duration_ms": 1, "state_before": None, "card_before": None,
              "card_after": {"state": 1, "due": "2025-01-02T00:00:00+00:00"}, "instance": instance}  # fmt: skip
    for data, record in (
        (_v2(attempts=[_attempt(instance)]), "attempts[0]"),
        (_v2(reviews=[review]), "reviews[0]"),
    ):
        with pytest.raises(BackupError) as info:
            parse_backup(data)
        assert f"{record}.{where}" in str(info.value) and len(str(info.value).splitlines()) == 1


def test_a_huge_seed_is_named_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "seed.json"
    path.write_text(json.dumps(_v2(attempts=[_attempt({"seed": 1, "params": {}})])).replace(
        '"seed": 1', '"seed": ' + "9" * 5000), encoding="utf-8")  # fmt: skip
    assert main(["--data-dir", str(tmp_path / "data"), "progress", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "attempts[0].instance.seed" in err and "a number of 5,000 digits" in err


def test_the_seed_range_is_the_apps() -> None:
    from quizbank.generated.instances import MAX_SEED
    from quizbank.progress.backup_check import MAX_INSTANCE_SEED

    assert MAX_INSTANCE_SEED == MAX_SEED


def test_files_without_instance_keys_import_as_null(tmp_path: Path) -> None:
    """A version 2 file written before the store kept instances has no `instance` key: it imports, null."""
    play(tmp_path / "old", [("quiz", "q.alpha", False, "B", 4000, SHOWN, 1)])
    with open_store(tmp_path / "old") as store:
        data = export_backup(store)
    assert data["attempts"][0]["instance"] == data["reviews"][0]["instance"] == SHOWN
    for record in data["attempts"] + data["reviews"]:
        del record["instance"]
    with open_store(tmp_path / "new") as store:
        report = import_backup(store, json.loads(json.dumps(data)))
        assert (report.reviews_added, report.attempts_added) == (1, 1)
        assert [a.instance for a in store.attempts()] == [r.instance for r in store.review_rows()] == [None]
        assert export_backup(store)["attempts"][0]["instance"] is None  # written as null, never left out
    with open_store(tmp_path / "v1") as store:
        import_backup(store, V1_BACKUP)
        assert [a.instance for a in store.attempts()] == [None]
        assert {r.instance for r in store.review_records()} == {None}


def test_the_store_reads_instances_back(tmp_path: Path) -> None:
    """Every read query returns the showing as it was recorded: attempts, last_attempt, review_rows and
    review_records (what export reads)."""
    with open_store(tmp_path / "data") as store:
        store.record_attempt("live.slope", True, "0.0625", 900, T0, instance=SHOWN)
        store.record_attempt("q.alpha", False, "B", 900, T0 + timedelta(minutes=1))
        store.review("live.slope", Rating.Good, T0, duration_ms=900, instance=SHOWN)
        assert [a.instance for a in store.attempts()] == [SHOWN, None]
        assert store.last_attempt("live.slope").instance == SHOWN
        assert store.last_attempt("q.alpha").instance is None
        assert [r.instance for r in store.review_rows()] == [SHOWN]
        assert [r.instance for r in store.review_records()] == [SHOWN]
