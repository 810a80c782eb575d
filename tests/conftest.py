"""Fixtures shared by the app tests."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session", autouse=True)
def _bank_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The loaded-bank cache of the whole run lives in a temporary folder, never the user's cache folder.

    Set, not defaulted: a POSENC_CACHE_DIR from the shell must not leak in. Under pytest-xdist each
    worker is its own process with its own session, so each worker gets its own folder.
    """
    import os

    os.environ["POSENC_CACHE_DIR"] = str(tmp_path_factory.mktemp("bank-cache"))


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private data folder and user-bank folder, English UI, no benchmark log."""
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BENCH_LOG", raising=False)
    monkeypatch.setenv("POSENC_LANG", "en")
    return tmp_path


@pytest.fixture
def app_factory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """For snapshots: `app_factory(lang, **make_app_options)` builds an app on the fixture bank, no store."""
    from support.apps import make_app

    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BENCH_LOG", raising=False)

    def factory(lang: str, **options: Any) -> Any:
        return make_app(tmp_path, language=lang, open_store=False, **options)

    return factory


@pytest.fixture
def user_banks(env: Path) -> Path:
    """`env`'s user-bank folder (POSENC_BANK_DIR), not created: a test writes its own banks there."""
    return env / "user-banks"


@pytest.fixture
def shipped() -> Any:
    """The shipped bank alone (no user banks), loaded once per test process: treat it as read-only."""
    from support.banks import shipped_bankset

    return shipped_bankset()


@pytest.fixture
def store(tmp_path: Path) -> Any:
    """A progress store in tmp_path/data with fuzzing off (intervals exact), closed after the test."""
    from quizbank.progress.store import open_store

    opened = open_store(tmp_path / "data")
    opened.set_setting("enable_fuzzing", False)
    yield opened
    opened.close()


@pytest.fixture
def slow_full_load(env: Path, monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """A valid shipped-bank cache, and a full load that waits until the returned event is set."""
    from support.holds import hold

    import quizbank.loader as loader
    from quizbank import bank_cache

    monkeypatch.setenv(bank_cache.CACHE_ENV, str(env / "cache"))
    monkeypatch.delenv("POSENC_BANK_CACHE", raising=False)
    loader.load_banks(use_cache=True)  # writes the cache
    return hold(monkeypatch, loader, "load_banks", "the full load")
