"""Shared helpers for Pilot-driven app tests (the project runs async tests with asyncio.run)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Coroutine
from typing import Any


def pilot_test(coro_fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test with asyncio.run (the project does not use pytest-asyncio)."""

    @functools.wraps(coro_fn)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(coro_fn(*args, **kwargs))

    return run


async def settle(pilot: Any) -> None:
    """Let the app finish what a key started: pending messages, then every worker, then the repaint.
    A worker cancelled because a newer one of its exclusive group replaced it (Home's progress counts,
    started by a bank load and a screen resume in the same moment) is finished, not an error."""
    from textual.worker import WorkerCancelled

    await pilot.pause()
    for worker in list(pilot.app.workers):
        with contextlib.suppress(WorkerCancelled):
            await worker.wait()
    await pilot.pause()
