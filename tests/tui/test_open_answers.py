"""Typed answers to open questions in Quiz and Study: judged against the key points (`quizbank.judge`),
shown ✓ covered / ✗ contradicted (with the correction) / · not found, and (Study) a suggested rating that only
the user's key applies; a contradicted point suggests Again. Pilot flows in English and Chinese on a bank whose open questions have four key points each.

Keys are posted the way a terminal delivers them (one Key event each, without waiting for the app), so a
fast burst is exercised too.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support.apps import make_app, open_study, screen_text, start_quiz
from support.pilot import pilot_test, post_keys, settle, wait_for
from textual.widgets import Checkbox

from tui.widgets.answers.open import OpenAnswer, OpenAnswerArea

SIZE = (100, 30)
SMALL = (80, 24)
NOW = datetime(2025, 3, 10, 12, 0, tzinfo=UTC)

OPEN_BANK = r"""
topics:
  - topic: fixture-open
    title: {en: "Fixture open answers", zh: "测试用开放题"}
    description: {en: "Open questions with four key points.", zh: "有四个要点的开放题。"}
    order: 9
    questions:
      - id: oa.rope
        type: open
        difficulty: 2
        prompt: {en: "Why does RoPE encode relative position?", zh: "为什么 RoPE 编码的是相对位置？"}
        answer:
          en: "Each pair is rotated by an angle proportional to its position, so q·k sees only m - n."
          zh: "每一对分量按与位置成正比的角度旋转，所以 q·k 只看到 m - n。"
        key_points:
          - {en: "Rotation angle grows linearly with position", zh: "旋转角度随位置线性增长"}
          - {en: "The dot product depends only on the relative distance", zh: "点积只依赖相对距离"}
          - en: "Applied to queries and keys, never to values"
            zh: "只作用于查询和键，不作用于值"
            accept: ["v|value not rotat*", "only q k", 只 .. 查询|q 键|k]
            misconceptions:
              - claim: {en: "V is rotated too.", zh: "V 也被旋转。"}
                match: ["rotat* ~ v|value", "旋转 ~ v|值"]
                correction: {en: "Only q and k are rotated; V carries no position.", zh: "只旋转 q 和 k，V 不带位置。"}
          - {en: "Adds no learned parameters", zh: "不增加可学习的参数"}
        explanation: {en: "Rotations compose: R_m^T R_n = R_{n-m}.", zh: "旋转可以复合：R_m^T R_n = R_{n-m}。"}
      - id: oa.alibi
        type: open
        difficulty: 2
        prompt: {en: "What does ALiBi add to the logits?", zh: "ALiBi 往 logit 上加了什么？"}
        answer: {en: "A linear penalty, one slope per head.", zh: "线性惩罚，每个头一个斜率。"}
        key_points:
          - {en: "A penalty linear in distance", zh: "与距离成线性的惩罚"}
          - {en: "One fixed slope per head", zh: "每个头一个固定斜率"}
        explanation: {en: "No embeddings at all.", zh: "完全没有位置嵌入。"}
"""

ANSWERS = {
    "en": "The rotation angle grows linearly with position, so the dot product depends only on relative distance.",
    "zh": "旋转角度随位置线性增长，所以点积只依赖相对距离。",
}


def open_app(tmp_path: Path, lang: str = "en", **options: Any) -> Any:
    app = make_app(tmp_path, language=lang, **options)
    (tmp_path / "banks" / "open.yaml").write_text(OPEN_BANK.lstrip(), encoding="utf-8")
    return app


def open_answer(screen: Any) -> OpenAnswer:
    return screen.view.query_one(OpenAnswer)


# ---------------------------------------------------------------------------------------------------- quiz


@pytest.mark.parametrize("lang", ["en", "zh"])
@pilot_test
async def test_quiz_typed_answer_shows_covered_and_missed_and_records_it(env: Path, lang: str) -> None:
    app = open_app(env, lang)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_quiz(pilot, ["oa.rope", "oa.alibi"])
        area = screen.view.query_one(OpenAnswerArea)
        assert app.focused is area
        await post_keys(app, list(ANSWERS[lang]))  # a burst: every character lands
        await settle(pilot)
        assert area.text == ANSWERS[lang]
        await pilot.press("ctrl+r")
        await settle(pilot)
        answer = open_answer(screen)
        assert screen.view.revealed and answer.ticks() == [True, True, False, False]
        text = screen_text(app)
        covered, missed = ("✓ covered", "· not found") if lang == "en" else ("✓ 已答到", "· 未提及")
        assert text.count(covered) == 2 and text.count(missed) == 2
        assert ("suggested rating: 2 Hard" if lang == "en" else "建议评分：2 困难") in text
        assert area.read_only and app.focused is screen.view  # y / x / 1-4 are keys again
        assert "Check answer" not in text  # the frozen box offers no keys
        await pilot.press("tab")  # past the frozen box, to the first key point
        assert app.focused is screen.view.query_one("#qv-point-1", Checkbox)
        await pilot.press("y")
        await settle(pilot)
        (attempt,) = app.store.attempts()
        assert (attempt.question_id, attempt.correct, attempt.response) == ("oa.rope", True, ANSWERS[lang])


@pilot_test
async def test_quiz_enter_on_the_empty_box_reveals_as_before(env: Path) -> None:
    app = open_app(env)
    async with app.run_test(size=SMALL) as pilot:
        screen = await start_quiz(pilot, ["oa.rope", "oa.alibi"])
        await pilot.press("enter")
        await settle(pilot)
        assert screen.view.revealed and screen.view.awaiting_self_grade
        assert open_answer(screen).coverage() is None  # nothing typed: plain key points, no ticks
        assert "• Adds no learned parameters" in screen_text(app).replace("\n", " ") or (
            "Key points" in screen_text(app)
        )
        await pilot.press("x")
        await settle(pilot)
        (attempt,) = app.store.attempts()
        assert attempt.correct is False and attempt.response == "self:1"


@pilot_test
async def test_quiz_escape_leaves_the_box_and_n_moves_on(env: Path) -> None:
    app = open_app(env)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_quiz(pilot, ["oa.rope", "oa.alibi"])
        await post_keys(app, ["n", "o", "p", "e", "escape", "n"])  # "nope" typed; Esc, then n is a key
        await wait_for(lambda: screen.session.current_id == "oa.alibi")
        await settle(pilot)
        assert app.store.attempts() == []
        assert app.focused is screen.view.query_one(OpenAnswerArea)  # the next card's box, empty
        assert screen.view.query_one(OpenAnswerArea).text == ""


@pilot_test
async def test_quiz_enter_after_typing_reveals_with_the_points_and_x_grades(env: Path) -> None:
    """A burst: the typed answer, Enter (reveals and matches), x (missed): x grades, never lands in the box."""
    app = open_app(env)
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_quiz(pilot, ["oa.rope", "oa.alibi"])
        area = screen.view.query_one(OpenAnswerArea)
        await post_keys(app, [*ANSWERS["en"], "enter", "x"])
        await wait_for(lambda: len(app.store.attempts()) == 1)
        await settle(pilot)
        assert area.text == ANSWERS["en"] and area.read_only  # no newline, no "x"
        assert open_answer(screen).ticks() == [True, True, False, False]
        text = screen_text(app)
        assert text.count("✓ covered") == 2 and text.count("· not found") == 2
        (attempt,) = app.store.attempts()
        assert (attempt.correct, attempt.response) == (False, ANSWERS["en"])


# ---------------------------------------------------------------------------------------------------- study


WRONG = {
    "en": "The rotation angle grows linearly with position. RoPE rotates the values as well, so outputs know "
    "their position.",
    "zh": "旋转角度随位置线性增长。RoPE 也旋转 v，这样输出也知道位置。",
}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pilot_test
async def test_study_shows_a_contradicted_point_with_its_correction_and_suggests_again(
    env: Path, lang: str
) -> None:
    app = open_app(env, lang)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_study(pilot, "fixture-open")
        assert screen.view.question.id == "oa.rope"
        await post_keys(app, [*WRONG[lang], "ctrl+r"])
        await wait_for(lambda: screen.revealed and screen.suggested is not None)
        await settle(pilot)
        answer = open_answer(screen)
        assert answer.marks() == ["covered", "not_found", "contradicted", "not_found"]
        assert screen.suggested == 1  # covered 1/4 would say Again too; the reason says why
        text = screen_text(app)
        if lang == "en":
            assert "✗ contradicted" in text and "Correction: Only q and k are rotated" in text
            assert "your answer contradicts 1 of 4 key points" in text
        else:
            assert "✗ 说反了" in text and "更正： 只旋转 q 和 k" in text
        # the candidate overrides the judge: point 3 was right after all -> no contradiction, Hard (2/4)
        box = screen.view.query_one("#qv-point-3", Checkbox)
        box.focus()
        await pilot.press("space")
        await settle(pilot)
        assert answer.marks() == ["covered", "not_found", "covered", "not_found"] and screen.suggested == 2
        await pilot.press("space")  # unticked again: the judge's contradiction comes back
        await settle(pilot)
        assert answer.marks()[2] == "contradicted" and screen.suggested == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
@pilot_test
async def test_study_suggests_a_rating_from_coverage_and_only_the_key_rates(env: Path, lang: str) -> None:
    app = open_app(env, lang)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_study(pilot, "fixture-open")
        assert screen.view.question.id == "oa.rope"
        await post_keys(app, [*ANSWERS[lang], "ctrl+r"])
        await wait_for(lambda: screen.revealed)
        await settle(pilot)
        answer = open_answer(screen)
        assert answer.ticks() == [True, True, False, False]
        assert screen.suggested == 2 and app.store.review_rows() == []  # shown, never applied
        text = screen_text(app)
        if lang == "en":
            assert "Suggested: 2 Hard (your answer covers 2/4 key points)" in text
        else:
            assert "建议：2 困难（你的答案覆盖了 2/4 个要点）" in text
        assert screen.query_one("#rate-2").has_class("-suggested")
        # the candidate changes a tick: point 3 was covered after all -> 3/4, Good
        box = screen.view.query_one("#qv-point-3", Checkbox)
        box.focus()
        await pilot.press("space")
        await settle(pilot)
        assert answer.ticks() == [True, True, True, False] and screen.suggested == 3
        assert screen.query_one("#rate-3").has_class("-suggested")
        screen.view.focus()
        await pilot.press("4")  # the user's rating wins
        await wait_for(lambda: len(app.store.review_rows()) == 1)
        assert int(app.store.review_rows()[0].rating) == 4


@pytest.mark.parametrize("submit", ["enter", "ctrl+r"])
@pilot_test
async def test_study_fast_keys_type_reveal_rate_and_reveal_the_next_on_empty_enter(
    env: Path, submit: str
) -> None:
    app = open_app(env)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_study(pilot, "fixture-open")
        first = screen.view.question.id
        # typed, revealed with Enter (or Ctrl+R), rated 2; then Enter on the next card's empty box reveals, 1 rates
        await post_keys(app, [*"rotation angle", submit, "2", "enter", "1"], gap=0.05)
        await wait_for(
            lambda: len(app.store.review_rows()) >= 2 and not screen.holding_keys,
            state=lambda: f"{app.store.review_rows()} focused {app.focused}",
        )
        await settle(pilot)
        reviews = app.store.review_rows()
        assert [(r.question_id, int(r.rating)) for r in reviews][:1] == [(first, 2)]
        assert [int(r.rating) for r in reviews] == [2, 1]


@pilot_test
async def test_study_space_on_the_empty_box_shows_the_answer_and_the_footer_says_so(env: Path) -> None:
    """The footer offers Space "Show answer" while the box is empty (Space reveals there); typing makes
    Space a space and the footer drops it; on the emptied box Space reveals and 3 rates, 50 ms apart."""
    app = open_app(env)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_study(pilot, "fixture-open")
        area = screen.view.query_one(OpenAnswerArea)
        assert app.focused is area
        assert "Show answer" in screen_text(app)
        await post_keys(app, [*"pairs rotate"])
        await settle(pilot)
        assert area.text == "pairs rotate" and "Show answer" not in screen_text(app)
        for _ in range(len("pairs rotate")):
            await pilot.press("backspace")
        await settle(pilot)
        assert area.text == "" and "Show answer" in screen_text(app)
        await post_keys(app, ["space", "3"], gap=0.05)
        await wait_for(lambda: len(app.store.review_rows()) == 1 and not screen.holding_keys)
        await settle(pilot)
        assert area.text == "" and int(app.store.review_rows()[0].rating) == 3
        assert app.focused is screen.view.query_one(OpenAnswerArea)  # the next card's box


# four more open questions for the topic of OPEN_BANK (appended to its question list)
MORE_OPEN = "".join(
    f"""      - id: oa.more{n}
        type: open
        difficulty: 1
        prompt: {{en: "Open question {n}?", zh: "开放题 {n}？"}}
        answer: {{en: "Answer {n}.", zh: "答案 {n}。"}}
        key_points: [{{en: "Point {n}", zh: "要点 {n}"}}]
        explanation: {{en: "Explained {n}.", zh: "解释 {n}。"}}
"""
    for n in range(1, 5)
)


@pilot_test
async def test_study_enter_then_3_at_machine_speed_rates_six_open_cards(env: Path) -> None:
    """Enter (the empty box reveals) then 3, 50 ms apart, through six open cards: six reviews, every box
    left empty (no rating key ever landed in one)."""
    app = open_app(env)
    bank = env / "banks" / "open.yaml"
    bank.write_text(bank.read_text(encoding="utf-8") + MORE_OPEN, encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_study(pilot, "fixture-open")
        boxes: list[OpenAnswerArea] = []
        assert isinstance(app.focused, OpenAnswerArea)

        def note_box() -> bool:
            boxes.extend(b for b in screen.query(OpenAnswerArea) if b not in boxes)
            return len(app.store.review_rows()) >= 6 and not screen.holding_keys

        await post_keys(app, ["enter", "3"] * 6, gap=0.05)
        await wait_for(
            note_box,
            state=lambda: (
                f"{len(app.store.review_rows())} reviews, boxes {[b.text for b in boxes]},"
                f" held {[k.key for k in screen._held or []]}, holding {screen._holding},"
                f" replaying {screen._replaying}, busy {screen.busy}, focused {app.focused}"
            ),
        )
        await settle(pilot)
        reviews = app.store.review_rows()
        assert len(reviews) == 6 and [int(r.rating) for r in reviews] == [3] * 6
        assert len({r.question_id for r in reviews}) == 6  # six different new cards
        assert screen.done_count == 6 and not screen.revealed  # the next card waits
        assert all(box.text == "" for box in boxes)


# ---------------------------------------------------------------------------------------------------- snapshots

SNAP_CASES = [((100, 30), "en"), ((100, 30), "zh"), ((80, 24), "en"), ((80, 24), "zh")]


@pytest.mark.parametrize(("size", "lang"), SNAP_CASES, ids=[f"{w}x{h}-{lang}" for (w, h), lang in SNAP_CASES])
def test_snapshot_study_revealed_typed_answer(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: tuple[int, int], lang: str
) -> None:
    """Study after Ctrl+R on a typed answer: 2 points covered, 2 missed, Hard suggested beside the ratings."""
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BENCH_LOG", raising=False)
    app = open_app(tmp_path, lang)

    async def run_before(pilot: Any) -> None:
        screen = await open_study(pilot, "fixture-open")
        await post_keys(pilot.app, [*ANSWERS[lang], "ctrl+r"])
        await wait_for(lambda: screen.revealed and screen.suggested == 2)
        await settle(pilot)
        screen.query_one("#study-qa").scroll_home(animate=False)
        await settle(pilot)

    assert snap_compare(app, terminal_size=size, run_before=run_before)
