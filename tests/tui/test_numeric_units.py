"""A numeric question's unit is bank text in both languages: shown in the app's language (an English-only
unit, or the old `unit: ""`, still loads)."""

from __future__ import annotations

from pathlib import Path

from support.apps import make_app, screen_text
from support.pilot import pilot_test, settle

from quizbank.loader import load_banks

BANK = """
topic: units
title: {en: Units, zh: 单位}
questions:
  - id: units.slope
    type: numeric
    prompt: {en: "With 4 heads, how many tokens back does the last head look?", zh: "4 个头时，最后一个头往回看多少？"}
    value: 0.00390625
    tolerance: 0.0001
    unit: {en: tokens, zh: 个 token}
    explanation: {en: "$2^{-8}$.", zh: "$2^{-8}$。"}
    checks:
      - {demo: alibi-slopes, params: {n_heads: 4}, path: values.last_slope, expect: 0.00390625}
  - id: units.plain
    type: numeric
    prompt: {en: "Plain unit?", zh: "纯文本单位？"}
    value: 0.00390625
    tolerance: 0.0001
    unit: rad
    explanation: {en: "x", zh: "x"}
    checks:
      - {demo: alibi-slopes, params: {n_heads: 4}, path: values.last_slope, expect: 0.00390625}
  - id: units.none
    type: numeric
    prompt: {en: "No unit?", zh: "没有单位？"}
    value: 0.00390625
    tolerance: 0.0001
    unit: ""
    explanation: {en: "x", zh: "x"}
    checks:
      - {demo: alibi-slopes, params: {n_heads: 4}, path: values.last_slope, expect: 0.00390625}
"""


def test_the_unit_follows_the_language(tmp_path: Path) -> None:
    (tmp_path / "units.yaml").write_text(BANK, encoding="utf-8")
    bankset = load_banks([tmp_path / "units.yaml"], include_shipped=False, include_user=False)
    assert bankset.problems == []
    slope, plain, none = (bankset.questions[f"units.{k}"] for k in ("slope", "plain", "none"))
    assert (slope.unit_in("en"), slope.unit_in("zh")) == ("tokens", "个 token")
    assert (plain.unit_in("en"), plain.unit_in("zh")) == ("rad", "rad")
    assert none.unit is None and none.unit_in("zh") == ""


def test_every_shipped_unit_has_its_chinese() -> None:
    bankset = load_banks(include_user=False)
    units = [q for q in bankset.questions.values() if getattr(q, "unit", None) is not None]
    assert len(units) > 15
    assert all(q.unit.has("en") and q.unit.has("zh") for q in units)
    assert any(q.unit_in("zh") == "个 token" for q in units)


@pilot_test
async def test_the_quiz_shows_the_chinese_unit(env: Path) -> None:
    (env / "user-banks").mkdir(parents=True, exist_ok=True)
    (env / "user-banks" / "units.yaml").write_text(BANK, encoding="utf-8")
    app = make_app(env, open_store=False, language="zh")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        app.try_question("units.slope")
        await settle(pilot)
        text = screen_text(app)
        assert "个 token" in text and "tokens" not in text, text
        await pilot.press("l")
        await settle(pilot)
        assert "tokens" in screen_text(app)
