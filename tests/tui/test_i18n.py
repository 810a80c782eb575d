"""The UI's two languages (tui/i18n.py): every string in both, the wording of counts and messages, demo
titles that fall back to English, and the language toggle, remembered by the store."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from support.apps import correct_position, make_app, screen_text, start_quiz
from support.banks import shipped_strings
from support.pilot import pilot_test, settle

from posenc_ref.demos import get_demo, run_demo
from posenc_ref.demos.base import DemoContext
from tui.i18n import STRINGS, count, demo_claim, demo_title, tr

SIZE = (100, 30)


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
    assert not any("short- context" in t for t in shipped_strings())
    ctx = DemoContext("cpu")
    assert ctx.check("signed slack", -4.3e-7, 0.0).max_abs_error == pytest.approx(4.3e-7)
    assert not ctx.checks[0].passed  # a negative error is not "within tolerance 0"
    precision = run_demo("rope-precision", device="cpu")
    assert all(c.max_abs_error >= 0 for c in precision.checks) and precision.passed


def test_every_ui_string_has_both_languages() -> None:
    missing = [key for key, (en, zh) in STRINGS.items() if not en or not zh]
    assert missing == []
    assert tr("quiz.progress", "zh", n=1, total=3) == "第 1/3 题"
    assert tr("no.such.key", "en") == "no.such.key"


def _literal_string_keys() -> list[tuple[str, str]]:
    """(where, key) for every `tr("literal", ...)` and `bind(keys, action, name, "literal")` in tui/."""
    import ast

    root = Path(__file__).resolve().parents[2] / "tui"
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            index = {"tr": 0, "bind": 3}.get(node.func.id)
            if index is None or len(node.args) <= index:
                continue
            arg = node.args[index]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.append((f"{path.relative_to(root.parent)}:{node.lineno}", arg.value))
    return found


def test_every_string_key_the_code_names_is_in_the_table() -> None:
    """`tr` shows a missing key as the key itself: a typo would reach the screen, so catch it here. The
    table is whole without importing any screen: no module adds strings of its own."""
    keys = _literal_string_keys()
    assert len(keys) > 300  # the scan sees the code
    assert [(where, key) for where, key in keys if key not in STRINGS] == []
    root = Path(__file__).resolve().parents[2] / "tui"
    writers = [
        str(path.relative_to(root.parent))
        for path in sorted(root.rglob("*.py"))
        if path.parent.name != "strings" and "STRINGS.update" in path.read_text(encoding="utf-8")
    ]
    assert writers == []


def test_a_key_belongs_to_one_area_of_the_strings() -> None:
    """The table is assembled from one module per area (`tui/strings/`); a key defined in two is an error at
    import, naming the key and both areas."""
    from tui.strings import AREAS, assemble

    assert len(AREAS) == 12 and sum(len(strings) for strings in AREAS.values()) == len(STRINGS)
    assert STRINGS["study.title"] == AREAS["study"]["study.title"]
    with pytest.raises(
        ValueError, match=r"^UI string keys defined in two areas: quiz\.title \(quiz, study\)$"
    ):
        assemble({"quiz": {"quiz.title": ("Quiz", "测验")}, "study": {"quiz.title": ("Study", "学习")}})
    assert list(assemble({"a": {"x": ("x", "一")}, "b": {"y": ("y", "二")}})) == ["x", "y"]


def test_demo_title_and_claim_follow_the_language_and_fall_back_to_english() -> None:
    from posenc_ref.demos.base import DemoResult

    spec = get_demo("rope-norm")
    assert demo_title(spec, "en") == "RoPE preserves vector norms"
    assert demo_title(spec, "zh") == "RoPE 保持向量范数不变"
    assert demo_claim(spec, "zh") == spec.claim_zh and demo_claim(spec, "en") == spec.claim
    untranslated = DemoResult(
        name="x", title="Only English", claim="A claim.", device="cpu", dtype="float32", elapsed_ms=1.0
    )
    assert (untranslated.title_zh, untranslated.claim_zh) == ("", "")
    assert demo_title(untranslated, "zh") == "Only English" and demo_claim(untranslated, "zh") == "A claim."
    older = SimpleNamespace(title="Pickled before title_zh existed", claim="c")  # no *_zh attributes at all
    assert demo_title(older, "zh") == "Pickled before title_zh existed" and demo_claim(older, "zh") == "c"


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
async def test_a_fresh_store_keeps_the_locale_language(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POSENC_LANG", "zh")
    app = make_app(env, language=None)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.store is not None
        assert app.language == "zh"
        assert "全部主题" in screen_text(app)


@pilot_test
async def test_buttons_fit_their_new_label_after_the_language_toggle(env: Path) -> None:
    """A button sized for 开始测验 (8 cells) showed "Start" of "Start quiz" after `l`: its width stayed."""
    app = make_app(env, language="zh")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("z")
        await settle(pilot)
        assert "开始测验" in screen_text(app)
        await pilot.press("l")
        await settle(pilot)
        start = app.screen.query_one("#setup-start")
        assert start.content_size.width >= len("Start quiz"), start.content_size
        assert "Start quiz" in screen_text(app)


def test_every_full_screen_relabels_through_localized_screen() -> None:
    """A language switch reaches every full screen one way (`LocalizedScreen.relabel`); modals are rebuilt."""
    import importlib
    import pkgutil

    from textual.screen import ModalScreen, Screen

    import tui.screens
    from tui.screens.base import LocalizedScreen

    full = set()
    for info in pkgutil.walk_packages(tui.screens.__path__, "tui.screens."):  # tui/screens/mock/ too
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Screen)
                and not issubclass(value, ModalScreen)
                and value.__module__ == module.__name__
            ):
                full.add(value)
    assert {"HomeScreen", "StatsScreen", "StudyScreen", "QuizScreen"} <= {s.__name__ for s in full}
    assert sorted(s.__name__ for s in full if not issubclass(s, LocalizedScreen)) == []
