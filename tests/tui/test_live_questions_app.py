"""Generated questions in the app: Quiz, Study and Mock show a fresh instance each time, computed in a
worker, and the attempt and review rows keep its seed and parameters."""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from support.apps import make_app, screen_text
from support.pilot import pilot_test, record_notices, settle

from quizbank.quiz_session import QuizConfig, QuizSession
from tui.screens.quiz import QuizScreen
from tui.screens.study import StudyScreen

SIZE = (100, 30)
LIVE_BANK = """\
topic: live
title: {en: Live, zh: 实时}
questions:
  - id: live.slope
    type: numeric
    vary:
      n_heads: {choices: [6, 8, 12, 16, 20, 32]}
      head: {int: [1, n_heads]}
    prompt:
      en: With {n_heads} heads, what slope does ALiBi give head {head}?
      zh: 有 {n_heads} 个头时，ALiBi 给第 {head} 个头的斜率是多少？
    explanation:
      en: Head $h$ of $n$ heads (a power of two) gets $2^{-8h/n}$; here $n = {n_heads}$.
      zh: 头数 $n$ 为 2 的幂时第 $h$ 个头的斜率为 $2^{-8h/n}$；这里 $n = {n_heads}$。
    answer: {demo: alibi-slopes, params: {n_heads: n_heads}, path: "tables[0].rows[{head}-1][1]", rel_tol: 1.0e-3}
"""


# A generated question whose path fails only when the demo runs: row head+100 of a table of n_heads rows.
# The loader cannot see it (a table's length is known only at run time); no draw ever gives an answer.
BROKEN = LIVE_BANK.replace("live.slope", "live.broken").replace("[{head}-1]", "[{head}+100]")
BROKEN_FIRST = BROKEN + "\n".join(LIVE_BANK.splitlines()[3:]) + "\n"  # live.broken, then live.slope


def real_runner(name: str, params: dict[str, Any] | None = None, device: str = "auto") -> Any:
    from posenc_ref.demos import run_demo

    return run_demo(name, params, device="cpu")


def live_app(env: Path) -> Any:
    app = make_app(env, demo_runner=real_runner)
    (env / "user-banks" / "live.yaml").write_text(LIVE_BANK, encoding="utf-8")
    return app


def rows(env: Path, table: str) -> list[tuple[str, Any]]:
    with sqlite3.connect(env / "data" / "progress.db") as conn:
        return conn.execute(f"SELECT question_id, instance FROM {table} ORDER BY id").fetchall()


@pilot_test
async def test_quiz_shows_a_fresh_instance_and_records_its_seed_and_params(env: Path) -> None:
    app = live_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = QuizScreen(QuizSession(QuizConfig(seed=1), ["live.slope", "fx.numeric"]))
        await app.push_screen(screen)
        await settle(pilot)
        showing = screen.session.live["live.slope"]
        view = screen.view
        assert view is not None and view.question is showing.question
        n, h = showing.instance.params["n_heads"], showing.instance.params["head"]
        text = screen_text(app)
        assert f"With {n} heads, what slope does ALiBi give head {h}?" in text and "{n_heads}" not in text
        await pilot.press(*f"{showing.question.value:.6g}", "enter")
        await settle(pilot)
        assert view.grade is not None and view.grade.correct is True, (app.focused, view.grade)
        # the demo panel runs the instance's demo at the instance's parameters
        assert screen.query_one("#quiz-demo").demo_name == "alibi-slopes"
        assert screen.query_one("#quiz-demo").params == {"n_heads": n}
        await settle(pilot)
        (row,) = rows(env, "attempts")
        assert row[0] == "live.slope"
        assert json.loads(row[1]) == {"seed": showing.instance.seed, "params": {"n_heads": n, "head": h}}


@pilot_test
async def test_the_summary_lists_a_missed_live_question_with_its_numbers(env: Path) -> None:
    app = live_app(env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = QuizScreen(QuizSession(QuizConfig(seed=1), ["live.slope"]))
        await app.push_screen(screen)
        await settle(pilot)
        showing = screen.session.live["live.slope"]
        n, h = showing.instance.params["n_heads"], showing.instance.params["head"]
        await pilot.press("9", "9", "enter")  # no ALiBi slope is 99
        await settle(pilot)
        await pilot.press("escape", "q")
        await settle(pilot)
        text = screen_text(app)
        assert f"With {n} heads, what slope does ALiBi give head {h}?" in text, text
        assert "{n_heads}" not in text and "{head}" not in text


@pilot_test
async def test_each_quiz_draws_new_numbers(env: Path) -> None:
    app = live_app(env)
    seen = set()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for _ in range(4):
            screen = QuizScreen(QuizSession(QuizConfig(seed=1), ["live.slope"]))
            await app.push_screen(screen)
            await settle(pilot)
            seen.add(screen.session.live["live.slope"].instance.seed)
    assert len(seen) == 4


@pilot_test
async def test_study_keeps_one_card_and_each_review_records_its_instance(env: Path) -> None:
    app = live_app(env)
    now = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = StudyScreen("live", clock=lambda: now)
        await app.push_screen(screen)
        await settle(pilot)
        first = screen.live
        assert first is not None and screen.view.question is first.question
        await pilot.press(*f"{first.question.value:.6g}", "enter")
        await settle(pilot)
        await pilot.press("1")  # Again: the same card comes back, with new numbers
        await settle(pilot)
        second = screen.live
        assert second is not None and second.instance.seed != first.instance.seed
        reviews = rows(env, "reviews")
        assert [r[0] for r in reviews] == ["live.slope"]
        assert json.loads(reviews[0][1])["seed"] == first.instance.seed
        assert app.store.card("live.slope") is not None  # one FSRS card per question, whatever the numbers


@pilot_test
async def test_predict_then_reveal_in_the_demo_lab_and_add_it_to_study(env: Path) -> None:
    from quizbank.predictions import study_question
    from tui.screens.demo_lab import DemoLabScreen
    from tui.screens.predict import PredictScreen

    app = live_app(env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.push_screen(DemoLabScreen("alibi-slopes"))
        await settle(pilot)
        await pilot.press("escape", "p")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PredictScreen) and screen.target.path == "values.first_slope"
        text = screen_text(app)
        # the answer is hidden (the demo's run time, "50.5 ms" in one run, is no answer)
        assert "What is the value first_slope?" in text and "0.5 " not in re.sub(r"[\d.]+ ms\b", "ms", text)
        await pilot.press(*"0.52", "enter")
        await settle(pilot)
        text = screen_text(app)
        assert "✓ Close: within 5%." in text and "The demo computed 0.5; you predicted 0.52." in text
        assert "Error: 0.02 (4% relative)." in text
        await pilot.press("a")
        await settle(pilot)
        (card,) = app.store.own_card_ids()  # a Study card in the progress store, in no bank
        question = study_question(app.store, card)
        assert question.value == 0.5 and question.checks[0].path == "values.first_slope"
        assert question.tolerance == 0.025  # the verdict's 5 %
        assert card not in app.bankset.questions and not (env / "user-banks" / "predictions.yaml").exists()


@pilot_test
async def test_predict_a_hidden_heatmap_cell(env: Path) -> None:
    from tui.screens.demo_lab import DemoLabScreen

    app = live_app(env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await app.push_screen(DemoLabScreen("alibi-bias"))
        await settle(pilot)
        await pilot.press("escape", "p")
        await settle(pilot)
        screen = app.screen
        cells = [t for t in screen.targets if t.path.startswith("matrices[")]
        assert cells, screen.targets
        while not screen.target.path.startswith("matrices["):
            await pilot.press("down")
        target = screen.target
        i, j = target.path.removeprefix(f"{target.path.split('.')[0]}.values[").rstrip("]").split("][")
        # named as the heatmap labels its axes, from 0 as its axis numbers count
        assert f"the cell at query i = {i}, key j = {j} of" in screen_text(app)
        assert "(counting from 0, as its axes do)" in screen_text(app)
        await pilot.press(*"1e9", "enter")
        await settle(pilot)
        assert "✗ Off by more than 5%." in screen_text(app)


def broken_app(env: Path) -> Any:
    app = make_app(env, demo_runner=real_runner)
    (env / "user-banks" / "live.yaml").write_text(BROKEN_FIRST, encoding="utf-8")
    return app


def skipped_notices(said: list[str]) -> list[str]:
    return [message for message in said if message.startswith("Skipped live.broken: ")]


@pilot_test
async def test_quiz_skips_a_question_it_cannot_draw_and_says_so(env: Path) -> None:
    """It comes second: its draw fails while the first question is on screen; the quiz got stuck on
    "Drawing fresh numbers…" when it reached it."""
    app = broken_app(env)
    said = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = QuizScreen(QuizSession(QuizConfig(seed=1), ["fx.numeric", "live.broken", "live.slope"]))
        await app.push_screen(screen)
        await settle(pilot)
        assert screen.view is not None and screen.view.question_id == "fx.numeric"
        assert skipped_notices(said) == []  # said when the quiz reaches it
        await pilot.press(*"0.0039", "enter")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        assert screen.view is not None and screen.view.question is screen.session.live["live.slope"].question
        [notice] = skipped_notices(said)
        assert "rows has" in notice, notice


@pilot_test
async def test_study_skips_a_card_it_cannot_draw_and_shows_the_next(env: Path) -> None:
    app = broken_app(env)
    now = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)
    said = record_notices(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = StudyScreen("live", clock=lambda: now)
        await app.push_screen(screen)
        await settle(pilot)
        assert screen.live is not None and screen.live.question.id == "live.slope"
        assert screen.view is not None and screen.view.question is screen.live.question
        assert len(skipped_notices(said)) == 1 and screen.undrawable == {"live.broken"}
        await pilot.press(*f"{screen.live.question.value:.6g}", "enter")
        await settle(pilot)
        await pilot.press("3")  # Good: the next plan leaves the broken card out without drawing it again
        await settle(pilot)
        assert len(skipped_notices(said)) == 1


def test_a_mock_interview_leaves_out_an_item_it_cannot_draw_with_its_follow_ups() -> None:
    from quizbank.loader import load_bank_text
    from quizbank.mock.planner import InterviewPlan, PlanItem
    from tui.live import draw_plan_showings

    bank, problems = load_bank_text(BROKEN_FIRST, "live.yaml")
    assert problems == []
    questions = {q.id: q for q in bank.topics[0].questions}
    items = (
        PlanItem("question", "live.broken", "live", "compute", 3.0, qtype="numeric"),
        PlanItem(
            "question", "live.slope", "live", "compute", 3.0, follow_up_of="live.broken", qtype="numeric"
        ),
        PlanItem("question", "live.slope", "live", "compute", 3.0, qtype="numeric"),
    )
    plan = InterviewPlan(minutes=10, seed=1, level="standard", topics=("live",), items=items)
    bankset = type("B", (), {"questions": questions})()
    kept, live, skipped = draw_plan_showings(plan, bankset, real_runner)
    assert [i.id for i in kept.items] == ["live.slope"] and kept.items[0].follow_up_of is None
    assert set(live) == {"live.slope"}
    assert [item for item, _ in skipped] == ["live.broken"] and "rows has" in skipped[0][1]
