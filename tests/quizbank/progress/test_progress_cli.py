"""`posenc progress export | import | orphans | stats`: round trips, merging, malformed backups, errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from support.export_bank import main, write_fixture_bank

from quizbank.progress.backup import BackupError, export_backup, import_backup, parse_backup
from quizbank.progress.scheduler import Rating
from quizbank.progress.store import open_store

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


pytestmark = pytest.mark.usefixtures("env")  # data and user banks in tmp_path (conftest)


def _seed(folder, offset_days: int = 0, ids=("fx.mcq", "fx.tf", "gone.q")):
    with open_store(folder) as store:
        store.set_setting("enable_fuzzing", False)
        for i, qid in enumerate(ids):
            at = T0 + timedelta(days=offset_days, minutes=i)
            store.review(qid, Rating.Good, at, duration_ms=2000)
            store.review(qid, Rating.Good, at + timedelta(minutes=10), duration_ms=1500)
        store.record_attempt(ids[0], True, "A", 900, T0 + timedelta(days=offset_days))


def _dump(folder) -> dict:
    with open_store(folder) as store:
        data = export_backup(store, now=T0)
        conn_rows = store._read(lambda c: c.execute("SELECT * FROM reviews ORDER BY id").fetchall())
        cards = store._read(lambda c: c.execute("SELECT * FROM cards ORDER BY question_id").fetchall())
    return {"backup": data, "reviews": conn_rows, "cards": cards}


def test_export_to_stdout_has_the_documented_shape(tmp_path, capsys):
    _seed(tmp_path / "a")
    assert main(["--data-dir", str(tmp_path / "a"), "progress", "export"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 2 and data["format"] == "posenc-progress"
    assert len(data["reviews"]) == 6 and len(data["cards"]) == 3 and len(data["attempts"]) == 1
    assert set(data["reviews"][0]) == {
        "question_id",
        "rating",
        "reviewed_at",
        "duration_ms",
        "state_before",
        "card_before",
        "card_after",
        "instance",  # null: not a generated question
    }
    assert set(data["attempts"][0]) == {
        "question_id",
        "correct",
        "response",
        "duration_ms",
        "attempted_at",
        "instance",
    }
    first = {k: v for k, v in data["reviews"][0].items() if k != "card_after"}
    assert first == {
        "question_id": "fx.mcq",
        "rating": 3,
        "reviewed_at": "2025-03-01T09:00:00.000000+00:00",
        "duration_ms": 2000,
        "state_before": None,  # a new card
        "card_before": None,
        "instance": None,
    }
    assert data["reviews"][0]["card_after"]["last_review"] == "2025-03-01T09:00:00+00:00"
    for key in ("drill_attempts", "mock_sessions", "marks", "id_migrations"):
        assert data[key] == []
    card = next(c for c in data["cards"] if c["question_id"] == "fx.mcq")
    assert card["state"] == 2 and card["reps"] == 2 and card["lapses"] == 0
    assert data["settings"] == {"enable_fuzzing": False}  # only what was set, never the defaults


def test_export_import_round_trip_rebuilds_identical_state(tmp_path, capsys):
    _seed(tmp_path / "a")
    backup = tmp_path / "backup.json"
    assert main(["--data-dir", str(tmp_path / "a"), "progress", "export", "--out", str(backup)]) == 0
    assert "wrote 3 cards, 6 reviews, 1 attempts, 0 drill attempts" in capsys.readouterr().err
    assert main(["--data-dir", str(tmp_path / "b"), "progress", "import", str(backup)]) == 0
    assert (
        "imported 6 reviews (0 already present), 1 attempts; rebuilt 0 cards; 3 cards taken as they were; "
        "1 settings"
    ) in capsys.readouterr().out
    a, b = _dump(tmp_path / "a"), _dump(tmp_path / "b")
    assert a["backup"]["reviews"] == b["backup"]["reviews"]
    assert a["backup"]["attempts"] == b["backup"]["attempts"]
    assert a["cards"] == b["cards"]  # replayed history gives the same FSRS states, byte for byte
    assert sorted(r[1:] for r in a["reviews"]) == sorted(r[1:] for r in b["reviews"])


def test_import_twice_never_duplicates(tmp_path, capsys):
    _seed(tmp_path / "a")
    backup = tmp_path / "backup.json"
    main(["--data-dir", str(tmp_path / "a"), "progress", "export", "--out", str(backup)])
    for _ in range(2):
        assert main(["--data-dir", str(tmp_path / "a"), "progress", "import", str(backup)]) == 0
    assert "imported 0 reviews (6 already present), 0 attempts; rebuilt 0 cards" in capsys.readouterr().out
    with open_store(tmp_path / "a") as store:
        assert store.review_count() == 6 and len(store.attempts()) == 1


def test_import_merges_two_machines_histories(tmp_path):
    _seed(tmp_path / "laptop", offset_days=0, ids=("fx.mcq", "fx.tf"))
    _seed(tmp_path / "desktop", offset_days=3, ids=("fx.mcq", "fx.open"))
    with open_store(tmp_path / "desktop") as store:
        report = import_backup(store, export_backup(open_store(tmp_path / "laptop")))
        # fx.mcq has reviews on both sides: replayed; fx.tf only on the laptop: taken as it was
        assert (report.reviews_added, report.reviews_skipped, report.cards_rebuilt) == (4, 0, 1)
        assert report.cards_added == 1
        assert store.review_count() == 8
        mcq = store.card_info("fx.mcq", T0 + timedelta(days=4))
        assert mcq.reps == 4
        assert mcq.card.last_review == T0 + timedelta(days=3, minutes=10)  # newest review wins the state
    with open_store(tmp_path / "desktop") as store:
        # The merged card is what reviewing all four in time order gives.
        expected = open_store(tmp_path / "replay")
        expected.set_setting("enable_fuzzing", False)
        for at in (
            T0,
            T0 + timedelta(minutes=10),
            T0 + timedelta(days=3),
            T0 + timedelta(days=3, minutes=10),
        ):
            expected.review("fx.mcq", Rating.Good, at, duration_ms=1)
        assert store.card("fx.mcq").to_dict() == expected.card("fx.mcq").to_dict()
        expected.close()


MALFORMED = [
    ("[1, 2]", "top level"),
    ('{"version": 1, "cards": []}', "reviews: missing"),
    ('{"version": 99, "cards": [], "reviews": []}', "version 99 is not supported"),
    ('{"version": "1", "cards": [], "reviews": []}', "version"),
    (
        '{"version": 1, "cards": [], "reviews": [{"question_id": "q", "rating": 7, '
        '"reviewed_at": "2025-01-01T00:00:00+00:00", "duration_ms": 1}]}',
        "reviews[1].rating",
    ),
    (
        '{"version": 1, "cards": [], "reviews": [{"question_id": "q", "rating": 3, '
        '"reviewed_at": "2025-01-01T00:00:00", "duration_ms": 1}]}',
        "reviews[1].reviewed_at",
    ),
    (
        '{"version": 1, "cards": [], "reviews": [{"question_id": "", "rating": 3, '
        '"reviewed_at": "2025-01-01T00:00:00+00:00"}]}',
        "reviews[1].question_id",
    ),
    (
        '{"version": 1, "cards": [{"question_id": "q", "state": 9, "due": "x"}], "reviews": []}',
        "cards[0].state",
    ),
    ('{"version": 1, "cards": [], "reviews": [], "settings": {"desired_retention": 5}}', "desired_retention"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED, ids=[m for _, m in MALFORMED])
def test_malformed_backup_is_rejected_and_store_unchanged(tmp_path, capsys, text, message):
    _seed(tmp_path / "a")
    before = _dump(tmp_path / "a")
    # A valid review goes first (so the bad one is reviews[1]): a partial write would show.
    good = (
        '{"question_id": "new.q", "rating": 3, "reviewed_at": "2025-05-01T00:00:00+00:00", "duration_ms": 5}'
    )
    if '"reviews": [' in text and '"reviews": []' not in text:
        text = text.replace('"reviews": [', '"reviews": [' + good + ", ", 1)
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    code = main(["--data-dir", str(tmp_path / "a"), "progress", "import", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert _dump(tmp_path / "a") == before


def test_non_json_and_missing_backup_files(tmp_path, capsys):
    _seed(tmp_path / "a")
    before = _dump(tmp_path / "a")
    path = tmp_path / "bad.json"
    path.write_text('{"version": 1, "reviews": [', encoding="utf-8")
    assert main(["--data-dir", str(tmp_path / "a"), "progress", "import", str(path)]) == 2
    assert "not valid JSON (line 1" in capsys.readouterr().err
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert main(["--data-dir", str(tmp_path / "a"), "progress", "import", str(path)]) == 2
    assert "not a UTF-8 text file" in capsys.readouterr().err
    assert main(["--data-dir", str(tmp_path / "a"), "progress", "import", str(tmp_path / "nope.json")]) == 2
    assert "backup file not found" in capsys.readouterr().err
    assert _dump(tmp_path / "a") == before


def test_parse_backup_lists_every_problem():
    with pytest.raises(BackupError) as info:
        parse_backup({"version": 1, "cards": "x", "reviews": [1, {"question_id": 3}]})
    errors = info.value.errors
    assert "cards: must be a list" in errors and "reviews[0]: must be an object" in errors
    assert any(e.startswith("reviews[1].question_id") for e in errors)
    assert any(e.startswith("reviews[1].rating") for e in errors)


def test_orphans_command(tmp_path, capsys):
    bank = write_fixture_bank(tmp_path)
    _seed(tmp_path / "a")
    assert main(["--bank", str(bank), "--data-dir", str(tmp_path / "a"), "progress", "orphans"]) == 0
    out = capsys.readouterr().out
    assert "gone.q" in out and "fx.mcq" not in out and "1 orphaned question id(s)" in out
    assert (
        main(["--bank", str(bank), "--data-dir", str(tmp_path / "a"), "progress", "orphans", "--json"]) == 0
    )
    listed = json.loads(capsys.readouterr().out)
    assert [o["question_id"] for o in listed] == ["gone.q"] and listed[0]["reviews"] == 2


def test_stats_command(tmp_path, capsys):
    bank = write_fixture_bank(tmp_path)
    _seed(tmp_path / "a")
    assert main(["--bank", str(bank), "--data-dir", str(tmp_path / "a"), "progress", "stats"]) == 0
    out = capsys.readouterr().out
    assert "6 total" in out and "fx-rope" in out and "fx-alibi" in out
    assert (
        "scheduler: FSRS-6 with fsrs's default parameters ('posenc progress optimize' fits them to you)"
        in out
    )
    from quizbank.progress.scheduler import DEFAULT_PARAMETERS
    from quizbank.progress.store import open_store

    with open_store(tmp_path / "a") as store:
        report = {"before": {"log_loss": 0.4846}, "after": {"log_loss": 0.467}}
        store.save_fitted(DEFAULT_PARAMETERS, 1048, report, datetime(2026, 5, 4, 9, 40, tzinfo=UTC))
    assert main(["--bank", str(bank), "--data-dir", str(tmp_path / "a"), "progress", "stats"]) == 0
    out = capsys.readouterr().out
    assert "scheduler: FSRS-6 fitted to 1,048 reviews on 2026-05-04 (log loss 0.4846 -> 0.4670)" in out


def test_a_skipped_bank_is_one_warning_line_without_its_yaml_excerpt(tmp_path, capsys):
    """An indentation error's message shows the lines around it; the CLI's warning keeps to its first line."""
    broken = tmp_path / "broken.yaml"
    broken.write_text("topic: a\nquestions:\n  - id: a.x\n   type: open\n", encoding="utf-8")
    assert main(["--bank", str(broken), "--data-dir", str(tmp_path / "a"), "progress", "stats"]) == 0
    [warning] = [line for line in capsys.readouterr().err.splitlines() if "skipped bank" in line]
    assert warning.endswith(
        "broken.yaml:4:4: YAML indentation error: line 4 is indented 3 spaces, "
        "line 3 above it 4 spaces; keys of one mapping (and the '-' items of one list) "
        "start in the same column"
    ), warning


def test_store_errors_are_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert main(["--data-dir", str(blocker / "sub"), "progress", "export"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("posenc: error: cannot create data directory") and err.count("\n") == 1


def test_corrupt_store_is_reported_by_the_cli(tmp_path, capsys):
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "progress.db").write_bytes(b"garbage" * 1000)
    assert main(["--data-dir", str(folder), "progress", "export"]) == 0
    captured = capsys.readouterr()
    assert "moved to progress.db.corrupt-" in captured.err
    assert json.loads(captured.out)["reviews"] == []


# ---------------------------------------------------------------------------------------------------- config


def test_config_sets_shows_lists_and_resets(tmp_path, capsys):
    data = ["--data-dir", str(tmp_path / "a")]
    assert main([*data, "progress", "config", "new_per_day", "5"]) == 0
    assert main([*data, "progress", "config", "desired_retention", "85%"]) == 0
    assert main([*data, "progress", "config", "language", "zh"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == ["new_per_day = 5", "desired_retention = 0.85", 'language = "zh"']
    assert "next Study session" in captured.err and "when it next starts" in captured.err

    assert main([*data, "progress", "config", "new_per_day"]) == 0
    assert capsys.readouterr().out == "5\n"
    assert main([*data, "progress", "config"]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert "desired_retention  0.85" in listing
    assert "new_per_day        5" in listing
    assert "enable_fuzzing     true  (default)" in listing
    assert listing[-1] == f"store: {tmp_path / 'a' / 'progress.db'}"

    with open_store(tmp_path / "a") as store:
        assert store.stored_settings() == {"new_per_day": 5, "desired_retention": 0.85, "language": "zh"}
        # The settings drive the queue and the scheduler.
        queue = store.study_queue([f"q{i}" for i in range(9)], T0)
        assert queue.new == ["q0", "q1", "q2", "q3", "q4"]
        assert store.scheduler.desired_retention == 0.85

    assert main([*data, "progress", "config", "--reset", "new_per_day"]) == 0
    assert capsys.readouterr().out == "new_per_day = 20 (default)\n"
    assert main([*data, "progress", "config", "--reset", "all"]) == 0
    assert capsys.readouterr().out == "reset 2 setting(s) to the defaults\n"
    with open_store(tmp_path / "a") as store:
        assert store.stored_settings() == {}


def test_config_retention_changes_the_intervals(tmp_path, capsys):
    """Same history, desired retention 0.9 vs 0.8: the lower target gives the longer interval."""
    intervals = {}
    for retention in ("0.9", "0.8"):
        folder = tmp_path / retention
        assert main(["--data-dir", str(folder), "progress", "config", "desired_retention", retention]) == 0
        assert main(["--data-dir", str(folder), "progress", "config", "enable_fuzzing", "false"]) == 0
        with open_store(folder) as store:
            store.review("q", Rating.Good, T0)
            store.review("q", Rating.Good, T0 + timedelta(minutes=10))
            result = store.review("q", Rating.Good, store.card("q").due)
            intervals[retention] = result.card_after.due - result.reviewed_at
    assert intervals["0.8"] > intervals["0.9"] >= timedelta(days=3)


def test_config_keymap_entries(tmp_path, capsys):
    data = ["--data-dir", str(tmp_path / "a")]
    assert main([*data, "progress", "config", "keymap.posenc.study.undo", "z"]) == 0
    assert main([*data, "progress", "config", "keymap.posenc.next", "j"]) == 0
    assert main([*data, "progress", "config", "keymap.typo", "k"]) == 0
    captured = capsys.readouterr()
    assert "'typo' is not a posenc binding id" in captured.err
    assert main([*data, "progress", "config", "--reset", "keymap.typo"]) == 0
    assert main([*data, "progress", "config", "keymap.posenc.study.undo"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "z"
    assert main([*data, "progress", "config", "keymap"]) == 0
    assert capsys.readouterr().out == '{"posenc.next": "j", "posenc.study.undo": "z"}\n'
    assert main([*data, "progress", "config", "keymap", '{"posenc.quiz": "x"}']) == 0
    with open_store(tmp_path / "a") as store:
        assert store.get_setting("keymap") == {"posenc.quiz": "x"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["new_per_day", "ten"], "new_per_day must be a whole number from 0 to 9999 (got 'ten')"),
        (["desired_retention", "0.5"], "desired_retention must be a number from 0.70 to 0.99"),
        (["language", "fr"], "language must be 'en' or 'zh'"),
        (["colour", "red"], "unknown setting 'colour'"),
        (["keymap", "{oops"], "keymap must be a JSON object"),
        (["keymap.posenc.next", " "], "keys must not be empty"),
        (
            ["keymap.posenc.next", "\x1b[31mj"],
            "keymap.posenc.next: the keys contain U+001B (control character)",
        ),
        (["keymap.posenc.next", "j\u202ek"], "the keys contain U+202E (bidirectional-formatting character)"),
        (["keymap.posenc.\x07next", "j"], "keymap.posenc.\\x07next: the binding id contain U+0007"),
        (["keymap", '{"posenc.next": "\\u001bj"}'], "keymap.posenc.next: the keys contain U+001B"),
        (["keymap", "[" * 100_000], "keymap must be a JSON object of binding ids and keys, not nested"),
        (["new_per_day", "9" * 5000], "(got '" + "9" * 56 + "... (5,003 characters)"),  # cut, not echoed
        (["--reset"], "--reset needs a KEY"),
        (["all"], "'all' only goes with --reset"),
    ],
)
def test_config_rejects_bad_input_without_touching_the_store(tmp_path, capsys, argv, message):
    folder = tmp_path / "a"
    assert main(["--data-dir", str(folder), "progress", "config", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("posenc: error: ") and message in err and err.count("\n") == 1
    assert not folder.exists()  # validated before the store was even opened


def test_unexpected_sqlite_errors_are_one_line(tmp_path, capsys, monkeypatch):
    import sqlite3

    from quizbank.progress.store import ProgressStore

    def broken(self, since=None):
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(ProgressStore, "review_records", broken)
    assert main(["--data-dir", str(tmp_path / "a"), "progress", "export"]) == 1
    captured = capsys.readouterr()
    assert captured.err == "posenc: error: progress store: database disk image is malformed\n"
    assert captured.out == ""


def test_config_refuses_a_binding_id_the_app_does_not_have(tmp_path, capsys):
    from tui.cli import main as posenc

    data = ["--data-dir", str(tmp_path / "a")]
    assert posenc([*data, "progress", "config", "keymap.posenc.nope", "x"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("posenc: error: unknown binding id 'posenc.nope'") and "; valid ids: " in err
    assert "posenc.study.undo" in err and "posenc.search" in err and err.count("\n") == 1
    assert posenc([*data, "progress", "config", "keymap", '{"posenc.quiz": "x", "posenc.next": "j"}']) == 2
    assert (
        "unknown binding id 'posenc.quiz' (did you mean 'posenc.home.quiz'?); valid ids"
        in capsys.readouterr().err
    )
    # a typo names the id it is closest to first, so the long list need not be read
    assert posenc([*data, "progress", "config", "keymap.posenc.study.undoo", "z"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "posenc: error: unknown binding id 'posenc.study.undoo' (did you mean 'posenc.study.undo'?);"
    )
    assert posenc([*data, "progress", "config", "keymap.posenc.study.undo", "z"]) == 0
    with open_store(tmp_path / "a") as store:  # nothing refused was stored
        assert store.get_setting("keymap") == {"posenc.study.undo": "z"}
