"""The app's key queue (`tui.keyorder.KeyQueue`): every key is handled once, in the order typed.

Keys are posted to the app the way a terminal delivers them (one Key event each, without waiting for
the app), so they arrive while a card is being replaced, a form rebuilt or a generated question drawn.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support.apps import make_app
from support.pilot import pilot_test, post_keys, settle, wait_for
from textual import events
from textual.widgets import Input

from quizbank.quiz_session import QuizConfig, QuizSession
from tui.screens.quiz import QuizScreen
from tui.screens.study import StudyScreen

SIZE = (100, 30)
NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)

LIVE_BANK = """\
topic: live
title: {en: Live, zh: 实时}
questions:
  - id: live.slope
    type: numeric
    vary:
      n_heads: {choices: [8, 16]}
      head: {int: [1, n_heads]}
    prompt:
      en: With {n_heads} heads, what slope does ALiBi give head {head}?
      zh: 有 {n_heads} 个头时，ALiBi 给第 {head} 个头的斜率是多少？
    explanation:
      en: Head $h$ of $n$ heads gets $2^{-8h/n}$.
      zh: 第 $h$ 个头的斜率为 $2^{-8h/n}$。
    answer: {demo: alibi-slopes, params: {n_heads: n_heads}, path: "tables[0].rows[{head}-1][1]", rel_tol: 1.0e-3}
"""


@pytest.mark.slow
@pilot_test
async def test_keys_are_dispatched_one_at_a_time_in_the_order_they_arrived(env: Path) -> None:
    """A burst of keys while Study saves ratings: the queue's trace shows each key dispatched in
    arrival order, and the next one only after the previous one is done."""
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.bankset is not None and app.store is not None)
        app.store.set_setting("enable_fuzzing", False)
        screen = StudyScreen(None, clock=lambda: NOW)
        await app.push_screen(screen)
        await settle(pilot)
        app.key_queue.trace = trace = []
        keys = ["enter", "1"] * 6
        await post_keys(app, keys)
        await wait_for(lambda: len(app.store.review_rows()) >= 6 and not screen.holding_keys)
        await settle(pilot)
        assert [k for what, k in trace if what == "arrived"] == keys
        assert [k for what, k in trace if what == "dispatched"] == keys  # same order, none lost
        in_flight = 0
        for what, _key in trace:  # dispatched, done, dispatched, done, ...: never two at once
            if what == "dispatched":
                assert in_flight == 0
                in_flight = 1
            elif what == "done":
                in_flight = 0
        assert [int(r.rating) for r in app.store.review_rows()] == [1] * 6
        assert screen.done_count == 6


@pytest.mark.slow
@pilot_test
async def test_a_rating_key_never_lands_in_the_next_cards_field(env: Path) -> None:
    """The next card is numeric: its field has focus before the keys are released. The `1` typed
    after Enter rates that card (it is not typed into the field ahead of the held Enter)."""
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: app.bankset is not None and app.store is not None)
        app.store.set_setting("enable_fuzzing", False)
        screen = StudyScreen(None, clock=lambda: NOW)
        await app.push_screen(screen)
        await settle(pilot)
        seen: list[str] = []
        pairs = 12  # the fixture bank cycles through every card type, numeric and cloze included
        for _ in range(pairs):
            seen.append(screen.view.question.type)
            before = len(app.store.review_rows())
            await post_keys(app, ["enter", "1"])
            await wait_for(lambda b=before: len(app.store.review_rows()) > b and not screen.holding_keys)
            for field in screen.view.query(Input):
                assert field.value == "", (seen, field.value)
        assert "numeric" in seen and "cloze" in seen
        assert len(app.store.review_rows()) == pairs


LIVE_FIRST = ["live.slope", "fx.numeric"]


@pilot_test
async def test_digits_typed_before_a_generated_questions_field_appears_go_into_it(env: Path) -> None:
    """The first question is generated: its numbers are drawn in a worker (held here until the keys
    are typed). The digits typed meanwhile are held and typed into its field once it appears."""
    gate = threading.Event()

    def slow_runner(name: str, params: dict[str, Any] | None = None, device: str = "auto") -> Any:
        from posenc_ref.demos import run_demo

        assert gate.wait(120), "the test never opened the gate"
        return run_demo(name, params, device="cpu")

    app = make_app(env, demo_runner=slow_runner)
    (env / "user-banks" / "live.yaml").write_text(LIVE_BANK, encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "live.slope" in app.bankset.questions
        screen = QuizScreen(QuizSession(QuizConfig(seed=1), LIVE_FIRST))
        app.push_screen(screen)  # not awaited: the digits arrive as it opens, then while it draws
        await post_keys(app, list("0.125"))
        typed = ["0", "full_stop", "1", "2", "5"]  # the key names a terminal's "0.125" arrives as
        await wait_for(lambda: app.key_queue.queued() == typed, 60, app.key_queue.queued)
        assert screen.view is None  # still drawing: no field yet
        gate.set()
        await wait_for(lambda: screen.view is not None and not screen.holding_keys)
        await settle(pilot)
        field = screen.view.query_one(".qv-number", Input)
        assert field.value == "0.125"
        assert app.focused is field


@pilot_test
async def test_a_screen_holding_keys_then_closed_hands_them_to_the_next_screen(env: Path) -> None:
    """Keys held for Study when it is closed (`q` while the first card loads) go to Home, in order."""
    from tui.screens.home import HomeScreen

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = StudyScreen(None, clock=lambda: NOW)
        await app.push_screen(screen)
        screen.hold_keys()  # as if its first card were still loading
        await post_keys(app, ["l"])
        await wait_for(lambda: app.key_queue.queued() == ["l"])
        app.pop_screen()
        await wait_for(lambda: isinstance(app.screen, HomeScreen) and not app.key_queue.pending)
        await settle(pilot)
        assert app.language == "zh"  # `l` reached Home (the app's language key)


@pilot_test
async def test_a_paste_waits_its_turn_behind_the_keys_typed_before_it(env: Path) -> None:
    """`/` then a paste at once: the search field opened by `/` gets the text (it used to go to Home's
    topic list, which ignores it), and a key after the paste comes after it."""
    from tui.screens.search import SearchScreen

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.key_queue.trace = []
        app.post_message(events.Key("slash", "/"))
        app.post_message(events.Paste("rope bas"))
        app.post_message(events.Key("e", "e"))
        await wait_for(lambda: isinstance(app.screen, SearchScreen) and not app.key_queue.pending)
        await settle(pilot)
        field = app.screen.query_one("#search-input", Input)
        assert field.value == "rope base"
        dispatched = [name for what, name in app.key_queue.trace if what == "dispatched"]
        assert dispatched == ["slash", "paste", "e"]
