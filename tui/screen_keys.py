"""Keys typed across a screen change: none is lost, and none runs on the screen that was left.

Textual hands each key to the focused widget of the screen that is current when the app reads it, and
runs a key's (non-priority) binding only once the key has bubbled back up to the app. So in a burst, as a
browser tab sends keys (`c`, `i`, `# text` in a few milliseconds), every key after the one that opens a
screen is queued on the old screen's widget before that screen is replaced; when those keys bubble up,
the new screen is current but perhaps not mounted, and a key that bubbles is never checked against the
new screen's priority bindings (the Drill screen's `i`). The keys were lost.

`ScreenChangeKeys`, an App mixin, closes both gaps:

- a key that arrives while the current screen is not mounted yet is held, and replayed in order once it
  is (its `on_mount` has set the focus), as if it were typed then;
- a key that bubbles up from a screen that is no longer the current one (it was typed for the screen the
  key before it replaced) is typed again on the current screen, held first if that is still mounting.

A screen that replaces its own content (Quiz, Study) holds keys itself (`tui.keys.HeldKeys`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from textual import events

__all__ = ["ScreenChangeKeys"]

MOUNT_CHECK_S = 0.5  # how often a hold looks again at which screen is current (one may be dropped unmounted)
TYPED_ON = "_posenc_typed_on"  # the screen that was current when a key arrived (an attribute of the event)


class ScreenChangeKeys:
    """App mixin (before `App` in the bases): keys typed across a screen change reach the new screen."""

    _screen_keys: list[tuple[str, str | None]] | None = None  # held, oldest first
    _screen_keys_release: asyncio.Task[None] | None = None

    def _current_screen(self) -> Any:
        try:
            return self.screen  # type: ignore[attr-defined]
        except Exception:  # no screen at all (the app is starting or closing)
            return None

    def _current_screen_mounted(self) -> bool:
        screen = self._current_screen()
        return screen is not None and bool(screen.is_mounted)

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, events.Key):
            if not event.is_forwarded:  # it arrived now (from the terminal, or replayed here)
                if self._screen_keys or not self._current_screen_mounted():
                    self._hold_screen_key(event)
                    return
                setattr(event, TYPED_ON, self._current_screen())
            else:  # it bubbled back up: was it typed for the screen that is current now?
                typed_on = getattr(event, TYPED_ON, None)
                if typed_on is not None and typed_on is not self._current_screen():
                    await self.on_event(events.Key(event.key, event.character))
                    return
        await super().on_event(event)  # type: ignore[misc]

    def _hold_screen_key(self, event: events.Key) -> None:
        if self._screen_keys is None:
            self._screen_keys = []
        self._screen_keys.append((event.key, event.character))
        if self._screen_keys_release is None:
            self._screen_keys_release = asyncio.get_running_loop().create_task(
                self._release_screen_keys(), name="screen-keys-release"
            )

    async def _release_screen_keys(self) -> None:
        """Wait until the current screen is mounted, then replay the held keys from the app's own queue
        (after what its `on_mount` queued there, such as a `focus()`)."""
        while not self._current_screen_mounted():
            if not self.is_running:  # type: ignore[attr-defined]
                return  # the app is closing: nothing will type them
            screen = self._current_screen()
            mounted = screen._mounted_event if screen is not None else asyncio.Event()
            try:
                await asyncio.wait_for(mounted.wait(), MOUNT_CHECK_S)
            except TimeoutError:
                pass
        self.call_later(self._replay_screen_keys)  # type: ignore[attr-defined]

    async def _replay_screen_keys(self) -> None:
        self._screen_keys_release = None
        held, self._screen_keys = self._screen_keys or [], []
        for index, (key, character) in enumerate(held):
            if not self._current_screen_mounted():  # a replayed key opened another screen: wait for it too
                self._screen_keys = held[index:] + self._screen_keys
                self._screen_keys_release = asyncio.get_running_loop().create_task(
                    self._release_screen_keys(), name="screen-keys-release"
                )
                return
            await self.on_event(events.Key(key, character))
