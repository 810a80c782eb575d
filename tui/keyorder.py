"""Key order: every key is handled in the order it was typed, one at a time, and keys typed while a
screen replaces its content wait for the new content.

Why Textual alone is not enough: the app hands each key to the focused widget's message queue, and
the key then bubbles up queue by queue (widget, containers, screen, app) to the bindings. Two keys
typed quickly are in flight at once, so:

* a key can reach a text field before the key typed just before it has run its binding (Enter
  reveals, `1` rates and starts loading the next card, but the next `Enter` is already in the old
  card's queue, or a field of the new card types a rating key as text);
* a key queued on a widget that is removed meanwhile (the old card) is never handled;
* a field that has focus types a key directly, ahead of keys that a screen was still holding.

`KeyQueue` (one per app) removes the race by construction. `PosencApp.on_event` hands it every key
the terminal sends. It dispatches one key at a time, as Textual would (priority bindings, then the
focused widget, from which the key bubbles up to the bindings), and dispatches the next key only
once the previous one has been handled everywhere it bubbled: a callback is sent after it to each
node on its way up (focused widget, ancestors, screen, app), one after the other, and the next key
goes when the app has run its callback. While the current screen is not mounted yet (a key just
opened it: its `on_mount` sets the focus) or holds keys (`HeldKeys`: a rating is being saved, a
card or form is being mounted) keys wait in the queue; they go, in order, to whatever has focus
once it is mounted or `release_keys()` is called. The app holds keys the same way (`app.holds_keys`)
while an action typed before the question banks were in waits for them (`m` as Home lists the topics from
the bank preview: Mock setup opens once the full bank is in, and the Enter typed after `m` goes to it, not
to the topic tree). Only the app's own priority keys (Ctrl+Q,
the command palette) act at once, whatever is queued. A paste (bracketed paste: one `Paste` event
for the whole text) takes its place in the same line, so pasted text lands where the keys typed
before it left the focus, never ahead of them.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING, Any

from textual import events

__all__ = ["HeldKeys", "KeyQueue", "key_queue"]


class KeyQueue:
    """The app's keys, handled one at a time in arrival order (see the module docstring)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self._keys: deque[events.Key | events.Paste] = deque()
        self._in_flight: events.Key | events.Paste | None = None
        self._pumping = False
        self._mount_wait: asyncio.Task[None] | None = None
        self.trace: list[tuple[str, str]] | None = None  # (what, key) when a test records the order

    @property
    def pending(self) -> bool:
        """True while a key is queued or being handled."""
        return bool(self._keys) or self._in_flight is not None

    @property
    def settled(self) -> bool:
        """True when no key is being handled and none is queued that could go now (keys held for a
        screen that is replacing its content or not mounted yet, or by the app, wait for it)."""
        return self._in_flight is None and (not self._keys or self._held())

    @property
    def in_flight(self) -> str | None:
        """The key being handled now, if any."""
        return _name(self._in_flight) if self._in_flight is not None else None

    def queued(self) -> list[str]:
        """The keys waiting, oldest first (a paste as `paste`)."""
        return [_name(event) for event in self._keys]

    def _note(self, what: str, event: events.Key | events.Paste) -> None:
        if self.trace is not None:
            self.trace.append((what, _name(event)))

    async def arrived(self, event: events.Key | events.Paste) -> None:
        """A key or a paste from the terminal (called in the app's message loop, in arrival order)."""
        self._note("arrived", event)
        if self.pending or self._held():
            if isinstance(event, events.Paste) or not self._app_priority(event.key):
                self._note("queued", event)
                self._keys.append(event)
                return
            self._note("priority", event)  # Ctrl+Q quits even while keys wait
            await self.app._check_bindings(event.key, priority=True)
            return
        await self._dispatch(event)

    def resume(self) -> None:
        """Send the queued keys, if neither the app nor the current screen holds them any more."""
        if self._keys:
            self.app.call_later(self._pump)

    def _held(self) -> bool:
        """True while keys must wait: the app or the current screen holds them, or the screen is not mounted."""
        if getattr(self.app, "holds_keys", False):
            return True  # the app resumes the queue when it lets go (`resume`)
        try:
            screen = self.app.screen
        except Exception:  # noqa: BLE001 - no screen yet (start-up) or any more (shutdown)
            return False
        if not screen.is_mounted:
            self._wake_when_mounted(screen)
            return True
        return bool(getattr(screen, "holds_keys", False))

    def _wake_when_mounted(self, screen: Any) -> None:
        if self._mount_wait is None or self._mount_wait.done():
            self._mount_wait = asyncio.get_running_loop().create_task(
                self._until_mounted(screen), name="key-queue-mount-wait"
            )

    async def _until_mounted(self, screen: Any) -> None:
        """Send the keys on once `screen` is mounted, or is no longer the current screen (one can
        be dropped before it mounts: looked at again every half second)."""
        while self.app.is_running and not screen.is_mounted:
            try:
                if self.app.screen is not screen:
                    break
            except Exception:  # noqa: BLE001 - no screen to wait for (the app is closing)
                return
            try:
                await asyncio.wait_for(screen._mounted_event.wait(), 0.5)
            except TimeoutError:
                pass
        if self.app.is_running:
            self.app.call_later(self._pump)

    def _app_priority(self, key: str) -> bool:
        """True if one of the app's own priority bindings (keymap applied) takes `key`."""
        try:
            chain = self.app.screen._binding_chain
        except Exception:  # noqa: BLE001 - no screen: no priority binding
            return False
        for namespace, bindings in chain:
            if namespace is self.app:
                return any(binding.priority for binding in bindings.key_to_bindings.get(key, ()))
        return False

    async def _pump(self) -> None:
        if self._pumping:
            return
        self._pumping = True
        try:
            while self._keys and self._in_flight is None and self.app.is_running and not self._held():
                await self._dispatch(self._keys.popleft())
        finally:
            self._pumping = False

    async def _dispatch(self, event: events.Key | events.Paste) -> None:
        """Handle `event` now, as Textual's `App.on_event` would, and follow it up to the app."""
        app = self.app
        try:
            screen = app.screen
        except Exception:  # noqa: BLE001 - the app is closing: no screen to type on
            return
        self._note("dispatched", event)
        if isinstance(event, events.Paste):  # no bindings: straight to what has focus
            target = screen.focused or screen
            self._in_flight = event
            path = target.ancestors_with_self
            target._forward_event(event)
            self._follow(event, path, 0)
            return
        if screen.maximized is not None and event.key == "escape" and app.escape_to_minimize:
            screen.minimize()
            return
        if app.focused is not None:
            try:
                screen._clear_tooltip()
            except Exception:  # noqa: BLE001 - a tooltip that cannot clear must not lose the key
                pass
        if await app._check_bindings(event.key, priority=True):
            return
        screen = app.screen
        if screen.focused is None:
            restore = getattr(screen, "restore_focus", None)
            if restore is not None:
                restore()  # (Textual blurs a widget hidden for a moment while it mounts)
        target = screen.focused or screen
        self._in_flight = event
        path = target.ancestors_with_self  # fixed now: a widget removed later keeps no parent
        target._forward_event(event)
        self._follow(event, path, 0)

    def _follow(self, event: events.Key | events.Paste, path: list[Any], index: int) -> None:
        """Wait until node `path[index]` has handled what was sent to it so far (the key, if it got
        that far), then go on with the next node up; after the app, the key is done."""
        while index < len(path):
            if path[index].call_later(self._reached, event, path, index):
                return
            index += 1  # closed: it handles nothing more
        self.app.call_later(self._done, event)

    async def _reached(self, event: events.Key | events.Paste, path: list[Any], index: int) -> None:
        if index + 1 < len(path):
            self._follow(event, path, index + 1)
        else:
            await self._done(event)

    async def _done(self, event: events.Key | events.Paste) -> None:
        if self._in_flight is event:
            self._note("done", event)
            self._in_flight = None
            await self._pump()


def _name(event: events.Key | events.Paste) -> str:
    return "paste" if isinstance(event, events.Paste) else event.key


def key_queue(app: Any) -> KeyQueue | None:
    """The app's key queue (None for an app that does not order keys)."""
    return getattr(app, "key_queue", None)


# HeldKeys is mixed into Screens only: to mypy it is one (self.app), at run time a plain class.
if TYPE_CHECKING:
    from textual.screen import Screen as _ScreenMixin
else:
    _ScreenMixin = object


class HeldKeys(_ScreenMixin):
    """Screen mixin: keys that arrive while the screen replaces its content wait in the app's
    `KeyQueue`, then go, in order, to what has focus in the new content.

    `hold_keys()` when the replacement starts (a rating is being saved, the next card is being
    mounted, a form rebuilt); `release_keys()` once the new content is mounted and focused. A key
    that starts another replacement (it calls `hold_keys()` from its binding) holds the keys after
    it again: each key is handled completely before the next one is looked at.
    """

    _holding = False

    @property
    def holds_keys(self) -> bool:
        """True while the screen replaces its content (the app's `KeyQueue` waits)."""
        return self._holding

    @property
    def holding_keys(self) -> bool:
        """True while keys wait for this screen or one is being handled."""
        queue = key_queue(self.app)
        return self._holding or (queue is not None and queue.pending)

    def hold_keys(self) -> None:
        """Hold keys from now on (until `release_keys`)."""
        self._holding = True

    def release_keys(self) -> None:
        """Stop holding: the queued keys go to the focused widget next, in order."""
        self._holding = False
        queue = key_queue(self.app)
        if queue is not None:
            queue.resume()

    def restore_focus(self) -> None:
        """Focus the current content again (the screen knows what that is); called by the key
        queue when a key is due and nothing has focus."""

    def _on_screen_suspend(self) -> None:
        # keys waiting for this screen go to the one now on top
        queue = key_queue(self.app)
        if queue is not None:
            queue.resume()

    def _on_unmount(self) -> None:
        self._on_screen_suspend()
