"""Help (`?`): every key, generated from the live bindings of each screen, with the user's remaps.

Nothing here is written by hand: each screen or widget names its own section (`HELP_SECTION`), and each
section lists the bindings that class declares (its own and those of its `tui` mixins), so Help cannot drift
from what a key does.
Bindings that differ only by the key (choose 1 … choose 9) share one row ("1–9").
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import replace
from typing import Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..appref import posenc_app
from ..help_section import HelpSection
from ..i18n import tr
from ..keys import DESCRIPTION_KEYS

__all__ = ["HelpScreen", "help_groups", "help_sections", "section_bindings", "section_of"]

# Where the footer's short label is not enough on its own (the footer shows the language to
# switch to; the help says what the key does).
HELP_DESCRIPTIONS = {"posenc.language": "help.language"}
MAX_DESCRIPTION = 40  # cells; a longer description pushes its binding id to the right

SCANNED_PACKAGES = ("tui.screens", "tui.widgets")  # where Help looks for classes that name a section


@functools.cache
def help_sections() -> tuple[tuple[str, type[Any] | None], ...]:
    """(section title key, class) in the order Help shows them; None: the app itself ("Everywhere"). Each
    screen or widget names its own section (`HELP_SECTION`, tui/help_section.py); this finds them all."""
    found: list[tuple[int, str, type[Any]]] = []
    for package_name in SCANNED_PACKAGES:
        package = importlib.import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, f"{package_name}."):
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if isinstance(value, type) and value.__module__ == module.__name__:
                    section = value.__dict__.get("HELP_SECTION")
                    if isinstance(section, HelpSection):
                        found.append((section.order, section.title, value))
    found.sort(key=lambda entry: (entry[0], entry[1]))
    return (("help.global", None), *((title, cls) for _order, title, cls in found))


def section_bindings(cls: Any) -> list[Binding]:
    """The bindings `cls` declares, its own first, then those of its `tui` base classes (a
    binding id shown once; Textual's own base-class bindings left out)."""
    seen: set[str] = set()
    out: list[Binding] = []
    for klass in cls.__mro__:
        if not klass.__module__.startswith("tui."):
            continue
        for b in klass.__dict__.get("BINDINGS", []):
            if not isinstance(b, Binding) or b.system:
                continue
            key = b.id or f"{b.key}:{b.action}"
            if key not in seen:
                seen.add(key)
                out.append(b)
    return out


def _collapse(rows: list[tuple[list[str], str, str, str]]) -> list[tuple[str, str, str]]:
    """Join rows that differ only by a digit key ("1", "2", … -> "1–9")."""
    out: list[tuple[str, str, str]] = []
    index = 0
    while index < len(rows):
        keys, description, binding_id, action = rows[index]
        end = index + 1
        if len(keys) == 1 and keys[0].isdigit():
            family = action.split("(")[0]
            while (
                end < len(rows)
                and rows[end][1] == description
                and rows[end][3].split("(")[0] == family
                and len(rows[end][0]) == 1
                and rows[end][0][0].isdigit()
            ):
                end += 1
        if end - index > 1:
            first, last = keys[0], rows[end - 1][0][0]
            out.append(
                (f"{first}–{last}", description, f"{binding_id}…{rows[end - 1][2].rsplit('.', 1)[-1]}")
            )
        else:
            out.append((", ".join(keys), description, binding_id))
        index = end
    return out


def section_of(screen: Any) -> int:
    """The index in `help_sections()` of the section about `screen` (0, Everywhere, for one without)."""
    for index, (_title, cls) in enumerate(help_sections()):
        if cls is not None and isinstance(screen, cls):
            return index
    return 0


def help_groups(app: Any) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """[(section title, [(keys, description, binding id)])] in the current language, one section
    per screen; the keys are the ones bound now (the user's keymap applied)."""
    lang = app.language
    keymap: dict[str, str] = dict(getattr(app, "_keymap", {}) or {})

    def rows(bindings: list[Binding]) -> list[tuple[str, str, str]]:
        out: list[tuple[list[str], str, str, str]] = []
        for b in bindings:
            keys = keymap.get(b.id, b.key) if b.id else b.key
            shown = [
                app.get_key_display(replace(b, key=k.strip(), key_display=None)) for k in keys.split(",")
            ]
            description_key = HELP_DESCRIPTIONS.get(b.id or "") or DESCRIPTION_KEYS.get(b.id or "")
            description = tr(description_key, lang) if description_key else b.description
            out.append((shown, description, b.id or "", b.action))
        return _collapse(out)

    groups: list[tuple[str, list[tuple[str, str, str]]]] = []
    for title, section_cls in help_sections():
        cls = type(app) if section_cls is None else section_cls
        found = rows(section_bindings(cls)) or [("", tr("help.no_keys", lang), "")]
        groups.append((tr(title, lang), found))
    return groups


class HelpScreen(ModalScreen[None]):
    """Every key, grouped. Esc, q or ? closes."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen #help-box {
        width: 90%;
        max-width: 100;
        height: 90%;
        border: round $accent;
        background: $surface;
        padding: 0 2;
    }
    """
    BINDINGS = [
        Binding("escape,q,question_mark", "close", "Close", show=False),
    ]

    def __init__(self, opener: Any = None) -> None:
        """`opener`: the screen Help was opened from; Help starts at its section."""
        super().__init__()
        self.start_section = 0 if opener is None else section_of(opener)
        self.section_line = 0  # the line of the start section's title, once rendered
        self._placed_at: float | None = None  # the scroll Help put it at (None: not yet, or the user moved)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Static("", id="help-text", markup=False)

    def on_mount(self) -> None:
        box = self.query_one("#help-box", VerticalScroll)
        box.border_title = tr("help.title", posenc_app(self).language)
        box.border_subtitle = tr("help.close", posenc_app(self).language)
        self.watch(self.app, "language", self._render_help)
        box.focus()

    def on_resize(self) -> None:
        self.call_after_refresh(self._render_help)  # the rows are laid out for the box's width

    def _text_width(self) -> int:
        """Cells a help line may take without wrapping: the text's width once laid out, else an
        estimate from the box's CSS (90% of the screen, at most 100, less border, padding and
        scrollbar)."""
        width = self.query_one("#help-text", Static).content_region.width
        return width if width > 0 else min(100, posenc_app(self).size.width * 9 // 10) - 8

    def _render_help(self) -> None:
        lang = posenc_app(self).language
        box = self.query_one("#help-box", VerticalScroll)
        box.border_title = tr("help.title", lang)
        box.border_subtitle = tr("help.close", lang)
        lines: list[Content] = []
        groups = help_groups(self.app)
        entries = [entry for _t, rows in groups for entry in rows]
        # one set of columns for every group: keys, description (CJK counts double), binding id
        key_width = max(cell_len(keys) for keys, _d, _i in entries)
        id_width = max(cell_len(binding_id) for _k, _d, binding_id in entries)
        indent = 2 + key_width + 2
        room = self._text_width()
        text_width = min(MAX_DESCRIPTION, max(cell_len(text) for _k, text, _i in entries))
        # a narrow box shrinks the description column; a longer description puts its id on the next line
        text_width = max(12, min(text_width, room - indent - 2 - id_width))
        id_column = min(indent + text_width + 2, max(indent, room - id_width))
        for number, (title, rows) in enumerate(groups):
            if lines:
                lines.append(Content(""))
            if number == self.start_section:
                self.section_line = len(lines)
            lines.append(Content.styled(title, "bold $text-accent"))
            for keys, description, binding_id in rows:
                head = Content.styled(
                    "  " + keys + " " * (key_width - cell_len(keys) + 2), "bold $text-warning"
                )
                used = indent + cell_len(description)
                if binding_id and used + 2 <= id_column:
                    lines.append(
                        Content.assemble(head, description, " " * (id_column - used), (binding_id, "dim"))
                    )
                    continue
                # the description on lines of its own (wrapped under itself), then the id in its column
                for n, part in enumerate(Content(description).wrap(max(12, room - indent))):
                    lines.append(Content.assemble(head if n == 0 else " " * indent, part.rstrip()))
                if binding_id:
                    lines.append(Content.assemble(" " * id_column, (binding_id, "dim")))
        lines += [Content("")]
        lines += [part.rstrip().stylize("dim italic") for part in Content(tr("help.remap", lang)).wrap(room)]
        self.query_one("#help-text", Static).update(Content("\n").join(lines))
        if self.start_section and self._placed_at in (None, box.scroll_y):  # not moved by the user since
            self.call_after_refresh(self._place)

    def _place(self) -> None:
        """Scroll to the opener's section (its title at the top)."""
        box = self.query_one("#help-box", VerticalScroll)
        box.scroll_to(y=self.section_line, animate=False, immediate=True)
        self._placed_at = box.scroll_y

    def action_close(self) -> None:
        self.dismiss(None)
