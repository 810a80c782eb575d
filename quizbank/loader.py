"""Load question banks: the shipped bank, `--bank` paths and the user's bank folder.

Sources, in this order (the first definition of a question id wins):

1. the shipped bank, ``quizbank/data/*.yaml`` (both languages required in every text);
2. each ``--bank PATH``: a file, or a folder searched recursively for ``*.yaml`` / ``*.yml``
   (sorted; hidden folders are skipped);
3. the user bank folder, ``platformdirs.user_config_dir("posenc")/banks`` (or ``$POSENC_BANK_DIR``),
   searched the same way. Nothing is created when it does not exist.

A user or ``--bank`` file with any error is skipped as a whole and listed in ``BankSet.skipped``;
it never stops the rest from loading. A shipped file with errors is still loaded question by
question (the valid ones are kept), and its problems are reported.

Structural loading never imports torch (demo references are checked against declared specs).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter, ValidationError

from .bankfiles import (  # noqa: F401  (re-exported: the loader's public path helpers)
    BANK_SUFFIXES,
    ENV_BANK_DIR,
    SHIPPED,
    USER,
    bank_files_in,
    bank_sources,
    cache_enabled,
    display_path,
    expand_bank_paths,
    shipped_bank_dir,
    user_bank_dir,
)
from .bankset import BankSet, TopicEntry
from .generated.findings import vary_findings
from .problems import Location, Problem, has_errors
from .question_types import question_type
from .reference_findings import demo_findings, raw_demo_findings
from .schema import LANGS, BankFile, Question, Topic
from .validate import (
    Finding,
    did_you_mean,
    language_findings,
    question_self_findings,
    replaces_findings,
    schema_findings,
)

if TYPE_CHECKING:  # yaml (~90 ms to import) loads only when a file is parsed, not from the cache
    from .yamlsafe import YamlDoc

SHIPPED_LANGUAGES: tuple[str, ...] = LANGS


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: loading builds many objects and no cycles, and the
    collector's repeated scans of the growing data would otherwise cost more than the parse."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# -- one file -------------------------------------------------------------------------------------------
@dataclass
class _QuestionRecord:
    question: Any
    topic: Topic
    raw_path: tuple[str | int, ...]  # the question's path inside the YAML data
    file: _FileResult


@dataclass
class _FileResult:
    path: str
    kind: str
    doc: YamlDoc | None = None
    bank: BankFile | None = None
    records: list[_QuestionRecord] = field(default_factory=list)
    topics: list[Topic] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # every question mapping as written (valid or not), for the rules that must see them all
    raw_questions: list[tuple[tuple[str | int, ...], dict[str, Any]]] = field(default_factory=list)
    follow_ups_checked: set[tuple[str | int, ...]] = field(default_factory=set)  # by question path
    # valid questions under an invalid topic (checked, never loaded); and every valid question
    # that is the first with its id in this file (what `posenc bank validate` runs checks on)
    orphans: list[tuple[Any, tuple[str | int, ...]]] = field(default_factory=list)
    valid: list[tuple[Any, tuple[str | int, ...]]] = field(default_factory=list)

    def raw_ids(self) -> list[tuple[str, tuple[str | int, ...]]]:
        """(id, question path) for every question whose id is text, in file order."""
        return [(q["id"], where) for where, q in self.raw_questions if isinstance(q.get("id"), str)]

    def problem(self, where: tuple[str | int, ...], message: str, *, key: bool = False) -> Problem:
        if self.doc is None:
            return Problem(self.path, 0, 0, message)
        line, col = self.doc.key_mark(where) if key else self.doc.mark(where)
        return Problem(self.path, line, col, message)

    def location(self, where: tuple[str | int, ...]) -> Location:
        if self.doc is None:
            return Location(self.path)
        return Location(self.path, *self.doc.mark(where))

    def add(self, findings: Iterable[Finding], prefix: tuple[str | int, ...] = ()) -> None:
        for where, key, message in findings:
            self.problems.append(self.problem((*prefix, *where), message, key=key))


_QUESTION_ADAPTER: TypeAdapter[Any] | None = None


def _question_adapter() -> TypeAdapter[Any]:
    global _QUESTION_ADAPTER
    if _QUESTION_ADAPTER is None:
        _QUESTION_ADAPTER = TypeAdapter(Question)
    return _QUESTION_ADAPTER


def _top_level_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else "a single value"
        return (
            f"the top level must be a mapping with 'topic', 'title' and 'questions' "
            f"(or a 'topics' list), not {kind}"
        )
    if "topic" in data and "topics" in data:
        return "a file has either 'topic' (one topic) or 'topics' (a list of topics), not both"
    if "topic" not in data and "topics" not in data:
        keys = [str(k) for k in data]
        hint = ""
        for key in keys:
            close = did_you_mean(key, ["topic", "topics"])
            if close:
                hint = f"; found {key!r}{close}"
                break
        return (
            "a bank file needs 'topic' (one topic: topic, title, questions) "
            f"or 'topics' (a list of such topics){hint}"
        )
    return None


def _salvage(result: _FileResult, data: dict[str, Any], single: bool) -> None:
    """Keep the valid topics and questions of a file that failed validation as a whole.

    The shipped bank keeps them (one bad question must not hide a topic); for user files they
    are only checked further, so that one run reports every problem, and then dropped."""
    raw_topics = [data] if single else data.get("topics")
    if not isinstance(raw_topics, list):
        return
    adapter = _question_adapter()
    for ti, raw_topic in enumerate(raw_topics):
        if not isinstance(raw_topic, dict):
            continue
        try:
            topic: Topic | None = Topic.model_validate({**raw_topic, "questions": []})
        except ValidationError:
            topic = None  # its questions are still checked, then dropped
        prefix: tuple[str | int, ...] = () if single else ("topics", ti)
        raw_questions = raw_topic.get("questions")
        kept = []
        for qi, raw_question in enumerate(raw_questions if isinstance(raw_questions, list) else []):
            where = (*prefix, "questions", qi)
            try:
                question = adapter.validate_python(raw_question)
            except ValidationError:
                result.add(raw_demo_findings(raw_question), where)
                continue
            if topic is None:
                result.orphans.append((question, where))
                continue
            kept.append((qi, question))
        if topic is None:
            continue
        topic = topic.model_copy(update={"questions": [q for _, q in kept]})
        result.topics.append(topic)
        for qi, question in kept:
            result.records.append(_QuestionRecord(question, topic, (*prefix, "questions", qi), result))


def _load_file(file: Path, shown: str, kind: str, require_languages: tuple[str, ...]) -> _FileResult:
    # The last guard: whatever a file holds, it ends as a problem, never as a traceback.
    try:
        from .yamlsafe import read_yaml_file

        doc, problems = read_yaml_file(file, shown)
    except Exception as exc:  # noqa: BLE001 - a file that cannot be read is a problem reported, not a crash
        return _FileResult(shown, kind, problems=[Problem(shown, 0, 0, f"cannot read the file: {exc}")])
    try:
        return _check_doc(doc, problems, shown, kind, require_languages)
    except Exception as exc:  # pragma: no cover - a bug here must not stop the other files  # noqa: BLE001
        message = f"internal error while checking this file ({type(exc).__name__}: {exc}); please report it"
        return _FileResult(shown, kind, problems=[Problem(shown, 0, 0, " ".join(message.split()))])


def _check_doc(
    doc: YamlDoc | None, problems: list[Problem], shown: str, kind: str, require_languages: tuple[str, ...]
) -> _FileResult:
    result = _FileResult(shown, kind)
    result.doc = doc
    result.problems.extend(problems)
    if doc is None:
        return result
    data = doc.data
    top = _top_level_problem(data)
    if top is not None:
        line, col = doc.mark(())
        result.problems.append(Problem(shown, line, col, top))
        return result
    single = "topics" not in data
    result.raw_questions = _raw_questions(data)
    reader_marks = {(p.line, p.col) for p in problems}

    def explained(where: tuple[str | int, ...]) -> bool:
        return doc.has(where) and doc.mark(where) in reader_marks

    try:
        bank = BankFile.model_validate(data)
    except ValidationError as exc:
        result.add(schema_findings(exc, single, explained=explained if reader_marks else None))
        _salvage(result, data, single)  # keep checking the questions that are valid on their own
    else:
        result.bank = bank
        result.topics = list(bank.topics)
        for ti, topic in enumerate(bank.topics):
            prefix: tuple[str | int, ...] = () if single else ("topics", ti)
            for qi, question in enumerate(topic.questions):
                result.records.append(_QuestionRecord(question, topic, (*prefix, "questions", qi), result))
    result.add(language_findings(data, require_languages))
    # duplicate ids, from the data as written, so that a question failing validation still counts
    first_at: dict[str, tuple[str | int, ...]] = {}
    for qid, where in result.raw_ids():
        first = first_at.setdefault(qid, where)
        if first is not where:
            result.problems.append(
                result.problem(
                    (*where, "id"), f"duplicate id {qid!r} (also defined at {result.location(first)})"
                )
            )
    records = []
    for record in result.records:
        question = record.question
        if first_at.get(question.id) != record.raw_path:
            continue  # a duplicate, reported above
        result.add(question_self_findings(question), record.raw_path)
        result.add(demo_findings(question), record.raw_path)
        result.add(vary_findings(question), record.raw_path)
        records.append(record)
        result.valid.append((question, record.raw_path))
    result.records = records
    for question, where in result.orphans:
        if first_at.get(question.id) != where:
            continue
        result.add(question_self_findings(question), where)
        result.add(demo_findings(question), where)
        result.add(vary_findings(question), where)
        result.valid.append((question, where))
    result.problems.sort(key=lambda p: (p.line, p.col))
    return result


def load_bank_text(
    text: str,
    path: str = "<text>",
    *,
    require_languages: tuple[str, ...] = (),
) -> tuple[BankFile | None, list[Problem]]:
    """`load_bank_file` for YAML text in memory; problems name `path`."""
    with gc_paused():
        try:
            from .yamlsafe import parse_yaml_text

            doc, problems = parse_yaml_text(text, path)
        except Exception as exc:  # pragma: no cover - the last guard, as for files  # noqa: BLE001
            return None, [Problem(path, 0, 0, f"cannot read the text: {exc}")]
        result = _check_doc(doc, problems, path, USER, tuple(require_languages))
    if has_errors(result.problems):
        return None, result.problems
    return result.bank, result.problems


def load_bank_file(
    path: str | os.PathLike[str],
    *,
    require_languages: tuple[str, ...] = (),
) -> tuple[BankFile | None, list[Problem]]:
    """Load and check one bank file on its own.

    Returns (the validated file, warnings) or (None, problems) when anything is wrong: YAML, schema,
    languages (`require_languages`, e.g. ("en", "zh")), demo references, duplicate ids within
    the file. Cross-file rules (ids across files, follow_ups) need `load_banks`.
    """
    file = Path(path)
    with gc_paused():
        result = _load_file(file, display_path(file), USER, tuple(require_languages))
    if has_errors(result.problems):
        return None, result.problems
    return result.bank, result.problems


# -- many files ----------------------------------------------------------------------------------------------
def load_banks(
    extra_paths: Iterable[str | os.PathLike[str]] = (),
    *,
    include_shipped: bool = True,
    include_user: bool = True,
    user_dir: str | os.PathLike[str] | None = None,
    shipped_dir: str | os.PathLike[str] | None = None,
    shipped_languages: tuple[str, ...] = SHIPPED_LANGUAGES,
    use_cache: bool = False,
) -> BankSet:
    """Load every bank (see the module docstring) and apply the cross-file rules. With `use_cache`, a
    load of the same unchanged files as the last clean one comes from quizbank.bank_cache (and a clean
    load refreshes it)."""
    extra = list(extra_paths)
    sources, path_problems = bank_sources(
        extra,
        include_shipped=include_shipped,
        include_user=include_user,
        user_dir=user_dir,
        shipped_dir=shipped_dir,
    )
    key = None
    if use_cache and cache_enabled():
        from .bank_cache import load_key, read_cache

        key = load_key(sources, extra, tuple(shipped_languages))
        cached = read_cache(key) if key is not None else None
        if cached is not None:
            return cached
    with gc_paused():
        bankset = _load_banks(sources, path_problems, shipped_languages=tuple(shipped_languages))
    if key is not None:
        from .bank_cache import write_cache

        write_cache(bankset, key)
    return bankset


def _load_banks(
    sources: list[tuple[Path, str]], path_problems: list[Problem], *, shipped_languages: tuple[str, ...]
) -> BankSet:
    bankset = BankSet()
    for problem in path_problems:
        bankset.problems.append(problem)
        if problem.is_error:
            bankset.skipped.append((problem.path, [problem]))

    results: list[_FileResult] = []
    seen_files: set[Path] = set()
    for file, kind in sources:
        try:
            key = file.resolve()
        except OSError:
            key = file
        if key in seen_files:
            continue
        seen_files.add(key)
        languages = shipped_languages if kind == SHIPPED else ()
        result = _load_file(file, display_path(file), kind, languages)
        if kind == USER and has_errors(result.problems):
            result.records = []  # a user file with errors is skipped whole
        results.append(result)

    # ids across files, from the ids as written (a question that fails validation, or a file
    # that is skipped, still holds its id): the first definition in load order wins
    first_def: dict[str, tuple[_FileResult, tuple[str | int, ...]]] = {}
    for result in results:
        for qid, where in result.raw_ids():
            first = first_def.get(qid)
            if first is None:
                first_def[qid] = (result, where)
                continue
            first_file, first_where = first
            if first_file is result:
                continue  # within one file: reported by _check_doc
            first_at = first_file.location(first_where)
            if first_file.kind == SHIPPED and result.kind == USER:
                message = (
                    f"id {qid!r} is already used by the shipped bank at {first_at}; "
                    "pick another id (progress is kept per id)"
                )
            else:
                message = f"duplicate id {qid!r} (also defined at {first_at})"
            result.problems.append(result.problem((*where, "id"), message))

    # replaces: a replaced id is not a question, and is replaced by one question only
    defined = {qid: str(f.location(where)) for qid, (f, where) in first_def.items()}
    replacing = [
        (q["id"], q["replaces"], (result, where))
        for result in results
        for where, q in result.raw_questions
        if isinstance(q.get("id"), str) and isinstance(q.get("replaces"), list)
    ]
    for (result, where), i, message in replaces_findings(replacing, defined):
        result.problems.append(result.problem((*where, "replaces", i), message))

    owner: dict[str, _QuestionRecord] = {}
    accepted: list[_FileResult] = []
    skipped: list[_FileResult] = []
    for result in results:
        if result.kind == USER and has_errors(result.problems):
            skipped.append(result)
            continue
        for record in result.records:
            owner.setdefault(record.question.id, record)
        accepted.append(result)

    # follow_ups must point at loaded questions; skipping a user file can orphan another's links
    skipped_ids = {qid: f.path for f in skipped for qid, _ in f.raw_ids()}
    while True:
        known = {r.question.id for f in accepted for r in f.records if owner.get(r.question.id) is r}
        newly_skipped = []
        for result in accepted:
            if result.kind != USER:
                continue
            dangling = _dangling_follow_ups(result, known, skipped_ids)
            if dangling:
                result.problems.extend(dangling)
                newly_skipped.append(result)
        if not newly_skipped:
            break
        for result in newly_skipped:
            accepted.remove(result)
            skipped.append(result)
            skipped_ids.update({qid: result.path for qid, _ in result.raw_ids()})
    known = {r.question.id for f in accepted for r in f.records if owner.get(r.question.id) is r}
    for result in accepted:
        if result.kind == SHIPPED:
            result.problems.extend(_dangling_follow_ups(result, known, skipped_ids))
    # the questions not checked above (in skipped files, or failing validation): a link must at
    # least name a question that exists in some file, so that one run reports every problem
    written = sorted(first_def)
    for result in results:
        result.problems.extend(_unknown_raw_follow_ups(result, set(first_def), written))

    for result in results:
        bankset.problems.extend(result.problems)
    skipped_set = {id(r) for r in skipped}
    for result in results:
        if id(result) in skipped_set:
            bankset.skipped.append((result.path, list(result.problems)))
    for result in accepted:
        _add_file(bankset, result, owner)
    unloaded = BankSet()
    for result in skipped:
        for question, where in result.valid:
            if question.id not in unloaded.questions:
                _register(unloaded, result, question, where)
    bankset.skipped_bank = unloaded
    for qid, question in bankset.questions.items():
        for old in question.replaces:
            if old not in bankset.questions:
                bankset.replaced_by.setdefault(old, qid)
    bankset.topics.sort(key=lambda t: (t.order, t.title.get("en").casefold(), t.id))
    return bankset


def _raw_questions(data: Any) -> list[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """(path, mapping) of every question mapping in raw bank data, valid or not."""
    if not isinstance(data, dict):
        return []
    single = "topics" not in data
    topics = [data] if single else data.get("topics")
    out = []
    for ti, topic in enumerate(topics if isinstance(topics, list) else []):
        questions = topic.get("questions") if isinstance(topic, dict) else None
        prefix: tuple[str | int, ...] = () if single else ("topics", ti)
        for qi, question in enumerate(questions if isinstance(questions, list) else []):
            if isinstance(question, dict):
                out.append(((*prefix, "questions", qi), question))
    return out


def _unknown_raw_follow_ups(result: _FileResult, written: set[str], options: list[str]) -> list[Problem]:
    """follow_ups of the questions that `_dangling_follow_ups` did not check, against every id
    written in any loaded file."""
    out = []
    for where, question in result.raw_questions:
        if where in result.follow_ups_checked:
            continue
        targets = question.get("follow_ups")
        for i, target in enumerate(targets if isinstance(targets, list) else []):
            if not isinstance(target, str) or target in written:
                continue
            out.append(
                result.problem(
                    (*where, "follow_ups", i),
                    f"follow_ups: unknown question id {target!r}{did_you_mean(target, options)}",
                )
            )
    return out


def _dangling_follow_ups(result: _FileResult, known: set[str], skipped_ids: dict[str, str]) -> list[Problem]:
    out = []
    for record in result.records:
        result.follow_ups_checked.add(record.raw_path)
        for i, target in enumerate(record.question.follow_ups):
            if target in known or target == record.question.id:
                continue
            if target in skipped_ids:
                why = f" (it is defined in {skipped_ids[target]}, which was skipped)"
            else:
                why = did_you_mean(target, sorted(known))
            out.append(
                result.problem(
                    (*record.raw_path, "follow_ups", i), f"follow_ups: unknown question id {target!r}{why}"
                )
            )
    return out


def _add_file(bankset: BankSet, result: _FileResult, owner: dict[str, _QuestionRecord]) -> None:
    bankset.files.append(result.path)
    bankset.file_kind[result.path] = result.kind
    entries = {t.id: t for t in bankset.topics}
    for topic in result.topics:
        entry = entries.get(topic.topic)
        if entry is None:
            entry = TopicEntry(topic.topic, topic.title, topic.description, topic.order)
            entries[topic.topic] = entry
            bankset.topics.append(entry)
        elif entry.description is None and topic.description is not None:
            entry.description = topic.description
        if result.path not in entry.sources:
            entry.sources.append(result.path)
    for record in result.records:
        question = record.question
        if owner.get(question.id) is not record:
            continue
        bankset.topic_of[question.id] = record.topic.topic
        entries[record.topic.topic].question_ids.append(question.id)
        _register(bankset, result, question, record.raw_path)


def _register(bankset: BankSet, result: _FileResult, question: Any, where: tuple[str | int, ...]) -> None:
    """Add `question` and where it, its demo and its checks are written."""
    qid = question.id
    bankset.questions[qid] = question
    bankset.origin[qid] = result.location(where)
    if question.demo is not None:
        bankset.demo_origin[qid] = result.location((*where, "demo"))
    for i in range(len(question.checks)):
        bankset.check_origin[(qid, i)] = result.location((*where, "checks", i))
    if getattr(question, "vary", None):
        keys = ["vary", "answer", "answer.path", "answer.params", "prompt", "explanation"]
        if getattr(question, "few_answers", None) is not None:
            keys.append("few_answers")
        for key in keys:
            bankset.live_origin[(qid, key)] = result.location((*where, *key.split(".")))
    if question_type(question.type).judged:  # where its key points' patterns and its examples are written
        from .judge.examples import point_patterns

        for i in range(len(question.examples)):
            bankset.judge_origin[(qid, f"examples.{i}")] = result.location((*where, "examples", i))
        for j, point in enumerate(question.key_points):
            for key, _ in point_patterns(point):
                path = (*where, "key_points", j, *(int(p) if p.isdigit() else p for p in key.split(".")))
                bankset.judge_origin[(qid, f"key_points.{j}.{key}")] = result.location(path)
