"""Screenshots of Home and of Search (ranked, highlighted), at 100x30 and 80x24, in English and Chinese.

The app runs on the fixture bank with a fixed fake demo runner and no progress store. Update with
`pytest tests/tui/test_home_search_snapshots.py --snapshot-update` after an intended change.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.apps import wide_demo_runner
from support.pilot import settle

SIZES = [(100, 30), (80, 24)]
LANGS = ["en", "zh"]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_home(snap_compare: Any, app_factory: Any, lang: str, size: tuple[int, int]) -> None:
    assert snap_compare(
        app_factory(lang, demo_runner=wide_demo_runner), terminal_size=size, run_before=settle
    )


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_search_ranked_and_highlighted(
    snap_compare: Any, app_factory: Any, lang: str, size: tuple[int, int]
) -> None:
    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await pilot.press(*"rotat")
        await settle(pilot)

    assert snap_compare(
        app_factory(lang, demo_runner=wide_demo_runner), terminal_size=size, run_before=run_before
    )
