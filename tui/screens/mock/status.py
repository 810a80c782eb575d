"""The mock interview's two status lines: where it is (item n/N, skill, topic) and its clocks (the whole
interview's and this item's, with how far over its budget an item has run: shown, never enforced)."""

from __future__ import annotations

from typing import Any

from textual.content import Content

from ...i18n import tr

__all__ = ["clock_line", "clock_text", "item_bar"]


def clock_text(seconds: float) -> str:
    """`m:ss` (never negative)."""
    seconds = max(0, int(seconds))
    return f"{seconds // 60}:{seconds % 60:02d}"


def item_bar(number: int, total: int, skill: str, topic: str, lang: str) -> Content:
    """ " Item n/N   skill  ·  topic" (`skill` and `topic` already in `lang`)."""
    return Content.assemble(
        (f" {tr('mock.bar', lang, n=number, total=total)} ", "bold"),
        ("  ", ""),
        (skill, "bold $text-accent"),
        ("  ·  ", "dim"),
        (topic, "$text-secondary"),
    )


def clock_line(used: float, total: float, item_used: float, budget: float, lang: str) -> Content:
    """The interview's clock (`used` of `total` seconds) and the item's (`item_used` of `budget`)."""
    parts: list[Any] = [
        (
            " ⏱ " + tr("mock.clock", lang, used=clock_text(used), total=clock_text(total)),
            "bold" if used <= total else "bold $text-error",
        ),  # fmt: skip
        ("   ", ""),
        (
            tr("mock.item_clock", lang, used=clock_text(item_used), budget=clock_text(budget)),
            "$text-success" if item_used <= budget else "bold $text-error",
        ),
    ]
    if item_used > budget:
        parts.append((f"  ⚠ {tr('mock.over', lang)} +{clock_text(item_used - budget)}", "bold $text-error"))
    return Content.assemble(*parts)
