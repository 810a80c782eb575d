"""What every demo result says, in both languages: each check, table, note, plot and heatmap has its Chinese
form, no raw LaTeX reaches the terminal, table headers match in number, and the Shaw table says what it
leaves out."""

from __future__ import annotations

import re
from typing import Any

import pytest

from posenc_ref.demos import list_demos, run_demo
from posenc_ref.demos.base import DemoContext
from tui.richtext import plain

RAW_LATEX = re.compile(r"\^\{|_\{|\\[A-Za-z]+|\$")


@pytest.fixture(scope="module")
def demo_results() -> list[Any]:
    return [run_demo(demo.name, device="cpu") for demo in list_demos()]


def _texts_of(result: Any, lang: str) -> list[str]:
    zh = lang == "zh"
    texts = [result.claim_zh if zh else result.claim]
    texts += [(c.claim_zh if zh else c.claim) for c in result.checks]
    texts += result.notes_zh if zh else result.notes
    for table in result.tables:
        texts += [table.title_zh if zh else table.title, *(table.columns_zh if zh else table.columns)]
        texts += [cell for row in table.rows for cell in row if isinstance(cell, str)]
    texts += [(s.title_zh if zh else s.title) for s in result.series]
    texts += [(m.title_zh if zh else m.title) for m in result.matrices]
    return texts


def test_demo_texts_show_no_raw_latex(demo_results: list[Any]) -> None:
    for result in demo_results:
        for lang in ("en", "zh"):
            for text in _texts_of(result, lang):
                assert not RAW_LATEX.search(plain(text)), (result.name, lang, text)


def test_every_demo_result_carries_chinese(demo_results: list[Any]) -> None:
    """Every check, table title and header, note, plot and heatmap title has its Chinese form (a
    formula-only text may repeat the English); almost all of them are actual Chinese."""
    cjk = re.compile(r"[\u4e00-\u9fff]")
    texts: list[str] = []
    for result in demo_results:
        assert len(result.notes_zh) == len(result.notes), result.name
        for check in result.checks:
            assert check.claim_zh, (result.name, check.claim)
            texts.append(check.claim_zh)
        for table in result.tables:
            assert table.title_zh and len(table.columns_zh) == len(table.columns), (result.name, table.title)
            texts.append(table.title_zh)
        for note, zh in zip(result.notes, result.notes_zh, strict=True):
            assert zh, (result.name, note)
            texts.append(zh)
        for item in [*result.series, *result.matrices]:
            assert item.title_zh, (result.name, item.title)
    assert sum(bool(cjk.search(t)) for t in texts) >= 0.9 * len(texts)


def test_every_recorded_value_is_declared_with_its_meaning(demo_results: list[Any]) -> None:
    """A run records exactly the values its demo declares (conditional ones may be absent), so each value a
    result shows has a meaning and unit in `posenc demo list`."""
    demos = {demo.name: demo for demo in list_demos()}
    for result in demo_results:
        demo = demos[result.name]
        declared = {v.name for v in demo.value_specs}
        assert set(result.values) <= declared, (result.name, sorted(set(result.values) - declared))
        assert set(demo.values) <= set(result.values), (
            result.name,
            sorted(set(demo.values) - set(result.values)),
        )


def test_table_headers_must_match_in_number() -> None:
    ctx = DemoContext("cpu")
    with pytest.raises(ValueError, match="2 Chinese headers for 3 columns"):
        ctx.table("t", ["a", "b", "c"], [[1, 2, 3]], title_zh="表", columns_zh=["甲", "乙"])


def test_shaw_table_says_what_it_skips_and_labels_clip_zero() -> None:
    rows = run_demo("shaw-relative", {"seq_len": 12, "clip": 2}, device="cpu").tables[0].rows
    listed = [row[0] for row in rows if row[0] != "…"]
    gaps = [row[3] for row in rows if row[0] == "…"]
    assert gaps == [
        "j − i = -10 … -6 not listed: all clip to -2, row 0",
        "j − i = 6 … 10 not listed: all clip to 2, row 4",
    ]
    assert set(listed) | set(range(-10, -5)) | set(range(6, 11)) == set(range(-11, 12))
    assert {row[3] for row in rows if row[0] in (-1, 0, 1)} == {"own row"}
    zero = run_demo("shaw-relative", {"seq_len": 4, "clip": 0}, device="cpu").tables[0].rows
    assert {row[3] for row in zero} == {"the only row: k = 0 keeps no distance"}
