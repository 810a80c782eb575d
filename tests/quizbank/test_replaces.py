"""`replaces: [old ids]`: validation (path:line:col) and moving progress from merged-away ids, idempotently."""

from __future__ import annotations

import asyncio
import sqlite3
import textwrap
from datetime import UTC, datetime, timedelta

from support.pilot import settle, wait_for

from quizbank.loader import load_banks
from quizbank.progress.scheduler import Rating
from quizbank.progress.store import format_time, open_store

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)

MERGED_BANK = textwrap.dedent(
    """\
    topic: merged
    title: {en: Merged, zh: 合并}
    questions:
      - id: merged.kv-cache
        type: truefalse
        replaces: [old.kv-cache-a, old.kv-cache-b]
        prompt: {en: RoPE rotates keys before caching them., zh: RoPE 在写入缓存前旋转键。}
        correct: true
        explanation: {en: Rotate once when writing., zh: 写入时旋转一次。}
      - id: merged.other
        type: truefalse
        prompt: {en: RoPE rotates V., zh: RoPE 旋转 V。}
        correct: false
        explanation: {en: Only q and k., zh: 只有 q 和 k。}
    """
)


def _load(tmp_path, text: str, name: str = "bank.yaml", extra: tuple[tuple[str, str], ...] = ()):
    folder = tmp_path / "banks"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    for other, body in extra:
        (folder / other).write_text(body, encoding="utf-8")
    return load_banks([folder], include_shipped=False, include_user=False)


def test_a_clean_bank_maps_each_replaced_id_to_its_replacement(tmp_path):
    bankset = _load(tmp_path, MERGED_BANK)
    assert not bankset.problems
    assert bankset.replaced_by == {"old.kv-cache-a": "merged.kv-cache", "old.kv-cache-b": "merged.kv-cache"}
    assert bankset.questions["merged.kv-cache"].replaces == ["old.kv-cache-a", "old.kv-cache-b"]


def test_replacing_an_id_that_is_still_a_question_is_an_error_with_its_place(tmp_path):
    text = MERGED_BANK.replace("[old.kv-cache-a, old.kv-cache-b]", "[old.kv-cache-a, merged.other]")
    bankset = _load(tmp_path, text)
    messages = [str(p) for p in bankset.errors]
    where = tmp_path / "banks" / "bank.yaml"
    assert messages == [f"{where}:6:32: replaces 'merged.other', which is still a question (at {where}:10:5)"]
    assert "merged.other" not in bankset.replaced_by


def test_an_id_may_be_replaced_only_once_across_files(tmp_path):
    second = textwrap.dedent(
        """\
        topic: again
        title: {en: Again, zh: 再次}
        questions:
          - id: again.kv
            type: truefalse
            replaces: [old.kv-cache-b]
            prompt: {en: Keys are cached rotated., zh: 缓存的是旋转后的键。}
            correct: true
            explanation: {en: Yes., zh: 是的。}
        """
    )
    bankset = _load(tmp_path, MERGED_BANK, extra=(("z_again.yaml", second),))
    errors = [str(p) for p in bankset.errors]
    assert len(errors) == 1
    assert "z_again.yaml:6:16: 'old.kv-cache-b' is already replaced by 'merged.kv-cache'" in errors[0]
    assert bankset.replaced_by["old.kv-cache-b"] == "merged.kv-cache"


def test_a_question_cannot_replace_itself_and_ids_are_checked(tmp_path):
    where = tmp_path / "banks" / "bank.yaml"
    itself = MERGED_BANK.replace("[old.kv-cache-a, old.kv-cache-b]", "[old.kv-cache-a, merged.kv-cache]")
    assert [str(p) for p in _load(tmp_path, itself).errors] == [
        f"{where}:6:32: replaces lists the question itself ('merged.kv-cache')"
    ]
    bad = MERGED_BANK.replace("[old.kv-cache-a, old.kv-cache-b]", "[old.kv-cache-a, Not An Id]")
    errors = [str(p) for p in _load(tmp_path, bad).errors]
    assert len(errors) == 1 and errors[0].startswith(f"{where}:6:32: 'Not An Id' is not a valid id")
    twice = MERGED_BANK.replace("[old.kv-cache-a, old.kv-cache-b]", "[old.kv-cache-a, old.kv-cache-a]")
    assert [str(p) for p in _load(tmp_path, twice).errors] == [
        f"{where}:6:32: replaces lists 'old.kv-cache-a' twice"
    ]


def _history(store, qid: str) -> tuple[list, list, str | None]:
    reviews = [
        (r.question_id, int(r.rating), r.reviewed_at) for r in store.review_rows() if r.question_id == qid
    ]
    attempts = [(a.question_id, a.response) for a in store.attempts() if a.question_id == qid]
    return reviews, attempts, store.card_json(qid)


def _mark(store, qid: str, flagged: int, note: str, at: datetime) -> None:
    store._write(
        lambda c: c.execute(
            "INSERT INTO question_marks (question_id, flagged, note, updated_at) VALUES (?, ?, ?, ?)",
            (qid, flagged, note, format_time(at)),
        )
    )


def _marks(store) -> dict[str, tuple[int, str]]:
    rows = store._read(
        lambda c: c.execute("SELECT question_id, flagged, note FROM question_marks").fetchall()
    )
    return {qid: (flagged, note) for qid, flagged, note in rows}


def _all_rows(store) -> dict[str, list]:
    def body(conn: sqlite3.Connection):
        return {
            t: conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
            for t in ("cards", "reviews", "attempts", "question_marks")
        }

    return store._read(body)


def test_history_on_old_ids_moves_to_the_new_id_and_a_second_load_changes_nothing(tmp_path):
    data = tmp_path / "data"
    with open_store(data) as store:
        store.set_setting("enable_fuzzing", False)
        store.review("old.kv-cache-a", Rating.Good, T0)
        store.review("old.kv-cache-a", Rating.Good, T0 + timedelta(minutes=10))
        store.record_attempt("old.kv-cache-a", True, "true", 900, T0)
        store.review("old.kv-cache-b", Rating.Again, T0 + timedelta(days=1))
        store.record_attempt("old.kv-cache-b", False, "false", 700, T0 + timedelta(days=1))
        _mark(store, "old.kv-cache-a", 1, "ask about GQA", T0)
        card_b = store.card_json("old.kv-cache-b")  # reviewed last: the card that is kept

    bankset = _load(tmp_path, MERGED_BANK)
    with open_store(data) as store:
        moved = store.migrate_replaced_ids(bankset.replaced_by)
        assert moved == 2
        reviews, attempts, card = _history(store, "merged.kv-cache")
        assert [r[1] for r in reviews] == [3, 3, 1]  # Good, Good, Again in time order
        assert sorted(a[1] for a in attempts) == ["false", "true"]
        assert card == card_b
        for old in ("old.kv-cache-a", "old.kv-cache-b"):
            assert _history(store, old) == ([], [], None)
        assert _marks(store) == {"merged.kv-cache": (1, "ask about GQA")}
        assert store.orphans(bankset.questions) == []
        before = _all_rows(store)

        # loading again (the app does it on every start) moves nothing and changes nothing
        assert store.migrate_replaced_ids(bankset.replaced_by) == 0
        assert _all_rows(store) == before


def test_when_both_ids_have_cards_the_newer_card_wins_and_marks_merge(tmp_path):
    with open_store(tmp_path / "data") as store:
        store.set_setting("enable_fuzzing", False)
        store.review("old.kv-cache-a", Rating.Easy, T0)
        store.review("merged.kv-cache", Rating.Hard, T0 + timedelta(days=2))
        newer = store.card_json("merged.kv-cache")
        _mark(store, "old.kv-cache-a", 0, "old note", T0)
        _mark(store, "merged.kv-cache", 1, "new note", T0 + timedelta(days=2))
        assert store.migrate_replaced_ids({"old.kv-cache-a": "merged.kv-cache"}) == 1
        assert store.card_json("merged.kv-cache") == newer
        assert store.card("old.kv-cache-a") is None
        assert [r.rating for r in store.review_rows()] == [Rating.Easy, Rating.Hard]
        assert _marks(store) == {"merged.kv-cache": (1, "new note\nold note")}


def test_the_same_review_under_both_ids_is_kept_once(tmp_path):
    with open_store(tmp_path / "data") as store:
        store.set_setting("enable_fuzzing", False)
        store.review("old.kv-cache-a", Rating.Good, T0)
        store.review("merged.kv-cache", Rating.Good, T0)  # e.g. imported from a backup
        assert store.migrate_replaced_ids({"old.kv-cache-a": "merged.kv-cache"}) == 1
        assert store.review_count() == 1


def test_progress_cli_migrates_before_listing_orphans(tmp_path, monkeypatch, capsys):
    from support.export_bank import main

    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "no-user-banks"))
    (tmp_path / "banks").mkdir()
    (tmp_path / "banks" / "bank.yaml").write_text(MERGED_BANK, encoding="utf-8")
    data = tmp_path / "data"
    with open_store(data) as store:
        store.review("old.kv-cache-a", Rating.Good, T0)
    args = ["--bank", str(tmp_path / "banks"), "--data-dir", str(data)]
    assert main([*args, "progress", "orphans"]) == 0
    out = capsys.readouterr().out
    assert "no orphaned progress" in out
    with open_store(data) as store:
        assert [r.question_id for r in store.review_rows()] == ["merged.kv-cache"]


def test_the_app_moves_progress_when_it_opens_the_banks_and_the_store(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    asyncio.run(_app_moves_progress(tmp_path))


async def _app_moves_progress(tmp_path):
    from support.apps import make_app

    (tmp_path / "user-banks").mkdir()
    (tmp_path / "user-banks" / "merged.yaml").write_text(MERGED_BANK, encoding="utf-8")
    with open_store(tmp_path / "data") as store:
        store.review("old.kv-cache-b", Rating.Good, T0)
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(
            lambda: app.store is not None and app.bankset is not None and not app.workers, timeout=60
        )
        await settle(pilot)
        assert app.bankset.replaced_by == {
            "old.kv-cache-a": "merged.kv-cache",
            "old.kv-cache-b": "merged.kv-cache",
        }
        assert [r.question_id for r in app.store.review_rows()] == ["merged.kv-cache"]
        await pilot.press("ctrl+q")
