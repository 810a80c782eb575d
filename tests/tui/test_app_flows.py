"""Pilot-driven flows through the app on the fixture bank (tests/support/apps.py), with a fake demo runner.

Every test points POSENC_DATA_DIR and POSENC_BANK_DIR at tmp dirs, so no real user folder is touched.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from support.apps import fake_demo_runner, make_app, screen_text, start_quiz
from support.pilot import pilot_test, settle
from textual.widgets import Input, Markdown, OptionList, Static, Tree
from textual_plotext import PlotextPlot

from tui.screens.browse import BrowseScreen
from tui.screens.demo_lab import DemoLabScreen
from tui.screens.home import HomeScreen
from tui.screens.quiz import QuizScreen, QuizSetupScreen, QuizSummaryScreen
from tui.widgets.demo_panel import DemoPanel, DemoTable
from tui.widgets.heatmap import Heatmap
from tui.widgets.question_view import QuestionView

SIZE = (100, 30)


def correct_position(view: QuestionView) -> int:
    question = view.question
    return [view.order.index(i) for i, c in enumerate(question.choices) if c.correct][0]


# ---------------------------------------------------------------------------------------------------- home


@pilot_test
async def test_home_shows_topics_counts_and_store(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        tree = app.screen.query_one("#topic-tree", Tree)
        labels = [" ".join(str(node.label).split()) for node in tree.root.children]
        # question count, due (0, not blank), mastery (none yet: "·"), title
        assert labels == ["6 0↻ · All topics", "4 0↻ · Fixture RoPE", "2 0↻ · Fixture ALiBi"]
        text = screen_text(app)
        assert "2 topics · 6 questions" in text
        assert app.store is not None and app.store_error is None


@pilot_test
async def test_skipped_user_bank_file_is_listed_with_its_error(env: Path) -> None:
    user = env / "user-banks"
    user.mkdir(parents=True)
    (user / "broken.yaml").write_text(
        "topic: x\ntitle: X\nquestions:\n  - id: Bad Id\n    type: mcq\n", encoding="utf-8"
    )
    app = make_app(env)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "Skipped user bank files" in text
        assert "broken.yaml" in text
        assert len(app.bankset.questions) == 6  # the good bank still loads


@pilot_test
async def test_unusable_data_dir_is_explained(env: Path) -> None:
    blocker = env / "not-a-dir"
    blocker.write_text("x", encoding="utf-8")
    app = make_app(env)
    app.data_dir = str(blocker / "sub")
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert app.store is None
        assert app.store_error
        assert "Progress is not saved" in screen_text(app).replace("\n", " ")


# ---------------------------------------------------------------------------------------------------- quiz


ANSWERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # question id -> (keys for a right answer, keys for a wrong answer); "{c}" = correct choice number
    "fx.mcq": (("{c}", "space"), ("{w}", "enter")),  # choose, then confirm
    "fx.multi": (("{c}", "{c2}", "space"), ("{c}", "space")),
    "fx.truefalse": (("1", "space"), ("2", "enter")),
    "fx.numeric": (tuple("1/256") + ("enter",), tuple("0.5") + ("enter",)),
    "fx.cloze": (
        tuple("The Slope") + ("enter",) + tuple("logits") + ("enter",),
        tuple("bias") + ("enter",) + tuple("logits") + ("enter",),
    ),
    "fx.literal": (("space", "3"), ("space", "x")),
}


def _keys(view: QuestionView, keys: tuple[str, ...]) -> list[str]:
    out = []
    if view.question.type in ("mcq", "multi"):
        right = [view.order.index(i) + 1 for i, c in enumerate(view.question.choices) if c.correct]
        wrong = [view.order.index(i) + 1 for i, c in enumerate(view.question.choices) if not c.correct]
        names = {"{c}": str(right[0]), "{c2}": str(right[-1]), "{w}": str(wrong[0])}
        out = [names.get(k, k) for k in keys]
    else:
        out = list(keys)
    return out


@pytest.mark.parametrize("right", [True, False], ids=["right", "wrong"])
@pytest.mark.parametrize("question_id", list(ANSWERS))
@pilot_test
async def test_quiz_question_of_each_type(env: Path, question_id: str, right: bool) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, [question_id])
        view = screen.view
        assert view is not None and view.question.id == question_id
        await pilot.press(*_keys(view, ANSWERS[question_id][0 if right else 1]))
        await settle(pilot)
        assert view.revealed
        assert view.grade is not None and view.grade.correct is right
        assert screen.session.grades[question_id].correct is right
        text = screen_text(app)
        if view.question.type == "open":
            assert ("You marked this right" if right else "You marked this wrong") in text
        else:
            assert ("✓ Correct" if right else "✗ Incorrect") in text
        assert "Explanation" in text
        attempts = app.store.attempts()
        assert [(a.question_id, a.correct) for a in attempts] == [(question_id, right)]
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(app.screen, QuizSummaryScreen)
        summary = screen_text(app)
        assert f"Score: {1 if right else 0}/1" in summary
        if not right:
            assert question_id in summary


@pilot_test
async def test_quiz_from_setup_answers_and_summarises(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot)
        assert isinstance(app.screen, QuizSetupScreen)
        assert "6 questions match" in screen_text(app)
        count = app.screen.query_one("#setup-count", Input)
        count.value = "all"
        await pilot.press("s")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QuizScreen)
        assert sorted(screen.session.question_ids) == sorted(app.bankset.questions)
        # the seed is fixed (1): the order is stable for the session and across runs
        from quizbank.quiz_session import select_question_ids

        assert screen.session.question_ids == select_question_ids(app.bankset, screen.session.config)
        for _ in range(6):
            await pilot.press("escape", "n")  # skip everything (Esc leaves a text input first)
            await settle(pilot)
        assert isinstance(app.screen, QuizSummaryScreen)
        revisit = app.screen.query_one("#summary-revisit", OptionList)
        assert revisit.option_count == 6
        assert revisit.highlighted == 0 and app.focused is revisit  # Enter opens the first at once
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)


@pilot_test
async def test_answer_needed_before_check(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.numeric"])
        await pilot.press("escape", "space")
        await settle(pilot)
        assert not screen.view.revealed
        screen.view.query_one(".qv-number", Input).focus()
        await pilot.press(*"abc", "enter")
        await settle(pilot)
        assert not screen.view.revealed
        assert "'abc' is not a number" in screen_text(app)


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
        await settle(pilot)
        time.sleep(0.05)
        await settle(pilot)
        assert panel.result is not None and panel.result.name == "alibi-slopes"


# ---------------------------------------------------------------------------------------------------- browse, lab


@pilot_test
async def test_browse_reads_a_topic_with_its_demo(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(130, 36)) as pilot:
        await settle(pilot)
        app.open_topic("fixture-rope")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrowseScreen)
        assert screen.question_id == "fx.mcq"
        assert screen.view.mode == "reference" and screen.view.revealed
        text = screen_text(app)
        assert "1/4" in text and "Explanation" in text
        assert screen.query_one("#browse-index", OptionList).display  # wide enough for the index
        panel = screen.query_one("#browse-demo", DemoPanel)
        assert panel.result is not None and panel.demo_name == "rope-relativity"
        await pilot.press("n")
        await settle(pilot)
        assert screen.question_id == "fx.multi"
        assert panel.demo_name == "rope-decay"
        await pilot.press("p", "p")
        await settle(pilot)
        assert screen.question_id == "fx.literal"
        assert not panel.display  # no demo for this question


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


# ---------------------------------------------------------------------------------------------------- search, palette


@pilot_test
async def test_search_jumps_to_a_question(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        await pilot.press(*"smallest alibi")
        await settle(pilot)
        assert "fx.numeric" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, QuizScreen) and app.screen.try_it  # "try it" first
        assert app.screen.view.question_id == "fx.numeric" and not app.screen.view.revealed
        await pilot.press("o")  # "read it"
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)
        assert app.screen.question_id == "fx.numeric"


@pilot_test
async def test_search_finds_topics_and_demos(env: Path) -> None:
    from tui.screens.search import search

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        kinds = {(kind, key) for kind, key, _label, _jump in search(app, "alibi")}
        assert ("topic", "fixture-alibi") in kinds
        assert ("demo", "alibi-bias") in kinds
        assert ("question", "fx.numeric") in kinds
        assert search(app, "fx.cloze")[0][1] == "fx.cloze"  # an exact id comes first


@pilot_test
async def test_command_palette_opens_a_question(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        await pilot.press(*"fx.cloze")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)
        assert app.screen.question_id == "fx.cloze"


# ---------------------------------------------------------------------------------------------------- language, text


@pilot_test
async def test_language_toggle_everywhere_and_remembered(env: Path) -> None:
    app = make_app(env, language=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.language == "en"
        screen = await start_quiz(pilot, ["fx.mcq"])
        assert "Which form does RoPE" in screen_text(app)
        await pilot.press("l")
        await settle(pilot)
        assert app.language == "zh"
        text = screen_text(app)
        assert "RoPE 把 query 乘以什么" in text
        assert "第 1/1 题" in text
        assert "下一题" in text  # the footer follows too
        assert app.store.get_setting("language") == "zh"
        await pilot.press(str(correct_position(screen.view) + 1), "space")
        await settle(pilot)
        assert "正确" in screen_text(app)
    again = make_app(env, language=None)
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.language == "zh"
        assert "测试用 RoPE" in screen_text(again)


@pilot_test
async def test_bank_markup_shows_literally(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(130, 40)) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.literal"])
        text = screen_text(app)
        assert "[bold]this[/bold]" in text
        assert "[link=https://example.com]that[/link]" in text
        await pilot.press("space")
        await settle(pilot)
        text = screen_text(app)
        assert "[red]markup[/red]" in text
        assert "[b]brackets[/b]" in text
        assert "[bold]tags[/bold]" in text  # inside the Markdown explanation
        assert "[link=" in text and "]links[/link]" in text
        assert screen.view.awaiting_self_grade


@pilot_test
async def test_cjk_wraps_inside_80_columns(env: Path) -> None:
    app = make_app(env, language="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq"])
        await pilot.press(str(correct_position(screen.view) + 1), "space")
        await settle(pilot)
        text = screen_text(app)
        lines = text.splitlines()
        assert all(cell_len(line) <= 80 for line in lines)
        assert "乘以什么" in text
        assert "\ufffd" not in text


@pilot_test
async def test_no_raw_latex_on_screen(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq"])
        await pilot.press(str(correct_position(screen.view) + 1), "space")
        await settle(pilot)
        text = screen_text(app)
        assert "θᵢ = 10000^(-2i/d)" in text
        assert "\\theta" not in text and "\\langle" not in text
        assert "⟨Rₘ q," in text.replace("\n", " ")


# ---------------------------------------------------------------------------------------------------- reload, keymap


@pilot_test
async def test_reload_after_a_bank_file_changes(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(130, 36)) as pilot:
        await settle(pilot)
        app.open_question("fx.numeric")
        await settle(pilot)
        assert "what is the smallest ALiBi" in screen_text(app)
        bank = env / "banks" / "fixture.yaml"
        bank.write_text(
            bank.read_text(encoding="utf-8").replace(
                "what is the smallest ALiBi slope?", "what is the LAST slope (edited)?"
            ),
            encoding="utf-8",
        )
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen) and app.screen.question_id == "fx.numeric"
        assert "what is the LAST slope" in screen_text(app)
        # a broken edit keeps the app usable and says what is wrong
        bank.write_text("topics: [oops", encoding="utf-8")
        await pilot.press("r")
        await settle(pilot)
        assert app.is_running
        assert app.bankset.skipped  # the file is reported, not fatal
        assert isinstance(app.screen, HomeScreen)  # its topic is gone, so Browse closed


@pilot_test
async def test_user_keymap_remaps_bindings(env: Path) -> None:
    from quizbank.progress.store import open_store

    store = open_store(env / "data")
    store.set_setting("keymap", {"posenc.next": "j"})
    store.close()
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq", "fx.truefalse"])
        await pilot.press("escape", "j")
        await settle(pilot)
        assert screen.session.index == 1


@pilot_test
async def test_help_lists_bindings_in_groups(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(110, 60)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        text = screen_text(app)
        for heading in ("Everywhere", "Home", "Quiz", "Browse", "Demo lab", "Answering a question"):
            assert heading in text
        for binding_id in ("posenc.next", "posenc.demo", "posenc.language", "posenc.reload", "posenc.search"):
            assert binding_id in text
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)


@pilot_test
async def test_space_twice_reveals_without_an_answer(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq"])
        await pilot.press("space")
        await settle(pilot)
        assert not screen.view.revealed
        await pilot.press("space")
        await settle(pilot)
        assert screen.view.revealed and screen.view.grade is None
        assert "Revealed" in screen_text(app)
        assert app.store.attempts() == []  # nothing was answered, nothing recorded
        await pilot.press("n")
        await settle(pilot)
        assert "revealed" in screen_text(app) and "fx.mcq" in screen_text(app)


# ---------------------------------------------------------------------------------------------------- real-terminal paths


def post_keys(app: Any, text: str) -> None:
    """Queue keys the way a terminal burst arrives (a paste, fast typing): all at once, without
    waiting for the app between keys, unlike `pilot.press`. "\\r" is Enter."""
    from textual import events

    names = {"\r": "enter", "/": "slash", ".": "full_stop", " ": "space"}
    for char in text:
        app.post_message(events.Key(names.get(char, char), char))


@pilot_test
async def test_cloze_enter_moves_to_the_next_blank_in_a_key_burst(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.cloze", "fx.numeric"])
        blanks = list(screen.view.query(".qv-blank").results(Input))
        post_keys(app, "slope\rlogits")
        await settle(pilot)
        assert [b.value for b in blanks] == ["slope", "logits"]
        assert app.focused is blanks[1] and not screen.view.revealed
        post_keys(app, "\rn")  # the last Enter checks; the `n` queued behind it moves on
        await settle(pilot)
        assert screen.session.grades["fx.cloze"].correct is True
        assert screen.session.current_id == "fx.numeric"
        assert blanks[1].value == "logits"


@pilot_test
async def test_numeric_answer_then_next_in_a_key_burst(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.numeric", "fx.mcq"])
        field = screen.view.query_one(".qv-number", Input)
        post_keys(app, "1/256\rn")
        await settle(pilot)
        assert field.value == "1/256"
        assert screen.session.grades["fx.numeric"].correct is True
        assert screen.session.current_id == "fx.mcq"


@pilot_test
async def test_q_goes_back_and_asks_before_quitting_on_home(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("b")
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("q")  # first q on Home: a question, not an exit
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, HomeScreen)
        assert [n.message for n in app._notifications] == ["Press q again to quit (Ctrl+Q quits at once)"]
        app.screen._quit_armed_at -= 10  # too long ago: the next q asks again
        await pilot.press("q")
        await settle(pilot)
        assert app.is_running
        await pilot.press("q")
        await settle(pilot)
    assert app.return_code == 0 and not app.is_running


@pilot_test
async def test_help_says_what_q_does_on_home(env: Path) -> None:
    from tui.screens.help import help_groups

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        groups = dict(help_groups(app))
        assert ("q", "Back", "posenc.back") in groups["Everywhere"]
        assert ("q", "Quit (press q twice)", "posenc.home.quit") in groups["Home"]
        assert ("^p", "Commands", "posenc.palette") in groups["Everywhere"]
        assert any(binding_id == "posenc.palette" for _k, _d, binding_id in groups["Everywhere"])


@pilot_test
async def test_escape_leaves_a_text_field_so_keys_work_again(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_demo("alibi-bias")
        await settle(pilot)
        screen = app.screen
        field = screen.query_one("#param-seq_len", Input)
        field.focus()
        await pilot.press("escape")
        await settle(pilot)
        assert app.focused is screen.query_one("#lab-panel", DemoPanel)
        assert field.value == "8"
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("z")
        await settle(pilot)
        count = app.screen.query_one("#setup-count", Input)
        count.focus()
        await pilot.press("escape", "q")
        await settle(pilot)
        assert count.value == "10" and isinstance(app.screen, HomeScreen)


@pilot_test
async def test_open_question_asks_for_a_verdict_on_screen_and_in_the_footer(env: Path) -> None:
    app = make_app(env, language="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.literal", "fx.mcq"])
        await pilot.press("space")
        await settle(pilot)
        lines = screen_text(app).splitlines()
        prompt_row = next(i for i, line in enumerate(lines) if "你答得如何" in line)
        assert prompt_row < 12  # right under the question, not below the model answer
        assert "y 答对了" in lines[-1] and "x 没答出" in lines[-1]
        assert "已显示答案" not in screen_text(app)
        await pilot.press("4")
        await settle(pilot)
        assert screen.session.grades["fx.literal"].correct is True
        footer = screen_text(app).splitlines()[-1]
        assert "n 下一题" in footer and "y 答对了" not in footer
        await pilot.press("n")
        await settle(pilot)
        assert screen.session.current_id == "fx.mcq"


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
async def test_browse_shows_the_numeric_answer(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(130, 36)) as pilot:
        await settle(pilot)
        app.open_question("fx.numeric")
        await settle(pilot)
        assert "0.00390625 ± 0.0001" in screen_text(app)


@pilot_test
async def test_chinese_explanation_lines_join_without_a_stray_space(env: Path) -> None:
    user = env / "user-banks"
    user.mkdir(parents=True)
    (user / "cjk.yaml").write_text(
        "topic: cjk-soft\n"
        "title: {en: CJK, zh: 中文换行}\n"
        "questions:\n"
        "  - id: cjk.soft\n"
        "    type: truefalse\n"
        "    prompt: {en: 'RoPE rotates.', zh: 'RoPE 旋转向量。'}\n"
        "    correct: true\n"
        "    explanation:\n"
        "      en: |\n"
        "        Rotation keeps\n"
        "        the norm.\n"
        "      zh: |\n"
        "        旋转不会改变\n"
        "        向量的长度，\n"
        "        所以 RoPE\n"
        "        保持模长。\n",
        encoding="utf-8",
    )
    app = make_app(env, language="zh")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "cjk.soft" in app.bankset.questions, app.bankset.skipped
        screen = await start_quiz(pilot, ["cjk.soft"])
        await pilot.press("1", "space")
        await settle(pilot)
        text = screen_text(app)
        assert "旋转不会改变向量的长度，所以 RoPE 保持模长。" in text
        await pilot.press("l")
        await settle(pilot)
        assert "Rotation keeps the norm." in screen_text(app)
        assert screen.view.revealed


@pilot_test
async def test_a_fresh_store_keeps_the_locale_language(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POSENC_LANG", "zh")
    app = make_app(env, language=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.store is not None
        assert app.language == "zh"
        assert "全部主题" in screen_text(app)


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
