"""Bank text as one short plain line, for the setup's topic list and the summary's lists."""

from __future__ import annotations

from ...richtext import plain

__all__ = ["shorten"]


def shorten(text: str, limit: int = 80) -> str:
    """`text` as plain text, cut to `limit` characters (the last one an ellipsis) when longer."""
    flat = plain(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"
