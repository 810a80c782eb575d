"""The shared Pilot helper `settle()`: it waits for every worker and tolerates cancelled ones."""

from __future__ import annotations

import threading

import pytest
from support.pilot import pilot_test, settle
from textual import work
from textual.app import App
from textual.worker import WorkerFailed


class Jobs(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.finished: list[str] = []

    @work(thread=True, exclusive=True, group="job")
    def job(self, name: str) -> None:
        self.release.wait(10)
        self.finished.append(name)

    @work(thread=True, group="other")
    def broken(self) -> None:
        raise RuntimeError("boom")


@pilot_test
async def test_settle_waits_for_workers_and_tolerates_a_cancelled_one() -> None:
    app = Jobs()
    async with app.run_test() as pilot:
        app.job("first")
        await pilot.pause()

        def replace_job() -> None:  # while settle() waits on "first": a newer key replaces it
            app.job("second")  # exclusive: cancels "first" (its thread still runs to the end)
            app.set_timer(0.05, app.release.set)

        app.set_timer(0.05, replace_job)
        await settle(pilot)
        assert list(app.workers) == []
        assert "second" in app.finished


@pilot_test
async def test_settle_still_reports_a_failed_worker() -> None:
    app = Jobs()
    with pytest.raises(WorkerFailed):  # noqa: PT012 (the worker fails inside the running app)
        async with app.run_test() as pilot:
            app.broken()
            await settle(pilot)
