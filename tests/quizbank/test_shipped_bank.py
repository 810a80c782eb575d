"""The shipped bank (quizbank/data/*.yaml): loads clean, bilingual, broad, and every check passes."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from support.paths import ROOT

from quizbank.loader import load_banks, shipped_bank_dir
from quizbank.schema import LANGS, QUESTION_TYPES
from quizbank.stats import bank_stats, question_languages


def test_shipped_files_exist():
    files = sorted(shipped_bank_dir().glob("*.yaml"))
    assert files, "quizbank/data/ holds no *.yaml files"


def test_shipped_bank_loads_with_no_problems(shipped):
    assert [str(p) for p in shipped.problems] == []
    assert shipped.skipped == []
    assert set(shipped.file_kind.values()) == {"shipped"}


def test_every_text_has_both_languages(shipped):
    missing = [qid for qid, q in shipped.questions.items() if question_languages(q) != set(LANGS)]
    assert missing == []
    for topic in shipped.topics:
        assert topic.title.has("en") and topic.title.has("zh"), topic.id
        if topic.description is not None:
            assert topic.description.has("en") and topic.description.has("zh"), topic.id


def test_size_and_coverage(shipped):
    stats = bank_stats(shipped)
    assert stats["questions"] >= 150
    assert all(stats["by_type"][t] > 0 for t in QUESTION_TYPES), stats["by_type"]
    assert stats["with_demo"] >= 0.4 * stats["questions"]
    assert stats["languages"] == {"en": stats["questions"], "zh": stats["questions"]}
    assert all(stats["by_difficulty"][d] > 0 for d in ("1", "2", "3"))


def test_every_numeric_question_has_a_check_that_expects_its_value(shipped):
    for question in shipped.questions.values():
        if question.type != "numeric" or question.generated:
            continue  # a generated question computes its value per instance (tests/quizbank/test_live_questions.py)
        assert question.checks, question.id
        assert any(
            abs(c.expect - question.value) <= max(c.tolerance, question.tolerance) for c in question.checks
        )


def _answer_strings(question) -> list[str]:
    """The answers a hint must never state: a numeric's value, a cloze blank's accepted words (3+ chars)."""
    if question.type == "numeric" and question.value is not None:
        value = question.value
        return [str(int(value)) if float(value).is_integer() else repr(value)]
    if question.type == "cloze":
        return [a for blank in question.blanks for a in blank.accept if len(a.strip()) >= 3]
    return []


def test_every_computed_question_has_a_method_hint_in_both_languages(shipped):
    """Numeric, cloze and generated questions hint at the method (en and zh), never the answer."""
    computed = [
        q for q in shipped.questions.values() if q.type in ("numeric", "cloze") or getattr(q, "vary", None)
    ]
    assert len(computed) >= 130
    assert [q.id for q in computed if not q.hints] == []
    assert [q.id for q in computed if not all(h.has("en") and h.has("zh") for h in q.hints)] == []
    stating = []
    for question in computed:
        for answer in _answer_strings(question):
            pattern = re.compile(rf"(?<![\w.]){re.escape(answer)}(?![\w]|\.\d)", re.IGNORECASE)
            if any(pattern.search(question.prompt.get(lang)) for lang in LANGS):
                continue  # a number the prompt gives (a head dim of 128) is data, not the answer
            for hint in question.hints:
                if any(pattern.search(hint.get(lang)) for lang in LANGS):
                    stating.append((question.id, answer))
    assert stating == []


def test_explanations_teach(shipped):
    """Each explanation is more than a one-liner, in both languages."""
    short = [
        qid
        for qid, q in shipped.questions.items()
        if len(q.explanation.get("en").split()) < 12 or len(q.explanation.get("zh")) < 20
    ]
    assert short == []


def test_follow_ups_and_demo_links_resolve(shipped):
    for qid, question in shipped.questions.items():
        for target in question.follow_ups:
            assert target in shipped.questions, (qid, target)
        if question.demo is not None:
            assert qid in shipped.demo_origin


def test_demos_and_checks_stay_well_inside_the_memory_budget(shipped):
    """The shipped bank must run for a user with a quarter of the default budget, and a slightly
    larger memory estimate in posenc_ref must not push a shipped check over the limit."""
    from posenc_ref.demos import DEFAULT_MEMORY_BUDGET_MIB, get_demo

    limit = DEFAULT_MEMORY_BUDGET_MIB * 2**20 // 4
    heavy = []
    for qid, question in shipped.questions.items():
        refs = [(c.demo, c.params) for c in question.checks]
        if question.demo is not None:
            refs.append((question.demo.name, question.demo.params))
        for name, params in refs:
            demo = get_demo(name)
            estimate = demo.memory_bytes(**demo.resolve_params(dict(params))) if demo.memory_bytes else 0
            if estimate > limit:
                heavy.append((qid, name, dict(params), estimate // 2**20))
    assert heavy == []


@pytest.mark.slow
def test_validate_with_every_check_is_green(tmp_path):
    env = {**os.environ, "POSENC_BANK_DIR": str(tmp_path / "no-user-banks")}
    out = subprocess.run(
        [sys.executable, "-m", "quizbank.cli", "bank", "validate"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout == ""
    assert out.stderr.startswith("ok: ")


def test_the_coding_topic_is_not_called_encoding_in_chinese() -> None:
    """编码 means "encoding" throughout this bank (位置编码); the hands-on coding topic says 代码."""
    coding = load_banks(include_user=False).topic("coding")
    assert coding is not None and coding.title.zh.startswith("代码实现") and "编码" not in coding.title.zh
