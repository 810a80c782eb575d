"""Mock interviews in the app, Pilot-driven on the fixture bank (tests/support/apps.py): a whole short interview with
every item kind (a real drill graded in a child process), an early end, the report, "add missed to Study",
export, both languages; and snapshots of the interview and report screens at 100x30 and 80x24."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support.apps import make_app, palette_highlight, screen_text
from support.pilot import pilot_test, post_keys, settle, wait_for
from textual.widgets import Checkbox, TextArea

from quizbank.drills import get_drill
from quizbank.mock.planner import InterviewPlan, PlanItem
from quizbank.mock.report import ItemResult, build_report
from tui.screens.confirm import ConfirmScreen
from tui.screens.home import HomeScreen
from tui.screens.mock import (
    DrillItem,
    MockInterviewScreen,
    MockReportScreen,
    MockSetupScreen,
    OpenItem,
)
from tui.widgets.question_view import QuestionView

SIZE = (100, 30)
STARTED = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)


def item(
    kind: str, item_id: str, skill: str, minutes: float, qtype: str, parent: str | None = None
) -> PlanItem:
    topic = "fixture-alibi" if item_id in ("fx.numeric", "fx.cloze") else "fixture-rope"
    if kind == "drill":
        topic = "alibi"
    return PlanItem(kind, item_id, topic, skill, minutes, parent, 2, qtype)


FULL_PLAN = InterviewPlan(
    minutes=20,
    seed=1,
    level="standard",
    topics=("fixture-rope", "fixture-alibi"),
    items=(
        item("question", "fx.mcq", "concept", 1.5, "mcq"),
        item("question", "fx.literal", "concept", 3.0, "open"),
        item("question", "fx.multi", "concept", 2.0, "multi", parent="fx.literal"),
        item("question", "fx.truefalse", "concept", 1.5, "truefalse"),
        item("question", "fx.numeric", "computation", 2.5, "numeric"),
        item("question", "fx.cloze", "computation", 2.5, "cloze"),
        item("drill", "alibi-slopes", "coding", 7.0, "drill"),
    ),
)


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def interview(plan: InterviewPlan, clock: FakeClock | None = None) -> MockInterviewScreen:
    return MockInterviewScreen(
        plan, clock=clock or FakeClock(), now=lambda: STARTED, session_id="20260504-093000-test"
    )


def notices(app: Any) -> str:
    """Every notification shown so far, one per line."""
    return "\n".join(str(note.message) for note in app._notifications)


def choice_keys(view: QuestionView) -> list[str]:
    return [str(view.order.index(i) + 1) for i, c in enumerate(view.question.choices) if c.correct]


@pytest.mark.slow  # a whole interview, every item kind, through the screens
@pilot_test
async def test_whole_interview_with_every_item_kind(env: Path) -> None:
    app = make_app(env)
    clock = FakeClock()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = interview(FULL_PLAN, clock)
        await app.push_screen(screen)
        await settle(pilot)

        # 1. mcq, answered right, then the item runs over its budget (shown, not enforced)
        assert isinstance(screen.current, QuestionView) and screen.current.question_id == "fx.mcq"
        await pilot.press(*choice_keys(screen.current), "space")
        clock.t += 125
        screen._tick()
        await pilot.pause()
        text = screen_text(app)
        assert "Item 1/7" in text and "interview 2:05 / 20:00" in text
        assert "this item 2:05 / 1:30" in text and "over budget +0:35" in text
        await pilot.press("n")
        await settle(pilot)

        # 2. open: type, reveal, key point pre-ticked from the answer
        widget = screen.current
        assert isinstance(widget, OpenItem)
        widget.query_one("#mock-answer", TextArea).insert("Escaping keeps brackets literal.")
        clock.t += 40
        await pilot.press("ctrl+r")
        await settle(pilot)
        assert [box.value for box in widget.query(Checkbox)] == [True]
        assert "covered 1/1" in screen_text(app)
        await pilot.press("1")  # number keys tick and untick key point n
        await settle(pilot)
        assert [box.value for box in widget.query(Checkbox)] == [False] and "covered 0/1" in screen_text(app)
        await pilot.press("2", "1")  # there is no point 2
        await settle(pilot)
        assert [box.value for box in widget.query(Checkbox)] == [True] and "covered 1/1" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)

        # 3. the follow-up comes after its answered parent
        assert "Follow-up to your last answer" in screen_text(app)
        view = screen.current
        assert isinstance(view, QuestionView) and view.question_id == "fx.multi"
        await pilot.press(*choice_keys(view), "space")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)

        # 4. true/false answered wrong: missed
        await pilot.press("2", "space")  # "False"
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)

        # 5. numeric and 6. cloze
        await pilot.press(*"1/256", "enter")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        await pilot.press(*"slope", "enter", *"logits", "enter")
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)

        # 7. the drill, graded for real in an isolated child process
        drill_item = screen.current
        assert isinstance(drill_item, DrillItem) and drill_item.drill.name == "alibi-slopes"
        drill_item.query_one("#mock-code", TextArea).load_text(get_drill("alibi-slopes").solution)
        await pilot.press("ctrl+r")
        await settle(pilot)
        # the grading child imports torch
        await wait_for(lambda: drill_item.report is not None or drill_item.error is not None, timeout=120)
        await settle(pilot)
        assert drill_item.error is None and drill_item.report.passed
        assert "✓" in screen_text(app) and "cases passed" in screen_text(app)
        await pilot.press("n")
        await settle(pilot)

        # the report, saved in the store
        assert isinstance(app.screen, MockReportScreen)
        report = app.screen.report
        assert report["ended_early"] is False
        scores = {i["id"]: i["score"] for i in report["items"]}
        assert scores == {
            "fx.mcq": 1.0, "fx.literal": 1.0, "fx.multi": 1.0, "fx.truefalse": 0.0, "fx.numeric": 1.0,
            "fx.cloze": 1.0, "alibi-slopes": 1.0,
        }  # fmt: skip
        assert report["score"] == pytest.approx(6 / 7, abs=1e-4)
        assert report["missed"] == ["fx.truefalse"]
        # time to the answer: the mcq was answered at once (the clock moved after), the open one after 40 s
        assert report["items"][0]["seconds"] == 0.0 and report["items"][1]["seconds"] == 40.0
        assert report["by_skill"]["coding"]["score"] == 1.0
        saved = app.store.mock_sessions()
        attempts = app.store.drill_attempts("alibi-slopes")
        assert [(a.passed, a.cases_passed == a.cases_total) for a in attempts] == [(True, True)]
        assert [s["id"] for s in saved] == ["20260504-093000-test"]
        text = screen_text(app)
        assert "Mock interview report" in text and "Overall: 86%" in text

        # add missed to Study, export
        await pilot.press("a")
        await settle(pilot)
        card = app.store.card("fx.truefalse")
        assert card is not None and card.due <= datetime.now(UTC)
        assert "1 missed item is due in Study now" in [str(n.message) for n in app._notifications]
        await pilot.press("e")
        await settle(pilot)
        exported = app.screen.exported_to
        assert exported is not None and exported.parent.name == "mock-reports"
        body = exported.read_text(encoding="utf-8")
        assert body.startswith("# Mock interview report: 20260504-093000-test")
        assert "### fx.truefalse" in body and "**Model answer:** True" in body


@pilot_test
async def test_early_end_in_chinese_skips_the_follow_up_of_a_skipped_parent(env: Path) -> None:
    app = make_app(env, language="zh")
    plan = InterviewPlan(
        minutes=10,
        seed=1,
        level="standard",
        topics=("fixture-rope",),
        items=(
            item("question", "fx.literal", "concept", 4.0, "open"),
            item("question", "fx.multi", "concept", 3.0, "multi", parent="fx.literal"),
            item("question", "fx.mcq", "concept", 3.0, "mcq"),
        ),
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = interview(plan)
        await app.push_screen(screen)
        await settle(pilot)
        assert "第 1/3 题" in screen_text(app)
        await pilot.press("escape", "n")  # leave the answer box; skip without answering
        await settle(pilot)
        assert isinstance(screen.current, QuestionView) and screen.current.question_id == "fx.mcq"
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "结束面试？" in screen_text(app)
        await pilot.press("n")  # go on
        await settle(pilot)
        assert app.screen is screen
        await pilot.press("q")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MockReportScreen)
        report = app.screen.report
        assert report["ended_early"] is True
        assert [i["status"] for i in report["items"]] == ["skipped", "not_reached", "skipped"]
        assert report["missed"] == ["fx.literal", "fx.mcq"] and report["score"] == 0.0
        text = screen_text(app)
        assert "模拟面试报告" in text and "提前结束" in text
        await pilot.press("a")
        await settle(pilot)
        assert app.store.card("fx.literal") is not None and app.store.card("fx.mcq") is not None
        assert app.store.card("fx.multi") is None
        assert app.store.mock_sessions()[0]["ended_early"] is True

        # Stats plots the interview scores once there is one
        app.open_stats()
        await settle(pilot)
        plot = app.screen.query_one("#stats-mock")
        assert plot.display is True


@pilot_test
async def test_a_multi_answer_earns_partial_credit_and_unreached_items_count(env: Path) -> None:
    """1 of 2 right picks scored 0% (only the exact set counted), and ending early left the unreached item
    out of the overall score: the report said 0% for a half-right answer, or 50% for half an interview."""
    app = make_app(env)
    plan = InterviewPlan(
        minutes=5, seed=1, level="standard", topics=("fixture-rope",),
        items=(item("question", "fx.multi", "concept", 2.0, "multi"), item("question", "fx.mcq", "concept", 3.0, "mcq")),
    )  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = interview(plan)
        await app.push_screen(screen)
        await settle(pilot)
        view = screen.current
        assert isinstance(view, QuestionView) and view.question_id == "fx.multi"
        await pilot.press(choice_keys(view)[0], "space")  # one of the two right choices, no wrong one
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert isinstance(app.screen, MockReportScreen)
        report = app.screen.report
        assert [(i["id"], i["status"], i["score"]) for i in report["items"]] == [
            ("fx.multi", "answered", 0.5), ("fx.mcq", "not_reached", None),
        ]  # fmt: skip
        assert report["score"] == 0.25 and report["asked_score"] == 0.5 and report["not_reached"] == 1
        text = screen_text(app)
        assert "Overall: 25%" in text and "1 of 2 items not reached, counted as 0; 50% on the 1 asked" in text


@pilot_test
async def test_keys_typed_after_next_wait_for_the_next_item_and_land_in_its_box(env: Path) -> None:
    """`n` then typing at once: the keys wait until the next item is mounted and its box has focus, then go
    there in order. The screen used to focus the item one refresh after mounting it, before the item had
    composed its children under load: the query raised NoMatches and ended the app (a `posenc serve` tab
    froze on the drill item); without load the keys went to no widget and were lost."""
    app = make_app(env)
    plan = InterviewPlan(
        minutes=15, seed=1, level="standard", topics=("fixture-rope", "fixture-alibi"),
        items=(
            item("question", "fx.mcq", "concept", 1.5, "mcq"),
            item("question", "fx.literal", "concept", 3.0, "open"),
            item("drill", "alibi-slopes", "coding", 7.0, "drill"),
        ),
    )  # fmt: skip
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = interview(plan)
        await app.push_screen(screen)
        await settle(pilot)
        assert isinstance(screen.current, QuestionView)
        await post_keys(app, ["n", "a", "b", "c"])
        await wait_for(
            lambda: (
                isinstance(screen.current, OpenItem)
                and screen.current.is_mounted
                and screen.current.query_one("#mock-answer", TextArea).text == "abc"
            ),
            timeout=60,
            state=lambda: (screen.current, app.focused, screen_text(app)[-400:]),
        )
        assert app.focused is screen.current.query_one("#mock-answer", TextArea)
        await post_keys(app, ["escape", "n", "x", "y"])  # Esc leaves the box, n moves on, xy types code
        await wait_for(
            lambda: (
                isinstance(screen.current, DrillItem)
                and screen.current.is_mounted
                and screen.current.source.startswith("xy")
            ),
            timeout=60,
            state=lambda: (screen.current, app.focused, screen_text(app)[-400:]),
        )
        assert app.focused is screen.current.query_one("#mock-code", TextArea)
        assert not screen.holds_keys


@pilot_test
async def test_a_slow_plan_says_planning_and_takes_it_back_when_the_interview_starts(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import quizbank.mock.planner as planner

    real = planner.plan_interview
    planned = threading.Event()

    def slow_plan(*args: Any, **kwargs: Any) -> Any:
        assert planned.wait(60), "the test never let the plan finish"  # in the planning worker
        return real(*args, **kwargs)

    monkeypatch.setattr(planner, "plan_interview", slow_plan)
    app = make_app(env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        await pilot.press("backspace", "backspace", "1", "0", "enter")
        # the toast comes (after its delay) while the worker still plans
        await wait_for(
            lambda: "Planning the interview…" in notices(app), timeout=30, state=lambda: notices(app)
        )
        planned.set()
        await settle(pilot)
        assert isinstance(app.screen, MockInterviewScreen)
        assert notices(app) == ""  # nothing left over the first question and its clock


@pilot_test
async def test_setup_from_home_plans_and_starts(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("m")
        await settle(pilot)
        assert isinstance(app.screen, MockSetupScreen)
        await pilot.press("backspace", "backspace", "4")  # 4 minutes: refused
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MockSetupScreen)
        assert "Minutes must be a whole number from 5 to 180." in notices(app)
        await pilot.press("backspace", "1", "8", "0", "enter")  # the fixture bank cannot fill 3 hours
        await settle(pilot)
        assert isinstance(app.screen, MockSetupScreen)
        assert (
            "Not enough questions for 180 minutes with these topics and level; at most 22 minutes."
            in notices(app)
        )
        await pilot.press("backspace", "backspace", "backspace", "1", "0", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MockInterviewScreen)
        assert screen.plan.minutes == 10 and screen.plan.seed == 1  # the app's fixed seed
        assert sum(i.minutes for i in screen.plan.items) == 10
        assert {i.topic for i in screen.plan.items} <= {"fixture-rope", "fixture-alibi"}
        await pilot.press("l")  # the interview follows the language switch
        await settle(pilot)
        assert "第 1/" in screen_text(app)

        # the palette opens the setup too
        app.pop_screen()
        await settle(pilot)
        await pilot.press("ctrl+p")
        await settle(pilot)
        await pilot.press(*"模拟面试")
        await wait_for(
            lambda: "模拟面试" in palette_highlight(app), timeout=30, state=lambda: palette_highlight(app)
        )
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MockSetupScreen)


# ---------------------------------------------------------------------------------------------------- snapshots


@pytest.fixture
def snap_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[str], Any]:
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BENCH_LOG", raising=False)
    return lambda lang: make_app(tmp_path, language=lang, open_store=False)


async def _open_question_revealed(pilot: Any) -> None:
    await settle(pilot)
    plan = InterviewPlan(
        10, 1, "standard", ("fixture-rope",), (item("question", "fx.literal", "concept", 4.0, "open"),)
    )
    clock = FakeClock()
    screen = interview(plan, clock)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    screen.current.query_one("#mock-answer", TextArea).insert("Escaping keeps the brackets.")
    clock.t += 300  # over the 4-minute budget
    await pilot.press("ctrl+r")
    await settle(pilot)
    screen.query_one("#mock-body").scroll_home(animate=False)
    await settle(pilot)


async def _report(pilot: Any) -> None:
    await settle(pilot)
    bankset = pilot.app.bankset
    plan = FULL_PLAN
    results = {
        "fx.mcq": ItemResult("fx.mcq", "answered", 1.0, 50.0, "1"),
        "fx.literal": ItemResult("fx.literal", "answered", 0.0, 200.0, "no idea"),
        "fx.truefalse": ItemResult("fx.truefalse", "skipped", None, 12.0),
    }
    report = build_report(
        plan, results, session_id="20260504-093000-snap", started_at=STARTED, language="en", ended_early=True,
        bankset=bankset, drills={"alibi-slopes": get_drill("alibi-slopes")}, elapsed_seconds=262.0,
    )  # fmt: skip
    await pilot.app.push_screen(MockReportScreen(report))
    await settle(pilot)


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_interview_snapshot(snap_compare: Any, snap_app: Any, size: tuple[int, int], lang: str) -> None:
    assert snap_compare(snap_app(lang), terminal_size=size, run_before=_open_question_revealed)


@pytest.mark.parametrize("size", [(100, 30), (80, 24)])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_report_snapshot(snap_compare: Any, snap_app: Any, size: tuple[int, int], lang: str) -> None:
    assert snap_compare(snap_app(lang), terminal_size=size, run_before=_report)


SHORT_PLAN = InterviewPlan(
    minutes=10,
    seed=1,
    level="standard",
    topics=("fixture-rope",),
    items=(
        item("question", "fx.mcq", "concept", 3.0, "mcq"),
        item("question", "fx.truefalse", "concept", 3.0, "truefalse"),
    ),
)


def saved_sessions(env: Path) -> list[dict[str, Any]]:
    from quizbank.progress.store import open_store

    with open_store(env / "data") as store:
        return store.mock_sessions()


@pilot_test
async def test_ctrl_q_mid_interview_asks_then_saves_it_as_ended_early(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = interview(SHORT_PLAN)
        await app.push_screen(screen)
        await settle(pilot)
        await pilot.press(*choice_keys(screen.current), "space")  # item 1 answered right
        await settle(pilot)
        await pilot.press("ctrl+q")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "End the interview and quit?" in screen_text(app)
        await pilot.press("n")  # go on: nothing ends, nothing is saved
        await settle(pilot)
        assert app.screen is screen and app.is_running
        assert app.store.mock_sessions() == []
        await pilot.press("ctrl+q")
        await settle(pilot)
        await pilot.press("y")
        await pilot.pause()
    assert not app.is_running
    [report] = saved_sessions(env)
    assert report["id"] == "20260504-093000-test" and report["ended_early"] is True
    assert [i["status"] for i in report["items"]] == ["answered", "not_reached"]
    assert report["score"] == 0.5  # the item not reached counts as 0


@pilot_test
async def test_an_app_ending_mid_interview_saves_it_as_ended_early(env: Path) -> None:
    """A closed `posenc serve` tab (SIGTERM: the web driver quits cleanly) or any other exit: the interview
    screen unmounts before the app closes the store, and saves what was done."""
    app = make_app(env, language="zh")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(interview(SHORT_PLAN))
        await settle(pilot)
        app.exit()
        await pilot.pause()
    [report] = saved_sessions(env)
    assert report["ended_early"] is True and report["language"] == "zh"
    assert [i["status"] for i in report["items"]] == ["skipped", "not_reached"]


@pilot_test
async def test_ctrl_q_after_the_report_quits_without_asking(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.push_screen(interview(SHORT_PLAN))
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        await pilot.press("y")  # ended from the interview: the report screen saves it
        await settle(pilot)
        assert isinstance(app.screen, MockReportScreen)
        await pilot.press("ctrl+q")
        await pilot.pause()
    assert not app.is_running
    assert len(saved_sessions(env)) == 1
