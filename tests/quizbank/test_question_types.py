"""The registry of question types (quizbank/question_types.py): every type has its schema model, a grader
(unless the candidate grades it), a mock skill and budget, the right answer as text, and an Anki note type;
every list of types reads it. The UI half (widget, strings) is tests/tui/test_question_type_widgets.py."""

from __future__ import annotations

import dataclasses
import inspect
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal, get_args, get_origin

import pytest
from support.export_bank import load_fixture_bankset
from support.question_types import register_type

from quizbank import grading, schema
from quizbank.exports.anki import MODEL_IDS, _models, build_anki_package
from quizbank.exports.markdown import render_topic
from quizbank.exports.render import text_in
from quizbank.grading import Grade
from quizbank.mock.planner import SKILLS, base_minutes, skill_of
from quizbank.mock.report import is_missed, model_answer
from quizbank.question_types import (
    ANSWER_MODES,
    DETAIL_ITEM,
    NAMES,
    NAMES_BY_ANSWER_MODE,
    QUESTION_TYPES,
    SELF_GRADED,
    AnswerPart,
    Detail,
    answer_line,
    question_type,
    right_answer,
)
from quizbank.stats import bank_stats

# what a candidate enters to answer each fixture question (tests/support/export_bank.py) right
RIGHT_ENTRIES: dict[str, Any] = {
    "mcq": {0},
    "multi": {0, 1},
    "truefalse": True,
    "numeric": "2^-8",
    "cloze": ["q", " K "],
}


@pytest.fixture(scope="module")
def bankset(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return load_fixture_bankset(tmp_path_factory.mktemp("bank"))


@pytest.fixture(scope="module")
def questions(bankset: Any) -> dict[str, Any]:
    """One fixture question per type, by type name."""
    out: dict[str, Any] = {}
    for question in bankset.questions.values():
        out.setdefault(question.type, question)
    return out


def _union_models() -> list[type]:
    union = get_args(schema.Question)[0]
    return list(get_args(union))


def test_every_type_has_its_schema_model_and_the_union_holds_no_other() -> None:
    assert len(set(NAMES)) == len(NAMES) == len(QUESTION_TYPES)
    for kind in QUESTION_TYPES:
        model = getattr(schema, kind.model, None)
        assert model is not None, f"{kind.name}: quizbank.schema has no {kind.model}"
        annotation = model.model_fields["type"].annotation
        assert get_origin(annotation) is Literal and get_args(annotation) == (kind.name,), kind.name
        assert model in _union_models(), f"{kind.model} is not in schema.Question"
    assert sorted(m.__name__ for m in _union_models()) == sorted(k.model for k in QUESTION_TYPES)


def test_every_list_of_types_is_the_registry() -> None:
    assert schema.QUESTION_TYPES == NAMES == ("open", "mcq", "multi", "truefalse", "numeric", "cloze")
    assert set(MODEL_IDS) == set(NAMES)
    # the Quiz setup lists choice types, then typed ones, then the self-graded one
    assert NAMES_BY_ANSWER_MODE == ("mcq", "multi", "truefalse", "numeric", "cloze", "open")
    with pytest.raises(KeyError, match="unknown question type 'essay'; the types are open, mcq"):
        question_type("essay")


def test_stats_count_every_type_in_the_registry_order(bankset: Any) -> None:
    by_type = bank_stats(bankset)["by_type"]
    assert list(by_type) == list(NAMES) and by_type == dict.fromkeys(NAMES, 1) | {"truefalse": 2}


def test_every_type_is_answered_and_graded(questions: dict[str, Any]) -> None:
    """A type the candidate does not grade has a pure grader in quizbank.grading that marks its right answer
    correct (a type without an entry in RIGHT_ENTRIES fails here: add one)."""
    for kind in QUESTION_TYPES:
        assert kind.answered in ANSWER_MODES, kind.name
        if kind.answered == SELF_GRADED:
            assert kind.grader is None, kind.name
            continue
        assert kind.grader is not None, f"{kind.name} has no grader"
        assert inspect.getmodule(kind.grader) is grading, (
            f"{kind.name}: its grader belongs in quizbank.grading"
        )
        grade = kind.grader(questions[kind.name], RIGHT_ENTRIES[kind.name])
        assert isinstance(grade, Grade) and grade.correct is True, (kind.name, grade)


def test_the_right_answer_as_text(questions: dict[str, Any]) -> None:
    assert right_answer(questions["mcq"], "zh") == (AnswerPart("维度对 $(2i, 2i+1)$", choice=0),)
    assert [p.choice for p in right_answer(questions["multi"], "en")] == [0, 1]
    assert answer_line(questions["multi"], "en") == "T5 bias; ALiBi"
    assert [answer_line(questions["truefalse"], lang) for lang in ("en", "zh")] == ["True", "正确"]
    assert answer_line(questions["numeric"], "en") == "0.00390625 ± 1e-06"
    assert right_answer(questions["cloze"], "en") == (AnswerPart("Q", blank=1), AnswerPart("K", blank=2))
    assert answer_line(questions["cloze"], "zh") == "[1] Q; [2] K"
    assert right_answer(questions["open"], "en") == ()  # its answer is the model answer
    # the mock report shows the same words, then the bank's answer text
    assert model_answer(questions["truefalse"]) == {"en": "True", "zh": "正确"}
    assert model_answer(questions["open"])["en"] == "Unseen angles at long range."
    for kind in QUESTION_TYPES:
        for lang in ("en", "zh"):
            parts = kind.right_answer(questions[kind.name], lang)
            assert all(isinstance(p, AnswerPart) and p.text.strip() for p in parts), kind.name
            assert bool(parts) != (kind.answered == SELF_GRADED), kind.name


def test_every_type_has_a_mock_skill_and_budget(questions: dict[str, Any]) -> None:
    for kind in QUESTION_TYPES:
        assert kind.skill in SKILLS, kind.name
        assert skill_of(questions[kind.name]) == kind.skill  # the fixture's questions carry no skill tags
        first, per_step = kind.minutes
        assert first > 0 and per_step >= 0
        assert base_minutes(kind.skill, kind.name, 3) == first + 2 * per_step
    assert [question_type(n).skill for n in ("numeric", "cloze")] == ["computation", "computation"]


ANKI_FIELD = re.compile(r"\{\{[#/^]?(?:cloze:)?([^}]+)\}\}")


def test_every_type_has_its_own_anki_note_type() -> None:
    ids = [kind.anki.id for kind in QUESTION_TYPES]
    assert len(set(ids)) == len(ids) and all(10**9 < i < 2**31 for i in ids)
    models = _models()
    for kind in QUESTION_TYPES:
        model = models[kind.name]
        assert (model.model_id, model.name) == (kind.anki.id, f"posenc {kind.name}")
        for template in (kind.anki.front, kind.anki.back):
            used = set(ANKI_FIELD.findall(template)) - {"FrontSide"}
            assert used and used <= set(kind.anki.fields), (kind.name, used - set(kind.anki.fields))
        assert "{{FrontSide}}" in kind.anki.back or kind.anki.cloze, kind.name


def test_the_recipe_names_every_place_a_type_touches() -> None:
    recipe = (Path(__file__).resolve().parents[2] / "docs" / "architecture.md").read_text(encoding="utf-8")
    for place in (
        "quizbank/question_types.py",
        "quizbank/schema.py",
        "quizbank/grading.py",
        "tui/widgets/answers/",
        "@answer_widget",
        "tui/strings/",
        "docs/bank-format.md",
    ):
        assert place in recipe, place


# ---------------------------------------------------------------------------------------------------- a new type


def _in_order(question: Any, lang: str) -> tuple[AnswerPart, ...]:
    return tuple(AnswerPart(text_in(question.items[n - 1], lang)) for n in question.order)


def _note_fields(bankset: Any, qid: str, lang: str) -> list[str]:
    package, _ = build_anki_package(bankset, lang)
    return next(n.fields for d in package.decks for n in d.notes if n.fields[-2] == qid)


def test_a_new_types_details_and_blanks_show_in_both_exports(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The exports ask the registry what a question shows besides its prompt (`details`) and whether its
    prompt has blanks (`blanks`), so a type they never heard of shows: an ordering question's numbered
    items (the card could not be answered without them) and a second fill-in type's hidden blanks."""
    mcq, cloze = question_type("mcq"), question_type("cloze")
    register_type(monkeypatch, dataclasses.replace(
        mcq, name="ordering", model="OrderingQuestion", right_answer=_in_order, grader=None,
        details=lambda q: tuple(Detail(DETAIL_ITEM, item) for item in q.items),
        anki=dataclasses.replace(mcq.anki, id=1_739_219_901),
    ))  # fmt: skip
    register_type(monkeypatch, dataclasses.replace(
        cloze, name="gap", model="GapQuestion", anki=dataclasses.replace(cloze.anki, id=1_739_219_902)
    ))  # fmt: skip
    bankset = load_fixture_bankset(tmp_path)
    items = [{"en": "RoPE", "zh": "旋转"}, {"en": "YaRN", "zh": "YaRN"}, {"en": "Sinusoidal", "zh": "正弦"}]
    fields = {**dict(bankset.questions["fx.open"]), "type": "ordering", "answer": None}
    bankset.questions["fx.open"] = SimpleNamespace(**fields, items=items, order=[3, 1, 2])
    bankset.questions["fx.cloze"] = bankset.questions["fx.cloze"].model_copy(update={"type": "gap"})

    topic = bankset.topic("fx-rope")
    topic_of = dict.fromkeys(topic.question_ids, topic.id)
    markdown = render_topic(topic, bankset.questions, topic_of, "en")
    assert "\n1. RoPE\n2. YaRN\n3. Sinusoidal\n\n**Answer:** Sinusoidal; RoPE; YaRN\n" in markdown
    assert "RoPE rotates \\_\\_\\_\\_ (1) and \\_\\_\\_\\_ (2), never V." in markdown
    assert "{{1}}" not in markdown
    assert "\n1. 旋转\n2. YaRN\n3. 正弦\n" in render_topic(topic, bankset.questions, topic_of, "zh")

    prompt, details, answer, *_ = _note_fields(bankset, "fx.open", "en")
    assert details == "<ol><li>RoPE</li><li>YaRN</li><li>Sinusoidal</li></ol>"
    assert answer == "Sinusoidal; RoPE; YaRN" and prompt == "<p>Why does RoPE not extrapolate?</p>"
    assert _note_fields(bankset, "fx.open", "zh")[1] == "<ol><li>旋转</li><li>YaRN</li><li>正弦</li></ol>"
    assert (
        _note_fields(bankset, "fx.cloze", "en")[0] == "<p>RoPE rotates {{c1::Q}} and {{c2::K}}, never V.</p>"
    )


def test_a_judged_type_is_scored_by_its_key_points_in_the_mock_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The report's pass mark for a judged type is OPEN_PASS of its key points, whatever the type's name."""
    register_type(
        monkeypatch, dataclasses.replace(question_type("open"), name="essay", model="EssayQuestion")
    )
    answered = {"status": "answered", "score": 0.7}
    assert [is_missed(answered | {"qtype": t}) for t in ("open", "essay", "mcq", "drill", None)] == [
        False, False, True, True, True,
    ]  # fmt: skip
