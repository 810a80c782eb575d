"""Cutting a one-line label to the terminal cells it may take (a CJK character takes two), with "…"
to show that it was cut: bars and lists that would otherwise be clipped mid-word at 80 columns."""

from __future__ import annotations

from rich.cells import cell_len

__all__ = ["fit_cells"]


def fit_cells(text: str, cells: int) -> str:
    """`text` if it fits in `cells` terminal cells, else its longest prefix that fits with "…"
    (trailing spaces dropped before it); "" when not even the "…" fits."""
    if cell_len(text) <= cells:
        return text
    if cells < 1:
        return ""
    cut = ""
    for char in text:
        if cell_len(cut + char) > cells - 1:
            break
        cut += char
    return cut.rstrip() + "…"
