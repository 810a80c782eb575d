"""Screenshots of the Demo lab with its panel (a table too wide for one block, math in checks and notes)
and of the panel after a refused run (the stale mark), at 100x30 and 80x24, in English and Chinese.

The app runs on the fixture bank with a fixed fake demo runner and no progress store. Update with
`pytest tests/tui/test_demo_lab_snapshots.py --snapshot-update` after an intended change.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.apps import wide_demo_runner
from support.pilot import settle

SIZES = [(100, 30), (80, 24)]
LANGS = ["en", "zh"]


async def _lab(pilot: Any) -> None:
    await settle(pilot)
    pilot.app.open_demo("alibi-bias")
    await settle(pilot)
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_demo_lab_with_a_wide_table(
    snap_compare: Any, app_factory: Any, lang: str, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await _lab(pilot)
        panel = pilot.app.screen.query_one("#lab-panel")
        panel.scroll_to_widget(panel.query_one(".demo-checks"), top=True, animate=False)
        await settle(pilot)

    assert snap_compare(
        app_factory(lang, demo_runner=wide_demo_runner), terminal_size=size, run_before=run_before
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_demo_panel_after_a_refused_run(
    snap_compare: Any, app_factory: Any, lang: str, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        pilot.app.open_demo("rope-scaling")
        await settle(pilot)
        screen = pilot.app.screen
        screen.query_one("#param-low_freq_factor").value = "8"
        await settle(pilot)
        screen.action_run()
        await settle(pilot)

    assert snap_compare(
        app_factory(lang, demo_runner=wide_demo_runner), terminal_size=size, run_before=run_before
    )
