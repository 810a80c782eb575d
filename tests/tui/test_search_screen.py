"""The Search screen: ranked results (exact id, title, prompt, answer, explanation) with the matches
highlighted, jumping to a question, and topics and demos among the results."""

from __future__ import annotations

from pathlib import Path

from support.apps import make_app, screen_text
from support.pilot import pilot_test, settle

from tui.screens.browse import BrowseScreen
from tui.screens.quiz import QuizScreen

SIZE = (100, 30)


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
