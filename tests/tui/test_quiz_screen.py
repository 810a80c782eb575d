"""The Quiz screens as a candidate uses them: the summary's counts and time, multi-select feedback,
open questions, keys that never land in a blank, confirming a choice, the schedule fed by answers,
flags, notes, hints and setup filters. Pilot flows on the fixture bank (tests/support/apps.py).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from support.apps import make_app, screen_text, start_quiz
from support.pilot import pilot_test, settle
from textual.widgets import Checkbox, Input

from quizbank.progress.scheduler import State
from quizbank.progress.study_plan import LEARN_AHEAD
from tui.screens.browse import BrowseScreen
from tui.screens.marks import NoteScreen
from tui.screens.quiz import QuizScreen, QuizSetupScreen, QuizSummaryScreen
from tui.screens.quiz.summary import format_duration, topic_result
from tui.screens.study import StudyScreen
from tui.widgets.question_view import QuestionView, choice_tag

SIZE = (100, 30)
SMALL = (80, 24)
NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)


def positions(view: QuestionView) -> tuple[list[int], list[int]]:
    """1-based display numbers of the correct and of the wrong choices."""
    right = [view.order.index(i) + 1 for i, c in enumerate(view.question.choices) if c.correct]
    wrong = [view.order.index(i) + 1 for i, c in enumerate(view.question.choices) if not c.correct]
    return right, wrong


# ---------------------------------------------------------------------------------------------------- labels


def test_topic_lines_and_durations() -> None:
    assert topic_result(0, 0, 2, 0, "en") == ("  not reached", "dim")
    assert topic_result(0, 0, 2, 1, "en")[0] == "  not answered"
    assert topic_result(1, 2, 3, 3, "en")[0] == "   1/2  (of 3)"
    assert topic_result(2, 2, 2, 2, "en")[0] == "   2/2"
    assert topic_result(0, 0, 2, 0, "zh")[0] == "  未做到"
    assert [format_duration(s) for s in (0.4, 12.6, 60, 185)] == ["0 s", "13 s", "1 min 0 s", "3 min 5 s"]


def test_choice_tags_say_in_words_what_colour_shows() -> None:
    assert choice_tag(True, True, "en") == "your pick ✓"
    assert choice_tag(False, True, "en") == "missed: correct"
    assert choice_tag(False, True, "en", multi=False) == "the answer"
    assert choice_tag(True, False, "en") == "your pick ✗ wrong"
    assert choice_tag(False, False, "en") == ""
    assert choice_tag(False, True, "zh") == "漏选：正确项"


# ---------------------------------------------------------------------------------------------------- the summary


@pilot_test
async def test_summary_counts_unreached_apart_and_times_start_to_end(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        # fx.mcq and fx.multi (Fixture RoPE) answered, then q on the third; the ALiBi pair never reached
        screen = await start_quiz(pilot, ["fx.mcq", "fx.multi", "fx.truefalse", "fx.numeric", "fx.cloze"])
        screen.session.started_at -= 12  # the quiz began 12 s ago
        right, _wrong = positions(screen.view)
        await pilot.press(str(right[0]), "space", "n")
        await settle(pilot)
        _right, wrong = positions(screen.view)
        await pilot.press(str(wrong[0]), "space", "n")
        await settle(pilot)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, QuizSummaryScreen)
        text = screen_text(app)
        assert "Score: 1/2 answered correctly (50%)" in text
        found = re.search(r"2 answered · 1 correct · 1 wrong · 1 skipped · 2 not reached · (\d+) s", text)
        assert found and 12 <= int(found.group(1)) < 60  # from the start (12 s ago) to the end
        assert "Fixture ALiBi  not reached" in text and "0/2" not in text
        assert "1/2  (of 3)" in text


# ---------------------------------------------------------------------------------------------------- multi-select feedback


@pilot_test
async def test_multi_feedback_shows_missed_and_wrong_picks_distinctly(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.multi"])
        view = screen.view
        right, wrong = positions(view)
        await pilot.press(str(right[0]), str(wrong[0]), "space")  # one right pick, one missed, one wrong
        await settle(pilot)
        lines = screen_text(app).splitlines()
        by_text = {
            name: next(line for line in lines if f"  {name}" in line) for name in ("RoPE", "M-RoPE", "ALiBi")
        }
        picked_right = view.question.choices[view.order[right[0] - 1]].text.get("en")
        missed = next(n for n in ("RoPE", "M-RoPE") if n != picked_right)
        assert "✓" in by_text[picked_right] and "your pick ✓" in by_text[picked_right]
        assert "○" in by_text[missed] and "missed: correct" in by_text[missed]
        assert "✗" in by_text["ALiBi"] and "your pick ✗ wrong" in by_text["ALiBi"]
        assert "✓" not in by_text[missed].split("missed")[0]  # a missed option is not marked like a pick


# ---------------------------------------------------------------------------------------------------- open questions


@pilot_test
async def test_n_on_a_revealed_open_question_moves_on_without_recording_missed(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.literal", "fx.mcq"])
        await pilot.press("space")
        await settle(pilot)
        footer = screen_text(app).splitlines()[-1]
        assert "x Missed" in footer and "n Missed" not in footer
        await pilot.press("n")
        await settle(pilot)
        assert screen.session.current_id == "fx.mcq"
        assert screen.session.grades["fx.literal"].correct is None  # shown, not graded "missed"
        assert app.store.attempts() == []


@pilot_test
async def test_x_records_missed_on_an_open_question(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.literal"])
        await pilot.press("space", "x")
        await settle(pilot)
        assert screen.session.grades["fx.literal"].correct is False
        assert [(a.question_id, a.correct) for a in app.store.attempts()] == [("fx.literal", False)]


# ---------------------------------------------------------------------------------------------------- keys and focus


@pilot_test
async def test_command_keys_do_not_land_in_a_blank_the_app_focused(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.cloze", "fx.numeric", "fx.mcq"])
        blank = screen.view.query_one("#blank-1", Input)
        assert app.focused is blank
        assert "n Next" in screen_text(app).splitlines()[-1]  # offered, and it works
        await pilot.press("n")
        await settle(pilot)
        assert blank.value == "" and screen.session.current_id == "fx.numeric"
        field = screen.view.query_one(".qv-number", Input)
        await pilot.press("1", "n")  # typing: now `n` is text (and the footer stops offering it)
        await settle(pilot)
        assert field.value == "1n" and screen.session.current_id == "fx.numeric"
        footer = screen_text(app).splitlines()[-1]
        assert "n Next" not in footer and "/ Search" not in footer and "esc Leave input" in footer


@pilot_test
async def test_second_undo_onto_a_cloze_card_undoes_again(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.store.set_setting("enable_fuzzing", False)
        screen = StudyScreen("fixture-alibi", clock=lambda: NOW)
        await app.push_screen(screen)
        await settle(pilot)
        assert screen.view.question_id == "fx.numeric"
        await pilot.press("space", "3")
        await settle(pilot)
        assert screen.view.question_id == "fx.cloze"
        await pilot.press("space", "3")
        await settle(pilot)
        assert app.store.review_count() == 2
        await pilot.press("u")
        await settle(pilot)
        assert screen.view.question_id == "fx.cloze" and isinstance(app.focused, Input)
        await pilot.press("u")  # before the fix: typed into the blank
        await settle(pilot)
        assert app.store.review_count() == 0
        assert screen.view.question_id == "fx.numeric"
        assert all(not i.value for i in screen.query(Input))


# ---------------------------------------------------------------------------------------------------- answering


@pilot_test
async def test_single_choice_waits_for_confirmation_and_can_change(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq", "fx.truefalse"])
        view = screen.view
        right, wrong = positions(view)
        await pilot.press(str(wrong[0]))
        await settle(pilot)
        assert not view.revealed and "(•)" in screen_text(app)
        await pilot.press(str(right[0]))  # change of mind
        await pilot.press("enter")
        await settle(pilot)
        assert view.revealed and view.grade.correct is True
        await pilot.press("n")
        await settle(pilot)
        await pilot.press("space")  # nothing chosen: says so, does not reveal
        await settle(pilot)
        assert not screen.view.revealed
        assert any("Choose an answer first" in n.message for n in app._notifications)


@pilot_test
async def test_instant_submit_setting(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.store.set_setting("instant_submit", True)
        app.instant_submit = True  # what on_store_opened reads on the next start
        screen = await start_quiz(pilot, ["fx.truefalse"])
        await pilot.press("1")
        await settle(pilot)
        assert screen.view.revealed and screen.view.grade.correct is True


@pilot_test
async def test_verdict_is_on_screen_at_80x24_and_footer_keeps_quit_and_reload(env: Path) -> None:
    app = make_app(env, language="zh")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq", "fx.multi"])
        footer = screen_text(app).splitlines()[-1]
        assert "r 重载" in footer and "^q 退出" in footer
        _right, wrong = positions(screen.view)
        await pilot.press(str(wrong[0]), "space")
        await settle(pilot)
        text = screen_text(app)
        assert "✗ 错误" in text
        footer = text.splitlines()[-1]
        assert "r 重载" in footer and "^q 退出" in footer


@pilot_test
async def test_quiz_answers_feed_the_schedule(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.store.review("fx.mcq", 4)  # Easy: due in days
        assert app.store.card("fx.mcq").due > datetime.now(UTC)
        screen = await start_quiz(pilot, ["fx.mcq", "fx.truefalse"])
        _right, wrong = positions(screen.view)
        await pilot.press(str(wrong[0]), "space")
        await settle(pilot)
        # a wrong answer is an Again review: the card lapses, due within Study's learn-ahead window
        card = app.store.card("fx.mcq")
        assert card.due <= datetime.now(UTC) + LEARN_AHEAD and card.state == State.Relearning
        assert [int(r.rating) for r in app.store.review_rows() if r.question_id == "fx.mcq"] == [4, 1]
        app.store.set_setting("quiz_schedules", False)
        await pilot.press("n", "2", "space")  # wrong again, with the setting off
        await settle(pilot)
        assert app.store.card("fx.truefalse") is None


@pilot_test
async def test_a_wrong_answer_on_a_new_question_is_its_first_review(env: Path) -> None:
    """Never a due card without a review row: the card is the replay of its reviews (Again, learning)."""
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq", "fx.multi"])
        _right, wrong = positions(screen.view)
        await pilot.press(str(wrong[0]), "space")
        await settle(pilot)
        [review] = app.store.review_rows()
        assert review.question_id == "fx.mcq" and int(review.rating) == 1 and review.state_before is None
        card = app.store.card("fx.mcq")
        assert card.state == State.Learning and card.due <= datetime.now(UTC) + LEARN_AHEAD
        assert app.store.study_queue(["fx.mcq"], learn_ahead=LEARN_AHEAD).due == ["fx.mcq"]
        assert app.store.card_json("fx.mcq") == review_after(app.store, "fx.mcq")


def review_after(store: Any, question_id: str) -> str:
    return store._read(
        lambda c: c.execute(
            "SELECT card_after FROM reviews WHERE question_id = ? ORDER BY id DESC LIMIT 1", (question_id,)
        ).fetchone()[0]
    )


@pilot_test
async def test_home_try_it_by_default_and_read_it_with_b(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.try_question("fx.cloze")
        await settle(pilot)
        assert isinstance(app.screen, QuizScreen) and app.screen.try_it
        assert not app.screen.view.revealed  # the answer is not shown: the candidate tries first
        await pilot.press("o")  # "read it"
        await settle(pilot)
        assert isinstance(app.screen, BrowseScreen) and app.screen.question_id == "fx.cloze"


# ---------------------------------------------------------------------------------------------------- flags, notes, hints, filters


@pilot_test
async def test_flag_and_note_are_stored_and_shown(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await start_quiz(pilot, ["fx.mcq"])
        await pilot.press("m")  # m marks (flags); f answers false on a true/false question
        await settle(pilot)
        assert app.store.question_marks() == {"fx.mcq": (True, "")}
        assert "⚑ flagged" in screen_text(app)
        await pilot.press("N")
        await settle(pilot)
        assert isinstance(app.screen, NoteScreen)
        await pilot.press(*"sign of m - n", "enter")
        await settle(pilot)
        assert app.store.question_marks() == {"fx.mcq": (True, "sign of m - n")}
        assert "✎ sign of m - n" in screen_text(app)


@pilot_test
async def test_setup_filters_by_type_and_flag(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.store.set_question_mark("fx.cloze", flagged=True)
        await pilot.press("z")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, QuizSetupScreen)
        assert "6 questions match" in screen_text(app)
        screen.query_one("#only-flagged", Checkbox).value = True
        await settle(pilot)
        assert "1 question matches" in screen_text(app)
        screen.query_one("#only-flagged", Checkbox).value = False
        for qtype in ("mcq", "multi", "truefalse", "cloze", "open"):
            screen.query_one(f"#type-{qtype}", Checkbox).value = False
        await settle(pilot)
        assert "1 question matches" in screen_text(app)
        assert "▐ ▌ mcq" in screen_text(app) and "▐✓▌ numeric" in screen_text(app)  # glyphs, not colour
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, QuizScreen) and app.screen.session.question_ids == ["fx.numeric"]
        # the next setup in this session keeps the type toggles (it reset them all to on)
        app.pop_screen()
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot)
        again = app.screen
        assert isinstance(again, QuizSetupScreen) and again is not screen
        ticked = [t for t in ("mcq", "multi", "truefalse", "numeric", "cloze", "open")
                  if again.query_one(f"#type-{t}", Checkbox).value]  # fmt: skip
        assert ticked == ["numeric"] and "1 question matches" in screen_text(app)


@pilot_test
async def test_hints_show_one_at_a_time(env: Path) -> None:
    bank = env / "hinted"
    bank.mkdir()
    (bank / "h.yaml").write_text(
        "topics:\n"
        "  - topic: hinted\n"
        "    title: {en: Hinted, zh: 提示}\n"
        "    questions:\n"
        "      - id: h.num\n"
        "        type: open\n"
        "        prompt: {en: 'How many pairs for d = 8?', zh: 'd = 8 时有几对？'}\n"
        "        answer: {en: '4', zh: '4'}\n"
        "        key_points: [{en: 'd/2', zh: 'd/2'}]\n"
        "        hints:\n"
        "          - {en: 'Channels are paired.', zh: '通道两两成对。'}\n"
        "          - {en: 'Halve d.', zh: '把 d 减半。'}\n"
        "        explanation: {en: 'd/2 = 4.', zh: 'd/2 = 4。'}\n",
        encoding="utf-8",
    )
    app = make_app(env)
    app.bank_paths.append(str(bank))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["h.num"])
        await pilot.press("escape")  # out of the open question's answer box: letters are keys again
        await settle(pilot)
        assert "h hint (2 left)" in screen_text(app)
        await pilot.press("h")
        await settle(pilot)
        text = screen_text(app)
        assert "Hint 1/2  Channels are paired." in text and "Halve d." not in text
        await pilot.press("h")
        await settle(pilot)
        assert "Hint 2/2  Halve d." in screen_text(app)
        assert screen.view.hints_shown == 2


@pilot_test
async def test_h_on_a_question_without_hints_says_so_and_types_nothing(env: Path) -> None:
    """`h` on a numeric question without hints went into the number box as the letter h."""
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.numeric"])
        assert not getattr(screen.view.question, "hints", None)
        box = screen.view.query_one(".qv-number", Input)
        assert app.focused is box and box.value == ""
        await pilot.press("h")
        await settle(pilot)
        assert box.value == ""
        assert "No hints for this question." in [str(n.message) for n in app._notifications]
        await pilot.press("4", "h")  # once typing, letters are text
        await settle(pilot)
        assert box.value == "4h"


@pilot_test
async def test_browse_shows_status_marks(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=(130, 30)) as pilot:
        await settle(pilot)
        app.store.record_attempt("fx.multi", False, "1", 100)
        app.store.set_question_mark("fx.mcq", flagged=True)
        app.open_question("fx.multi")
        await settle(pilot)
        text = screen_text(app)
        assert "✗ wrong last time" in text  # the bar, for the question shown
        lines = text.splitlines()
        assert any(line.startswith("  2 ✗  Which of these use rotat") for line in lines)
        assert any(line.startswith("  1 ·⚑ Which form does RoPE") for line in lines)  # new, flagged


@pilot_test
async def test_summary_when_nothing_was_answered(env: Path) -> None:
    app = make_app(env, language="zh")
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot)
        await start_quiz(pilot, ["fx.mcq", "fx.numeric", "fx.cloze"])
        await pilot.press("q")
        await settle(pilot)
        text = screen_text(app)
        assert "得分：没有作答" in text and "0/0" not in text
        assert "已答 0 · 答对 0 · 答错 0 · 跳过 1 · 未做到 2" in text
        footer = text.splitlines()[-1]
        assert "r 重载" in footer and "^q 退出" in footer
