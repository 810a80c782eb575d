"""Screenshots (pytest-textual-snapshot) of the main screens at 100x30, in English and Chinese.

The app runs on the fixture bank with the fake demo runner (fixed device, timing and numbers),
a fixed shuffle seed, no progress store (its path would differ per run) and no blinking cursor.
Update with `pytest tests/tui/test_screen_snapshots.py --snapshot-update` after an intended change.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.apps import correct_position, start_quiz
from support.pilot import settle

SIZE = (100, 30)
LANGS = ["en", "zh"]


async def _quiz(pilot: Any, answer: bool) -> None:
    screen = await start_quiz(pilot, ["fx.mcq"])
    if answer:
        await pilot.press(str(correct_position(screen.view) + 1), "space")  # choose, then confirm
        await settle(pilot)
    screen.query_one("#quiz-qa").scroll_home(animate=False)
    await settle(pilot)


@pytest.mark.parametrize("lang", LANGS)
def test_home(snap_compare: Any, app_factory: Any, lang: str) -> None:
    assert snap_compare(app_factory(lang), terminal_size=SIZE, run_before=settle)


@pytest.mark.parametrize("lang", LANGS)
def test_question(snap_compare: Any, app_factory: Any, lang: str) -> None:
    async def run_before(pilot: Any) -> None:
        await _quiz(pilot, answer=False)

    assert snap_compare(app_factory(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_answered_with_demo_panel(snap_compare: Any, app_factory: Any, lang: str) -> None:
    async def run_before(pilot: Any) -> None:
        await _quiz(pilot, answer=True)

    assert snap_compare(app_factory(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_demo_lab(snap_compare: Any, app_factory: Any, lang: str) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.open_demo("alibi-bias")
        await settle(pilot)

    assert snap_compare(app_factory(lang), terminal_size=SIZE, run_before=run_before)


@pytest.mark.parametrize("lang", LANGS)
def test_help(snap_compare: Any, app_factory: Any, lang: str) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(app_factory(lang), terminal_size=SIZE, run_before=run_before)
