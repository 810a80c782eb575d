"""Libraries whose private API the app hooks: each is pinned in pyproject.toml to the versions the
hook was written for, the hook still finds what it replaces, and Rich is patched when the app starts,
not when `tui.app` is imported."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib import metadata

import pytest
from support.paths import ROOT
from support.pilot import pilot_test

# library -> the module that hooks its private API
HOOKED = {
    "rich": "tui/cjkwrap.py",
    "flatlatex": "tui/mathtext.py",
    "textual-serve": "tui/serve.py",
    "textual": "tui/widgets/text_area.py",
}


def _requirement(name: str) -> str:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    found = [d for d in deps if re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0].lower() == name]
    assert len(found) == 1, f"{name} is not (or twice) in pyproject.toml's dependencies"
    return found[0]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


@pytest.mark.parametrize("name", sorted(HOOKED))
def test_a_hooked_library_is_pinned_and_the_installed_one_is_inside_the_pin(name: str) -> None:
    spec = _requirement(name)
    lower = re.search(r">=\s*([\d.]+)", spec)
    upper = re.search(r"<\s*([\d.]+)", spec)
    exact = re.search(r"==\s*([\d.]+)", spec)
    assert exact or (lower and upper), f"{spec!r}: {HOOKED[name]} hooks private API, so pin it to a range"
    assert (ROOT / HOOKED[name]).exists()
    installed = _version(metadata.version(name))
    if exact:
        assert installed == _version(exact.group(1))
    else:
        assert _version(lower.group(1)) <= installed < _version(upper.group(1))


def test_the_rich_word_hook_exists_and_wraps_chinese_between_characters() -> None:
    from rich import _wrap

    from tui import cjkwrap

    # the module-level pattern Rich's words() reads on every call: Rich's own, or ours once installed
    assert getattr(_wrap, "re_word", None) is cjkwrap.CJK_WORD_RE or _wrap.re_word.pattern == r"\s*\S+\s*"
    saved = _wrap.re_word
    try:
        assert cjkwrap.install() and _wrap.re_word is cjkwrap.CJK_WORD_RE
        assert [w for _, _, w in _wrap.words("位置编码，很好 ok")] == [
            "位",
            "置",
            "编",
            "码，",
            "很",
            "好 ",
            "ok",
        ]
        assert _wrap.divide_line("位置编码位置编码", 4) == [2, 4, 6]  # two 2-cell characters a line
    finally:
        _wrap.re_word = saved


def test_the_flatlatex_private_methods_it_overrides_exist() -> None:
    import flatlatex

    from tui.mathtext import convert_math

    for name in (
        "_converter__indexed",
        "_converter__exponent",
        "_converter__latexfun_frac",
        "_converter__latexfun_sqrt",
    ):
        assert callable(getattr(flatlatex.converter, name, None)), name
    assert convert_math(r"$\theta_m$") == "θₘ"  # a subscript flatlatex has no table entry for


def test_rich_is_patched_when_the_app_starts_not_at_import() -> None:
    code = (
        "from rich import _wrap\n"
        "import tui.app\n"
        "from tui.cjkwrap import CJK_WORD_RE\n"
        "print(_wrap.re_word is CJK_WORD_RE)\n"
        "tui.app.PosencApp(open_store=False, warm_torch=False)\n"
        "print(_wrap.re_word is CJK_WORD_RE)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.split() == ["False", "True"]


@pilot_test
async def test_a_removed_text_area_has_no_component_styles_and_the_safe_one_renders_blank() -> None:
    """Textual clears `_component_styles` when a widget is removed, and a plain TextArea then raises on
    render (the Study crash, `text-area--gutter`); SafeTextArea renders blank lines instead. If Textual
    fixes this upstream, the first assertion fails: drop the workaround then."""
    from textual.app import App, ComposeResult
    from textual.geometry import Region
    from textual.widgets import TextArea

    from tui.widgets.text_area import SafeTextArea

    class Two(App[None]):
        def compose(self) -> ComposeResult:
            yield TextArea("plain", id="plain")
            yield SafeTextArea("safe", id="safe")

    app = Two()
    async with app.run_test() as pilot:
        plain, safe = app.query_one("#plain", TextArea), app.query_one("#safe", SafeTextArea)
        plain.read_only = safe.read_only = True  # as an open answer on reveal
        await pilot.pause()
        assert plain._component_styles and safe._component_styles
        await plain.remove()
        await safe.remove()
        assert plain._component_styles == {} and safe._component_styles == {}
        with pytest.raises(KeyError, match="text-area--gutter"):
            plain.render_lines(Region(0, 0, 12, 2))
        lines = safe.render_lines(Region(0, 0, 12, 2))
        assert len(lines) == 2 and all(line.cell_length == 12 and line.text == " " * 12 for line in lines)
