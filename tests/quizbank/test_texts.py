"""quizbank's one bilingual table of fixed words: every entry complete, `label` in each language, and the
exports and the mock-interview report reading the same words."""

from __future__ import annotations

import re
import string
from types import SimpleNamespace

import pytest

import quizbank.exports.render as render
import quizbank.mock.report as report
from quizbank.texts import TEXTS, label

CJK = re.compile(r"[\u4e00-\u9fff]")


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


@pytest.mark.parametrize("key", sorted(TEXTS))
def test_every_text_has_english_and_chinese_with_the_same_fields(key: str) -> None:
    en, zh = TEXTS[key]
    assert en.strip() and CJK.search(zh), key
    assert _fields(en) == _fields(zh), key


def test_label_in_each_language() -> None:
    assert label("instance", "en", n=2) == "Instance 2"
    assert label("instance", "zh", n=2) == "实例 2"
    assert label("instance", "both", n=2) == "Instance 2 / 实例 2"
    assert label("minutes", "fr", n=5) == "5 min"  # anything else is English
    with pytest.raises(KeyError):
        label("no-such-text", "en")


def test_exports_and_the_mock_report_share_one_table() -> None:
    assert not hasattr(render, "LABELS") and not hasattr(report, "LABELS")
    assert report.label is label
    truefalse = SimpleNamespace(type="truefalse", correct=True, answer=None)
    assert (
        report.model_answer(truefalse)
        == {"en": "True", "zh": label("true", "zh")}
        == {"en": "True", "zh": "正确"}
    )
