"""Structural validation of one bank file: pydantic errors placed on lines, languages, demo references.

Nothing here imports torch: demo references are checked against the registry's declared specs
(`posenc_ref.demos.get_demo`, `Demo.resolve_params`, `Demo.values`), which are pure Python.

Pydantic reports an error at a `loc` such as ``("topics", 0, "questions", 3, "mcq", "choices", 0,
"text")``. The loader turns that into the path of the value in the YAML data (dropping union tags
like ``"mcq"`` or ``"int"``, and the ``("topics", 0)`` that the one-topic file form adds), asks the
YAML document for that value's line and column, and rewrites pydantic's message into one a bank
author can act on.
"""

from __future__ import annotations

import difflib
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from . import schema
from .question_types import NAMES, question_type
from .schema import LANGS, BankFile, Text

Loc = tuple[str | int, ...]
# (path inside the YAML data, whether to point at the key rather than the value, message)
Finding = tuple[Loc, bool, str]

_NONE = type(None)


# -- walking the schema along a path -------------------------------------------------------------------
def _strip(ann: Any) -> tuple[Any, str | None]:
    """Drop Annotated[...] and Optional[...]; return (annotation, discriminator field or None)."""
    discriminator = None
    while True:
        origin = get_origin(ann)
        if origin is Annotated:
            args = get_args(ann)
            for meta in args[1:]:
                found = getattr(meta, "discriminator", None)
                if isinstance(found, str):
                    discriminator = found
            ann = args[0]
            continue
        if origin in (Union, types.UnionType):
            members = [a for a in get_args(ann) if a is not _NONE]
            if len(members) == 1:
                ann = members[0]
                continue
        return ann, discriminator


def _union_members(ann: Any) -> list[Any] | None:
    if get_origin(ann) in (Union, types.UnionType):
        return [a for a in get_args(ann) if a is not _NONE]
    return None


def _is_model(ann: Any) -> bool:
    return isinstance(ann, type) and issubclass(ann, BaseModel)


def _by_tag(members: list[Any], discriminator: str) -> dict[str, type[BaseModel]]:
    out: dict[str, type[BaseModel]] = {}
    for member in members:
        if _is_model(member) and discriminator in member.model_fields:
            literal = member.model_fields[discriminator].annotation
            if get_origin(literal) is Literal:
                for value in get_args(literal):
                    out[str(value)] = member
    return out


def _tag_name(member: Any) -> str:
    return member.__name__ if isinstance(member, type) else str(member)


# model fields written under another key in YAML: a generated numeric question's `answer:` mapping is
# validated as `live_answer` (schema.NumericQuestion), so its problems point at `answer`
_YAML_KEYS = {"live_answer": "answer"}


def _model_field(model: type[BaseModel], element: Any) -> Any:
    """The field `element` names, by name or by alias (`int` for VaryParam.int_)."""
    if not isinstance(element, str):
        return None
    field = model.model_fields.get(element)
    if field is None:
        field = next((f for f in model.model_fields.values() if f.alias == element), None)
    return field


class _LocInfo:
    """What a pydantic loc means: the data path, the model holding the last key, the leaf type."""

    __slots__ = ("path", "parent_model", "leaf", "union_members")

    def __init__(
        self, path: Loc, parent_model: type[BaseModel] | None, leaf: Any, union_members: list[Any] | None
    ) -> None:
        self.path = path
        self.parent_model = parent_model
        self.leaf = leaf
        # the members of a plain (non-discriminated) union whose tag was dropped from the loc
        self.union_members = union_members


def _explain_loc(loc: Loc, root: Any = BankFile) -> _LocInfo:
    ann: Any = root
    path: list[str | int] = []
    parent: type[BaseModel] | None = None
    union_members: list[Any] | None = None
    for element in loc:
        ann, discriminator = _strip(ann)
        members = _union_members(ann)
        if members is not None:
            if discriminator:
                choices = _by_tag(members, discriminator)
                if isinstance(element, str) and element in choices:
                    ann = choices[element]
                    continue
            else:
                names = {_tag_name(m): m for m in members}
                if isinstance(element, str) and element in names:
                    ann = names[element]
                    union_members = members
                    continue
        if _is_model(ann):
            parent = ann
            field = _model_field(ann, element)
            path.append(_YAML_KEYS.get(element, element) if isinstance(element, str) else element)
            ann = field.annotation if field is not None else None
            continue
        path.append(element)
        if get_origin(ann) is list:
            parent = None
            ann = get_args(ann)[0]
        elif get_origin(ann) is dict:
            parent = None
            ann = get_args(ann)[1]
        else:
            parent = None
            ann = None
    leaf = _strip(ann)[0] if ann is not None else None
    return _LocInfo(tuple(path), parent, leaf, union_members)


# -- messages -------------------------------------------------------------------------------------------------
def describe(value: Any) -> str:
    """A YAML author's name for a value's type, with the value when short."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"{'true' if value else 'false'}"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, float):
        return f"the number {value:g}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the text {shown!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def did_you_mean(word: str, options: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word, list(options), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _field_label(path: Loc) -> str:
    """`choices[1].text` for a path inside a question; the last key for anything else."""
    for i in range(len(path) - 2, -1, -1):
        if path[i] == "questions" and isinstance(path[i + 1], int):
            tail = path[i + 2 :]
            break
    else:
        tail = path[-1:] if path and isinstance(path[-1], str) else path[-2:]
    out = ""
    for element in tail:
        out += f"[{element}]" if isinstance(element, int) else (f".{element}" if out else str(element))
    return out


def _expected(leaf: Any) -> str | None:
    if leaf is Text:
        return "text: a string, or {en: ..., zh: ...}"
    if _is_model(leaf):
        return f"a mapping ({_model_noun(leaf)})"
    origin = get_origin(leaf)
    if origin is list:
        return "a list"
    if origin is dict:
        return "a mapping"
    return None


_MODEL_NOUNS = {
    "DemoRef": "a demo: {name: ..., params: {...}}",
    "CheckSpec": "a check: {demo: ..., params: {...}, path: ..., expect: ...}",
    "Choice": "a choice: {text: ..., correct: true/false, why: ...}",
    "Blank": "a blank: {accept: [...]}",
    "Topic": "a topic: {topic: ..., title: ..., questions: [...]}",
    "VaryParam": "a vary parameter: {int: [lo, hi]}, {float: [lo, hi], step: ...} or {choices: [...]}",
    "LiveAnswer": "an answer from a demo: {demo: ..., params: {...}, path: ..., rel_tol: ...}",
}


def _model_noun(model: type[BaseModel]) -> str:
    if issubclass(model, schema._QuestionBase):
        return "a question"
    return _MODEL_NOUNS.get(model.__name__, model.__name__)


def _scalar_kinds(members: list[Any]) -> str:
    names = {int: "a number", float: "a number", bool: "true/false", str: "text"}
    kinds = list(dict.fromkeys(names.get(m, _tag_name(m)) for m in members))
    return ", ".join(kinds[:-1]) + " or " + kinds[-1] if len(kinds) > 1 else kinds[0]


def _fmt_bound(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _message(error: Mapping[str, Any], info: _LocInfo) -> tuple[Loc, bool, str]:
    """(path to mark, mark the key?, message) for one pydantic error."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    value = error.get("input")
    path = info.path
    label = _field_label(path)
    lead = f"{label}: " if label else ""

    if kind == "missing":
        name = path[-1] if path else "?"
        hint = ""
        if name == "type":
            hint = f" (one of {', '.join(NAMES)})"
        elif info.parent_model is not None and issubclass(info.parent_model, schema._QuestionBase):
            qtype = info.parent_model.model_fields["type"].annotation
            qname = get_args(qtype)[0] if get_origin(qtype) is Literal else ""
            base_fields = schema._QuestionBase.model_fields
            if name not in base_fields or name == "answer":
                hint = f" ({question_type(qname).article} {qname} question needs it)" if qname else ""
        return path[:-1], False, f"missing required key {name!r}{hint}"
    if kind == "extra_forbidden":
        name = str(path[-1]) if path else "?"
        fields = (
            [_YAML_KEYS.get(n, f.alias or n) for n, f in info.parent_model.model_fields.items()]
            if info.parent_model is not None
            else []
        )
        suggestion = did_you_mean(name, fields)
        if not suggestion and fields:
            if info.parent_model is Text:
                suggestion = "; text takes the languages en and zh"
            else:
                suggestion = f"; valid keys here: {', '.join(fields)}"
        return path, True, f"unknown key {name!r}{suggestion}"
    if kind == "union_tag_not_found":
        return (
            path,
            False,
            f"missing key 'type': say which kind of question this is ({', '.join(NAMES)})",
        )
    if kind == "union_tag_invalid":
        tag = str(ctx.get("tag", ""))
        return (
            (*path, "type"),
            False,
            f"unknown question type {tag!r}{did_you_mean(tag, NAMES)}; the types are {', '.join(NAMES)}",
        )
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        expected = _expected(info.leaf) or "a mapping"
        return path, False, f"{lead}expected {expected}, got {describe(value)}"
    if kind == "list_type":
        return (
            path,
            False,
            f"{lead}expected a list, got {describe(value)} (write [a, b] or one '- item' per line)",
        )
    if kind == "string_type":
        quote = " (put it in quotes)" if isinstance(value, int | float | bool) else ""
        return path, False, f"{lead}expected text, got {describe(value)}{quote}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return path, False, f"{lead}expected a whole number, got {describe(value)}"
    if kind in ("float_type", "float_parsing"):
        return path, False, f"{lead}expected a number, got {describe(value)}"
    if kind == "finite_number":
        return path, False, f"{lead}expected a finite number, got {describe(value)}"
    if kind in ("bool_type", "bool_parsing"):
        return path, False, f"{lead}expected true or false, got {describe(value)}"
    if kind == "literal_error":
        return path, False, f"{lead}expected {ctx.get('expected', '?')}, got {describe(value)}"
    bounds = {
        "greater_than_equal": (">=", "ge"),
        "greater_than": (">", "gt"),
        "less_than_equal": ("<=", "le"),
        "less_than": ("<", "lt"),
    }
    if kind in bounds:
        symbol, key = bounds[kind]
        return path, False, f"{lead}must be {symbol} {_fmt_bound(ctx.get(key))}, got {describe(value)}"
    if kind == "too_short":
        n = ctx.get("min_length")
        return (
            path,
            False,
            f"{lead}needs at least {n} item{'s' if n != 1 else ''}, got {ctx.get('actual_length')}",
        )
    if kind == "too_long":
        n = ctx.get("max_length")
        return (
            path,
            False,
            f"{lead}takes at most {n} item{'s' if n != 1 else ''}, got {ctx.get('actual_length')}",
        )
    if kind == "string_too_long":
        return path, False, f"{lead}is longer than {ctx.get('max_length')} characters"
    if kind == "string_pattern_mismatch":
        if ctx.get("pattern") != schema.ID_PATTERN:
            return path, False, f"{lead}must not be empty or only spaces"
        return (
            path,
            False,
            f"{value!r} is not a valid id: use lowercase letters, digits, '.', '_' and '-', "
            "starting with a letter or digit",
        )
    if kind in ("value_error", "assertion_error"):
        raw = ctx.get("error")
        text = str(raw) if raw is not None else error.get("msg", "")
        for noise in ("Value error, ", "Assertion failed, "):
            text = text.removeprefix(noise)
        return path, False, f"{lead}{text}"
    return path, False, f"{lead}{error.get('msg', 'invalid value')}"


# pydantic error kinds that only say "this value has the wrong type"
TYPE_ERROR_KINDS = frozenset(
    {
        "model_type",
        "model_attributes_type",
        "dict_type",
        "list_type",
        "string_type",
        "int_type",
        "int_parsing",
        "int_from_float",
        "float_type",
        "float_parsing",
        "bool_type",
        "bool_parsing",
    }
)


def schema_findings(
    exc: ValidationError,
    single_topic: bool,
    root: Any = BankFile,
    explained: Callable[[Loc], bool] | None = None,
) -> list[Finding]:
    """Every pydantic error as (data path, mark the key?, message), merged and de-duplicated.

    `single_topic`: the file uses the one-topic form, which BankFile wraps as `topics[0]`.
    `explained(path)`: True when the YAML reader already reported the value at `path` (a refused
    tag, a value that is not a valid !!int...); a wrong-type error there would only repeat it.
    """
    findings: list[Finding] = []
    union_groups: dict[Loc, tuple[list[Any], Any]] = {}  # one message per value for union errors
    for error in exc.errors(include_url=False):
        info = _explain_loc(tuple(error["loc"]), root)
        if single_topic and info.path[:2] == ("topics", 0):
            info.path = info.path[2:]
        is_type_error = error["type"] in TYPE_ERROR_KINDS or info.union_members is not None
        if is_type_error and explained is not None and explained(info.path):
            continue
        if info.union_members is not None:
            union_groups.setdefault(info.path, (info.union_members, error.get("input")))
            continue
        findings.append(_message(error, info))
    for path, (members, value) in union_groups.items():
        label = _field_label(path)
        lead = f"{label}: " if label else ""
        findings.append((path, False, f"{lead}expected {_scalar_kinds(members)}, got {describe(value)}"))
    seen: set[Finding] = set()
    unique: list[Finding] = []
    for finding in findings:
        if finding not in seen:
            seen.add(finding)
            unique.append(finding)
    return unique


# -- languages -------------------------------------------------------------------------------------------------
# A "text shape" says where localized texts can sit under an annotation, compiled once per type so
# that walking raw data skips every field that cannot hold text (tags, params, checks...).
# ("text",) | ("model", model, ((field, shape), ...)) | ("union", field, {tag: shape}) |
# ("list", shape) | ("dict", shape) | None
_SHAPES: dict[int, tuple[Any, Any]] = {}  # id(annotation) -> (annotation, shape); keeps it alive


def _text_shape(ann: Any) -> Any:
    cached = _SHAPES.get(id(ann))
    if cached is not None and cached[0] is ann:
        return cached[1]
    _SHAPES[id(ann)] = (ann, None)  # a guard for self-referencing models
    shape = _compile_shape(ann)
    _SHAPES[id(ann)] = (ann, shape)
    return shape


def _compile_shape(ann: Any) -> Any:
    ann, discriminator = _strip(ann)
    if ann is Text:
        return ("text",)
    members = _union_members(ann)
    if members is not None:
        if not discriminator:
            return None
        choices = {tag: _text_shape(model) for tag, model in _by_tag(members, discriminator).items()}
        return ("union", discriminator, choices) if any(choices.values()) else None
    if _is_model(ann):
        fields = tuple(
            (name, shape)
            for name, field in ann.model_fields.items()
            if (shape := _text_shape(field.annotation)) is not None
        )
        return ("model", ann, fields) if fields else None
    origin = get_origin(ann)
    if origin is list:
        item = _text_shape(get_args(ann)[0])
        return ("list", item) if item is not None else None
    if origin is dict:
        item = _text_shape(get_args(ann)[1])
        return ("dict", item) if item is not None else None
    return None


def iter_texts(data: Any, ann: Any = BankFile, path: Loc = ()) -> Iterator[tuple[Loc, Any]]:
    """(path, raw value) of every localized text in raw bank data, following the schema."""
    if ann is BankFile and isinstance(data, dict) and "topics" not in data and "topic" in data:
        ann = schema.Topic  # the one-topic file form
    shape = _text_shape(ann)
    if shape is not None:
        yield from _walk_texts(data, shape, path)


def _walk_texts(data: Any, shape: Any, path: Loc) -> Iterator[tuple[Loc, Any]]:
    kind = shape[0]
    if kind == "text":
        yield path, data
    elif kind == "model":
        if isinstance(data, dict):
            for name, sub in shape[2]:
                if name in data:
                    yield from _walk_texts(data[name], sub, (*path, name))
    elif kind == "union":
        if isinstance(data, dict):
            sub = shape[2].get(str(data.get(shape[1])))
            if sub is not None:
                yield from _walk_texts(data, sub, path)
    elif kind == "list":
        if isinstance(data, list):
            for i, value in enumerate(data):
                yield from _walk_texts(value, shape[1], (*path, i))
    elif kind == "dict" and isinstance(data, dict):
        for key, value in data.items():
            yield from _walk_texts(value, shape[1], (*path, key))


def language_findings(data: Any, required: tuple[str, ...]) -> list[Finding]:
    """A finding for each localized text that lacks one of the `required` languages."""
    if not required:
        return []
    out: list[Finding] = []
    for path, raw in iter_texts(data):
        if isinstance(raw, str):
            if not raw.strip():
                continue  # the schema reports empty text
            missing = [lang for lang in required if lang != "en"]
            if missing:
                out.append(
                    (
                        path,
                        False,
                        f"{_field_label(path)}: plain text counts as English only; this bank needs "
                        f"{' and '.join(required)}: write {{en: ..., zh: ...}}",
                    )
                )
            continue
        if not isinstance(raw, dict):
            continue
        present = {lang for lang in LANGS if isinstance(raw.get(lang), str) and raw[lang].strip()}
        if not present:
            continue  # the schema reports text with no language
        for lang in required:
            if lang not in present:
                out.append(
                    (
                        path,
                        False,
                        f"{_field_label(path)}: missing the {lang} text (this bank needs {' and '.join(required)})",
                    )
                )
    return out


def question_self_findings(question: Any) -> list[Finding]:
    """Rules inside one question that the schema does not state."""
    out: list[Finding] = []
    for i, target in enumerate(question.follow_ups):
        if target == question.id:
            out.append((("follow_ups", i), False, f"follow_ups lists the question itself ({target!r})"))
    for i, old in enumerate(question.replaces):
        if old == question.id:
            out.append((("replaces", i), False, f"replaces lists the question itself ({old!r})"))
    return out


def replaces_findings(
    replacing: list[tuple[str, list[Any], Any]], defined: dict[str, str]
) -> list[tuple[Any, int, str]]:
    """Cross-bank `replaces:` rules. `replacing` holds (question id, its replaces list as written, where),
    in load order; `defined` maps every question id as written to where it is defined. A replaced id must
    not also be a question, and an id may be replaced only once. Returns (where, index, message)."""
    out: list[tuple[Any, int, str]] = []
    first: dict[str, str] = {}
    for qid, olds, where in replacing:
        for i, old in enumerate(olds):
            if not isinstance(old, str) or old == qid:
                continue  # the schema and question_self_findings report these
            if old in defined:
                out.append((where, i, f"replaces {old!r}, which is still a question (at {defined[old]})"))
            elif old in first and first[old] != qid:
                out.append(
                    (where, i, f"{old!r} is already replaced by {first[old]!r}; an id is replaced once")
                )
            elif old in first:
                out.append((where, i, f"replaces lists {old!r} twice"))
            else:
                first[old] = qid
    return out
