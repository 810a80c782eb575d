"""`KeyFooter`: Textual's `Footer` (the key hints at the bottom of every screen), rebuilt only when
the keys it shows change.

Textual's `Footer` rebuilds all its keys (a dozen widgets, each restyled) on every bindings refresh,
and a screen opening sends several (the stack moves, focus moves, then focus settles): opening
Study rebuilt the footer eight times. `KeyFooter` coalesces the refreshes that arrive before the next
repaint into one check, and rebuilds only when what it would show (the keys, their labels, enabled
state and tooltips) differs from what it shows.

A footer made `held` shows no keys until `show_keys()`: Home builds them with its body, right after its
light first paint, so that both are laid out once (not the keys alone first, then the body).

It also shows whole keys only. On a narrow footer (80 columns) the keys every screen has (SPARE_ACTIONS,
all in Help, in that order) make room first, so the screen's own keys and `? Help` stay in view; any key that still
does not fit beside the command palette's key is hidden whole (Textual's footer clipped the last one
mid-word, '? Help  / Searc') and comes back when the footer widens.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

from ..appref import posenc_app
from ..i18n import tr
from ..keys import LIBRARY_DESCRIPTIONS

__all__ = ["KeyFooter", "SPARE_ACTIONS"]

# Keys every screen has (Help lists them all): on a footer too narrow for all its keys (80 columns), these
# make room, first to last, so the screen's own keys and `? Help` stay in view rather than run off the edge.
# Quit and Reload go last: how to leave is what a newcomer looks for, and Reload follows a bank edit.
SPARE_ACTIONS = ("search", "toggle_language", "back", "reload", "quit")


def _key_width(key: FooterKey) -> int:
    """Cells a non-compact FooterKey takes: ` key ` then `description `."""
    return cell_len(key.key_display) + 2 + (cell_len(key.description) + 1 if key.description else 0)


def _spare_rank(key: FooterKey) -> int | None:
    action = key.action.removeprefix("app.")
    return SPARE_ACTIONS.index(action) if action in SPARE_ACTIONS else None


class KeyFooter(Footer):
    """A `Footer` that rebuilds its keys only when they change (see the module docstring)."""

    def __init__(self, *args: Any, held: bool = False, **kwargs: Any) -> None:
        """`held`: show no keys until `show_keys()` (Home builds them with its body, in one frame)."""
        super().__init__(*args, **kwargs)
        self._shown: tuple[Any, ...] | None = None  # what the last compose showed
        self._check_pending = False
        self._held = held

    async def show_keys(self) -> None:
        """Build the keys of a held footer now; returns once they are mounted. They are built in the
        footer's own context (each key binds to the footer's reactives)."""
        if not self._held:
            return
        self._held = False
        built = asyncio.Event()

        async def build() -> None:
            try:
                self._bindings_ready = True
                await self._recompose_if_changed()
            finally:
                built.set()

        if self.call_later(build):
            await built.wait()

    def _signature(self) -> tuple[Any, ...]:
        """Everything `Footer.compose` reads: the shown bindings as displayed, and the options."""
        keys = tuple(
            (
                binding.key,
                posenc_app(self).get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
                binding.tooltip,
                id(binding.group) if binding.group is not None else None,
                (binding.group.description, binding.group.compact) if binding.group is not None else None,
                binding.show,
            )
            for _node, binding, enabled, tooltip in self.screen.active_bindings.values()
            if binding.show or binding.action == "command_palette"
        )
        return (
            keys,
            self.show_command_palette,
            posenc_app(self).ENABLE_COMMAND_PALETTE,
            self._bindings_ready,
            self._width(),
        )

    def _width(self) -> int:
        return self.size.width or posenc_app(self).size.width

    def _fitted(self, widgets: list[Widget]) -> list[Widget]:
        """`widgets` less the SPARE_ACTIONS keys (in that order) while the keys are wider than the footer."""
        keys = [w for w in widgets if isinstance(w, FooterKey) and not w.has_class("-command-palette")]
        palette = [w for w in widgets if isinstance(w, FooterKey) and w.has_class("-command-palette")]
        room = self._width() - sum(_key_width(w) + 2 for w in palette)
        used = sum(_key_width(w) for w in keys)
        spare = sorted((w for w in keys if _spare_rank(w) is not None), key=lambda w: _spare_rank(w) or 0)
        dropped: set[int] = set()
        for key in spare:
            if used <= room:
                break
            dropped.add(id(key))
            used -= _key_width(key)
        return [w for w in widgets if id(w) not in dropped]

    def _shows_keys(self) -> bool:
        """Whether the last compose showed any key (Footer.compose shows none before bindings are ready)."""
        return self._shown is not None and bool(self._shown[0]) and bool(self._shown[3])

    def compose(self) -> ComposeResult:
        self._shown = self._signature()
        lang = getattr(self.app, "language", "en")  # (a plain Textual app in the library-hook tests)
        for widget in self._fitted(list(super().compose())):
            if isinstance(widget, FooterKey) and widget.description in LIBRARY_DESCRIPTIONS:
                widget.description = tr(LIBRARY_DESCRIPTIONS[widget.description], lang)
            # a FooterKey starts compact and is data-bound to the footer's `compact`: each key would
            # be restyled once it mounts; starting it in the footer's state spares that
            # (set, never read: reading a reactive before mount runs its watcher, the restyle)
            if "compact" in (getattr(widget, "_reactive_connect", None) or {}):
                widget.set_reactive(type(widget).compact, self.compact)  # type: ignore[attr-defined]  # a FooterKey
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
        if self._held:
            return  # `show_keys` builds them
        self._bindings_ready = True
        if not screen.app.app_focus and self._shows_keys():
            # blurred (focus moved to None): keep the keys shown, as Textual's Footer does; but a footer
            # that shows nothing yet (a served tab starts blurred) builds now, not at the first key
            return
        if self.is_attached and screen is self.screen and not self._check_pending:
            self._check_pending = True
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._check_pending = False
        if not self.is_attached:
            return
        if self._signature() != self._shown:
            await self.recompose()
            self._fit_keys()

    def on_mount(self) -> None:
        self.call_after_refresh(self._fit_keys)

    def on_resize(self, event: events.Resize) -> None:
        self._fit_keys()
        if self.is_attached and not self._check_pending:
            self._check_pending = True
            self.call_after_refresh(self._recompose_if_changed)

    def _fit_keys(self) -> None:
        """Show the keys, in order, while they fit whole; hide the rest (widths from their content,
        so a hidden key is measured the same as a shown one)."""
        if not self.is_attached or self.size.width <= 0:
            return
        keys = list(self.query_children(FooterKey))
        palette = [key for key in keys if key.has_class("-command-palette")]
        room = self.size.width - sum(self._laid_out_width(key) for key in palette)
        used = 0
        for key in keys:
            if key in palette:
                continue
            used += self._laid_out_width(key)
            fits = used <= room
            if key.display != fits:
                key.display = fits

    def _laid_out_width(self, key: FooterKey) -> int:
        return (
            key.get_content_width(self.size, posenc_app(self).size)
            + key.styles.gutter.width
            + key.styles.margin.width
        )
