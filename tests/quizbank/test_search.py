"""quizbank.search: every word in any order, word prefixes (anywhere inside Chinese), over ids, prompts,
answers and explanations in both languages, ranked exact id > id/title > prompt > answer > explanation.
Pure logic: no Textual. (Its speed on the whole bank is in bench/search.py.)"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from quizbank import bank_cache
from quizbank.bank_preview import read_preview
from quizbank.loader import load_banks
from quizbank.search import (
    ANSWER,
    EXACT_ID,
    EXPLANATION,
    PROMPT,
    TITLE,
    Document,
    excerpt,
    match_spans,
    question_documents,
    rank,
    words,
)


def _doc(key: str, order: int = 0, **fields: dict[str, str]) -> Document:
    ranks = {"prompt": PROMPT, "answer": ANSWER, "explanation": EXPLANATION}
    built = [(TITLE, {"": key})] + [(ranks[name], texts) for name, texts in fields.items()]
    return Document("question", key, order, tuple(built))


DOCS = [
    _doc(
        "t.expl",
        0,
        prompt={"en": "Why scale?"},
        explanation={"en": "Rotation keeps the norm.", "zh": "旋转保持范数"},
    ),
    _doc("t.answer", 1, prompt={"en": "What does RoPE do?"}, answer={"en": "It rotates q and k"}),
    _doc(
        "t.prompt", 2, prompt={"en": "Which rotation angle does pair i get?", "zh": "第 i 对的旋转角是多少？"}
    ),
    _doc("t.rotation", 3, prompt={"en": "Unrelated words"}),
]


def keys(query: str, lang: str = "en") -> list[str]:
    return [m.document.key for m in rank(DOCS, query, lang)]


def test_ranked_exact_id_then_id_then_prompt_then_answer_then_explanation() -> None:
    assert keys("rotat") == ["t.rotation", "t.prompt", "t.answer", "t.expl"]
    assert [m.rank for m in rank(DOCS, "rotat", "en")] == [TITLE, PROMPT, ANSWER, EXPLANATION]
    assert rank(DOCS, "T.PROMPT", "en")[0].rank == EXACT_ID and keys("t.prompt")[0] == "t.prompt"


def test_every_word_in_any_order_and_as_a_word_prefix() -> None:
    assert keys("rotation angle") == keys("angle rotation") == ["t.prompt"]
    assert keys("rotation nothing-like-this") == []
    assert keys("ope") == []  # "RoPE" does not start with "ope"
    assert keys("rope") == ["t.answer"]
    assert keys("") == [] and keys("   ") == []
    assert words("Rope  ROPE base") == ["rope", "base"]


def test_chinese_matches_inside_text_and_the_other_language_ranks_after() -> None:
    assert keys("旋转", "zh") == ["t.prompt", "t.expl"]
    hits = rank(DOCS, "转角", "en")  # a substring of 旋转角, found from English mode
    assert [m.document.key for m in hits] == ["t.prompt"] and hits[0].other_language
    assert hits[0].field_lang == "zh"
    # within one rank, a match in the app's language comes before one only in the other language
    docs = [_doc("a", 0, prompt={"zh": "范数"}), _doc("b", 1, prompt={"en": "the 范数 (norm)", "zh": "范"})]
    found = [(m.document.key, m.other_language) for m in rank(docs, "范数", "en")]
    assert found == [("b", False), ("a", True)]
    assert [(m.document.key, m.other_language) for m in rank(docs, "范数", "zh")] == [
        ("a", False),
        ("b", True),
    ]


def test_the_whole_phrase_ranks_before_scattered_words() -> None:
    docs = [
        _doc("x.1", 0, prompt={"en": "the base of every rope layer"}),
        _doc("x.2", 1, prompt={"en": "what rope base does Llama use"}),
    ]
    assert [m.document.key for m in rank(docs, "rope base", "en")] == ["x.2", "x.1"]


def test_spans_and_excerpts() -> None:
    text = "RoPE rotates; rotation, not prerotation"
    assert [text[s:e] for s, e in match_spans(text, "ROTAT rope")] == ["RoPE", "rotat", "rotat"]
    assert match_spans("旋转角", "转") == [(1, 2)]
    long = "filler " * 40 + "the yarn temperature" + " tail" * 40
    cut = excerpt(long, "temperature")
    assert "temperature" in cut and cut.startswith("…") and cut.endswith("…") and len(cut) <= 92


_WORD = st.text(st.sampled_from("abcdefgxyz"), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(st.lists(_WORD, min_size=1, max_size=8), st.data())
def test_any_words_of_a_text_in_any_order_as_prefixes_find_it(text_words: list[str], data) -> None:
    text = " ".join(w.capitalize() for w in text_words)
    chosen = data.draw(st.lists(st.sampled_from(text_words), min_size=1, max_size=4))
    prefixes = [w[: data.draw(st.integers(1, len(w)))] for w in chosen]
    random.Random(0).shuffle(prefixes)
    doc = _doc("q", 0, answer={"en": text})
    found = rank([doc], " ".join(prefixes).upper(), "en")
    assert [m.document.key for m in found] == ["q"] and found[0].rank == ANSWER
    for start, end in match_spans(text, " ".join(prefixes)):
        assert 0 <= start < end <= len(text)
        assert any(text[start:end].casefold().startswith(p) for p in prefixes)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=0, max_size=40), st.text(min_size=0, max_size=12))
def test_search_never_fails_and_every_hit_holds_every_word(text: str, query: str) -> None:
    doc = _doc("q", 0, prompt={"en": text or "x"})
    for match in rank([doc], query, "en"):
        for word in words(query):
            assert word in match.document.blob
    for start, end in match_spans(text, query):
        assert 0 <= start < end <= len(text)


def test_words_with_a_dash_underscore_or_dot_inside_find_names_keys_and_code() -> None:
    """`kv-cache`, `rope_theta`, `rotate_half` returned "No match": the text was marked at each of the
    word's parts, the query word only at its start."""
    docs = [
        _doc(
            "t.config", 0, prompt={"en": "What does `rope_theta` set in an HF config, next to `beta_fast`?"}
        ),
        _doc("t.code", 1, answer={"en": "q * cos + rotate_half(q) * sin"}),
        _doc("t.cache", 2, explanation={"en": "The KV-cache keeps rotated keys."}),
        Document("demo", "rope-scaling", 3, ((TITLE, {"": "rope-scaling"}), (TITLE, {"en": "Scaling RoPE"}))),
        _doc("t.rope-scaling-why", 4, prompt={"en": "Why does rope-scaling help?"}),
    ]
    found = lambda query: [m.document.key for m in rank(docs, query, "en")]  # noqa: E731
    assert found("rope_theta") == found("ROPE_THETA") == found("rope_th") == ["t.config"]
    assert found("beta_fast") == ["t.config"] and found("rotate_half") == ["t.code"]
    assert found("kv-cache") == found("kv-cache rotated") == ["t.cache"]
    assert found("rope_theta beta_fast") == ["t.config"]
    assert found("ope_theta") == [] and found("theta_rope") == []  # still a word start, parts in order
    # an exact demo name ranks first, before a question id that only starts with it
    hits = rank(docs, "rope-scaling", "en")
    assert [(m.document.key, m.rank) for m in hits] == [
        ("rope-scaling", EXACT_ID),
        ("t.rope-scaling-why", TITLE),
    ]
    assert match_spans("x rope_theta y", "rope_theta") == [(2, 12)]


def test_the_shipped_bank_finds_what_a_reader_asks_for(shipped) -> None:
    docs = question_documents(shipped)
    assert len(docs) == len(shipped.questions) > 300
    first = rank(docs, "yarn temperature", "en")
    assert first[0].document.key == "context-extension.yarn-temperature" and first[0].rank == TITLE
    assert [m.document.key for m in rank(docs, "temperature yarn", "en")] == [m.document.key for m in first]
    assert len(rank(docs, "rope base", "en")) > 20
    assert rank(docs, "context-extension.yarn-temperature", "en")[0].rank == EXACT_ID
    zh = rank(docs, "位置 插值", "zh")
    assert zh and not zh[0].other_language and zh[0].rank <= PROMPT
    ranks = [m.rank for m in rank(docs, "rope", "en")]
    assert ranks == sorted(ranks)
    for name in ("kv-cache", "rope_theta", "beta_fast", "rotate_half"):  # each said "No match"
        assert rank(docs, name, "en"), name


def _full_bank_and_its_preview(tmp_path: Path, monkeypatch: Any) -> tuple[Any, Any]:
    """The shipped bank loaded through a fresh cache, and the startup preview that load wrote."""
    monkeypatch.setenv(bank_cache.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.delenv("POSENC_BANK_CACHE", raising=False)
    full = load_banks(use_cache=True)
    preview = read_preview()
    assert preview is not None
    return full, preview


def test_the_startup_preview_is_searched_like_the_full_bank(tmp_path: Path, monkeypatch, shipped) -> None:
    full, preview = _full_bank_and_its_preview(tmp_path, monkeypatch)
    for query in ("yarn temperature", "旋转 位置", "rope base", "alibi slope"):
        assert [m.document.key for m in rank(question_documents(preview), query, "en")] == [
            m.document.key for m in rank(question_documents(full), query, "en")
        ]


def test_logic_does_not_import_textual() -> None:
    import subprocess
    import sys

    code = "import sys, quizbank.search; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_generated_questions_show_a_gap_for_each_drawn_value(shipped, tmp_path: Path, monkeypatch) -> None:
    """A search result for a generated question read "A RoPE head has d = d and base {base}": the raw
    template. Each declared `{name}` reads as "…", in the full bank and in the startup preview alike."""
    docs = {d.key: d for d in question_documents(shipped)}
    assert docs["rope.pair-angle-any"].text(PROMPT, "en").startswith("A RoPE head has $d = …$ and base ….")
    generated = [q for q in shipped.ordered_questions() if getattr(q, "vary", None)]
    assert len(generated) > 5
    for question in generated:  # (an explanation may write a literal `{{d}}`: the prompts do not)
        for text in docs[question.id].fields[1][1].values():
            assert not any("{" + name + "}" in text for name in question.vary), (question.id, text)
    full, preview = _full_bank_and_its_preview(tmp_path, monkeypatch)
    assert [d.fields for d in question_documents(preview)] == [d.fields for d in question_documents(full)]
