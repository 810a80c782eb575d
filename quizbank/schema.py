"""The question-bank schema (pydantic v2). Imports neither torch nor textual.

A bank file is a mapping, either one topic::

    topic: rope
    title: {en: RoPE, zh: 旋转位置编码}
    questions: [...]

or several::

    topics:
      - topic: rope
        title: ...
        questions: [...]

See docs/bank-format.md for the full format.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    StrictBool,
    StrictInt,
    field_validator,
    model_validator,
)

from .question_types import NAMES

LANGS: tuple[str, ...] = ("en", "zh")
ID_PATTERN = r"^[a-z0-9][a-z0-9._-]*$"
BLANK_RE = re.compile(r"\{\{(\d+)\}\}")
_EXPONENT_NUMBER = re.compile(r"[+-]?\d+(\.\d*)?[eE][+-]?\d+")
ParamValue = int | float | bool | str
# A number as written in YAML: an int or a float, never quoted text, true/false, .inf or .nan
# (an infinite tolerance would make a check pass whatever the demo computes).
FiniteNumber = Annotated[float, Field(strict=True, allow_inf_nan=False)]
# An accepted cloze answer or a tag: text with something visible in it.
NonBlankText = Annotated[str, Field(pattern=r"\S")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)


class Text(_Strict):
    """Localized text. In YAML: `{en: ..., zh: ...}`, or a plain string meaning English only."""

    en: str | None = None
    zh: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_plain_string(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"en": data}
        return data

    @model_validator(mode="after")
    def _not_empty(self) -> Text:
        if not (self.en and self.en.strip()) and not (self.zh and self.zh.strip()):
            raise ValueError("text needs at least one language (en or zh) with non-empty text")
        return self

    def get(self, lang: str) -> str:
        """The text in `lang`, falling back to the other language."""
        value = getattr(self, lang, None)
        if value:
            return value
        return self.en or self.zh or ""

    def has(self, lang: str) -> bool:
        value = getattr(self, lang, None)
        return bool(value and value.strip())

    def languages(self) -> set[str]:
        return {lang for lang in LANGS if self.has(lang)}


def _check_pattern(value: str) -> str:
    """A judge pattern (quizbank/judge/patterns.py) that parses; the message names the column."""
    from .judge.patterns import PatternError, parse_pattern

    try:
        parse_pattern(value)
    except PatternError as exc:
        raise ValueError(f"pattern {value!r}: {exc} (column {exc.col})") from None
    return value


JudgePattern = Annotated[str, Field(pattern=r"\S", max_length=300), AfterValidator(_check_pattern)]


class Misconception(_Strict):
    """A wrong statement candidates make about a key point: the patterns that state it (`match`), the
    statement (`claim`) and a short `correction`, each in en and zh (docs/bank-format.md)."""

    claim: Text
    match: list[JudgePattern] = Field(min_length=1, max_length=20)
    correction: Text


class KeyPoint(Text):
    """A key point of an open question. The judge (quizbank/judge) marks it covered when one of its
    `accept` patterns (or older `match` terms, read as patterns) holds in a sentence of the answer, or the
    answer restates it; contradicted when one of its `misconceptions` does (docs/bank-format.md)."""

    match: list[JudgePattern] = Field(default_factory=list)
    accept: list[JudgePattern] = Field(default_factory=list, max_length=40)
    misconceptions: list[Misconception] = Field(default_factory=list, max_length=10)


ExpectedVerdict = Literal["covered", "contradicted", "not_found"]


class JudgeExample(_Strict):
    """A typed answer with the verdict the judge must give each key point (checked by `bank validate`).
    `kind` says what the example shows: strong, paraphrase, partial, wrong, offtopic, zh, trap."""

    answer: Annotated[str, Field(pattern=r"\S", max_length=4000)]
    expect: list[ExpectedVerdict] = Field(min_length=1)
    kind: Literal["strong", "paraphrase", "partial", "wrong", "offtopic", "zh", "trap"] | None = None


class DemoRef(_Strict):
    """A posenc_ref demo shown beside the answer."""

    name: str
    params: dict[str, ParamValue] = Field(default_factory=dict)


MAX_INDEX_DIGITS = 9  # an index in a result path: a list position, never a 4,300-digit number
MAX_VARY_STEPS = 1_000_000  # a stepped vary range: (hi - lo) / step


def _result_path(path: str) -> str:
    longest = max((len(run) for run in re.findall(r"\d+", path)), default=0)
    if longest > MAX_INDEX_DIGITS:
        raise ValueError(
            f"a number in the path has {longest:,} digits; an index has at most {MAX_INDEX_DIGITS}"
        )
    return path


# A path into a demo result (quizbank.checks.parse_path); its indices are small whole numbers.
ResultPath = Annotated[str, Field(max_length=500), AfterValidator(_result_path)]


class CheckSpec(_Strict):
    """Re-run a demo and compare one number in its result with `expect`.

    `path` points into the demo result: `values.NAME` (or just `NAME`),
    `tables[0].rows[2][1]`, `checks[1].max_abs_error`, ...
    """

    demo: str
    params: dict[str, ParamValue] = Field(default_factory=dict)
    path: ResultPath
    expect: FiniteNumber
    tolerance: FiniteNumber = Field(default=1e-6, ge=0)


class Choice(_Strict):
    text: Text
    correct: StrictBool = False
    why: Text | None = None


class Blank(_Strict):
    """One cloze blank: every accepted answer (matched case-insensitively, spaces ignored)."""

    accept: list[NonBlankText] = Field(min_length=1)


class _QuestionBase(_Strict):
    id: Annotated[str, Field(pattern=ID_PATTERN, max_length=120)]
    prompt: Text
    explanation: Text
    answer: Text | None = None
    difficulty: StrictInt = Field(default=2, ge=1, le=3)
    tags: list[NonBlankText] = Field(default_factory=list)
    sources: list[NonBlankText] = Field(default_factory=list)
    follow_ups: list[str] = Field(default_factory=list)
    demo: DemoRef | None = None
    checks: list[CheckSpec] = Field(default_factory=list)
    drill: str | None = None  # a coding drill name (quizbank.drills.DRILL_NAMES)
    hints: list[Text] = Field(default_factory=list, max_length=5)  # progressive, shown one at a time
    # ids of merged-away questions whose progress moves to this one (an id may be replaced once)
    replaces: list[Annotated[str, Field(pattern=ID_PATTERN, max_length=120)]] = Field(default_factory=list)

    def text_fields(self) -> list[Text]:
        """Every localized field, for language coverage and search."""
        fields: list[Text] = [self.prompt, self.explanation, *self.hints]
        if self.answer is not None:
            fields.append(self.answer)
        return fields


class OpenQuestion(_QuestionBase):
    type: Literal["open"]
    answer: Text
    key_points: list[KeyPoint] = Field(min_length=1)
    examples: list[JudgeExample] = Field(default_factory=list, max_length=20)

    @model_validator(mode="after")
    def _examples_fit_the_points(self) -> OpenQuestion:
        for i, example in enumerate(self.examples):
            if len(example.expect) != len(self.key_points):
                raise ValueError(
                    f"examples[{i}].expect has {len(example.expect)} verdicts for {len(self.key_points)} key points"
                )
        return self

    def text_fields(self) -> list[Text]:
        return super().text_fields() + list(self.key_points)


class _ChoiceQuestion(_QuestionBase):
    choices: list[Choice] = Field(min_length=2, max_length=9)

    def text_fields(self) -> list[Text]:
        out = super().text_fields()
        for c in self.choices:
            out.append(c.text)
            if c.why is not None:
                out.append(c.why)
        return out

    def correct_indices(self) -> list[int]:
        return [i for i, c in enumerate(self.choices) if c.correct]

    @model_validator(mode="after")
    def _distinct_choices(self) -> _ChoiceQuestion:
        for lang in LANGS:
            first: dict[str, int] = {}
            for i, choice in enumerate(self.choices):
                if not choice.text.has(lang):
                    continue
                key = " ".join(choice.text.get(lang).split()).casefold()
                if key in first:
                    raise ValueError(
                        f"choices {first[key] + 1} and {i + 1} have the same {lang} text "
                        f"{choice.text.get(lang)!r}; every choice must read differently"
                    )
                first[key] = i
        return self


class McqQuestion(_ChoiceQuestion):
    type: Literal["mcq"]

    @model_validator(mode="after")
    def _exactly_one(self) -> McqQuestion:
        n = len(self.correct_indices())
        if n != 1:
            raise ValueError(f"an mcq question needs exactly one choice with correct: true (found {n})")
        return self


class MultiQuestion(_ChoiceQuestion):
    type: Literal["multi"]

    @model_validator(mode="after")
    def _at_least_one(self) -> MultiQuestion:
        if not self.correct_indices():
            raise ValueError("a multi question needs at least one choice with correct: true")
        return self


class TrueFalseQuestion(_QuestionBase):
    type: Literal["truefalse"]
    correct: StrictBool


# A parameter name drawn by `vary` (also how `{name}` placeholders and bounds refer to it).
VaryName = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=40)]


def _vary_bound(value: Any) -> Any:
    """A range end: a finite number, or text that is an expression over parameter names (`n_heads`,
    `dim/2 - 1`; quizbank/arithmetic.py). Which names exist is checked with the whole `vary`."""
    from .arithmetic import check_syntax

    if isinstance(value, str):
        try:
            check_syntax(value)
        except ValueError as exc:
            shown = value if len(value) <= 40 else value[:37] + "..."
            raise ValueError(f"bound {shown!r} is not arithmetic of earlier parameters: {exc}") from None
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        shown = {True: "true", False: "false"}[value] if isinstance(value, bool) else type(value).__name__
        raise ValueError(
            f"a bound is a number, an earlier parameter or arithmetic such as dim/2 - 1, got {shown}"
        )
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"a bound must be a finite number, got {value}")
    return value


# A bound of an int or float range: a number, an earlier parameter (`n_heads`) or arithmetic over
# earlier parameters (`dim/2 - 1`).
VaryBound = Annotated[Any, PlainValidator(_vary_bound)]
VaryChoice = StrictInt | FiniteNumber | NonBlankText


class VaryParam(_Strict):
    """One parameter drawn per showing: `{int: [lo, hi]}`, `{float: [lo, hi]}` (with `step:` or
    `log: true` for either), or `{choices: [...]}`. Bounds are inclusive and may name an earlier
    parameter. See quizbank/generated/draw.py for how a value is drawn."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    int_: list[VaryBound] | None = Field(default=None, alias="int", min_length=2, max_length=2)
    float_: list[VaryBound] | None = Field(default=None, alias="float", min_length=2, max_length=2)
    choices: list[VaryChoice] | None = Field(default=None, min_length=2, max_length=64)
    step: FiniteNumber | None = Field(default=None, gt=0)
    log: StrictBool = False

    @property
    def kind(self) -> str:
        return "int" if self.int_ is not None else "float" if self.float_ is not None else "choices"

    @property
    def bounds(self) -> list[Any]:
        return list(self.int_ if self.int_ is not None else self.float_ or [])

    @model_validator(mode="after")
    def _one_kind(self) -> VaryParam:
        kinds = [k for k, v in (("int", self.int_), ("float", self.float_), ("choices", self.choices)) if v]
        if len(kinds) != 1:
            found = " and ".join(kinds) if kinds else "none"
            raise ValueError(
                f"a vary parameter is exactly one of int: [lo, hi], float: [lo, hi] or choices: [...] "
                f"(found {found})"
            )
        if self.choices is not None and (self.step is not None or self.log):
            raise ValueError("step and log apply to int and float ranges, not to choices")
        if self.step is not None and self.log:
            raise ValueError(
                "a range is drawn either in steps (step:) or on a log scale (log: true), not both"
            )
        if self.int_ is not None:
            for bound in self.int_:
                if isinstance(bound, float):
                    raise ValueError(
                        f"int bounds are whole numbers or expressions of parameters, got {bound:g}"
                    )
            if self.step is not None and not float(self.step).is_integer():
                raise ValueError(f"an int range steps by a whole number, got step {self.step:g}")
        literal = [b for b in self.bounds if isinstance(b, int | float) and not isinstance(b, bool)]
        if len(literal) == 2:
            lo, hi = (float(b) for b in literal)
            if not math.isfinite(hi - lo):
                raise ValueError(f"the range [{lo:g}, {hi:g}] is wider than a float holds")
            if self.step is not None and (hi - lo) / self.step > MAX_VARY_STEPS:
                raise ValueError(
                    f"the range [{lo:g}, {hi:g}] in steps of {self.step:g} has more than "
                    f"{MAX_VARY_STEPS:,} steps; take a larger step or a smaller range"
                )
        if self.choices is not None:
            seen: list[Any] = []
            for choice in self.choices:
                if choice in seen:
                    raise ValueError(f"choices lists {choice!r} twice")
                seen.append(choice)
        return self


class LiveAnswer(_Strict):
    """A generated question's answer: one number in a demo result, recomputed for every instance.
    `params` values and `path` may use the question's `{name}` placeholders."""

    demo: str
    params: dict[str, ParamValue] = Field(default_factory=dict)
    path: ResultPath
    rel_tol: FiniteNumber | None = Field(default=None, ge=0)
    abs_tol: FiniteNumber | None = Field(default=None, ge=0)

    @field_validator("rel_tol", "abs_tol", mode="before")
    @classmethod
    def _yaml11_exponent(cls, value: Any) -> Any:
        # YAML 1.1 reads 1e-6 (no dot) as text; a tolerance written that way is still meant as a number
        if isinstance(value, str) and _EXPONENT_NUMBER.fullmatch(value.strip()):
            return float(value)
        return value

    @model_validator(mode="after")
    def _tolerance(self) -> LiveAnswer:
        if self.rel_tol is None and self.abs_tol is None:
            raise ValueError("an answer from a demo needs rel_tol (relative) or abs_tol (absolute), or both")
        return self

    def tolerance_for(self, value: float) -> float:
        """The absolute tolerance for `value`: the larger of abs_tol and rel_tol·|value|."""
        return max(self.abs_tol or 0.0, (self.rel_tol or 0.0) * abs(value))


class NumericQuestion(_QuestionBase):
    """A number: either fixed (`value`, `tolerance`, backed by a check) or generated (`vary` plus an
    `answer: {demo, params, path, rel_tol|abs_tol}` taken from a demo result for each instance; in
    Python that answer is `live_answer`, so `answer` stays the optional explanation text)."""

    type: Literal["numeric"]
    value: FiniteNumber | None = None
    tolerance: FiniteNumber | None = Field(default=None, ge=0)
    unit: Text | None = None  # `{en: tokens, zh: 个 token}`, or plain text meaning English only
    vary: dict[VaryName, VaryParam] | None = Field(default=None, min_length=1, max_length=12)
    live_answer: LiveAnswer | None = None
    # why `vary` cannot give MIN_DISTINCT_ANSWERS distinct answers in the 8 validation draws
    few_answers: Annotated[str, Field(pattern=r"\S", max_length=300)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _answer_from_demo(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("answer"), dict) and "demo" in data["answer"]:
            data = dict(data)
            data["live_answer"] = data.pop("answer")
        return data

    @model_validator(mode="before")
    @classmethod
    def _blank_unit_is_none(cls, data: Any) -> Any:
        """`unit: ""` (the old template's placeholder) means no unit."""
        if isinstance(data, dict) and isinstance(data.get("unit"), str) and not data["unit"].strip():
            return {**data, "unit": None}
        return data

    def unit_in(self, lang: str) -> str:
        """The unit in `lang` (falling back to the other language), "" when there is none."""
        return self.unit.get(lang) if self.unit is not None else ""

    @property
    def generated(self) -> bool:
        """True for a question drawn fresh per showing (`vary`)."""
        return self.vary is not None

    @model_validator(mode="after")
    def _backed_by_check(self) -> NumericQuestion:
        if self.vary is not None or self.live_answer is not None:
            if self.vary is None:
                raise ValueError("an answer taken from a demo needs vary: the parameters drawn per showing")
            if self.live_answer is None:
                raise ValueError(
                    "a question with vary takes its answer from a demo: "
                    "answer: {demo: ..., params: {...}, path: ..., rel_tol: ...}"
                )
            fixed = [name for name in ("value", "tolerance") if getattr(self, name) is not None]
            if fixed:
                raise ValueError(
                    f"a generated question computes its answer per instance; remove {' and '.join(fixed)}"
                )
            if self.demo is not None:
                raise ValueError(
                    "a generated question shows its answer's demo at the instance's parameters; remove demo:"
                )
            return self
        if self.few_answers is not None:
            raise ValueError("few_answers explains a generated question's few answers; remove it (no vary)")
        for name in ("value", "tolerance"):
            if getattr(self, name) is None:
                raise ValueError(f"missing required key {name!r} (a numeric question needs it)")
        if not self.checks:
            raise ValueError("a numeric question must be backed by a check that recomputes its value")
        assert self.value is not None and self.tolerance is not None
        if not any(abs(c.expect - self.value) <= max(self.tolerance, c.tolerance) for c in self.checks):
            raise ValueError(
                f"no check expects the answer value {self.value} (within tolerance {self.tolerance})"
            )
        return self


class ClozeQuestion(_QuestionBase):
    """`prompt` holds numbered blanks `{{1}}`, `{{2}}`, ... in every language."""

    type: Literal["cloze"]
    blanks: list[Blank] = Field(min_length=1)

    @model_validator(mode="after")
    def _blanks_match_prompt(self) -> ClozeQuestion:
        expected = list(range(1, len(self.blanks) + 1))
        for lang in self.prompt.languages():
            found = sorted({int(n) for n in BLANK_RE.findall(self.prompt.get(lang))})
            if found != expected:
                raise ValueError(
                    f"the {lang} prompt has blanks {found or 'none'} but {len(self.blanks)} blank(s) are "
                    f"defined; write {{{{1}}}}..{{{{{len(self.blanks)}}}}}"
                )
        return self


# one model per record of quizbank.question_types, named by its `model` (tests/quizbank/test_question_types.py)
Question = Annotated[
    OpenQuestion | McqQuestion | MultiQuestion | TrueFalseQuestion | NumericQuestion | ClozeQuestion,
    Field(discriminator="type"),
]
QUESTION_TYPES: tuple[str, ...] = NAMES  # the registry's order (quizbank.question_types)


class Topic(_Strict):
    topic: Annotated[str, Field(pattern=ID_PATTERN, max_length=80)]
    title: Text
    description: Text | None = None
    order: StrictInt = 100
    questions: list[Question] = Field(default_factory=list)


class BankFile(_Strict):
    """A whole file: one topic inline, or a `topics:` list."""

    topics: list[Topic] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _single_topic_form(cls, data: Any) -> Any:
        if isinstance(data, dict) and "topics" not in data and "topic" in data:
            return {"topics": [data]}
        return data
