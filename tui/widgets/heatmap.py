"""`Heatmap`: a matrix drawn as a colored grid (PE tables, ALiBi biases, T5 buckets).

Signed data uses a diverging blue-white-red scale centred on 0; non-negative data a sequential
(viridis-like) scale. `-inf` cells (causal masks) are drawn as masked `·` cells, and NaN as `?`.
Small matrices show their values inside the cells; big ones are sampled with a stride so the
grid fits the width (a note says so).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget

from ..i18n import tr
from ..richtext import plain

__all__ = ["Heatmap", "color_for"]

MAX_ROWS = 32
SEQUENTIAL = [(68, 1, 84), (59, 82, 139), (33, 145, 140), (94, 201, 98), (253, 231, 37)]
DIVERGING = [(49, 54, 149), (116, 173, 209), (240, 240, 240), (244, 109, 67), (165, 0, 38)]
MASKED_BG = "#2a2e3f"


def _lerp(stops: Sequence[tuple[int, int, int]], t: float) -> tuple[int, int, int]:
    t = min(1.0, max(0.0, t))
    pos = t * (len(stops) - 1)
    i = min(int(pos), len(stops) - 2)
    frac = pos - i
    a, b = stops[i], stops[i + 1]
    return (
        round(a[0] + (b[0] - a[0]) * frac),
        round(a[1] + (b[1] - a[1]) * frac),
        round(a[2] + (b[2] - a[2]) * frac),
    )


def color_for(value: float, lo: float, hi: float, diverging: bool) -> tuple[int, int, int]:
    """RGB for `value` on the scale [lo, hi] (diverging scales are symmetric around 0)."""
    if diverging:
        bound = max(abs(lo), abs(hi)) or 1.0
        return _lerp(DIVERGING, 0.5 + value / (2 * bound))
    span = hi - lo
    return _lerp(SEQUENTIAL, 0.5 if span == 0 else (value - lo) / span)


def _fmt_cell(value: float, width: int) -> str:
    if math.isnan(value):
        return "?"
    if value == int(value) and abs(value) < 10 ** (width - 1):
        text = str(int(value))
    else:
        text = f"{value:.{max(0, width - 3)}f}" if abs(value) < 10 else f"{value:.0f}"
        if len(text) > width:
            text = f"{value:.1g}"
    return text[:width]


class Heatmap(Widget):
    """Draws `values` (rows of floats) as a heatmap with a title, row/column labels and a legend."""

    DEFAULT_CSS = """
    Heatmap {
        height: auto;
        width: 1fr;
        margin: 1 0 0 0;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(
        self,
        title: str,
        values: Sequence[Sequence[float]],
        *,
        row_label: str = "",
        col_label: str = "",
        lang: str = "en",
        title_zh: str = "",
        row_label_zh: str = "",
        col_label_zh: str = "",
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(id=id, classes=classes)
        self.title = title
        self.values = [list(map(float, row)) for row in values]
        self.row_label = row_label
        self.col_label = col_label
        # Chinese forms ("" falls back to English); math between $...$ is converted when drawn
        self.title_zh = title_zh
        self.row_label_zh = row_label_zh
        self.col_label_zh = col_label_zh
        self.lang = lang
        finite = [v for row in self.values for v in row if math.isfinite(v)]
        self.lo = min(finite) if finite else 0.0
        self.hi = max(finite) if finite else 0.0
        self.diverging = self.lo < 0 < self.hi
        self.has_masked = any(math.isinf(v) for row in self.values for v in row)
        self.n_rows = len(self.values)
        self.n_cols = max((len(r) for r in self.values), default=0)

    def set_language(self, lang: str) -> None:
        """Redraw the labels (axes, sampling note, legend) in `lang`."""
        if lang != self.lang:
            self.lang = lang
            self.refresh()

    # ------------------------------------------------------------------ layout

    def _gutter(self) -> int:
        return len(str(max(self.n_rows - 1, 0))) + 1

    def _layout(self, width: int) -> tuple[int, int, int]:
        """(cell width, column stride, row stride) for the available width."""
        usable = max(1, width - self._gutter())
        if self.n_cols == 0:
            return 1, 1, 1
        col_stride = max(1, math.ceil(self.n_cols / usable))
        shown_cols = math.ceil(self.n_cols / col_stride)
        cell = max(1, min(6, usable // shown_cols))
        row_stride = max(1, math.ceil(self.n_rows / MAX_ROWS))
        return cell, col_stride, row_stride

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        _cell, _cs, row_stride = self._layout(width)
        rows = math.ceil(self.n_rows / row_stride) if self.n_rows else 0
        return rows + 4  # title, size and axes, axis line, rows, legend

    # ------------------------------------------------------------------ drawing

    def render(self) -> Text:
        width = self.size.width or 80
        cell, col_stride, row_stride = self._layout(width)
        gutter = self._gutter()
        text = Text(no_wrap=True, overflow="crop")
        # two header lines (the title, then size, axes and sampling), never wrapped: the
        # height is fixed by get_content_height
        zh = self.lang == "zh"
        title = (self.title_zh if zh and self.title_zh else self.title) or ""
        text.append(plain(title) + "\n", style="bold")
        row_label = self.row_label_zh if zh and self.row_label_zh else self.row_label
        col_label = self.col_label_zh if zh and self.col_label_zh else self.col_label
        rows_label = plain(row_label) if row_label else tr("demo.rows", self.lang)
        cols_label = plain(col_label) if col_label else tr("demo.cols", self.lang)
        if col_stride > 1 or row_stride > 1:
            step = max(col_stride, row_stride)
            size = tr("demo.sampled", self.lang, step=step, rows=self.n_rows, cols=self.n_cols)
        else:
            size = f"{self.n_rows}×{self.n_cols}"
        text.append(f"{size}  ({rows_label} ↓, {cols_label} →)\n", style="dim")
        cols = list(range(0, self.n_cols, col_stride))
        # column axis: label every few cells
        axis = [" "] * (gutter + len(cols) * cell)
        every = max(1, math.ceil(4 / cell))
        for k, c in enumerate(cols):
            if k % every:
                continue
            label = str(c)
            start = gutter + k * cell
            if start + len(label) <= len(axis):
                axis[start : start + len(label)] = list(label)
        text.append("".join(axis) + "\n", style="dim")
        show_values = cell >= 3
        for r in range(0, self.n_rows, row_stride):
            row = self.values[r]
            text.append(str(r).rjust(gutter - 1) + " ", style="dim")
            for c in cols:
                value = row[c] if c < len(row) else math.nan
                if math.isinf(value) and value < 0:
                    text.append("·".center(cell), style=Style(color="#565f89", bgcolor=MASKED_BG))
                    continue
                if not math.isfinite(value):
                    text.append("?".center(cell), style=Style(color="#f7768e", bgcolor=MASKED_BG))
                    continue
                rgb = color_for(value, self.lo, self.hi, self.diverging)
                bg = "#{:02x}{:02x}{:02x}".format(*rgb)
                luminance = 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]
                fg = "#000000" if luminance > 140 else "#ffffff"
                label = _fmt_cell(value, cell - 1).rjust(cell - 1) + " " if show_values else " " * cell
                text.append(label, style=Style(color=fg, bgcolor=bg))
            text.append("\n")
        text.append(" " * gutter)
        for k in range(10):
            t = k / 9
            value = (
                -max(abs(self.lo), abs(self.hi)) + t * 2 * max(abs(self.lo), abs(self.hi))
                if self.diverging
                else self.lo + t * (self.hi - self.lo)
            )
            rgb = color_for(value, self.lo, self.hi, self.diverging)
            text.append(" ", style=Style(bgcolor="#{:02x}{:02x}{:02x}".format(*rgb)))
        lo = -max(abs(self.lo), abs(self.hi)) if self.diverging else self.lo
        hi = max(abs(self.lo), abs(self.hi)) if self.diverging else self.hi
        text.append(f" {lo + 0.0:.4g} … {hi + 0.0:.4g}", style="dim")  # + 0.0: no "-0"
        if self.has_masked:
            text.append("  ")
            text.append(" · ", style=Style(color="#565f89", bgcolor=MASKED_BG))
            text.append(f" {tr('demo.masked', self.lang)}", style="dim")
        return text
