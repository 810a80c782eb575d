"""Glossary (Browse → g): one Chinese term per concept, with the English term and a one-line
definition, filtered as you type. The data is quizbank/glossary.yaml (see docs/glossary.md)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.content import Content
from textual.widgets import Header, Input, OptionList, Static
from textual.widgets.option_list import Option

from ..i18n import tr
from ..richtext import highlight
from ..widgets.key_footer import KeyFooter
from .base import LocalizedScreen

__all__ = ["GlossaryScreen"]


class GlossaryScreen(LocalizedScreen):
    """Every glossary term; the box at the top filters by either language's term or definition."""

    DEFAULT_CSS = """
    GlossaryScreen #glossary-bar { height: 1; background: $boost; }
    GlossaryScreen #glossary-search { margin: 0 1; }
    GlossaryScreen #glossary-list { height: 1fr; border: none; background: $background; padding: 0 1; }
    GlossaryScreen #glossary-count { height: 1; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.initial_query = query
        self.error: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="glossary-bar", markup=False)
        yield Input(self.initial_query, id="glossary-search")
        yield OptionList(id="glossary-list")
        yield Static("", id="glossary-count", markup=False)
        yield KeyFooter()

    def on_mount(self) -> None:
        super().on_mount()
        field = self.query_one("#glossary-search", Input)
        field.cursor_blink = getattr(self.app, "cursor_blink", True)
        field.focus()
        self.relabel()

    def relabel(self) -> None:
        lang = self.app.language
        self.query_one("#glossary-bar", Static).update(
            Content.styled(f" {tr('glossary.title', lang)} ", "bold")
        )
        self.query_one("#glossary-search", Input).placeholder = tr("glossary.placeholder", lang)
        self._fill(self.query_one("#glossary-search", Input).value)

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

        lang = self.app.language
        other = "en" if lang == "zh" else "zh"
        options = self.query_one("#glossary-list", OptionList)
        options.clear_options()
        count = self.query_one("#glossary-count", Static)
        try:
            terms = search_glossary(query)
        except (OSError, GlossaryError) as exc:  # a damaged installation: say so, keep the app running
            count.update(tr("glossary.failed", lang, error=str(exc)))
            return
        for term in terms:
            prompt = Content.assemble(
                highlight(term.term(lang), query, "bold"),
                "  ",
                highlight(term.term(other), query, "$text-secondary"),
                "\n  ",
                highlight(term.definition(lang), query, "dim"),
            )
            options.add_option(Option(prompt, id=term.id))
        if terms:
            options.highlighted = 0
        count.update(tr("glossary.count", lang, n=len(terms)) if terms else tr("search.none", lang))
