"""Issue 11, part B: the demo panel and lab, bank-text emphasis, wording, reload, mastery, search and
the palette. Each test here failed before its fix."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from markdown_it import MarkdownIt
from rich.cells import cell_len
from support.apps import fake_demo_runner, make_app, screen_text
from support.paths import ROOT
from support.pilot import pilot_test, settle

from posenc_ref.demos import get_demo, list_demos, run_demo
from posenc_ref.demos.base import Check, ConstraintError, DemoContext, Table
from tui.cjkwrap import BREAK
from tui.i18n import count, tr
from tui.richtext import ITALIC_STYLE, _blocks, inline, markdown_source, plain
from tui.screens.demo_lab import DemoLabScreen
from tui.widgets.demo_panel import DemoPanel, DemoTable

SHIPPED = ROOT / "quizbank" / "data"
RAW_LATEX = re.compile(r"\^\{|_\{|\\[A-Za-z]+|\$")


def _strings(node: Any) -> Any:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _shipped_strings() -> list[str]:
    out: list[str] = []
    for path in sorted(SHIPPED.glob("*.yaml")):
        out += list(_strings(yaml.safe_load(path.read_text(encoding="utf-8"))))
    return out


# ----------------------------------------------------------------------------- 4: CJK emphasis


def test_emphasis_next_to_cjk_is_italic_not_literal_asterisks() -> None:
    content = inline("表里*确实*有第 1500 行")
    assert content.plain == "表里确实有第 1500 行"
    italic = [content.plain[s.start : s.end] for s in content.spans if str(s.style) == ITALIC_STYLE]
    assert italic == ["确实"]
    assert plain("论文的*假设*：固定函数") == "论文的假设：固定函数"
    # an ASCII word right next to the asterisks keeps them literal (multiplication, exponents)
    assert inline("a*b*c").plain == "a*b*c"
    assert inline("hidden_size**-0.5 and hidden_size**0.5").plain == "hidden_size**-0.5 and hidden_size**0.5"


def _commonmark_emphasis(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for token in MarkdownIt("commonmark").parse(markdown_source(text)):
        if token.type != "inline":
            continue
        stack: list[list[str]] = []
        for child in token.children or []:
            if child.type in ("em_open", "strong_open"):
                stack.append([child.type[:-5], ""])
            elif child.type in ("em_close", "strong_close"):
                kind, inner = stack.pop()
                out.append((kind, inner))
                if stack:
                    stack[-1][1] += inner
            elif stack:
                stack[-1][1] += child.content
    return sorted(out)


def _our_emphasis(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for kind, _prefix, body in _blocks(text):
        if kind == "code":
            continue
        content = inline(body)
        for span in content.spans:
            style = str(span.style)
            if style in ("italic", "bold"):
                out.append(("em" if style == "italic" else "strong", content.plain[span.start : span.end]))
    return sorted(out)


def test_emphasis_agrees_with_commonmark_on_every_shipped_line() -> None:
    """The prompt renderer and the Markdown widget (CommonMark) emphasise the same words in every
    string of the shipped bank that has a `*`."""
    checked = 0
    for text in _shipped_strings():
        if "*" not in text:  # `_` emphasis is left to CommonMark (`__init__` stays literal here)
            continue
        checked += 1
        assert _our_emphasis(text) == _commonmark_emphasis(text), text[:120]
    assert checked > 150
    cjk = [t for t in _shipped_strings() if re.search(r"\*[^*\s][^*\n]*?\*[\u4e00-\u9fff]", t)]
    assert len(cjk) >= 40  # the lines the defect was about
    assert all("*" not in plain(t) for t in cjk)


# ----------------------------------------------------------------------------- 6: wide tables


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


# ----------------------------------------------------------------------------- 7, 8: math and Chinese


@pytest.fixture(scope="module")
def demo_results() -> list[Any]:
    return [run_demo(demo.name, device="cpu") for demo in list_demos()]


def _texts_of(result: Any, lang: str) -> list[str]:
    zh = lang == "zh"
    texts = [result.claim_zh if zh else result.claim]
    texts += [(c.claim_zh if zh else c.claim) for c in result.checks]
    texts += result.notes_zh if zh else result.notes
    for table in result.tables:
        texts += [table.title_zh if zh else table.title, *(table.columns_zh if zh else table.columns)]
        texts += [cell for row in table.rows for cell in row if isinstance(cell, str)]
    texts += [(s.title_zh if zh else s.title) for s in result.series]
    texts += [(m.title_zh if zh else m.title) for m in result.matrices]
    return texts


def test_demo_texts_show_no_raw_latex(demo_results: list[Any]) -> None:
    for result in demo_results:
        for lang in ("en", "zh"):
            for text in _texts_of(result, lang):
                assert not RAW_LATEX.search(plain(text)), (result.name, lang, text)


def test_every_demo_result_carries_chinese(demo_results: list[Any]) -> None:
    """Every check, table title and header, note, plot and heatmap title has its Chinese form (a
    formula-only text may repeat the English); almost all of them are actual Chinese."""
    cjk = re.compile(r"[\u4e00-\u9fff]")
    texts: list[str] = []
    for result in demo_results:
        assert len(result.notes_zh) == len(result.notes), result.name
        for check in result.checks:
            assert check.claim_zh, (result.name, check.claim)
            texts.append(check.claim_zh)
        for table in result.tables:
            assert table.title_zh and len(table.columns_zh) == len(table.columns), (result.name, table.title)
            texts.append(table.title_zh)
        for note, zh in zip(result.notes, result.notes_zh, strict=True):
            assert zh, (result.name, note)
            texts.append(zh)
        for item in [*result.series, *result.matrices]:
            assert item.title_zh, (result.name, item.title)
    assert sum(bool(cjk.search(t)) for t in texts) >= 0.9 * len(texts)


def test_table_headers_must_match_in_number() -> None:
    ctx = DemoContext("cpu")
    with pytest.raises(ValueError, match="2 Chinese headers for 3 columns"):
        ctx.table("t", ["a", "b", "c"], [[1, 2, 3]], title_zh="表", columns_zh=["甲", "乙"])


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


# ----------------------------------------------------------------------------- 9: wording


def test_wording() -> None:
    assert tr("demo.sampled", "en", step=2, rows=64, cols=64) == "showing 1 in 2 of 64×64"
    assert [count(1, "review"), count(2, "review"), count(0, "question")] == [
        "1 review",
        "2 reviews",
        "0 questions",
    ]
    assert tr(
        "home.counts", "en", topics=1, questions=1, topics_text="1 topic", questions_text="1 question"
    ) == ("1 topic · 1 question")
    shaw = run_demo("shaw-relative", {"clip": 0, "seq_len": 4}, device="cpu")
    assert shaw.checks[0].claim.startswith("2k + 1 = 1 table row covers every distance")
    message = tr("quiz.not_number", "en", error="'abc' is not a number")
    assert message.startswith("'abc' is not a number: type e.g.") and "Not a number" not in message
    assert not any("short- context" in t for t in _shipped_strings())
    ctx = DemoContext("cpu")
    assert ctx.check("signed slack", -4.3e-7, 0.0).max_abs_error == pytest.approx(4.3e-7)
    assert not ctx.checks[0].passed  # a negative error is not "within tolerance 0"
    precision = run_demo("rope-precision", device="cpu")
    assert all(c.max_abs_error >= 0 for c in precision.checks) and precision.passed


# ----------------------------------------------------------------------------- 10: reload


USER_BANK = """
topics:
  - topic: user-topic
    title: {en: "User topic", zh: "用户主题"}
    questions:
      - id: user.tf
        type: truefalse
        difficulty: 1
        prompt: {en: "Users can add banks.", zh: "用户可以添加题库。"}
        correct: true
        explanation: {en: "Yes.", zh: "是的。"}
"""


@pilot_test
async def test_reload_after_a_user_bank_breaks(env: Path) -> None:
    user_dir = env / "a-rather-long-folder-name-for-user-banks"
    user_dir.mkdir()
    (user_dir / "mine.yaml").write_text(USER_BANK, encoding="utf-8")
    app = make_app(env, open_store=False)
    app.bank_paths = [*app.bank_paths, str(user_dir)]
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert len(app.bankset.questions) == 7
        (user_dir / "mine.yaml").write_text(USER_BANK.replace("truefalse", "truefals"), encoding="utf-8")
        app.action_reload()
        await settle(pilot)
        await settle(pilot)
        assert len(app.bankset.questions) == 6
        info = str(app.screen.query_one("#topic-info").render())
        numbers = [int(n) for n in re.findall(r"\b(\d+)\b", info)]
        assert sum(numbers) == 6, info  # the type counts leave the skipped file out
        problems = str(app.screen.query_one("#problems").render())
        assert problems.count("unknown question type") == 1  # listed once
        assert BREAK not in problems and f"{user_dir}/mine.yaml" in problems  # the path as it is
        text = screen_text(app)
        assert "mine.yaml" in text and BREAK not in text  # it wraps after a separator, with nothing added
        assert not re.search(r"min\s*\n\s*e\.yaml|rather-lo\s*\n", text)


# ----------------------------------------------------------------------------- 11, 14: constraints


def test_cross_parameter_constraints_are_declared_and_refused() -> None:
    demo = get_demo("rope-scaling")
    assert [rule.describe() for rule in demo.constraints] == [
        "beta_fast ≥ beta_slow",
        "low_freq_factor < high_freq_factor",
    ]
    with pytest.raises(ConstraintError, match="beta_fast ≥ beta_slow, got beta_fast=1 and beta_slow=32"):
        demo.resolve_params({"beta_fast": 1, "beta_slow": 32})
    with pytest.raises(ConstraintError, match="low_freq_factor < high_freq_factor"):
        demo.resolve_params({"low_freq_factor": 4, "high_freq_factor": 1})
    assert demo.resolve_params({"beta_fast": 8, "beta_slow": 8})["beta_fast"] == 8.0


def test_cli_refuses_a_constraint_with_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    from posenc_ref.cli import main

    assert main(["demo", "run", "rope-scaling", "low_freq_factor=8", "high_freq_factor=2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "error: parameters must satisfy low_freq_factor < high_freq_factor, got low_freq_factor=8 and high_freq_factor=2"
    ]


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


# ----------------------------------------------------------------------------- 12: mastery


def test_mastery_counts_unseen_questions_as_not_mastered(tmp_path: Path) -> None:
    from quizbank.progress.scheduler import Rating
    from quizbank.progress.store import open_store

    t0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
    with open_store(tmp_path / "data") as store:
        store.review("a", Rating.Good, t0)
        now = t0 + timedelta(minutes=5)
        r = store.scheduler.get_card_retrievability(store.card("a"), now)
        summary = store.topic_summary({"t": ["a"] + [f"new{i}" for i in range(19)], "u": ["x"]}, now)
    assert summary["t"].studied == 1 and summary["t"].new == 19
    assert summary["t"].mastery == pytest.approx(r / 20)  # not r (= 100% after one card)
    assert summary["u"].mastery is None  # nothing studied yet
    assert "unseen" in tr("home.mastery_means", "en") and "没学过" in tr("home.mastery_means", "zh")


# ----------------------------------------------------------------------------- 13: Shaw table


def test_shaw_table_says_what_it_skips_and_labels_clip_zero() -> None:
    rows = run_demo("shaw-relative", {"seq_len": 12, "clip": 2}, device="cpu").tables[0].rows
    listed = [row[0] for row in rows if row[0] != "…"]
    gaps = [row[3] for row in rows if row[0] == "…"]
    assert gaps == [
        "j − i = -10 … -6 not listed: all clip to -2, row 0",
        "j − i = 6 … 10 not listed: all clip to 2, row 4",
    ]
    assert set(listed) | set(range(-10, -5)) | set(range(6, 11)) == set(range(-11, 12))
    assert {row[3] for row in rows if row[0] in (-1, 0, 1)} == {"own row"}
    zero = run_demo("shaw-relative", {"seq_len": 4, "clip": 0}, device="cpu").tables[0].rows
    assert {row[3] for row in zero} == {"the only row: k = 0 keeps no distance"}


# ----------------------------------------------------------------------------- search and palette


@pilot_test
async def test_search_ranks_ids_and_prompts_before_explanations_and_highlights(env: Path) -> None:
    from tui.screens.search import ANSWER, EXPLANATION, PROMPT, TITLE, highlight, rank

    app = make_app(env, open_store=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        hits = rank(app, "rotat")  # a prompt (fx.multi), an answer (fx.mcq choice) and explanations
        assert [h.rank for h in hits] == sorted(h.rank for h in hits)
        by_key = {h.key: h for h in hits if h.kind == "question"}
        assert by_key["fx.multi"].rank == PROMPT
        assert by_key["fx.mcq"].rank == ANSWER and "rotation" in by_key["fx.mcq"].excerpt
        assert by_key["fx.truefalse"].rank == EXPLANATION
        assert rank(app, "fx.cloze")[0].key == "fx.cloze"
        assert {h.rank for h in rank(app, "fx.")} == {TITLE}
        # Chinese text is found from English mode, and shown as an excerpt
        zh_hits = rank(app, "旋转")
        assert zh_hits and all(h.other_language for h in zh_hits)
        assert any("旋转" in h.excerpt for h in zh_hits)
        content = highlight("RoPE rotates; rotation", "ROTAT")
        marked = [content.plain[s.start : s.end] for s in content.spans]
        assert marked == ["rotat", "rotat"]


def test_palette_lists_the_apps_actions_first_with_their_keys() -> None:
    from types import SimpleNamespace

    from tui.commands import command_targets

    calls: list[str] = []
    app = SimpleNamespace(
        language="en",
        open_quiz_setup=lambda: calls.append("quiz"),
        open_study=lambda: calls.append("study"),
        action_toggle_language=lambda: calls.append("lang"),
        open_demo=lambda: calls.append("demo"),
        open_stats=lambda: calls.append("stats"),
        action_search=lambda: calls.append("search"),
        action_reload=lambda: calls.append("reload"),
        action_help=lambda: calls.append("help"),
        require_banks=lambda: False,
    )
    targets = list(command_targets(app))
    labels = [label for _kind, label, _help, _callback in targets]
    assert labels[:2] == ["Quiz  [z]", "Study  [s]"]
    assert "Switch language  [l]" in labels and "Mock interview  [m]" in labels
    for _kind, _label, _help, callback in targets:
        callback()
    assert calls == ["quiz", "study", "lang", "demo", "stats", "search", "reload", "help"]


@pilot_test
async def test_palette_shows_app_actions_above_textual_commands(env: Path) -> None:
    from textual.command import CommandList, CommandPalette

    app = make_app(env, open_store=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.action_command_palette()
        await settle(pilot)
        await pilot.pause(0.3)
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        options = palette.query_one(CommandList)
        first = [str(options.get_option_at_index(i).prompt) for i in range(3)]
        assert all("command:" in text or "命令" in text for text in first), first
        assert "Quiz  [z]" in first[0]


def test_every_demo_parameter_has_chinese_help() -> None:
    from tui.screens.demo_lab import PARAM_HELP_ZH, param_help

    missing = sorted({p.help for d in list_demos() for p in d.params} - set(PARAM_HELP_ZH))
    assert not missing, f"add Chinese for these to tui/screens/demo_lab.py PARAM_HELP_ZH: {missing}"
    beta = get_demo("rope-scaling").param("beta_fast")
    assert param_help(beta, "zh") == "YaRN：插值停止处的旋转圈数" and param_help(beta, "en") == beta.help


def test_cjk_soft_break_join_keeps_list_items_quotes_and_table_rows_apart():
    from tui.richtext import join_cjk_soft_breaks

    assert join_cjk_soft_breaks("要点如下：\n- 第一条\n- 第二条") == "要点如下：\n- 第一条\n- 第二条"
    assert join_cjk_soft_breaks("步骤：\n1. 旋转 q\n2. 旋转 k") == "步骤：\n1. 旋转 q\n2. 旋转 k"
    assert join_cjk_soft_breaks("见下表：\n| 布局 | 配对 |") == "见下表：\n| 布局 | 配对 |"
    assert join_cjk_soft_breaks("引用：\n> 原文") == "引用：\n> 原文"
    assert join_cjk_soft_breaks("第一行中文\n第二行中文") == "第一行中文第二行中文"
