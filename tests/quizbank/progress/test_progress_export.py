"""`posenc export anki` and `export markdown`: package structure, note content, escaping, math, and a topic file.

The bank is tests/support/export_bank.py (one question of every type, markup-like and HTML-like text, inline
and display math).
"""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

import genanki
import pytest
from support.export_bank import (
    FIXTURE_QUESTION_COUNT,
    load_fixture_bankset,
    main,
    write_fixture_bank,
)

from quizbank.exports.anki import MODEL_IDS, build_anki_package, write_anki
from quizbank.exports.markdown import render_topic, write_markdown
from quizbank.exports.render import choice_order, markdown_to_html, math_to_mathjax
from quizbank.loader import load_banks


@pytest.fixture
def bankset(tmp_path):
    return load_fixture_bankset(tmp_path)


def _notes(apkg: Path) -> list[tuple[str, str, int, str]]:
    """(guid, fields, model id, tags) of every note in the package's collection.anki2."""
    with zipfile.ZipFile(apkg) as archive:
        assert "collection.anki2" in archive.namelist()
        data = archive.read("collection.anki2")
    db_path = apkg.with_suffix(".anki2")
    db_path.write_bytes(data)
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute("SELECT guid, flds, mid, tags FROM notes ORDER BY id").fetchall()
    finally:
        conn.close()


def test_math_conversion_and_escaping():
    assert math_to_mathjax(r"angle $m\theta$ and $$a<b$$") == r"angle \(m\theta\) and \[a&lt;b\]"
    assert math_to_mathjax("costs $5 and $6") == "costs $5 and $6"  # not math
    html = markdown_to_html(r"Use <b>x</b> and [bold]y[/bold] with $x_i * y_i$ and *z*")
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert "[bold]y[/bold]" in html
    assert r"\(x_i * y_i\)" in html and "<em>z</em>" in html  # math untouched by emphasis rules


def test_anki_package_is_a_valid_deck(bankset, tmp_path):
    out = tmp_path / "deck.apkg"
    result = write_anki(bankset, out, lang="en")
    assert result.notes == FIXTURE_QUESTION_COUNT and result.decks == 2
    assert zipfile.is_zipfile(out)
    notes = _notes(out)
    assert len(notes) == FIXTURE_QUESTION_COUNT
    guids = {guid for guid, *_ in notes}
    assert guids == {genanki.guid_for(qid) for qid in bankset.questions}
    by_model = {mid for _, _, mid, _ in notes}
    assert by_model == set(MODEL_IDS.values())  # one note type per question type, fixed ids
    fields = {guid: flds.split("\x1f") for guid, flds, _, _ in notes}
    mcq = fields[genanki.guid_for("fx.mcq")]
    assert r"\(m\theta_i\)" in mcq[0]
    assert r"\[\theta_i = b^{-2i/d}\]" in mcq[3]
    assert "&lt;script&gt;" in mcq[1] and "<script>" not in mcq[1]
    assert "[bold]whole[/bold]" in mcq[1]
    shown = "ABC"[choice_order("fx.mcq", 3).index(0)]  # where the right choice (the bank's first) is shown
    assert f"<b>{shown}</b>. Pairs" in mcq[2] and 'href="https://arxiv.org/abs/2104.09864"' in mcq[4]
    cloze = fields[genanki.guid_for("fx.cloze")]
    assert "{{c1::Q}}" in cloze[0] and "{{c2::K}}" in cloze[0]
    assert "Q / query" in cloze[1]
    tags = {guid: tag.split() for guid, _, _, tag in notes}
    assert {"fx-rope", "type::mcq", "difficulty::1"} <= set(tags[genanki.guid_for("fx.mcq")])


def test_anki_choices_are_shuffled_per_question_and_stable(tmp_path):
    """Over the shipped bank (which lists the right choice first), no answer letter holds more than 40% of the
    single-answer notes, multi-answer notes do not put the right choices first, and two exports hold
    byte-identical notes (the order is seeded by the question id)."""
    import collections
    import re

    bankset = load_banks(include_user=False)
    paths = [tmp_path / "one.apkg", tmp_path / "two.apkg"]
    for path in paths:
        write_anki(bankset, path)
    first, second = _notes(paths[0]), _notes(paths[1])
    generated = [q for q in bankset.questions.values() if getattr(q, "vary", None)]
    # one note per question, three (seeds 1, 2, 3) per generated question
    assert first == second and len(first) == len(bankset.questions) + 2 * len(generated)
    by_guid = {genanki.guid_for(qid): q for qid, q in bankset.questions.items()}
    by_guid.update({genanki.guid_for(q.id, "seed", seed): q for q in generated for seed in (1, 2, 3)})
    single: collections.Counter[str] = collections.Counter()
    multi_prefix = multi = 0
    for guid, fields, _mid, _tags in first:
        question = by_guid[guid]
        if question.type not in ("mcq", "multi"):
            continue
        answer = fields.split("\x1f")[2]
        letters = re.findall(r"<b>([A-Z])</b>\. ", answer)
        correct = [c for c in question.choices if c.correct]
        assert len(letters) == len(correct)
        # the letters name the right choices where the front shows them
        order = choice_order(question.id, len(question.choices))
        assert letters == [chr(65 + i) for i, index in enumerate(order) if question.choices[index].correct]
        if len(correct) == 1:
            single[letters[0]] += 1
        else:
            multi += 1
            multi_prefix += letters == [chr(65 + i) for i in range(len(correct))]
    total = sum(single.values())
    assert total >= 90, total
    assert max(single.values()) <= 0.4 * total, single
    assert multi >= 10 and multi_prefix <= multi // 2, (multi, multi_prefix)


def test_anki_languages(bankset):
    def first_field(lang: str, qid: str) -> str:
        package, _ = build_anki_package(bankset, lang)
        note = next(n for d in package.decks for n in d.notes if n.guid == genanki.guid_for(qid))
        return note.fields[0]

    assert "RoPE preserves" in first_field("en", "fx.tf") and "范数" not in first_field("en", "fx.tf")
    assert "范数" in first_field("zh", "fx.tf")
    both = first_field("both", "fx.tf")
    assert both.index("RoPE preserves") < both.index("范数")


def test_cli_export_anki_counts_every_loaded_question(tmp_path, monkeypatch):
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "no-user-banks"))
    bank = write_fixture_bank(tmp_path)
    out = tmp_path / "out" / "posenc.apkg"
    assert main(["--bank", str(bank), "--data-dir", str(tmp_path / "data"), "export", "anki", str(out)]) == 0
    expected = load_banks([bank], include_user=False)
    generated = sum(1 for q in expected.questions.values() if getattr(q, "vary", None))
    # a generated question is exported as three seeded instances (three notes)
    assert len(_notes(out)) == len(expected.questions) + 2 * generated >= FIXTURE_QUESTION_COUNT


def test_cli_export_anki_rejects_bad_names(tmp_path, capsys):
    assert main(["export", "anki", str(tmp_path / "deck.zip")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".apkg" in err


EXPECTED_ALIBI_TOPIC = """# Fixture ALiBi

*1 question · topic `fx-alibi` · exported by posenc*

<a id="fx.alibi-tf"></a>

## 1. `fx.alibi-tf` · truefalse · ★★☆

ALiBi adds position embeddings to the input.

**Answer:** False

**Explanation.**

It biases the logits instead.

---
"""


def test_markdown_topic_file(bankset, tmp_path):
    result = write_markdown(bankset, tmp_path / "md")
    names = sorted(p.name for p in result.files)
    assert names == ["README.md", "fx-alibi.md", "fx-rope.md"] and result.questions == FIXTURE_QUESTION_COUNT
    assert (tmp_path / "md" / "fx-alibi.md").read_text(encoding="utf-8") == EXPECTED_ALIBI_TOPIC
    rope = (tmp_path / "md" / "fx-rope.md").read_text(encoding="utf-8")
    assert rope.startswith("# Fixture RoPE\n\nRotations for tests.\n")
    assert "- [x] **A.** Pairs $(2i, 2i+1)$ — Each pair is a plane." in rope
    assert "- [ ] **B.** The [bold]whole[/bold] vector" in rope
    assert "**Answer:** A, B" in rope  # multi
    assert "**Answer:** 0.00390625 ± 1e-06" in rope  # as every view shows it (question_types)
    assert "RoPE rotates \\_\\_\\_\\_ (1) and \\_\\_\\_\\_ (2), never V." in rope
    assert "**Answer:** RoPE rotates **Q** and **K**, never V." in rope
    assert "- blank 1 also accepts: `query`" in rope
    assert "**Model answer:**\n\nUnseen angles at long range." in rope
    assert "**Follow-ups:** [fx.open](#fx.open)" in rope
    assert "- https://arxiv.org/abs/2104.09864" in rope
    index = (tmp_path / "md" / "README.md").read_text(encoding="utf-8")
    assert "| [Fixture RoPE](fx-rope.md) | 6 |" in index


def test_markdown_both_languages(bankset):
    topic = bankset.topic("fx-alibi")
    text = render_topic(topic, bankset.questions, bankset.topic_of, lang="both")
    assert text.startswith("# Fixture ALiBi / 测试 ALiBi")
    assert "ALiBi adds position embeddings to the input.\n\nALiBi 在输入上加位置向量。" in text


def test_cli_export_markdown(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "no-user-banks"))
    bank = write_fixture_bank(tmp_path)
    out = tmp_path / "md"
    assert main(["--bank", str(bank), "export", "markdown", str(out), "--lang", "zh"]) == 0
    alibi_zh = (out / "fx-alibi.md").read_text(encoding="utf-8")
    assert alibi_zh.startswith("# 测试 ALiBi\n\n*1 道题 · 主题 `fx-alibi` · 由 posenc 导出*")
    assert "**答案:** 错误" in alibi_zh and "**解析.**" in alibi_zh
    assert "已写入" in capsys.readouterr().out  # --lang zh: the line it prints is Chinese too
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    assert main(["export", "markdown", str(blocker)]) == 2
    assert "not a folder" in capsys.readouterr().err
