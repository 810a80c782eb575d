"""Fixtures shared by the app tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private data folder and user-bank folder, English UI, no benchmark log."""
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BENCH_LOG", raising=False)
    monkeypatch.setenv("POSENC_LANG", "en")
    return tmp_path
