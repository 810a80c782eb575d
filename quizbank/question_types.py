"""The question types: one frozen `QuestionType` record per type, the one list of them (`QUESTION_TYPES`).

A record says everything about a type that is not its bank schema or its Textual widget: how it is answered
(`CHOICE`, `TYPED` or `SELF_GRADED`), whether its revealed answer box always shows, its mock-interview skill
and base minutes, its grader, the right answer as text (`right_answer`, the one function the answer widgets,
the mock report and the Markdown and Anki exports all show), what it shows besides its prompt (`details`:
choices, items to order, a unit, key points; the exports show these) and how its prompt is shown (`blanks`),
whether a typed answer to it is judged against key points (`judged`), whether a blind guess is right half
the time (`guessable`), and its Anki note type. It names its pydantic
model in `quizbank.schema` (`model`) and its UI label's key in `tui/strings/` (`label_key`);
`tests/quizbank/test_question_types.py` and `tests/tui/test_question_type_widgets.py` check that every type
has each of them, and its answer widget (`tui/widgets/answers`, registered with `@answer_widget(name)`).

Pure Python and light: no pydantic (the schema imports this module, never the other way round), so the
app's first screen can list the types before the banks load.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .grading import Grade, grade_choices, grade_cloze, grade_numeric, grade_truefalse

__all__ = [
    "ANSWER_MODES",
    "CHOICE",
    "DETAIL_CHOICE",
    "DETAIL_ITEM",
    "DETAIL_KEY_POINT",
    "DETAIL_ROLES",
    "DETAIL_UNIT",
    "NAMES",
    "NAMES_BY_ANSWER_MODE",
    "QUESTION_TYPES",
    "SELF_GRADED",
    "TRUE_FALSE_WORDS",
    "TYPED",
    "AnkiModel",
    "AnswerPart",
    "Detail",
    "QuestionType",
    "answer_line",
    "blank_answer",
    "details",
    "format_number",
    "question_type",
    "right_answer",
]

CHOICE = "choice"  # numbered choices: keys 1-9, arrows, Enter
TYPED = "typed"  # one or more text fields, graded on Space or Enter
SELF_GRADED = "self"  # answered in one's head (or typed and judged), then graded by the candidate
ANSWER_MODES = (CHOICE, TYPED, SELF_GRADED)

# the words of a true/false question's answer, in every place that shows it
TRUE_FALSE_WORDS: dict[bool, dict[str, str]] = {
    True: {"en": "True", "zh": "正确"},
    False: {"en": "False", "zh": "错误"},
}


@dataclass(frozen=True)
class AnswerPart:
    """One piece of a question's right answer in one language, as bank text (Markdown and `$math$` as
    written): a correct choice (`choice`: its index in the bank's order), a blank (`blank`: its number, from
    1), or the whole answer (a value with its tolerance and unit, "True")."""

    text: str
    choice: int | None = None
    blank: int | None = None

    @property
    def line(self) -> str:
        """The part on its own: a blank's number goes in front (`[1] query`)."""
        return f"[{self.blank}] {self.text}" if self.blank is not None else self.text


# what a question shows besides its prompt and its right answer: a `Detail`'s role
DETAIL_CHOICE = "choice"  # under the prompt, lettered; right or not as `right_answer` says (its `choice`)
DETAIL_ITEM = "item"  # under the prompt, numbered from 1 in the bank's order (e.g. items to put in order)
DETAIL_UNIT = "unit"  # under the prompt: the unit the answer is in
DETAIL_KEY_POINT = "key_point"  # with the answer: a point a good answer makes
DETAIL_ROLES = (DETAIL_CHOICE, DETAIL_ITEM, DETAIL_UNIT, DETAIL_KEY_POINT)


@dataclass(frozen=True)
class Detail:
    """One thing a question shows besides its prompt and its right answer, as the bank gives it: `text` (and
    a choice's `why`) a schema `Text` in every language, or plain text. `role` (DETAIL_ROLES) says where and
    how it shows; a choice's index in the bank's order is its place among the question's choice details."""

    role: str
    text: Any
    why: Any = None  # a choice's reason, shown with the answer


def _no_details(question: Any) -> tuple[Detail, ...]:
    return ()


@dataclass(frozen=True)
class AnkiModel:
    """A type's Anki note type: `id` is fixed forever (Anki matches note types by id); `front` and `back`
    are the card templates over `fields` (`ANKI_CLOZE_FIELDS` for Anki's own cloze type, `cloze=True`)."""

    id: int
    front: str
    back: str
    cloze: bool = False

    @property
    def fields(self) -> tuple[str, ...]:
        return ANKI_CLOZE_FIELDS if self.cloze else ANKI_FIELDS


@dataclass(frozen=True)
class QuestionType:
    """Everything about one question type outside its schema model and its widget (see the module)."""

    name: str  # the bank's `type:`
    model: str  # its pydantic model's name in quizbank.schema (whose `type` is Literal[name])
    answered: str  # CHOICE, TYPED or SELF_GRADED
    answer_box: bool  # the revealed view shows the answer box even when the bank gives no `answer:` text
    skill: str  # the mock interview's skill (quizbank.mock.planner.SKILLS)
    minutes: tuple[float, float]  # the mock's budget: minutes at difficulty 1, and per step above it
    right_answer: Callable[[Any, str], tuple[AnswerPart, ...]]  # (question, "en" | "zh") -> the right answer
    grader: Callable[..., Grade] | None  # quizbank.grading: (question, what was entered) -> Grade; None: self
    anki: AnkiModel
    # (question) -> what it shows besides its prompt and right answer (`Detail`s), in the order shown
    details: Callable[[Any], tuple[Detail, ...]] = _no_details
    blanks: bool = False  # its prompt holds numbered blanks `{{n}}`, shown as `____ (n)` until answered
    # answered in words and judged against its key points (quizbank.judge); the mock scores it by the share
    # of key points covered (quizbank.mock.report.OPEN_PASS) and plans one as the something-to-explain
    judged: bool = False
    guessable: bool = False  # a blind guess is right half the time: the mock's warm-up avoids it
    tagged_skill: bool = False  # its tags may make it a derivation or coding item (quizbank.mock.planner)
    article: str = "a"  # "a numeric question", "an mcq question" (bank validation messages)

    @property
    def label_key(self) -> str:
        """Its label's key in tui/strings/ (en and zh)."""
        return f"type.{self.name}"


def format_number(value: float) -> str:
    """A value or tolerance as every place shows it: six significant digits (`0.00390625`, `1e-06`)."""
    return f"{value:.6g}"


def blank_answer(blank: Any) -> str:
    """A cloze blank's answer as shown: its first accepted answer without a backslash (a LaTeX spelling
    reads worse than `θ`), else the first with its backslashes dropped."""
    readable = [a for a in blank.accept if "\\" not in a]
    return readable[0] if readable else blank.accept[0].replace("\\", "")


# ---------------------------------------------------------------------------------------------------- answers


def _in(text: Any, lang: str) -> str:
    """A schema `Text` in `lang` (a plain string as it is)."""
    return text if isinstance(text, str) else text.get(lang)


def _choices_answer(question: Any, lang: str) -> tuple[AnswerPart, ...]:
    return tuple(AnswerPart(_in(c.text, lang), choice=i) for i, c in enumerate(question.choices) if c.correct)


def _truefalse_answer(question: Any, lang: str) -> tuple[AnswerPart, ...]:
    return (AnswerPart(TRUE_FALSE_WORDS[bool(question.correct)][lang]),)


def _numeric_answer(question: Any, lang: str) -> tuple[AnswerPart, ...]:
    if question.value is None:  # a generated question's template: each showing has its own value
        return ()
    text = format_number(question.value)
    if question.tolerance:
        text += f" ± {format_number(question.tolerance)}"
    if question.unit:
        text += f" {_in(question.unit, lang)}"
    return (AnswerPart(text),)


def _cloze_answer(question: Any, lang: str) -> tuple[AnswerPart, ...]:
    return tuple(AnswerPart(blank_answer(b), blank=n) for n, b in enumerate(question.blanks, start=1))


def _open_answer(question: Any, lang: str) -> tuple[AnswerPart, ...]:
    return ()  # its answer is the model answer (`answer:`) and the key points


# ---------------------------------------------------------------------------------------------------- details


def _choices_details(question: Any) -> tuple[Detail, ...]:
    return tuple(Detail(DETAIL_CHOICE, c.text, why=c.why) for c in question.choices)


def _unit_details(question: Any) -> tuple[Detail, ...]:
    return (Detail(DETAIL_UNIT, question.unit),) if question.unit else ()


def _key_point_details(question: Any) -> tuple[Detail, ...]:
    return tuple(Detail(DETAIL_KEY_POINT, point) for point in question.key_points)


# ---------------------------------------------------------------------------------------------------- Anki

ANKI_FIELDS = ("Prompt", "Details", "Answer", "Explanation", "Sources", "QuestionId", "Topic")
ANKI_CLOZE_FIELDS = ("Text", "Answer", "Explanation", "Sources", "QuestionId", "Topic")
_META = '<div class="meta">{{Topic}} · {{QuestionId}}</div>'
_PROMPT = '<div class="prompt">{{Prompt}}</div>'
_BACK = (
    '{{FrontSide}}<hr id="answer"><div class="answer">{{Answer}}</div>'
    '{{#Explanation}}<div class="explanation">{{Explanation}}</div>{{/Explanation}}'
    '{{#Sources}}<div class="sources">{{Sources}}</div>{{/Sources}}'
)
_CLOZE_FRONT = _META + '<div class="prompt">{{cloze:Text}}</div>'


# ---------------------------------------------------------------------------------------------------- the types

QUESTION_TYPES: tuple[QuestionType, ...] = (
    QuestionType(
        name="open",
        model="OpenQuestion",
        answered=SELF_GRADED,
        answer_box=True,
        skill="concept",
        tagged_skill=True,
        minutes=(3.0, 1.0),
        right_answer=_open_answer,
        details=_key_point_details,
        judged=True,
        grader=None,  # the candidate grades it; quizbank.judge suggests which key points were covered
        anki=AnkiModel(
            1_739_210_001,
            _META + _PROMPT,
            _BACK.replace(
                '<div class="answer">{{Answer}}</div>', '<div class="answer">{{Answer}}</div>{{Details}}'
            ),
        ),
        article="an",
    ),
    QuestionType(
        name="mcq",
        model="McqQuestion",
        answered=CHOICE,
        answer_box=False,
        skill="concept",
        minutes=(1.5, 0.5),
        right_answer=_choices_answer,
        details=_choices_details,
        grader=grade_choices,
        anki=AnkiModel(1_739_210_002, _META + _PROMPT + "{{Details}}", _BACK),
        article="an",
    ),
    QuestionType(
        name="multi",
        model="MultiQuestion",
        answered=CHOICE,
        answer_box=False,
        skill="concept",
        minutes=(1.5, 0.5),
        right_answer=_choices_answer,
        details=_choices_details,
        grader=grade_choices,
        anki=AnkiModel(
            1_739_210_003,
            _META + _PROMPT + '<div class="hint">Choose all that apply.</div>{{Details}}',
            _BACK,
        ),
    ),
    QuestionType(
        name="truefalse",
        model="TrueFalseQuestion",
        answered=CHOICE,
        answer_box=False,
        skill="concept",
        minutes=(1.5, 0.5),
        right_answer=_truefalse_answer,
        guessable=True,
        grader=grade_truefalse,
        anki=AnkiModel(1_739_210_004, _META + _PROMPT + '<div class="hint">True or false?</div>', _BACK),
    ),
    QuestionType(
        name="numeric",
        model="NumericQuestion",
        answered=TYPED,
        answer_box=True,
        skill="computation",
        minutes=(2.5, 1.0),
        right_answer=_numeric_answer,
        details=_unit_details,
        grader=grade_numeric,
        anki=AnkiModel(
            1_739_210_005,
            _META + _PROMPT + '{{#Details}}<div class="hint">{{Details}}</div>{{/Details}}',
            _BACK,
        ),
    ),
    QuestionType(
        name="cloze",
        model="ClozeQuestion",
        answered=TYPED,
        answer_box=True,
        skill="computation",
        minutes=(2.5, 1.0),
        right_answer=_cloze_answer,
        blanks=True,
        grader=grade_cloze,
        anki=AnkiModel(1_739_210_006, _CLOZE_FRONT, _BACK.replace("{{FrontSide}}", _CLOZE_FRONT), cloze=True),
    ),
)

NAMES: tuple[str, ...] = tuple(t.name for t in QUESTION_TYPES)
# the order the Quiz setup lists them in: choice types, then typed ones, then self-graded ones
NAMES_BY_ANSWER_MODE: tuple[str, ...] = tuple(
    t.name for t in sorted(QUESTION_TYPES, key=lambda t: ANSWER_MODES.index(t.answered))
)
_BY_NAME = {t.name: t for t in QUESTION_TYPES}


def question_type(name: str) -> QuestionType:
    """The record of type `name`; KeyError naming the types for any other name."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown question type {name!r}; the types are {', '.join(NAMES)}") from None


def right_answer(question: Any, lang: str) -> tuple[AnswerPart, ...]:
    """The right answer of `question` in `lang` ("en" or "zh"), in parts (empty for an open question, whose
    answer is its model answer)."""
    return question_type(question.type).right_answer(question, lang)


def details(question: Any) -> tuple[Detail, ...]:
    """What `question` shows besides its prompt and its right answer (its type's `details`)."""
    return question_type(question.type).details(question)


def answer_line(question: Any, lang: str) -> str:
    """The right answer on one line: its parts joined by "; " ("" when it has none)."""
    return "; ".join(part.line for part in right_answer(question, lang))
