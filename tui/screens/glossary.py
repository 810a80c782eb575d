"""Glossary (Browse → g): one Chinese term per concept, with the English term and a one-line
definition, filtered as you type. The data is quizbank/glossary.yaml (see docs/glossary.md)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import tr
from ..keys import bind
from ..richtext import highlight
from ..widgets.key_footer import KeyFooter
from ..widgets.title_bar import TitleBar
from .base import LocalizedScreen

__all__ = ["GlossaryScreen"]

DEFINITION_INDENT = 2


class GlossaryScreen(LocalizedScreen):
    """Every glossary term; the box at the top filters by either language's term or definition."""

    HELP_SECTION = HelpSection("key.glossary", 180)

    DEFAULT_CSS = """
    GlossaryScreen #glossary-bar { height: 1; background: $boost; }
    GlossaryScreen #glossary-search { margin: 0 1; }
    GlossaryScreen #glossary-list { height: 1fr; border: none; background: $background; padding: 0 1; }
    GlossaryScreen #glossary-count { height: 1; color: $text-muted; padding: 0 1; }
    """

    # on the screen, so it closes from the filter box too (the app's Esc only left the box)
    BINDINGS = [bind("escape", "close", "glossary.close", "glossary.key_close", show=False)]

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.initial_query = query
        self.error: str | None = None
        self._filled_width = 0  # the list's width when its definitions were last wrapped

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static("", id="glossary-bar", markup=False)
        yield Input(self.initial_query, id="glossary-search")
        yield OptionList(id="glossary-list")
        yield Static("", id="glossary-count", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        field = self.query_one("#glossary-search", Input)
        field.cursor_blink = posenc_app(self).cursor_blink
        field.focus()
        self.relabel()
        self.call_after_refresh(self._refill_if_resized)  # filled before the list had its width

    def relabel(self) -> None:
        lang = posenc_app(self).language
        self.query_one("#glossary-bar", Static).update(
            Content.styled(f" {tr('glossary.title', lang)} ", "bold")
        )
        self.query_one("#glossary-search", Input).placeholder = tr("glossary.placeholder", lang)
        self._fill(self.query_one("#glossary-search", Input).value)

    def on_resize(self) -> None:
        self.call_after_refresh(self._refill_if_resized)

    def _refill_if_resized(self) -> None:
        options = self.query_one("#glossary-list", OptionList)
        if options.content_region.width != self._filled_width:
            highlighted = options.highlighted
            self._fill(self.query_one("#glossary-search", Input).value)
            if highlighted is not None and highlighted < options.option_count:
                options.highlighted = highlighted

    def action_close(self) -> None:
        posenc_app(self).pop_screen()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._fill(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.query_one("#glossary-list", OptionList).focus()

    def shown_ids(self) -> list[str]:
        """Ids of the terms listed now (for tests)."""
        options = self.query_one("#glossary-list", OptionList)
        return [options.get_option_at_index(i).id or "" for i in range(options.option_count)]

    def _fill(self, query: str) -> None:
        from quizbank.glossary import GlossaryError, search_glossary

        lang = posenc_app(self).language
        other = "en" if lang == "zh" else "zh"
        options = self.query_one("#glossary-list", OptionList)
        options.clear_options()
        count = self.query_one("#glossary-count", Static)
        try:
            terms = search_glossary(query)
        except (OSError, GlossaryError) as exc:  # a damaged installation: say so, keep the app running
            count.update(tr("glossary.failed", lang, error=str(exc)))
            return
        # definitions wrap under themselves (indented), not back to the option's left edge; the width
        # leaves room for the scrollbar the filled list will show, and for the options' own padding
        self._filled_width = options.content_region.width
        width = self._filled_width - options.styles.scrollbar_size_vertical - DEFINITION_INDENT - 2
        for term in terms:
            definition = highlight(term.definition(lang), query, "dim")
            lines = definition.wrap(width) if width > 10 else [definition]
            indent = Content(" " * DEFINITION_INDENT)
            prompt = Content.assemble(
                highlight(term.term(lang), query, "bold"),
                "  ",
                highlight(term.term(other), query, "$text-secondary"),
                *[part for line in lines for part in (Content("\n"), indent, line.rstrip())],
            )
            options.add_option(Option(prompt, id=term.id))
        if terms:
            options.highlighted = 0
        count.update(
            tr("glossary.count_one" if len(terms) == 1 else "glossary.count", lang, n=len(terms))
            if terms
            else tr("search.none", lang)
        )
