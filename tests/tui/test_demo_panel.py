"""The demo panel (tui/widgets/demo_panel.py) beside an explanation and in the Demo lab: wide tables
wrapped into blocks, Chinese and rendered math, failing and stale results, the lab's parameters (bad
values, the memory budget, constraints between parameters, Chinese help)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from support.apps import correct_position, fake_demo_runner, make_app, screen_text, start_quiz
from support.pilot import pilot_test, settle, wait_for
from textual.widgets import Input, Markdown, Static
from textual_plotext import PlotextPlot

from posenc_ref.demos import get_demo
from posenc_ref.demos.base import Check, Table
from tui.screens.demo_lab import DemoLabScreen
from tui.screens.quiz import QuizScreen
from tui.widgets.demo_panel import DemoPanel, DemoTable
from tui.widgets.heatmap import Heatmap

SIZE = (100, 30)

# ----------------------------------------------------------------------------- wide tables


def test_demo_table_wraps_columns_into_blocks_repeating_the_key_column() -> None:
    headers = ["head", "slope", "bias[L−1, 0]", "BLOOM bias[L−1, 0] = +m·0", "BLOOM bias[L−1, L−1] = m·(L−1)"]
    cells = [["1", "0.25", "-1.75", "0", "1.75"], ["2", "0.0625", "-0.4375", "0", "0.4375"]]
    table = DemoTable(headers, cells, [[True] * 5] * 2)
    assert table.blocks(200) == [[0, 1, 2, 3, 4]]
    blocks = table.blocks(60)
    assert len(blocks) > 1 and all(block[0] == 0 for block in blocks)
    assert sorted({i for block in blocks for i in block}) == [0, 1, 2, 3, 4]  # every column, once or more
    widths = table._widths()
    for block in blocks:  # each block fits, unless it holds a single column beside the key
        assert sum(widths[i] for i in block) + DemoTable.GAP * (len(block) - 1) <= 60 or len(block) == 2


def _wide_runner(name: str, params: dict | None = None, device: str = "auto") -> Any:
    result = fake_demo_runner(name, params, device)
    columns = ["query i \\ key j"] + [f"key {j}" for j in range(14)]
    result.tables.append(
        Table(
            "A wide table",
            columns,
            [[i] + [round(-0.25 * (i - j), 2) for j in range(14)] for i in range(3)],
            "一张很宽的表",
            ["查询 i \\ 键 j"] + [f"键 {j}" for j in range(14)],
        )
    )
    result.checks.append(
        Check(r"the bound $\theta_i = 10000^{-2i/d}$ holds", True, 0.0, 0.0, "上界 $\\theta_i$ 成立")
    )
    result.notes.append(r"note with $e^{i(m-n)\theta_i}$")
    result.notes_zh = ["假的运行器：测试用的固定输出", r"带公式的备注 $e^{i(m-n)\theta_i}$"]
    result.checks[0].claim_zh = "教科书实现与快速实现一致"
    result.tables[0].title_zh = "m、n 与分数"
    result.tables[0].columns_zh = ["m", "n", "m − n", "分数"]
    return result


@pilot_test
async def test_wide_demo_table_shows_every_column_at_80x24(env: Path) -> None:
    app = make_app(env, open_store=False, demo_runner=_wide_runner)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_demo("alibi-bias")
        await settle(pilot)
        await settle(pilot)
        panel = app.screen.query_one("#lab-panel", DemoPanel)
        wide = list(panel.query(DemoTable))[-1]
        panel.scroll_to_widget(wide, top=True, animate=False)
        await settle(pilot)
        assert "key 0" in screen_text(app)
        lines = str(wide.render()).splitlines()
        assert all(f"key {j}" in "\n".join(lines) for j in range(14))  # every column, in blocks
        assert max(cell_len(line.rstrip()) for line in lines) <= wide.size.width
        assert wide.region.right <= panel.region.right and panel.max_scroll_x == 0  # nothing hidden


# ----------------------------------------------------------------------------- math and Chinese


@pilot_test
async def test_demo_panel_is_chinese_in_zh_mode_with_math_rendered(env: Path) -> None:
    app = make_app(env, language="zh", open_store=False, demo_runner=_wide_runner)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_demo("alibi-bias")
        await settle(pilot)
        panel = app.screen.query_one("#lab-panel", DemoPanel)
        checks = panel.query_one(".demo-checks").render()
        notes = panel.query_one(".demo-notes").render()
        titles = [str(w.render()) for w in panel.query(".demo-table-title")]
        assert "教科书实现与快速实现一致" in str(checks) and "θᵢ" in str(checks)
        assert "假的运行器" in str(notes) and "e^(i(m-n)θᵢ)" in str(notes)
        assert titles == ["m、n 与分数", "一张很宽的表"]
        assert list(panel.query(DemoTable))[0].headers == ["m", "n", "m − n", "分数"]
        await pilot.press("l")  # English at once, in place
        await settle(pilot)
        checks = str(panel.query_one(".demo-checks").render())
        assert "textbook and fast forms agree" in checks and "θᵢ = 10000^(-2i/d)" in checks
        assert list(panel.query(DemoTable))[0].headers == ["m", "n", "m − n", "score"]


# ----------------------------------------------------------------------------- constraints between parameters


@pilot_test
async def test_lab_refuses_a_constraint_and_marks_the_old_result(env: Path) -> None:
    runs: list[dict] = []

    def runner(name: str, params: dict | None = None, device: str = "auto") -> Any:
        runs.append(dict(params or {}))
        return fake_demo_runner(name, params, device)

    app = make_app(env, language="zh", open_store=False, demo_runner=runner)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.open_demo("rope-scaling")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DemoLabScreen)
        panel = screen.query_one("#lab-panel", DemoPanel)
        assert panel.result is not None and not panel.refused and len(runs) == 1
        screen.query_one("#param-beta_fast").value = "0.5"
        screen.query_one("#param-beta_slow").value = "2"
        await settle(pilot)
        screen.action_run()
        await settle(pilot)
        assert len(runs) == 1  # refused before running
        error = str(screen.query_one("#lab-form-error").render())
        assert "beta_fast ≥ beta_slow" in error and "参数必须满足" in error
        assert panel.refused and "上一次运行的结果" in str(panel.query_one("#demo-stale").render())
        assert panel.query_one("#demo-results").has_class("-outdated")
        screen.query_one("#param-beta_slow").value = "0.25"
        await settle(pilot)
        screen.action_run()
        await settle(pilot)
        assert len(runs) == 2 and not panel.refused
        assert not panel.query_one("#demo-results").has_class("-outdated")


# ----------------------------------------------------------------------------- the lab's parameters


def test_the_lab_shows_a_parameters_help_in_the_app_language() -> None:
    from posenc_ref.demos.base import Param
    from tui.screens.demo_lab import param_help

    beta = get_demo("rope-scaling").param("beta_fast")
    assert param_help(beta, "zh") == beta.help_zh == "YaRN：插值停止处的旋转圈数"
    assert param_help(beta, "en") == beta.help == "YaRN: rotations where interpolation stops"
    english_only = Param("n", "int", 1, help="tokens")
    assert param_help(english_only, "zh") == "tokens"


@pilot_test
async def test_demo_panel_beside_the_explanation(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq"])
        panel = screen.query_one("#quiz-demo", DemoPanel)
        assert not panel.display  # hidden until answered: the demo could give the answer away
        await pilot.press(str(correct_position(screen.view) + 1), "space")
        await settle(pilot)
        assert panel.display and panel.result is not None and panel.error is None
        explanation = screen.view.query_one(Markdown)
        assert explanation.region.x < panel.region.x  # side by side
        assert explanation.region.y < panel.region.bottom
        assert panel.query(DemoTable) and panel.query(PlotextPlot) and panel.query(Heatmap)
        text = screen_text(app)
        assert "cpu · float32 · 1.25 ms" in text
        assert "✓ textbook and fast forms agree" in text
        assert "✗ a deliberately failing check" in text
        assert "m=7" in text and "n=3" in text


@pilot_test
async def test_failing_demo_is_shown_in_the_panel(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.truefalse"])
        await pilot.press("1", "space")
        await settle(pilot)
        panel = screen.query_one("#quiz-demo", DemoPanel)
        assert panel.error is not None and "NotImplementedError" in panel.error
        assert "The demo failed: NotImplementedError" in screen_text(app)
        await pilot.press("d")  # re-running keeps failing politely
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, QuizScreen)


@pilot_test
async def test_stale_demo_result_is_ignored(env: Path) -> None:
    release = threading.Event()

    def slow_runner(name: str, params: dict[str, Any]) -> Any:
        if name == "rope-relativity":
            release.wait(5)
        return fake_demo_runner(name, params)

    app = make_app(env, demo_runner=slow_runner)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        panel = DemoPanel("rope-relativity", {"m": 1})
        await app.screen.mount(panel)
        await pilot.pause()
        assert panel.running
        panel.set_demo("alibi-slopes", {"n_heads": 8})
        await pilot.pause()
        release.set()
        await wait_for(
            lambda: all(worker.is_finished for worker in app.workers), timeout=30
        )  # the stale one too
        await settle(pilot)  # its late result, if it posts one, is handled
        assert panel.result is not None and panel.result.name == "alibi-slopes"


@pilot_test
async def test_demo_lab_good_and_bad_parameters(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DemoLabScreen)
        screen.select_demo("alibi-bias")
        await settle(pilot)
        panel = screen.query_one("#lab-panel", DemoPanel)
        assert panel.result is not None and panel.result.params["seq_len"] == 8
        field = screen.query_one("#param-seq_len", Input)
        field.focus()
        field.value = ""
        await pilot.press(*"0")
        await settle(pilot)
        assert "seq_len" in screen.errors
        error = screen.query_one("#error-seq_len", Static)
        assert error.display and "must be int in [1, 16384], got 0" in str(error.content)
        await pilot.press("enter")  # refuses to run
        await settle(pilot)
        assert panel.result.params["seq_len"] == 8
        form_error = screen.query_one("#lab-form-error", Static)
        assert form_error.display and "Fix the highlighted parameters first." in str(form_error.content)
        field.value = ""
        await pilot.press(*"12", "enter")
        await settle(pilot)
        assert screen.errors == {} and not error.display
        assert panel.result.params["seq_len"] == 12
        field.value = "abc"
        await settle(pilot)
        assert "must be an integer" in screen.errors["seq_len"]
        assert app.is_running


@pilot_test
async def test_demo_lab_memory_budget_is_checked_before_running(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POSENC_MEMORY_BUDGET_MIB", "1")
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_demo("alibi-bias")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#param-seq_len", Input).value = "16000"
        screen.action_run()
        await settle(pilot)
        form_error = screen.query_one("#lab-form-error", Static)
        assert form_error.display and "budget" in str(form_error.content)


@pilot_test
async def test_demo_panel_and_footer_follow_the_language(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(110, 60)) as pilot:
        await settle(pilot)
        app.open_demo("alibi-bias")
        await settle(pilot)
        panel = app.screen.query_one("#lab-panel", DemoPanel)
        text = screen_text(app)
        assert "Checks" in text and "Values" in text and "Notes" in text
        assert "masked (−∞)" in text and "(query ↓, key →)" in text
        assert "^p Commands" in text.splitlines()[-1]
        await pilot.press("l")
        await settle(pilot)
        text = screen_text(app)
        for english in ("Checks", "Values", "Notes", "masked (−∞)", "Live demo", "params:", "  error "):
            assert english not in text, english
        for chinese in ("检查", "数值", "备注", "已屏蔽（−∞）", "实时演示", "参数：", "误差 "):
            assert chinese in text, chinese
        assert "^p 命令" in text.splitlines()[-1]
        assert panel.result is not None  # relabelled in place, not re-run


@pilot_test
async def test_demo_title_and_claim_are_chinese_in_zh_mode_and_switch_at_once(env: Path) -> None:
    from posenc_ref.demos import get_demo

    spec = get_demo("rope-relativity")  # the demo of fx.mcq
    app = make_app(env, language="zh")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq"])
        await pilot.press(str(correct_position(screen.view) + 1), "space")
        await settle(pilot)
        panel = screen.query_one("#quiz-demo", DemoPanel)
        assert panel.result is not None and panel.result.title_zh == spec.title_zh
        heading = str(panel.query_one("#demo-heading", Static).content)
        claim = str(panel.query_one("#demo-claim", Static).content)
        assert heading == "实时演示 · RoPE 的注意力分数只取决于 m − n  rope-relativity"
        assert claim == spec.claim_zh and claim.startswith("⟨R(q, m), R(k, n)⟩ 等于")
        assert "RoPE 的注意力分数只取决于 m − n" in screen_text(app)
        result = panel.result
        await pilot.press("l")
        await pilot.pause()  # no worker run: the panel re-renders in place
        heading = str(panel.query_one("#demo-heading", Static).content)
        assert heading == "Live demo · RoPE scores depend only on m − n  rope-relativity"
        assert str(panel.query_one("#demo-claim", Static).content) == spec.claim
        assert panel.result is result
        await pilot.press("l")
        await pilot.pause()
        assert "RoPE 的注意力分数只取决于 m − n" in str(panel.query_one("#demo-heading", Static).content)
        assert str(panel.query_one("#demo-claim", Static).content) == spec.claim_zh


@pilot_test
async def test_demo_lab_search_and_palette_show_chinese_demo_titles(env: Path) -> None:
    from posenc_ref.demos import get_demo
    from tui.commands import search_targets
    from tui.screens.search import search

    spec = get_demo("alibi-bias")
    app = make_app(env, language="zh")
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        app.open_demo("alibi-bias")
        await settle(pilot)
        header = str(app.screen.query_one("#lab-claim", Static).content)
        assert header.splitlines()[:2] == ["ALiBi 偏置矩阵", spec.claim_zh]
        assert "ALiBi 偏置矩阵" in str(app.screen.query_one("#lab-panel #demo-heading", Static).content)
        await pilot.press("l")
        await pilot.pause()
        header = str(app.screen.query_one("#lab-claim", Static).content)
        assert header.splitlines()[:2] == ["The ALiBi bias matrix", spec.claim]
        app.language = "zh"
        await pilot.pause()
        demos = {key: label for kind, key, label, _jump in search(app, "偏置矩阵") if kind == "demo"}
        assert demos == {"alibi-bias": "ALiBi 偏置矩阵"}
        assert ("demo", "alibi-bias") in {(k, key) for k, key, _l, _j in search(app, "bias matrix")}
        labels = [label for kind, label, _help, _jump in search_targets(app) if kind == "demo"]
        assert "alibi-bias  ALiBi 偏置矩阵" in labels
        app.language = "en"
        labels = [label for kind, label, _help, _jump in search_targets(app) if kind == "demo"]
        assert "alibi-bias  The ALiBi bias matrix" in labels


@pilot_test
async def test_demo_lab_explains_a_bad_parameter_in_chinese(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(110, 40)) as pilot:
        await settle(pilot)
        app.open_demo("rope-decay")
        await settle(pilot)
        screen = app.screen
        screen.query_one("#param-dim", Input).value = "7"
        await settle(pilot)
        assert "must be even" in screen.errors["dim"]
        await pilot.press("l")
        await settle(pilot)
        text = screen_text(app)
        assert "整数，范围 [4, 8192]，偶数" in text  # the bounds under the field
        assert screen.errors["dim"] == "参数 dim 应为整数，范围 [4, 8192]，偶数，收到 “7”"
        assert "must be even" not in text
        screen.query_one("#param-dim", Input).value = "8"
        await settle(pilot)
        assert screen.errors == {}
