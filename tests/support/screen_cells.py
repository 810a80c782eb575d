"""What a screenshot shows, cell by cell: `screen_cells(svg)` reads an SVG of `App.export_screenshot()` (or a
snapshot) into {(row, column): (character, style, background)} for every cell that has a background or a
visible character. Two screenshots that show the same cells compare equal, however Rich split each line
into segments (which is all that two SVG files of the same picture may differ in)."""

from __future__ import annotations

import html
import re

from rich.cells import cell_len

CELL_WIDTH, LINE_HEIGHT = 12.2, 24.4  # Rich's SVG export: one cell, one line
_STYLE = re.compile(r"\.(terminal-(?:\d+-)?r\d+) \{([^}]*)\}")
_RECT = re.compile(r'<rect fill="(#[0-9a-fA-F]+)" x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"')
_TEXT = re.compile(r'<text class="([^"]*)" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>')


def screen_cells(svg: str) -> dict[tuple[int, int], tuple[str, str | None, str | None]]:
    styles = dict(_STYLE.findall(svg))
    cells: dict[tuple[int, int], list[str | None]] = {}
    for fill, x, y, width in _RECT.findall(svg):
        row, first = round((float(y) - 1.5) / LINE_HEIGHT), round(float(x) / CELL_WIDTH)
        for col in range(first, first + round(float(width) / CELL_WIDTH)):
            cells.setdefault((row, col), [" ", None, None])[2] = fill
    for cls, x, y, text in _TEXT.findall(svg):
        row, col = round((float(y) - 20) / LINE_HEIGHT), round(float(x) / CELL_WIDTH)
        for char in html.unescape(text):
            if char not in " \xa0":  # a space shows its background only, whatever its style
                cell = cells.setdefault((row, col), [" ", None, None])
                cell[0], cell[1] = char, styles.get(cls, cls)
            col += cell_len(char)
    return {key: (char, style, fill) for key, (char, style, fill) in cells.items()}
