"""The glossary (quizbank/glossary.py): one Chinese term per concept, docs/glossary.md in step, no banned
variant in the shipped bank. The Glossary screen is tests/tui/test_glossary_screen.py."""

from __future__ import annotations

import re

import pytest
from support.paths import ROOT

from quizbank.glossary import (
    GlossaryError,
    banned_hits,
    load_glossary,
    main,
    parse_glossary,
    search_glossary,
    to_markdown,
)
from quizbank.loader import load_banks


def test_every_term_is_bilingual_and_unique():
    terms = load_glossary()
    assert len(terms) >= 60
    assert len({t.id for t in terms}) == len({t.zh for t in terms}) == len(terms)
    by_id = {t.id: t for t in terms}
    assert by_id["dimension-pair"].zh == "维度对"
    assert "分组" in by_id["dimension-pair"].banned
    assert by_id["gqa"].zh == "分组查询注意力"
    assert by_id["frequency-sequence"].banned == ("频率阶梯",)
    for term in terms:
        assert term.definition_en.strip() and term.definition_zh.strip()
        assert term.zh not in term.banned


def test_the_chosen_terms():
    """token stays English (what Chinese engineers write); query/key/value, base, interpolation and the
    KV cache are written in Chinese; the long-context methods have entries of their own."""
    by_id = {t.id: t for t in load_glossary()}
    assert by_id["token"].zh == "token" and "词元" in by_id["token"].banned
    assert (by_id["query"].zh, by_id["key"].zh, by_id["value"].zh) == ("查询", "键", "值")
    assert by_id["rope-base"].zh == "底数"
    assert (
        by_id["position-interpolation"].zh == "位置插值" and "内插" in by_id["position-interpolation"].banned
    )
    assert by_id["kv-cache"].zh == "KV 缓存" and "KV cache" in by_id["kv-cache"].banned
    assert {"yarn", "ntk-aware", "longrope", "alibi", "deberta"} <= set(by_id)
    assert by_id["ntk-aware"].zh == "NTK-aware 缩放"
    for english, term_id in ENGLISH_IN_CHINESE_PROSE.items():
        assert term_id in by_id, english


def test_docs_glossary_is_generated_from_the_yaml(capsys):
    shipped = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    assert shipped == to_markdown(), (
        "regenerate it: python -m quizbank.glossary --markdown > docs/glossary.md"
    )
    assert main(["--markdown"]) == 0
    assert capsys.readouterr().out == shipped
    assert main([]) == 2
    assert "| dimension pair (channel pair) | 维度对 |" in shipped


def _zh_texts(bankset):
    for topic in bankset.topics:
        for text in (topic.title, topic.description):
            if text is not None and text.zh:
                yield f"topic {topic.id}", text.zh
    for qid, question in bankset.questions.items():
        where = str(bankset.origin[qid])
        for text in question.text_fields():
            if text.zh:
                yield f"{where} ({qid})", text.zh
        for blank in getattr(question, "blanks", []):
            for accepted in blank.accept:
                yield f"{where} ({qid}) cloze answer", accepted


def test_the_shipped_bank_uses_no_banned_variant():
    bankset = load_banks(include_user=False)
    texts = list(_zh_texts(bankset))
    assert len(texts) > 1000
    problems = [
        f"{where}: {variant!r} (use {term.zh!r}, {term.en}): …{text[max(0, at - 12) : at + 12]}…"
        for where, text in texts
        for variant, term, at in banned_hits(text)
    ]
    assert not problems, "\n".join(problems)


# English words that Chinese prose must write with the glossary's Chinese term. Only prose is checked: a word
# inside $math$ or `code`, an identifier (rope_local_base_freq, num_key_value_heads, passkey) or a formula
# with no Chinese character beside it (θ_i = base^(−2i/d)) stays as written.
ENGLISH_IN_CHINESE_PROSE = {
    "base": "rope-base",
    "query": "query",
    "queries": "query",
    "key": "key",
    "keys": "key",
    "value": "value",
}
_SPANS = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|`[^`]*`", re.S)
_ENGLISH_WORD = re.compile(
    r"(?<![A-Za-z0-9_\-'./])(" + "|".join(ENGLISH_IN_CHINESE_PROSE) + r")(?![A-Za-z0-9_\-'/])"
)
_CJK = re.compile("[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def english_prose_hits(text: str) -> list[tuple[str, int]]:
    """(word, offset) for each English term used as a Chinese prose noun: a CJK character (or CJK
    punctuation) is its neighbour, spaces aside."""
    plain = _SPANS.sub(lambda m: " " * len(m.group()), text)
    hits = []
    for m in _ENGLISH_WORD.finditer(plain):
        before = plain[: m.start()].rstrip(" ")[-1:]
        after = plain[m.end() :].lstrip(" ")[:1]
        if _CJK.match(before) or _CJK.match(after):
            hits.append((m.group(1), m.start()))
    return hits


def test_english_prose_hits_only_flag_prose():
    assert english_prose_hits("提高 base 会让频率变慢") == [("base", 3)]
    assert english_prose_hits("新 query 与缓存的 key 相乘") == [("query", 2), ("key", 13)]
    assert english_prose_hits("θ_i = base^(−2i/d) 只取决于头维度") == []
    assert english_prose_hits("配置里的 rope_local_base_freq 和 num_key_value_heads") == []
    assert english_prose_hits("passkey 检索；`key - query`；$base^{-2i/d}$") == []


def test_the_shipped_bank_writes_chinese_terms_not_english_in_chinese_prose():
    by_id = {t.id: t for t in load_glossary()}
    problems = [
        f"{where}: {word!r} (use {by_id[ENGLISH_IN_CHINESE_PROSE[word]].zh!r}): …{text[max(0, at - 12) : at + 12]}…"
        for where, text in _zh_texts(load_banks(include_user=False))
        if "cloze answer" not in where
        for word, at in english_prose_hits(text)
    ]
    assert not problems, "\n".join(problems)


def test_banned_hits_skip_allowed_phrases_and_report_offsets():
    text = "GQA 即分组查询注意力；每个分组旋转，频率阶梯从快到慢。"
    hits = [(variant, term.id, at) for variant, term, at in banned_hits(text)]
    assert hits == [
        ("分组", "dimension-pair", text.index("分组旋转")),
        ("频率阶梯", "frequency-sequence", text.index("频率阶梯")),
    ]
    assert banned_hits("KV 缓存与分组查询注意力") == []
    assert [v for v, _, _ in banned_hits("键值缓存和 KV缓存")] == ["键值缓存", "KV缓存"]


def test_search_matches_either_language_and_definitions():
    assert [t.id for t in search_glossary("维度对")][0] == "dimension-pair"
    assert "kv-cache" in [t.id for t in search_glossary("kv cache")]
    assert "attention-sink" in [t.id for t in search_glossary("StreamingLLM")]  # in the definition
    assert len(search_glossary("")) == len(load_glossary())
    assert search_glossary("no such term at all") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "top-level 'terms:' list"),
        ("terms: [oops]", "term 1 is not a mapping"),
        ("terms: [{id: a, en: A}]", "needs id, en, zh and definition"),
        ("terms: [{id: a, en: A, zh: 甲, definition: {en: x}}]", "needs a definition in en and zh"),
        ("terms: [{id: a, en: A, zh: 甲, definition: {en: x, zh: 乙}, banned: [甲]}]", "bans its own term"),
        (
            "terms: [{id: a, en: A, zh: 甲, definition: {en: x, zh: y}}, {id: a, en: B, zh: 乙, definition: {en: x, zh: y}}]",
            "share the id 'a'",
        ),
        ("terms: [{id: a, en: A, zh: 甲, definition: {en: x, zh: y}, banned: [1]}]", "lists of text"),
    ],
)
def test_a_malformed_glossary_is_refused_with_a_clear_message(text, message):
    with pytest.raises(GlossaryError, match=message.replace("(", r"\(").replace("[", r"\[")):
        parse_glossary(text)
