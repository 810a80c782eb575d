"""The Glossary screen: `g` in Browse opens it filtered as you type, in both languages; Search lists glossary
terms and opens the glossary on one."""

from __future__ import annotations

from quizbank.glossary import load_glossary


def test_browse_g_opens_the_glossary_filtered_as_you_type_in_both_languages(tmp_path, monkeypatch):
    import asyncio

    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.setenv("POSENC_LANG", "en")
    asyncio.run(_browse_glossary(tmp_path))


def test_search_lists_glossary_terms_and_opens_the_glossary_on_one(tmp_path, monkeypatch):
    import asyncio

    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.setenv("POSENC_LANG", "en")
    asyncio.run(_search_glossary(tmp_path))


async def _browse_glossary(tmp_path):
    from support.apps import make_app, screen_text

    from tui.screens.glossary import GlossaryScreen

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await _settle(pilot)
        app.open_topic("fixture-rope")
        await _settle(pilot)
        await pilot.press("g")
        await _settle(pilot)
        screen = app.screen
        assert isinstance(screen, GlossaryScreen)
        assert len(screen.shown_ids()) == len(load_glossary())
        await pilot.press(*"kv cache")
        await _settle(pilot)
        assert screen.shown_ids()[0] == "kv-cache"
        # one term found: "1 term", not "1 terms"
        from textual.widgets import Input, Static

        from quizbank.glossary import search_glossary

        single = next(t.en for t in load_glossary() if len(search_glossary(t.en)) == 1)
        screen.query_one("#glossary-search", Input).value = single
        await _settle(pilot)
        assert len(screen.shown_ids()) == 1
        assert str(screen.query_one("#glossary-count", Static).content) == "1 term"
        screen.query_one("#glossary-search", Input).value = "kv cache"
        await _settle(pilot)
        text = screen_text(app)
        assert "KV cache  KV 缓存" in text and "Glossary" in text
        app.language = "zh"
        await _settle(pilot)
        text = screen_text(app)
        assert "KV 缓存  KV cache" in text and "术语表" in text
        await pilot.press("escape")  # closes the Glossary, even from its filter box (it only left the box)
        await _settle(pilot)
        from tui.screens.browse import BrowseScreen

        assert isinstance(app.screen, BrowseScreen)


async def _search_glossary(tmp_path):
    from support.apps import make_app

    from tui.screens.glossary import GlossaryScreen
    from tui.screens.search import rank

    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await _settle(pilot)
        hits = [(h.kind, h.key) for h in rank(app, "维度对")]
        assert ("term", "dimension-pair") in hits
        by_definition = next(h for h in rank(app, "StreamingLLM") if h.kind == "term")
        assert by_definition.key == "attention-sink" and "StreamingLLM" in by_definition.excerpt
        await pilot.press("slash")
        await _settle(pilot)
        await pilot.press(*"lost in the middle")
        await _settle(pilot)
        await pilot.press("enter")
        await _settle(pilot)
        assert isinstance(app.screen, GlossaryScreen)
        assert app.screen.shown_ids()[0] == "lost-in-the-middle"


async def _settle(pilot) -> None:
    from support.pilot import settle  # a superseded exclusive worker (Home's progress counts) is no failure

    await settle(pilot)


def test_definitions_wrap_under_themselves_at_80_columns(tmp_path, monkeypatch):
    import asyncio

    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    for lang in ("en", "zh"):
        monkeypatch.setenv("POSENC_LANG", lang)
        asyncio.run(_wrapped_definitions(tmp_path, lang))


async def _wrapped_definitions(tmp_path, lang):
    from rich.cells import cell_len
    from support.apps import make_app
    from textual.widgets import OptionList

    from tui.screens.glossary import GlossaryScreen

    app = make_app(tmp_path, language=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        await _settle(pilot)
        await app.push_screen(GlossaryScreen())
        await _settle(pilot)
        options = app.screen.query_one("#glossary-list", OptionList)
        wrapped = []
        for size in ((80, 24), (120, 30)):  # as opened; then wrapped again for a wider list
            if size != app.size:
                await pilot.resize_terminal(*size)
                await _settle(pilot)
            width = options.scrollable_content_region.width - 2  # the options' own padding
            prompts = [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]
            assert len(prompts) == len(load_glossary())
            wrapped.append(sum(p.count("\n") for p in prompts))
            for prompt in prompts:
                for line in prompt.split("\n")[1:]:
                    assert line.startswith("  ") and cell_len(line) <= width, (line, width)
        assert wrapped[0] > wrapped[1] >= len(load_glossary()), wrapped
