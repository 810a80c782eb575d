"""`KeyFooter`: Textual's `Footer` (the key hints at the bottom of every screen), rebuilt only when
the keys it shows change.

Textual's `Footer` rebuilds all its keys (a dozen widgets, each restyled) on every bindings refresh,
and a screen opening sends several (the stack moves, focus moves, then focus settles): opening
Study rebuilt the footer eight times. `KeyFooter` coalesces the refreshes that arrive before the next
repaint into one check, and rebuilds only when what it would show (the keys, their labels, enabled
state and tooltips) differs from what it shows.

It also shows whole keys only: the keys that do not fit beside the command palette's key are left
out (Textual's footer clipped the last one mid-word, '? Help  / Searc'), and come back when it widens.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

__all__ = ["KeyFooter"]


class KeyFooter(Footer):
    """A `Footer` that rebuilds its keys only when they change (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._shown: tuple[Any, ...] | None = None  # what the last compose showed
        self._check_pending = False

    def _signature(self) -> tuple[Any, ...]:
        """Everything `Footer.compose` reads: the shown bindings as displayed, and the options."""
        keys = tuple(
            (
                binding.key,
                self.app.get_key_display(binding),
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
        return (keys, self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE, self._bindings_ready)

    def _shows_keys(self) -> bool:
        """Whether the last compose showed any key (Footer.compose shows none before bindings are ready)."""
        return self._shown is not None and bool(self._shown[0]) and self._shown[-1]

    def compose(self) -> ComposeResult:
        self._shown = self._signature()
        for widget in super().compose():
            # a FooterKey starts compact and is data-bound to the footer's `compact`: each key would
            # be restyled once it mounts; starting it in the footer's state spares that
            # (set, never read: reading a reactive before mount runs its watcher, the restyle)
            if "compact" in (getattr(widget, "_reactive_connect", None) or {}):
                widget.set_reactive(type(widget).compact, self.compact)
                widget.set_class(self.compact, "-compact", update=False)
            yield widget

    def bindings_changed(self, screen: Screen) -> None:
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

    def on_resize(self) -> None:
        self._fit_keys()

    def _fit_keys(self) -> None:
        """Show the keys, in order, while they fit whole; hide the rest (widths from their content,
        so a hidden key is measured the same as a shown one)."""
        if not self.is_attached or self.size.width <= 0:
            return
        keys = list(self.query_children(FooterKey))
        palette = [key for key in keys if key.has_class("-command-palette")]
        room = self.size.width - sum(self._key_width(key) for key in palette)
        used = 0
        for key in keys:
            if key in palette:
                continue
            used += self._key_width(key)
            fits = used <= room
            if key.display != fits:
                key.display = fits

    def _key_width(self, key: FooterKey) -> int:
        return (
            key.get_content_width(self.size, self.app.size)
            + key.styles.gutter.width
            + key.styles.margin.width
        )
