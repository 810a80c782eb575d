"""Cutting a one-line label to the terminal cells it may take (a CJK character takes two), with "…"
to show that it was cut: bars and lists that would otherwise be clipped mid-word at 80 columns."""

from __future__ import annotations

from rich.cells import cell_len

__all__ = ["fit_cells", "fit_path"]


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


def fit_path(path: str, cells: int) -> str:
    """`path` if it fits in `cells`, else its end after "…": the most whole trailing parts that fit
    (`…/drills/rope-half.py`), or, when not even the file name does, the file name's last characters."""
    if cell_len(path) <= cells:
        return path
    if cells < 1:
        return ""
    parts = path.split("/")
    tail = ""
    for part in reversed(parts[1:]):
        longer = "/" + part + tail
        if cell_len("…" + longer) > cells:
            break
        tail = longer
    if tail:
        return "…" + tail
    cut = ""
    for char in reversed(path):
        if cell_len(char + cut) > cells - 1:
            break
        cut = char + cut
    return "…" + cut
