"""Pilot-driven flows through the app on the fixture bank (tests/support/apps.py), with a fake demo runner.

Every test points POSENC_DATA_DIR and POSENC_BANK_DIR at tmp dirs, so no real user folder is touched.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.apps import correct_position, make_app, screen_text, start_quiz
from support.pilot import pilot_test, post_keys, settle
from textual.widgets import Input, OptionList, Tree

from tui.cjkwrap import BREAK
from tui.screens.browse import BrowseScreen
from tui.screens.home import HomeScreen
from tui.screens.quiz import QuizScreen, QuizSetupScreen, QuizSummaryScreen
from tui.widgets.demo_panel import DemoPanel
from tui.widgets.question_view import QuestionView

SIZE = (100, 30)


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
async def test_a_skipped_file_with_an_indentation_error_shows_the_lines_around_it(env: Path) -> None:
    user = env / "user-banks"
    user.mkdir(parents=True)
    (user / "indented.yaml").write_text(
        "topic: x\ntitle: X\nquestions:\n  - id: x.a\n    type: open\n   prompt: hi\n", encoding="utf-8"
    )
    app = make_app(env)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        assert "6:4: YAML indentation error:" in text and "line 6 is indented 3 spaces," in text, text
        assert "  5 |     type: open" in text and "> 6 |    prompt: hi" in text, text  # the side panel wraps


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


# ---------------------------------------------------------------------------------------------------- browse


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


# ---------------------------------------------------------------------------------------------------- text on screen


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


# ---------------------------------------------------------------------------------------------------- reload


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
async def test_help_lists_bindings_in_groups(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(110, 60)) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        await pilot.press("home")  # the whole of Help, from the top
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


@pilot_test
async def test_cloze_enter_moves_to_the_next_blank_in_a_key_burst(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.cloze", "fx.numeric"])
        blanks = list(screen.view.query(".qv-blank").results(Input))
        await post_keys(app, list("slope\rlogits"))  # a burst: "\r" is Enter
        await settle(pilot)
        assert [b.value for b in blanks] == ["slope", "logits"]
        assert app.focused is blanks[1] and not screen.view.revealed
        await post_keys(app, list("\rn"))  # the last Enter checks; the `n` queued behind it moves on
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
        await post_keys(app, list("1/256\rn"))
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
async def test_leaving_home_after_one_q_drops_the_quit_toast_and_the_arming(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert [n.message for n in app._notifications] == ["Press q again to quit (Ctrl+Q quits at once)"]
        await pilot.press("b")  # on Browse, q means Back: the toast must not say otherwise
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen) and list(app._notifications) == []
        await pilot.press("q")
        await settle(pilot)
        await pilot.press("q")  # back on Home, a first q asks again rather than quitting
        await settle(pilot)
        assert app.is_running and isinstance(app.screen, HomeScreen)


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
