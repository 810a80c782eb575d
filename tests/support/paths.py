"""The repository root, for tests at any depth under tests/."""

from __future__ import annotations

from pathlib import Path

__all__ = ["ROOT"]

ROOT = Path(__file__).resolve().parents[2]
