"""Running code off (`posenc serve --public` without `--allow-code`) in the app: every path that can grade runs
nothing and says why. The refusal comes from the grader (`quizbank.drills.CodeOff`), so these tests hold for
the Drill screen's Ctrl+R, a drill card in Study, `$EDITOR` saves, the file watcher and the Mock interview's
drill item alike. The candidate's code would write a marker file; no grading child may start."""

from __future__ import annotations

import os
import sys
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from support.apps import make_app
from support.drills import marker_source, open_drill, results_text, spy_grading_children
from support.pilot import pilot_test, settle, wait_for
from textual.widgets import Static, TextArea

from quizbank.drills.codeoff import CODE_OFF_ENV
from quizbank.mock.planner import InterviewPlan, PlanItem
from tui.screens.drill import DrillScreen
from tui.screens.mock import DrillItem, MockInterviewScreen
from tui.widgets.drill_card import DrillCard

SIZE = (120, 40)
NAME = "alibi-slopes"
OFF_EN = "Grading is off on this server"
OFF_ZH = "此服务器已关闭评分"


@pytest.fixture
def off(env: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Code off; returns the grading children started (their argv), which must stay empty."""
    monkeypatch.setenv(CODE_OFF_ENV, "1")
    return spy_grading_children(monkeypatch)


async def refused_and_nothing_ran(
    pilot: Any, screen: DrillScreen, marker: Path, off: list[list[str]]
) -> None:
    """The grader refused this grade (no report, no error), the screen says why, and nothing ran."""
    await wait_for(lambda: screen.refused and not screen.grading)
    await settle(pilot)
    assert screen.report is None and screen.error is None
    assert OFF_EN in results_text(screen) and "--allow-code" in results_text(screen)
    assert off == [] and not marker.exists()
    assert screen.app.store.drill_attempts(NAME) == []


@pilot_test
async def test_ctrl_r_on_the_drill_screen_runs_nothing(
    env: Path, off: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    warm_starts: list[bool] = []  # the screen's warm-grader start, a second after it opens
    start_warm = DrillScreen._start_warm
    monkeypatch.setattr(
        DrillScreen, "_start_warm", lambda self: (warm_starts.append(True), start_warm(self))[1]
    )
    app = make_app(env)
    marker = env / "marker"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_drill(pilot, NAME)
        screen.query_one("#drill-code", TextArea).text = marker_source(marker, NAME)
        await pilot.press("ctrl+r")
        await refused_and_nothing_ran(pilot, screen, marker, off)
        assert str(marker) in screen.path.read_text(encoding="utf-8")  # saved, not run
        await wait_for(lambda: warm_starts, timeout=30)  # when a warm grader would start its child
        await settle(pilot)
        assert off == [] and screen._warm is None


@pilot_test
async def test_a_change_on_disk_is_not_graded(env: Path, off: list[list[str]]) -> None:
    app = make_app(env)
    marker = env / "marker"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await open_drill(pilot, NAME)
        screen.path.write_text(marker_source(marker, NAME), encoding="utf-8")  # another editor saves
        os.utime(screen.path, (time.time() + 5, time.time() + 5))
        await wait_for(lambda: str(marker) in screen.query_one("#drill-code", TextArea).text)
        await refused_and_nothing_ran(pilot, screen, marker, off)


@pilot_test
async def test_an_editor_save_is_not_graded(
    env: Path, off: list[list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(env)
    marker = env / "marker"
    editor = env / "editor.py"  # an $EDITOR that writes the marked solution into the file it is given
    editor.write_text(
        "import os, sys, time\n"
        f"open(sys.argv[1], 'w', encoding='utf-8').write({marker_source(marker, NAME)!r})\n"
        "os.utime(sys.argv[1], (time.time() + 5, time.time() + 5))\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("VISUAL", f"{sys.executable} {editor}")
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(app, "suspend", nullcontext)  # a headless app has no terminal to hand over
        await settle(pilot)
        screen = await open_drill(pilot, NAME)
        await pilot.press("e")
        await wait_for(lambda: str(marker) in screen.query_one("#drill-code", TextArea).text)
        await refused_and_nothing_ran(pilot, screen, marker, off)


@pilot_test
async def test_a_drill_card_in_study_grades_nothing(env: Path, off: list[list[str]]) -> None:
    app = make_app(env)
    marker = env / "marker"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.store.record_drill_attempt(NAME, True, 12, 12, 1800)
        app.store.make_due_now([f"drill:{NAME}"])
        app.open_study()
        await settle(pilot)
        assert app.screen.query_one(DrillCard).drill_name == NAME
        await pilot.press("space")  # the card opens its drill
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen) and screen.drill_name == NAME
        screen.query_one("#drill-code", TextArea).text = marker_source(marker, NAME)
        await pilot.press("ctrl+r")
        await wait_for(lambda: screen.refused and not screen.grading)
        await settle(pilot)
        assert OFF_EN in results_text(screen)
        assert off == [] and not marker.exists()
        assert len(app.store.drill_attempts(NAME)) == 1  # only the one recorded above


@pilot_test
async def test_the_mock_drill_item_runs_nothing_and_says_why(env: Path, off: list[list[str]]) -> None:
    app = make_app(env)
    marker = env / "marker"
    plan = InterviewPlan(
        minutes=10,
        seed=1,
        level="standard",
        topics=("alibi",),
        items=(PlanItem("drill", NAME, "alibi", "coding", 7.0, None, 2, "drill"),),
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(MockInterviewScreen(plan, session_id="20260504-093000-off"))
        await settle(pilot)
        item = app.screen.current
        assert isinstance(item, DrillItem)
        item.query_one("#mock-code", TextArea).load_text(marker_source(marker, NAME))
        await pilot.press("ctrl+r")
        await wait_for(lambda: item.refused and not item.grading)
        await settle(pilot)
        result = str(item.query_one(".mock-drill-result", Static).content)
        assert OFF_EN in result and "--allow-code" in result  # the Drill screen's words
        assert item.report is None and item.error is None
        assert off == [] and not marker.exists()
        assert app.store.drill_attempts(NAME) == []
        app.language = "zh"
        item.render_texts()
        assert OFF_ZH in str(item.query_one(".mock-drill-result", Static).content)
