"""Home in its first second: the topics listed from the bank cache's preview while the full bank is still
loading (no progress columns yet), at 100x30 and 80x24, in English and Chinese.

The app runs on the fixture bank with no progress store; the full load is held until the screenshot is
taken. Update with `pytest tests/tui/test_startup_snapshots.py --snapshot-update` after an intended change.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from support.apps import topics_listed

SIZES = [(100, 30), (80, 24)]
LANGS = ["en", "zh"]


@pytest.fixture
def preview_app(app_factory: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """`preview_app(lang)`: an app whose bank cache is warm and whose full load waits until the test ends."""
    import quizbank.loader as loader

    monkeypatch.setenv("POSENC_CACHE_DIR", str(tmp_path / "cache"))
    real = loader.load_banks
    apps: list[Any] = []

    def held(*args: Any, **kwargs: Any) -> Any:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not apps[0].is_running:
            time.sleep(0.02)  # not started yet
        while apps[0].is_running and time.monotonic() < deadline:
            time.sleep(0.02)  # held until the screenshot is taken and the app ends
        raise RuntimeError("the full load was held for the screenshot")

    def make(lang: str) -> Any:
        app = app_factory(lang)
        real(app.bank_paths, include_shipped=False, include_user=True, use_cache=True)  # warms the cache
        apps.append(app)
        monkeypatch.setattr(loader, "load_banks", held)
        return app

    return make


async def _topics_listed(pilot: Any) -> None:
    await topics_listed(pilot)
    assert pilot.app.bankset is None and pilot.app.bank_preview is not None  # listed from the preview


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("lang", LANGS)
def test_home_from_the_preview(snap_compare: Any, preview_app: Any, lang: str, size: tuple[int, int]) -> None:
    assert snap_compare(preview_app(lang), terminal_size=size, run_before=_topics_listed)
