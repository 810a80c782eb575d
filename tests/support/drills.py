"""Drill test helpers: a candidate that leaves a marker file when it runs, a spy on the grading children
started, and what the Drill screen shows."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

__all__ = ["marker_source", "open_drill", "results_text", "spy_grading_children"]


def marker_source(marker: Path, drill: str) -> str:
    """`drill`'s model solution after a line that, run, creates `marker`: the file exists only if the
    candidate's code ran."""
    from quizbank.drills import get_drill

    return f"import pathlib; pathlib.Path({str(marker)!r}).write_text('ran')\n" + get_drill(drill).solution


def spy_grading_children(monkeypatch: Any) -> list[list[str]]:
    """Record every grading child started from now on (its argv) in the list returned."""
    from quizbank.drills.grader import WORKER

    started: list[list[str]] = []
    real = subprocess.Popen

    class Spy(real):  # type: ignore[misc,valid-type]
        def __init__(self, args, *rest, **kwargs):
            if any(str(WORKER) == str(a) for a in args):
                started.append([str(a) for a in args])
            super().__init__(args, *rest, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", Spy)
    return started


def results_text(screen: Any) -> str:
    """The Drill screen's results panel as text."""
    from textual.widgets import Static

    return str(screen.query_one("#drill-results", Static).content)


async def open_drill(pilot: Any, name: str) -> Any:
    """Open the Drill screen on `name` (as the palette does) and let it settle; returns the screen."""
    from support.pilot import settle
    from tui.screens.drill import DrillScreen

    pilot.app.open_drills(name)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, DrillScreen) and screen.drill_name == name
    return screen
