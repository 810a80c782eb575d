"""`posenc export anki` and `export markdown`: package structure, note content, escaping, math, and a topic file.

FIXTURE_BANK_YAML (one question of every type, markup-like and HTML-like text, inline and display math) is also
used by the Study/Stats screen tests.
"""

from __future__ import annotations

import sqlite3
import zipfile
from pathlib import Path

import genanki
import pytest

from quizbank.loader import load_banks
from quizbank.progress import cli as progress_cli
from quizbank.progress.anki_export import MODEL_IDS, build_anki_package, write_anki
from quizbank.progress.markdown_export import render_topic, write_markdown
from quizbank.progress.render import choice_order, markdown_to_html, math_to_mathjax

FIXTURE_BANK_YAML = r"""
topics:
  - topic: fx-rope
    title: {en: "Fixture RoPE", zh: "测试 RoPE"}
    description: {en: "Rotations for tests.", zh: "测试用的旋转。"}
    order: 1
    questions:
      - id: fx.mcq
        type: mcq
        difficulty: 1
        prompt: {en: "Which pairs does RoPE rotate by $m\\theta_i$?", zh: "RoPE 按 $m\\theta_i$ 旋转哪些维度对？"}
        choices:
          - {text: {en: "Pairs $(2i, 2i+1)$", zh: "维度对 $(2i, 2i+1)$"}, correct: true, why: {en: "Each pair is a plane.", zh: "每对是一个平面。"}}
          - {text: {en: "The [bold]whole[/bold] vector", zh: "整个 [bold]向量[/bold]"}}
          - {text: {en: "Only <script>x</script> values", zh: "只有 <script>x</script>"}}
        explanation: {en: "With $$\\theta_i = b^{-2i/d}$$ each pair turns at its own speed.", zh: "$$\\theta_i = b^{-2i/d}$$，每对转速不同。"}
        sources: ["https://arxiv.org/abs/2104.09864", "Su et al. 2021"]
        follow_ups: [fx.open]
      - id: fx.multi
        type: multi
        prompt: {en: "Which are relative schemes?", zh: "哪些是相对位置编码？"}
        choices:
          - {text: {en: "T5 bias", zh: "T5 偏置"}, correct: true}
          - {text: {en: "ALiBi", zh: "ALiBi"}, correct: true}
          - {text: {en: "Sinusoidal", zh: "正弦"}}
        explanation: {en: "T5 and ALiBi add a bias to logits.", zh: "T5 和 ALiBi 在 logit 上加偏置。"}
      - id: fx.tf
        type: truefalse
        correct: true
        prompt: {en: "RoPE preserves norms.", zh: "RoPE 保持范数不变。"}
        explanation: {en: "Rotations are orthogonal.", zh: "旋转是正交变换。"}
      - id: fx.numeric
        type: numeric
        value: 0.00390625
        tolerance: 1.0e-6
        prompt: {en: "Slope of the last of 8 ALiBi heads?", zh: "8 个头时最后一个头的 ALiBi 斜率？"}
        explanation: {en: "$2^{-8}$.", zh: "$2^{-8}$。"}
        checks:
          - {demo: alibi-slopes, params: {n_heads: 8}, path: values.last_slope, expect: 0.00390625, tolerance: 1.0e-9}
      - id: fx.cloze
        type: cloze
        prompt: {en: "RoPE rotates {{1}} and {{2}}, never V.", zh: "RoPE 旋转 {{1}} 和 {{2}}，不旋转 V。"}
        blanks:
          - {accept: [Q, query]}
          - {accept: [K, key]}
        explanation: {en: "Only the logit needs positions.", zh: "只有 logit 需要位置。"}
      - id: fx.open
        type: open
        difficulty: 3
        prompt: {en: "Why does RoPE not extrapolate?", zh: "为什么 RoPE 不能外推？"}
        answer: {en: "Unseen angles at long range.", zh: "远距离出现没见过的角度。"}
        key_points:
          - {en: "Low frequencies never complete a turn in training.", zh: "低频在训练中转不满一圈。"}
        explanation: {en: "See PI, NTK and YaRN.", zh: "参见 PI、NTK 和 YaRN。"}
  - topic: fx-alibi
    title: {en: "Fixture ALiBi", zh: "测试 ALiBi"}
    order: 2
    questions:
      - id: fx.alibi-tf
        type: truefalse
        correct: false
        prompt: {en: "ALiBi adds position embeddings to the input.", zh: "ALiBi 在输入上加位置向量。"}
        explanation: {en: "It biases the logits instead.", zh: "它在 logit 上加偏置。"}
"""

FIXTURE_QUESTION_COUNT = 7


def main(argv: list[str]) -> int:
    """`posenc` with only the progress/export subcommands (the same global options as tui/cli.py)."""
    import argparse

    parser = argparse.ArgumentParser(prog="posenc")
    parser.add_argument("--bank", action="append", default=[])
    parser.add_argument("--data-dir")
    sub = parser.add_subparsers(dest="command")
    progress_cli.add_parser(sub)
    progress_cli.add_export_parser(sub)
    args = parser.parse_args(argv)
    return int(args.func(args) or 0)


def write_fixture_bank(folder: Path) -> Path:
    path = folder / "fixture_bank.yaml"
    path.write_text(FIXTURE_BANK_YAML, encoding="utf-8")
    return path


def load_fixture_bankset(folder: Path):
    bankset = load_banks([write_fixture_bank(folder)], include_shipped=False, include_user=False)
    assert not bankset.skipped and not bankset.errors, bankset.problems
    return bankset


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
    assert first == second and len(first) == len(bankset.questions)
    by_guid = {genanki.guid_for(qid): q for qid, q in bankset.questions.items()}
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
    assert "**Answer:** 0.00390625 (± 1e-06)" in rope
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
    assert "wrote" in capsys.readouterr().out
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    assert main(["export", "markdown", str(blocker)]) == 2
    assert "not a folder" in capsys.readouterr().err
