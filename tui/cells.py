"""Cutting a one-line label to the terminal cells it may take (a CJK character takes two), with "…"
to show that it was cut: bars and lists that would otherwise be clipped mid-word at 80 columns."""

from __future__ import annotations

from rich.cells import cell_len

__all__ = ["fit_cells", "fit_path", "pack_items"]


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


def pack_items(items: list[str], cells: int) -> str:
    """`items` on as few lines of `cells` cells as they take, never split across a line: two spaces
    apart, or one where that keeps them on one line (`填空 50 单选 119 …` at 80 columns); wrapped by
    a terminal, `判断 65` broke between the name and its number."""
    for sep in ("  ", " "):
        if cell_len(sep.join(items)) <= cells:
            return sep.join(items)
    lines: list[str] = []
    for item in items:
        if lines and cell_len(lines[-1] + "  " + item) <= cells:
            lines[-1] += "  " + item
        else:
            lines.append(item)
    return "\n".join(lines)
