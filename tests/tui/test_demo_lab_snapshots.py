"""Screenshots of the screens issue 11 part B changed: Home, Search (ranked, highlighted), the demo
lab with its panel (a table too wide for one block, math in checks and notes), and the panel
after a refused run (the stale mark), at 100x30 and 80x24, in English and Chinese.

The app runs on the fixture bank with a fixed fake demo runner and no progress store. Update with
`pytest tests/test_ux_snapshots.py --snapshot-update` after an intended change.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.apps import fake_demo_runner
from support.pilot import settle

from posenc_ref.demos.base import Check, Table

SIZES = [(100, 30), (80, 24)]
LANGS = ["en", "zh"]


def wide_runner(name: str, params: dict | None = None, device: str = "auto") -> Any:
    """The fake runner's result, plus a 15-column table, math in a check and a note, and Chinese."""
    result = fake_demo_runner(name, params, device)
    result.tables.insert(
        0,
        Table(
            "Bias, first 3 queries × 10 keys",
            ["query i \\ key j"] + [f"key {j}" for j in range(10)],
            [[i] + [round(-0.25 * (i - j), 2) for j in range(10)] for i in range(3)],
            "偏置：前 3 个查询 × 10 个键",
            ["查询 i \\ 键 j"] + [f"键 {j}" for j in range(10)],
        ),
    )
    result.checks.insert(
        0,
        Check(
            r"$\theta_i = 10000^{-2i/d}$ for every pair",
            True,
            0.0,
            0.0,
            r"每一对都有 $\theta_i = 10000^{-2i/d}$",
        ),
    )
    result.checks[1].claim_zh = "教科书实现与快速实现一致"
    result.checks[2].claim_zh = "一个故意失败的检查"
    result.tables[1].title_zh = "m、n 与分数"
    result.tables[1].columns_zh = ["m", "n", "m − n", "分数"]
    result.notes_zh = ["假的运行器：测试用的固定输出"]
    result.series[0].title_zh = "正弦与衰减"
    result.matrices[0].title_zh = "因果偏置"
    return result


async def _lab(pilot: Any) -> None:
    await settle(pilot)
    pilot.app.open_demo("alibi-bias")
    await settle(pilot)
    await settle(pilot)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_home(snap_compare: Any, app_factory: Any, lang: str, size: tuple[int, int]) -> None:
    assert snap_compare(app_factory(lang, demo_runner=wide_runner), terminal_size=size, run_before=settle)


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

    assert snap_compare(app_factory(lang, demo_runner=wide_runner), terminal_size=size, run_before=run_before)


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

    assert snap_compare(app_factory(lang, demo_runner=wide_runner), terminal_size=size, run_before=run_before)


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

    assert snap_compare(app_factory(lang, demo_runner=wide_runner), terminal_size=size, run_before=run_before)
