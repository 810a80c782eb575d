"""Saved predictions in the app: Study shows them as cards (the predicted quantity, the computed value),
no topic lists them, and the old `predictions.yaml` bank file is moved into the store as the app starts."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import yaml
from support.apps import make_app, screen_text
from support.pilot import pilot_test, settle, wait_for
from textual.widgets import Input

from posenc_ref.demos import get_demo
from quizbank.predictions import LEGACY_FILE, Target, prediction_question, save_to_study
from quizbank.progress.store import open_store
from tui.screens.study import StudyScreen

SIZE = (100, 30)
NOW = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
FIRST = Target("values.first_slope", "the value first_slope", "数值 first_slope")


def a_prediction() -> dict:
    return prediction_question(get_demo("alibi-slopes"), {"n_heads": 8}, FIRST, 0.5)


async def wait_ready(pilot) -> None:
    app = pilot.app
    await wait_for(lambda: app.bankset is not None and app.store_ready, timeout=30)
    assert app.store is not None, app.store_error
    await settle(pilot)


@pilot_test
async def test_study_shows_a_saved_prediction_as_a_card(env: Path) -> None:
    question = a_prediction()
    with open_store(env / "data") as store:
        save_to_study(store, question)  # a new card, shown before the banks' new questions
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        assert question["id"] not in app.bankset.questions  # in no bank
        screen = StudyScreen(None, clock=lambda: NOW)
        await app.push_screen(screen)
        await settle(pilot)
        view = screen.view
        assert view is not None and view.question_id == question["id"]
        assert "Demo alibi-slopes (n_heads=8): predict the value first_slope. Within 5%." in screen_text(app)
        assert isinstance(app.focused, Input)
        await pilot.press(*"0.51", "enter")  # within 5 % of 0.5
        await settle(pilot)
        assert screen.revealed and screen.suggested == 3
        assert "0.5" in screen_text(app)
        await pilot.press("3")
        await settle(pilot)
        assert app.store.card_info(question["id"]).reps == 1
        attempt = app.store.attempts()[-1]
        assert (attempt.question_id, attempt.correct) == (question["id"], True)


@pilot_test
async def test_a_topic_study_shows_only_the_predictions_of_its_topic(env: Path) -> None:
    question = a_prediction()  # topic "alibi"
    with open_store(env / "data") as store:
        save_to_study(store, question)
        store.make_due_now([question["id"]], NOW)
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_ready(pilot)
        other = StudyScreen("fixture-rope", clock=lambda: NOW)
        await app.push_screen(other)
        await settle(pilot)
        assert other.view is not None and other.view.question_id != question["id"]
        assert other.plan is not None and other.plan.due == 0


@pilot_test
async def test_the_old_predictions_bank_file_becomes_study_cards_and_no_topic(env: Path) -> None:
    """A `predictions.yaml` the Demo lab once wrote made "My predictions" a topic in Home, Quiz, Mock
    and the Anki deck. At start it is moved into the store, before any bank load lists it."""
    question = a_prediction()
    folder = env / "user-banks"
    folder.mkdir(parents=True, exist_ok=True)
    legacy = folder / LEGACY_FILE
    data = {
        "topic": "predictions",
        "title": {"en": "My predictions", "zh": "我的预测"},
        "questions": [question],
    }
    legacy.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    before = legacy.read_bytes()
    app = make_app(env)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_ready(pilot)
        assert "predictions" not in {t.id for t in app.bankset.topics}
        assert question["id"] not in app.bankset.questions
        assert "My predictions" not in screen_text(app)  # Home
        assert app.store.own_card_ids() == [question["id"]]
        assert any("Saved predictions are Study cards now: 1" in n.message for n in app._notifications)
    assert not legacy.exists() and (folder / ".predictions.yaml.imported").read_bytes() == before
    app = make_app(env)  # the next start: nothing more to move, nothing said
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_ready(pilot)
        assert app.store.own_card_ids() == [question["id"]]
        assert not any("predictions" in n.message for n in app._notifications)
