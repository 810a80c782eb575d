"""Pilot tests of the Drill screen: open it, edit, grade with ctrl+r, see the cases, hints, the solution gate,
re-grading when the file changes on disk, and the attempt and Study card in the progress store."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from support.apps import make_app, screen_text
from support.drills import results_text
from support.pilot import pilot_test, settle, wait_for
from support.processes import alive
from textual.widgets import Markdown, Static, TextArea

from quizbank.drills import get_drill
from tui.screens.confirm import ConfirmScreen
from tui.screens.drill import DrillScreen

SIZE = (120, 40)


@pytest.mark.slow  # grades twice in a child process
@pilot_test
async def test_open_edit_grade_and_see_the_cases(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # Home: coding drills
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        app.open_drills("ntk-inv-freq")  # the palette's entry: switches the open screen
        await settle(pilot)
        assert screen.drill_name == "ntk-inv-freq"
        path = env / "data" / "drills" / "ntk-inv-freq.py"
        editor = screen.query_one("#drill-code", TextArea)
        assert path.read_text(encoding="utf-8") == get_drill("ntk-inv-freq").starter == editor.text
        assert "Not graded yet" in results_text(screen)
        assert "NTK-aware RoPE frequencies" in screen_text(app)

        # a wrong attempt, typed into the editor: the base is multiplied by factor without the exponent
        editor.text = get_drill("ntk-inv-freq").solution.replace("factor ** (dim / (dim - 2))", "factor")
        editor.focus()
        results = screen.query_one("#drill-results", Static)
        shown: list[str] = []  # every text the results panel shows, in order (the grade may be quick)
        update = results.update

        def recording_update(content: object = "", **kw: object) -> None:
            shown.append(str(content))
            update(content, **kw)

        results.update = recording_update
        await pilot.press("ctrl+r")
        await wait_for(lambda: screen.report is not None)
        results.update = update
        assert "Grading in an isolated process" in shown[0], shown  # said first, before the report
        await settle(pilot)
        text = results_text(screen)
        assert "✗ 1/5 cases pass" in text  # factor 1 still passes
        assert "✗ dim 128, base 10000, factor 4" in text and "✓ factor 1 leaves θ unchanged" in text
        assert "without the exponent dim/(dim−2)" in text and " ms" in text
        assert "factor\n" in path.read_text(encoding="utf-8")  # saved before grading
        assert [a.passed for a in app.store.drill_attempts("ntk-inv-freq")] == [False]
        assert app.store.card("drill:ntk-inv-freq") is None

        # fixed in another editor: the screen sees the new mtime and re-grades by itself
        path.write_text(get_drill("ntk-inv-freq").solution, encoding="utf-8")
        os.utime(path, (time.time() + 5, time.time() + 5))
        await wait_for(lambda: len(app.store.drill_attempts("ntk-inv-freq")) == 2)
        await wait_for(lambda: screen.report is not None and screen.report.passed)
        await settle(pilot)
        assert editor.text == get_drill("ntk-inv-freq").solution
        assert "✓ All 5 cases pass" in results_text(screen)
        card = app.store.card("drill:ntk-inv-freq")
        assert card is not None and card.due > app.store.drill_attempts()[-1].attempted_at


@pilot_test
async def test_hints_one_at_a_time_and_the_solution_gate(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_drills("rope-half")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        hints = screen.query_one("#drill-hints", Static)
        assert not hints.display
        await pilot.press("h")  # focus starts outside the editor: h is a key, not a letter of the file
        await pilot.pause()
        assert screen.hints_shown == 1 and hints.display
        assert "Hint 1/2" in str(hints.content) and "cat(angles, angles)" in str(hints.content)
        assert "Hint 2/2" not in str(hints.content)
        await pilot.press("h")
        assert "Hint 2/2" in str(hints.content) and "rotate_half" in str(hints.content)
        await pilot.press("h")
        await pilot.pause()
        assert screen.hints_shown == 2  # no third hint

        solution = screen.query_one("#drill-solution", Markdown)
        await pilot.press("v")  # no attempt yet: locked, no confirmation
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen) and not solution.display
        screen.attempted = True  # as after a graded attempt
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and not solution.display
        await pilot.press("v")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert app.screen is screen and solution.display
        assert "rotated = torch.cat((-x2, x1), dim=-1)" in solution.source


@pilot_test
async def test_previous_attempt_unlocks_the_solution_and_chinese_statement(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.store.record_drill_attempt("alibi-bias", False, 2, 7, 1500)
        app.open_drills("alibi-bias")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen) and screen.attempted
        await pilot.press("l")  # switch to Chinese (focus is not in the editor)
        await settle(pilot)
        statement = screen.query_one("#drill-statement", Markdown)
        assert "构造加到注意力 logits 上的因果 ALiBi 偏置" in statement.source
        assert "带因果掩码的 ALiBi 偏置" in str(screen.query_one("#drill-title", Static).content)
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "查看参考答案" in screen_text(app)


@pilot_test
async def test_existing_file_is_kept_and_edits_are_saved(env: Path) -> None:
    app = make_app(env)
    folder = env / "data" / "drills"
    folder.mkdir(parents=True)
    mine = "# my work in progress\n"
    (folder / "t5-bucket.py").write_text(mine, encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_drills("t5-bucket")
        await settle(pilot)
        screen = app.screen
        editor = screen.query_one("#drill-code", TextArea)
        assert editor.text == mine
        await pilot.press("i")  # into the editor
        await pilot.pause()
        assert app.focused is editor
        editor.move_cursor(editor.document.end)
        await pilot.press(*"x = 1")
        saved = folder / "t5-bucket.py"
        await wait_for(  # the autosave, half a second after the last key
            lambda: saved.read_text(encoding="utf-8") == mine + "x = 1", timeout=30, state=saved.read_text
        )
        await pilot.press("escape", "q")
        await settle(pilot)
        assert not isinstance(app.screen, DrillScreen)


@pytest.mark.timeout(120)  # an uncapped read of the pipe would wait for a writer forever
@pilot_test
async def test_a_file_too_large_or_not_regular_is_neither_loaded_nor_graded(
    env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    polls: list[float] = []  # each run of the screen's file poll (once a second)
    poll = DrillScreen._poll_file
    monkeypatch.setattr(
        DrillScreen, "_poll_file", lambda self: (polls.append(time.monotonic()), poll(self))[1]
    )
    app = make_app(env)
    folder = env / "data" / "drills"
    folder.mkdir(parents=True)
    big = "# " + "x" * (256 * 1024) + "\n"  # over 256 KiB
    (folder / "t5-bucket.py").write_text(big, encoding="utf-8")
    os.mkfifo(folder / "rope-half.py")
    too_large = "Could not read your file: larger than 256 KiB; a drill solution is a few KiB"
    async with app.run_test(size=SIZE) as pilot:
        said: list[str] = []
        notify = app.notify
        app.notify = lambda message, *a, **k: (said.append(str(message)), notify(message, *a, **k))[1]
        await settle(pilot)
        app.open_drills("t5-bucket")
        await settle(pilot)
        screen = app.screen
        editor = screen.query_one("#drill-code", TextArea)
        assert editor.text == get_drill("t5-bucket").starter  # the starter, not the file
        assert said == [too_large]
        assert (folder / "t5-bucket.py").read_text(encoding="utf-8") == big  # left as it is
        screen._autosave()  # the autosave after showing the starter (its timer, run now): not written over
        assert (folder / "t5-bucket.py").read_text(encoding="utf-8") == big

        before = len(said)
        screen.select_drill("rope-half")  # a pipe: refused at once, never opened for a blocking read
        await settle(pilot)
        screen._poll_file()  # the file poll (once a second) comes by: the unchanged pipe is not said again
        await settle(pilot)
        assert screen.drill_name == "rope-half" and editor.text == get_drill("rope-half").starter
        # (an autosave of the shown starter may follow it, refused the same way: never written into the pipe)
        assert said[before].startswith("Could not read your file: not a regular file")
        assert set(said[before + 1 :]) <= {"Could not save your file: rope-half.py is not a regular file"}

        screen.select_drill("ntk-inv-freq")  # leaving the pipe: nothing written into it either
        await settle(pilot)
        assert said[-1] == "Could not save your file: rope-half.py is not a regular file"
        path = folder / "ntk-inv-freq.py"
        assert path.read_text(encoding="utf-8") == editor.text == get_drill("ntk-inv-freq").starter
        path.write_text(big, encoding="utf-8")  # another editor writes a huge file: the poll reads no more
        os.utime(path, (time.time() + 5, time.time() + 5))
        await wait_for(lambda: said[-1] == too_large)
        assert editor.text == get_drill("ntk-inv-freq").starter and not screen.grading
        seen = len(polls)
        await wait_for(lambda: len(polls) >= seen + 2, timeout=60)  # two more polls of the unchanged file:
        assert (
            said.count(too_large) == 2 and not screen.grading and screen.report is None
        )  # said once a change
        editor.insert("# typed\n")  # an edit, then its save: the refused file is never written over
        assert screen.save() is False
        assert path.read_text(encoding="utf-8") == big


@pilot_test
async def test_the_autosave_never_writes_over_a_change_made_in_another_editor(env: Path) -> None:
    app = make_app(env)
    path = env / "data" / "drills" / "t5-bucket.py"
    theirs = "# saved in another editor\n"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_drills("t5-bucket")
        await settle(pilot)
        screen = app.screen
        editor = screen.query_one("#drill-code", TextArea)
        await pilot.press("i", *"y = 2")  # an edit in the app: its autosave is due in half a second
        path.write_text(theirs, encoding="utf-8")  # meanwhile another editor saves the file
        os.utime(path, (time.time() + 5, time.time() + 5))
        screen._autosave()  # the autosave comes first (the file poll, once a second, may come first too)
        assert path.read_text(encoding="utf-8") == theirs  # it did not write over the other editor's save
        await wait_for(lambda: editor.text == theirs)  # and the screen loaded it


@pilot_test
async def test_the_screen_opens_outside_the_editor_enter_or_i_edits_escape_leaves(env: Path) -> None:
    from textual.widgets import Select

    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("c")  # Home: coding drills
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        editor = screen.query_one("#drill-code", TextArea)
        path = env / "data" / "drills" / f"{screen.drill_name}.py"
        starter = editor.text
        assert not isinstance(app.focused, TextArea)
        assert "Enter or i edits" in str(screen.query_one("#drill-keys", Static).content)
        await pilot.press("l")  # the language switches; nothing lands in the file
        await settle(pilot)
        assert app.language == "zh" and editor.text == starter
        picker = screen.query_one("#drill-pick", Select)
        # the selector follows the language and keeps the drill shown (its closed box shows the
        # title in the new language, even for the first drill, whose value a reset leaves unchanged)
        assert picker.value == screen.drill_name
        assert get_drill(screen.drill_name).text("title", "zh") in screen_text(app)
        shown = picker.query_one("SelectCurrent").label  # what the closed selector shows
        assert get_drill(screen.drill_name).text("title", "zh") in str(shown), shown
        assert "编辑" in screen_text(app)  # the footer's Enter/i key
        await pilot.press("l")
        await settle(pilot)
        assert app.language == "en" and picker.value == screen.drill_name
        shown = str(picker.query_one("SelectCurrent").label)
        assert get_drill(screen.drill_name).text("title", "en") in shown, shown
        for key in ("enter", "i"):
            await pilot.press(key)
            await pilot.pause()
            assert app.focused is editor
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.focused, TextArea) and isinstance(app.screen, DrillScreen)
        await pilot.press("i", "z")
        await wait_for(  # the autosave, half a second after the key
            lambda: path.read_text(encoding="utf-8") == "z" + starter, timeout=30, state=path.read_text
        )
        assert editor.text == "z" + starter


DRILL_BANK = """
topic: drilled
title: {en: Drilled, zh: 练习}
questions:
  - id: drilled.rope
    type: truefalse
    prompt: {en: "HF's rotate_half pairs channel i with channel i + d/2.", zh: "HF 的 rotate_half 把通道 i 与 i + d/2 配对。"}
    explanation: {en: "Yes: the half layout.", zh: "是的：半分排布。"}
    correct: true
    drill: rope-half
"""


@pytest.mark.slow
@pilot_test
async def test_a_question_links_its_drill(env: Path) -> None:
    (env / "user-banks").mkdir(parents=True, exist_ok=True)
    (env / "user-banks" / "drilled.yaml").write_text(DRILL_BANK, encoding="utf-8")
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.bankset.questions["drilled.rope"].drill == "rope-half"
        app.open_question("drilled.rope")
        await settle(pilot)
        from tui.widgets.question_view import QuestionView

        view = app.screen.query_one(QuestionView)
        link = view.query_one(".qv-drill", Static)
        assert view.revealed and link.display
        assert "Coding drill: rope-half. Press c to implement it yourself." in str(link.content)
        view.focus()
        await pilot.press("c")
        await settle(pilot)
        assert isinstance(app.screen, DrillScreen) and app.screen.drill_name == "rope-half"


@pytest.mark.slow
@pilot_test
async def test_a_solved_drill_comes_back_in_study_and_on_stats(env: Path) -> None:
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.store.record_drill_attempt("alibi-slopes", True, 12, 12, 1800) is True
        app.store.make_due_now(["drill:alibi-slopes"])
        app.open_study()
        await settle(pilot)
        study = app.screen
        from tui.widgets.drill_card import DrillCard

        card = study.query_one(DrillCard)
        assert "Re-implement alibi-slopes from memory: ALiBi head slopes" in screen_text(app)
        await pilot.press("space")  # opens the drill
        await settle(pilot)
        assert isinstance(app.screen, DrillScreen) and app.screen.drill_name == "alibi-slopes"
        await pilot.press("escape", "q")
        await settle(pilot)
        assert app.screen is study and card.revealed
        await pilot.press("3")  # Good
        await settle(pilot)
        reviews = [r for r in app.store.review_rows() if r.question_id == "drill:alibi-slopes"]
        assert len(reviews) == 1 and int(reviews[0].rating) == 3
        await pilot.press("q")
        await settle(pilot)
        app.open_stats()
        await settle(pilot)
        assert "coding drills: 1 attempt · 1/18 solved · last: alibi-slopes 12/12" in screen_text(app)


@pytest.mark.slow  # starts grading children
@pilot_test
async def test_eight_quick_ctrl_r_run_one_grade_at_a_time(env: Path) -> None:
    """Each Ctrl+R cancels the running grade and kills its processes before the next one starts."""
    app = make_app(env)
    log = env / "workers.log"
    log.touch()
    log.chmod(0o666)  # as root the candidate runs as an unprivileged uid of its own (docs/drills.md)
    source = (
        "import os, time\n"
        f"with open({str(log)!r}, 'a') as f:\n"
        # the host's pid: in its own pid namespace getpid() says 1; /proc is still the host's
        "    f.write(os.readlink('/proc/self') + '\\n')\n"
        # long enough that no grade can end between two presses 50 ms apart, whatever the machine's speed
        "time.sleep(2.0)\n" + get_drill("ntk-inv-freq").solution
    )
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_drills("ntk-inv-freq")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DrillScreen)
        editor = screen.query_one("#drill-code", TextArea)
        editor.text = source
        editor.focus()
        most = 0

        def running() -> int:
            pids = [int(p) for p in log.read_text().split()] if log.exists() else []
            return sum(alive(p) for p in pids)

        for _ in range(8):
            await pilot.press("ctrl+r")
            most = max(most, running())
            await pilot.pause(0.05)
        deadline = time.monotonic() + 120
        while screen.report is None or screen.grading:
            most = max(most, running())
            assert time.monotonic() < deadline, "timed out waiting for the last grade"
            await pilot.pause(0.05)
        assert most <= 1
        assert screen.report.passed and screen.report.cases_passed == 5
        assert [a.passed for a in app.store.drill_attempts("ntk-inv-freq")] == [
            True
        ]  # cancelled ones: no record
        assert running() == 0
