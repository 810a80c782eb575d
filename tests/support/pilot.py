"""Shared helpers for Pilot-driven app tests (the project runs async tests with asyncio.run)."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from textual.worker import WorkerCancelled, WorkerState


def pilot_test(coro_fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async Pilot test with asyncio.run (the project does not use pytest-asyncio)."""

    @functools.wraps(coro_fn)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(coro_fn(*args, **kwargs))

    return run


async def settle(pilot: Any, rounds: int = 50) -> None:
    """Let the app finish what a key started: pending messages, then every worker, then the repaint.

    A worker that the app cancels (an exclusive worker replaced by a newer key, a screen that was
    dismissed) is finished, not failed: it is waited for like the others and its `WorkerCancelled`
    is swallowed. A worker that failed still raises `WorkerFailed`. Workers started while waiting
    (a loaded bank starts the next job) are waited for too, for at most `rounds` rounds.
    """
    await pilot.pause()
    for _ in range(rounds):
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
