"""Deterministic fixtures for the app's tests and snapshots (not shipped: the wheel holds only the product).

* `FIXTURE_BANK`: a small bank (two topics, every question type, math, CJK, and bank text that
  looks like Textual markup, which must render literally).
* `fake_demo_runner`: a stand-in for `posenc_ref.demos.run_demo` with fixed output (device,
  timing, checks, a table, a plot and a heatmap), so screenshots never depend on the machine.
  It validates parameters with the real demo specs and raises NotImplementedError for
  `FAILING_DEMO`, to exercise the failure path.
* `make_app(tmp_path, ...)`: a `PosencApp` on the fixture bank with user/data dirs in `tmp_path`.
* `wide_demo_runner`: the fake runner's result plus a 15-column table, math and Chinese (demo lab screenshots).
* `start_quiz(pilot, ids)`, `correct_position(view)`, `open_study(pilot, topic)`, `topics_listed(pilot)`:
  Pilot helpers for the quiz, Study and Home flows.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "FAILING_DEMO",
    "FIXTURE_BANK",
    "correct_position",
    "fake_demo_runner",
    "make_app",
    "open_study",
    "palette_highlight",
    "screen_text",
    "topics_listed",
    "start_quiz",
    "wide_demo_runner",
    "write_fixture_bank",
]

FAILING_DEMO = "rope-norm"


FIXTURE_BANK = r"""
topics:
  - topic: fixture-rope
    title: {en: "Fixture RoPE", zh: "测试用 RoPE"}
    description: {en: "Rotary embeddings, for tests.", zh: "用于测试的旋转位置编码。"}
    order: 1
    questions:
      - id: fx.mcq
        type: mcq
        difficulty: 1
        prompt:
          en: 'Which form does RoPE multiply the query by? It uses $\theta_i = 10000^{-2i/d}$.'
          zh: 'RoPE 把 query 乘以什么？其中 $\theta_i = 10000^{-2i/d}$。'
        choices:
          - text: {en: '$e^{i m \theta}$, a rotation', zh: '$e^{i m \theta}$，一个旋转'}
            correct: true
            why: {en: "A unit complex number rotates the pair.", zh: "单位复数旋转这一对分量。"}
          - text: {en: "A learned vector added to it", zh: "加上一个可学习的向量"}
            why: {en: "That is learned absolute PE.", zh: "那是可学习的绝对位置编码。"}
          - text: {en: "A bias on the logits", zh: "logit 上的偏置"}
            why: {en: "That is ALiBi or T5.", zh: "那是 ALiBi 或 T5。"}
        explanation:
          en: 'Multiplying by $e^{i m \theta}$ rotates; the score $\langle R_m q, R_n k \rangle$ depends on $m - n$ only.'
          zh: '乘以 $e^{i m \theta}$ 就是旋转；打分 $\langle R_m q, R_n k \rangle$ 只依赖 $m - n$。'
        demo: {name: rope-relativity, params: {m: 7, n: 3}}
      - id: fx.multi
        type: multi
        difficulty: 2
        prompt: {en: "Which of these use rotations? (choose all)", zh: "下面哪些使用旋转？（多选）"}
        choices:
          - text: {en: "RoPE", zh: "RoPE"}
            correct: true
          - text: {en: "M-RoPE", zh: "M-RoPE"}
            correct: true
          - text: {en: "ALiBi", zh: "ALiBi"}
            why: {en: "ALiBi adds a linear bias.", zh: "ALiBi 加的是线性偏置。"}
        explanation: {en: "Both RoPE variants rotate pairs of channels.", zh: "两种 RoPE 都旋转通道对。"}
        demo: {name: rope-decay, params: {dim: 32}}
      - id: fx.truefalse
        type: truefalse
        difficulty: 1
        prompt: {en: "RoPE preserves the norm of the vector.", zh: "RoPE 保持向量的模长不变。"}
        correct: true
        explanation: {en: 'A rotation never stretches: $\lVert R x \rVert = \lVert x \rVert$.', zh: '旋转不会拉伸：$\lVert R x \rVert = \lVert x \rVert$。'}
        demo: {name: rope-norm}
      - id: fx.literal
        type: open
        difficulty: 3
        prompt:
          en: "Explain why [bold]this[/bold] and [link=https://example.com]that[/link] show literally."
          zh: "解释为什么 [bold]这个[/bold] 和 [link=https://example.com]那个[/link] 原样显示。"
        answer:
          en: "Bank text is data: [red]markup[/red] is never interpreted."
          zh: "题库文本是数据：[red]标记[/red] 永远不会被解释。"
        key_points:
          - {en: "Escaping keeps [b]brackets[/b].", zh: "转义保留 [b]方括号[/b]。"}
        explanation:
          en: "The explanation also keeps [bold]tags[/bold] and [link=https://example.com]links[/link] as text."
          zh: "解析中的 [bold]标签[/bold] 和 [link=https://example.com]链接[/link] 也保持为文本。"
  - topic: fixture-alibi
    title: {en: "Fixture ALiBi", zh: "测试用 ALiBi"}
    order: 2
    questions:
      - id: fx.numeric
        type: numeric
        difficulty: 2
        prompt: {en: "With 4 heads, what is the smallest ALiBi slope?", zh: "4 个头时，最小的 ALiBi 斜率是多少？"}
        value: 0.00390625
        tolerance: 0.0001
        explanation: {en: "Slopes are $2^{-8h/n}$; the last is $2^{-8} = 1/256$.", zh: "斜率为 $2^{-8h/n}$，最后一个是 $2^{-8} = 1/256$。"}
        demo: {name: alibi-slopes, params: {n_heads: 4}}
        checks:
          - {demo: alibi-slopes, params: {n_heads: 4}, path: values.last_slope, expect: 0.00390625}
      - id: fx.cloze
        type: cloze
        difficulty: 2
        prompt: {en: "ALiBi adds {{1}} times the distance to the {{2}}.", zh: "ALiBi 把距离乘以 {{1}} 加到 {{2}} 上。"}
        blanks:
          - accept: ["slope", "m", "the slope"]
          - accept: ["logits", "attention scores", "scores"]
        explanation: {en: 'The bias is $-m \cdot (i - j)$ on the logits.', zh: '偏置 $-m \cdot (i - j)$ 加在 logit 上。'}
        demo: {name: alibi-bias, params: {n_heads: 2, seq_len: 6}}
"""


def write_fixture_bank(folder: Path) -> Path:
    """Write the fixture bank into `folder` (created if needed) and return the file path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "fixture.yaml"
    path.write_text(FIXTURE_BANK.lstrip(), encoding="utf-8")
    return path


def fake_demo_runner(name: str, params: dict[str, Any] | None = None, device: str = "auto") -> Any:
    """Deterministic DemoResult for `name` (parameters validated by the real spec)."""
    from posenc_ref.demos import get_demo
    from posenc_ref.demos.base import Check, DemoResult, Matrix, Series, Table

    demo = get_demo(name)
    resolved = demo.resolve_params(params)
    if name == FAILING_DEMO:
        raise NotImplementedError(f"{name} is not implemented in the fake runner")
    xs = [float(i) for i in range(24)]
    size = 6
    matrix = [[(-math.inf if j > i else -0.5 * (i - j)) for j in range(size)] for i in range(size)]
    return DemoResult(
        name=name,
        title=demo.title,
        claim=demo.claim,
        device="cpu",
        dtype="float32",
        elapsed_ms=1.25,
        params=resolved,
        checks=[
            Check("textbook and fast forms agree", True, 2.5e-7, 1e-5),
            Check("a deliberately failing check", False, 0.5, 1e-3),
        ],
        tables=[
            Table(
                "m, n, score",
                ["m", "n", "m − n", "score"],
                [[5, 2, 3, 0.75], [7, 4, 3, 0.75], [9, 6, 3, 0.75]],
            )
        ],
        series=[
            Series(
                "a sine and a decay",
                xs,
                {"sin": [math.sin(x / 3) for x in xs], "decay": [1 / (1 + x) for x in xs]},
                "distance",
                "value",
            )
        ],
        matrices=[Matrix("causal bias", matrix, "query", "key")],
        values={v: float(i) + 0.5 for i, v in enumerate(demo.values)},
        notes=["fake runner: fixed output for tests"],
        title_zh=demo.title_zh,
        claim_zh=demo.claim_zh,
    )


def make_app(
    tmp_path: Path,
    *,
    language: str = "en",
    with_user_dir: bool = True,
    write_bank: Callable[[Path], Any] | None = None,
    **kwargs: Any,
) -> Any:
    """A PosencApp on the fixture bank only, with its data and user bank dirs under tmp_path.

    `write_bank(folder)` writes another bank instead (`support.export_bank.write_fixture_bank`); `kwargs`
    override PosencApp's options (`demo_runner=None`: the real demos). Sets POSENC_DATA_DIR and
    POSENC_BANK_DIR for the process (tests should use monkeypatch to restore them; the `env` fixture does).
    """
    from tui.app import PosencApp

    bank_dir = tmp_path / "banks"
    bank_dir.mkdir(parents=True, exist_ok=True)
    (write_bank or write_fixture_bank)(bank_dir)
    data_dir = tmp_path / "data"
    user_dir = tmp_path / "user-banks"
    if with_user_dir:
        user_dir.mkdir(parents=True, exist_ok=True)
    os.environ["POSENC_DATA_DIR"] = str(data_dir)
    os.environ["POSENC_BANK_DIR"] = str(user_dir)
    options: dict[str, Any] = {
        "include_shipped": False,
        "include_user": True,
        "language": language,
        "seed": 1,
        "demo_runner": fake_demo_runner,
        "warm_torch": False,
        "cursor_blink": False,
    }
    options.update(kwargs)
    return PosencApp([str(bank_dir)], str(data_dir), **options)


def correct_position(view: Any) -> int:
    """Where a question view shows the first correct choice (0-based, after its shuffle)."""
    question = view.question
    return [view.order.index(i) for i, c in enumerate(question.choices) if c.correct][0]


async def start_quiz(pilot: Any, question_ids: list[str]) -> Any:
    """Open a Quiz on `question_ids` (seed 1) over the current screen, once the app has settled, and let it
    settle."""
    from quizbank.quiz_session import QuizConfig, QuizSession
    from support.pilot import settle
    from tui.screens.quiz import QuizScreen

    await settle(pilot)
    screen = QuizScreen(QuizSession(QuizConfig(seed=1), question_ids))
    await pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


def palette_highlight(app: Any) -> str:
    """The command palette's highlighted entry ("" when none is, or the palette is not open)."""
    from textual.command import CommandList, CommandPalette

    if not isinstance(app.screen, CommandPalette):
        return ""
    options = app.screen.query_one(CommandList)
    index = options.highlighted
    return "" if index is None else str(options.get_option_at_index(index).prompt)


async def topics_listed(pilot: Any) -> None:
    """Wait until Home's topic tree lists topics (from the bank or its cached preview) and has focus, then one
    more frame."""
    from textual.widgets import Tree

    from support.pilot import wait_for

    app = pilot.app

    def listed() -> bool:
        trees = list(app.screen.query("#topic-tree").results(Tree))
        return bool(trees and trees[0].root.children and trees[0].has_focus)

    await wait_for(listed, timeout=60, state=lambda: f"screen {app.screen}, focus {app.focused}")
    await pilot.pause()


STUDY_NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)  # Study's fixed clock in the tests


async def open_study(pilot: Any, topic_id: str | None, now: datetime = STUDY_NOW) -> Any:
    """Open Study on `topic_id` (None: every topic) at the fixed time `now`, once the bank and the store are
    in, with fuzzing off (intervals exact), and let it settle; returns the screen."""
    from support.pilot import settle, wait_for
    from tui.screens.study import StudyScreen

    app = pilot.app
    await wait_for(
        lambda: app.bankset is not None and (app.store is not None or app.store_error),
        state=lambda: f"bankset {app.bankset is not None}, store error {app.store_error}",
    )
    assert app.store is not None, app.store_error
    app.store.set_setting("enable_fuzzing", False)
    screen = StudyScreen(topic_id, clock=lambda: now)
    await app.push_screen(screen)
    await settle(pilot)
    return screen


def screen_text(app: Any) -> str:
    """The current screen as plain text (what a user reads), for assertions in tests."""
    import io

    from rich.console import Console

    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text(styles=False)


def wide_demo_runner(name: str, params: dict | None = None, device: str = "auto") -> Any:
    """The fake runner's result, plus a 15-column table, math in a check and a note, and Chinese."""
    from posenc_ref.demos.base import Check, Table

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
