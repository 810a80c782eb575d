"""Shared helpers for Pilot-driven app tests (the project runs async tests with asyncio.run)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from textual import events
from textual.worker import WorkerCancelled, WorkerState


def pilot_test(coro_fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test with asyncio.run (the project does not use pytest-asyncio)."""

    @functools.wraps(coro_fn)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(coro_fn(*args, **kwargs))

    return run


async def settle(pilot: Any, rounds: int = 50) -> None:
    """Let the app finish what a key started: pending messages, the keys the app still has to hand on
    (`tui.keyorder`), then every worker, then the repaint.

    A worker that the app cancels (an exclusive worker replaced by a newer key, a screen that was
    dismissed) is finished, not failed: it is waited for like the others and its `WorkerCancelled`
    is swallowed. A worker that failed still raises `WorkerFailed`. Workers started while waiting
    (a loaded bank starts the next job) are waited for too, for at most `rounds` rounds.
    """
    await pilot.pause()
    queue = getattr(pilot.app, "key_queue", None)  # keys posted to the app are handled one at a time
    key_pauses = 2000
    for _ in range(rounds):
        while queue is not None and not queue.settled and key_pauses > 0:
            key_pauses -= 1
            await pilot.pause()
        unfinished = [
            worker
            for worker in pilot.app.workers
            if worker.state is not WorkerState.PENDING and not worker.is_finished
        ]
        if not unfinished:
            break
        for worker in unfinished:
            try:
                await worker.wait()
            except WorkerCancelled:
                pass
        await pilot.pause()
    await pilot.pause()


def terminal_key(key: str) -> events.Key:
    """The Key event a terminal sends for `key`: a name (`enter`, `ctrl+u`, `3`) or a character (`" "`,
    `"/"`, `"\\r"`, `"\\x1b"`), named as Textual's driver names it (`/` is `slash`, `.` is `full_stop`)."""
    import unicodedata

    from textual.keys import KEY_NAME_REPLACEMENTS

    names = {" ": "space", "\r": "enter", "\t": "tab", "\x1b": "escape"}
    if key in names:
        return events.Key(names[key], key)
    if len(key) == 1:
        name = (
            key if key.isalnum() else unicodedata.name(key, key).lower().replace("-", "_").replace(" ", "_")
        )
        return events.Key(KEY_NAME_REPLACEMENTS.get(name, name), key)
    return events.Key(key, {"space": " ", "enter": "\r", "tab": "\t"}.get(key))


async def post_keys(app: Any, keys: list[str], gap: float = 0.0) -> None:
    """Deliver keys as a terminal does: posted one by one, `gap` seconds apart, never waiting for the app
    (Pilot's `press` waits for each key; a user does not). With no gap all are posted before the app
    handles the first, as keys that arrive in one read (a paste, a browser tab's burst)."""
    for key in keys:
        app.post_message(terminal_key(key))
        if gap:
            await asyncio.sleep(gap)


QUIET = 30.0  # seconds the app must stay settled, unchanged, before waiting for more is pointless


async def wait_for(
    predicate: Callable[[], Any],
    timeout: float = 300.0,
    state: Callable[[], Any] = lambda: "",
    settled: Callable[[], Any] | None = None,
) -> None:
    """Poll `predicate` every 20 ms until it holds, or fail at `timeout` with `state()`. `settled()`, if
    given, returns None while the app still has work (a key held, a rating saving, a worker running),
    else a snapshot of what it did: once that snapshot stays the same for QUIET seconds nothing more
    can happen, so waiting stops there and the assertions after it report what was lost (a lost key
    used to take the whole timeout to show)."""
    import time

    deadline = time.monotonic() + timeout
    quiet: tuple[float, object] | None = None
    while not predicate():
        assert time.monotonic() < deadline, f"timed out: {state()}"
        snapshot = settled() if settled is not None else None
        if snapshot is None or quiet is None or quiet[1] != snapshot:
            quiet = None if snapshot is None else (time.monotonic(), snapshot)
        elif time.monotonic() - quiet[0] > QUIET:
            return
        await asyncio.sleep(0.02)


def record_notices(app: Any) -> list[str]:
    """Every message `app` notifies from now on, in order. A toast leaves `app._notifications` when its
    timeout passes, which a test on a busy machine can outlive; this list keeps them all."""
    said: list[str] = []
    notify = app.notify

    def recording(message: Any, *args: Any, **kwargs: Any) -> None:
        said.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = recording
    return said
