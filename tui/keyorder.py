"""Keys typed while a screen replaces its content: held, then replayed in order (`HeldKeys`)."""

from __future__ import annotations

from typing import Any

from textual import events

__all__ = ["HeldKeys"]


def replayed_key(key: str, character: str | None) -> events.Key:
    """A held key handed on by `HeldKeys` (marked, so it is never held a second time). A plain
    `Key`: a subclass would be dispatched to `on_<subclass>` handlers, which widgets lack."""
    event = events.Key(key, character)
    event._posenc_replayed = True  # type: ignore[attr-defined]
    return event


def _is_replayed(event: events.Key) -> bool:
    return bool(getattr(event, "_posenc_replayed", False))


class HeldKeys:
    """Screen mixin: keys that arrive while the screen replaces its content are held, then
    replayed in order on the new content.

    `hold_keys()` when the replacement starts (a rating is being saved, the next card is being
    mounted, a form rebuilt); `release_keys()` once the new content is mounted and focused.

    Why it takes more than holding: Textual hands each key to the focused widget's queue, and a
    binding runs only when the key has bubbled up to the app, so a burst ("Enter 3 Enter 3") can
    be past the screen before the binding of its first key (the rating) has started the
    replacement. So this screen runs the bindings of the keys that reach it itself, in arrival
    order: the key after a rating finds the screen holding, and is held when it bubbles up.

    The replay runs in the screen's own message loop: a key the focused field takes as text is
    handed to it (and handled before the next key is looked at); a widget with `replay_key(key) -> bool` may act on a key at once (Enter in an
    answer field); any other key runs its binding at once (a Tab has moved focus before the next
    key is handed on); a key that starts another replacement holds the rest again. Priority
    bindings (Ctrl+Q) act at once, held or not.
    """

    _holding = False
    _replaying = False
    _held: list[events.Key] | None = None

    @property
    def holding_keys(self) -> bool:
        return self._holding or self._replaying

    def hold_keys(self) -> None:
        """Hold keys from now on. Focus stays where it is: keys already queued on the focused
        widget and keys still to come then reach the screen in the order they were typed."""
        self._holding = True
        if self._held is None:
            self._held = []

    def release_keys(self) -> None:
        """Stop holding; the held keys are replayed on the focused widget next, in order."""
        self._holding = False
        if self._held and not self._replaying:
            self._replaying = True
            self.call_later(self._replay)  # type: ignore[attr-defined]

    def restore_focus(self) -> None:
        """Focus the current content again (the screen knows what that is); called by the replay
        when nothing has focus."""

    def _hold(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if self._held is None:
            self._held = []
        self._held.append(event)

    async def _replay(self) -> None:
        app = self.app  # type: ignore[attr-defined]
        try:
            while self._held and not self._holding:
                key = self._held.pop(0)
                if self.focused is None:  # type: ignore[attr-defined]
                    self.restore_focus()  # (Textual blurs a widget hidden for a moment while it mounts)
                focused = self.focused  # type: ignore[attr-defined]
                replay = getattr(focused, "replay_key", None)
                if focused is not None and focused.check_consume_key(key.key, key.character):
                    focused._forward_event(replayed_key(key.key, key.character))  # text
                    await _drained(focused)  # typed before the next key is looked at
                elif replay is not None and replay(key.key):
                    pass  # the widget acted on it at once (Enter in an answer field)
                elif not await app._check_bindings(key.key):
                    target = focused or self
                    target._forward_event(replayed_key(key.key, key.character))
                    if target is not self:
                        await _drained(target)
        finally:
            self._replaying = False

    async def on_key(self, event: events.Key) -> None:
        if self._holding or (self._replaying and not _is_replayed(event)):
            self._hold(event)
            return
        focused = self.focused  # type: ignore[attr-defined]
        if (
            focused is not None
            and not _is_replayed(event)
            and focused.check_consume_key(event.key, event.character)
        ):
            # Text for the field that has focus now, delivered to the widget that had focus when
            # it was typed (a Tab just before it moved focus): it goes to the field.
            event.stop()
            event.prevent_default()
            focused._forward_event(replayed_key(event.key, event.character))
            return
        # run the key's binding here, in arrival order (see the class docstring)
        if await self.app._check_bindings(event.key):  # type: ignore[attr-defined]
            event.stop()
            event.prevent_default()


async def _drained(widget: Any, timeout: float = 1.0) -> None:
    """Wait until `widget` has handled what was posted to it so far (at most `timeout` s)."""
    import asyncio

    done = asyncio.Event()
    try:
        widget.call_later(done.set)
        await asyncio.wait_for(done.wait(), timeout)
    except Exception:  # removed meanwhile: it will never run the callback
        pass
