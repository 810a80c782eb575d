"""`posenc bank judge`: the judge's verdict on a typed answer, from the shell.

    posenc bank judge ID --answer TEXT [--lang en|zh] [--json]
    posenc bank judge ID --answer-file F [--json]
    posenc bank judge --jsonl < answers.jsonl        # lines {"id": ..., "answer": ...}; one result per line
    posenc bank judge --examples [PATH ...]          # every open question's examples (as bank validate)

Exit codes: 0 judged (or every example agrees), 1 an example disagrees or a --jsonl line was bad,
2 usage: an unknown id, a question that is not open, an empty answer.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..question_types import QUESTION_TYPES, question_type

__all__ = ["add_judge_parser", "cmd_judge"]

MAX_ANSWER = 20_000  # characters: an answer is a paragraph or two
MAX_LINE = 100_000


def add_judge_parser(actions: Any) -> argparse.ArgumentParser:
    judge = actions.add_parser(
        "judge",
        help="judge a typed answer to an open question",
        description="Judge a typed answer to an open question: for each key point covered, contradicted or "
        "not found, with the part of the answer that decided it and any correction (docs/bank-format.md).",
    )
    judge.add_argument("id", nargs="?", metavar="ID", help="open question id")
    source = judge.add_mutually_exclusive_group()
    source.add_argument("--answer", metavar="TEXT", help="the answer")
    source.add_argument(
        "--answer-file", metavar="FILE", help="read the answer from FILE ('-': standard input)"
    )
    source.add_argument(
        "--jsonl",
        action="store_true",
        help='read lines {"id": ..., "answer": ...} on stdin, write one result each',
    )
    source.add_argument(
        "--examples",
        nargs="*",
        metavar="PATH",
        help="check every open question's examples (default: all banks)",
    )
    judge.add_argument("--lang", choices=("en", "zh"), default=None, help="language of the key points shown")
    judge.add_argument("--json", action="store_true", help="print JSON")
    judge.set_defaults(func=cmd_judge)
    return judge


def _err(message: str) -> None:
    from ..safetext import clip_long_runs, escape_unsafe

    print(escape_unsafe(clip_long_runs(message), one_line=True), file=sys.stderr)


def _question(bankset: Any, qid: str) -> tuple[Any, str | None]:
    question = bankset.questions.get(qid)
    if question is None:
        from ..validate import did_you_mean

        judged = [q for q, v in bankset.questions.items() if question_type(v.type).judged]
        return None, f"no question {qid!r}{did_you_mean(qid, judged)}"
    if not question_type(question.type).judged:
        kinds = " and ".join(kind.name for kind in QUESTION_TYPES if kind.judged)
        return None, f"{qid!r} is a {question.type} question; only {kinds} questions are judged"
    return question, None


def _result(question: Any, answer: str, lang: str) -> dict[str, Any]:
    from .verdicts import judge_answer

    verdicts = judge_answer(question.key_points, answer)
    points = []
    for n, (point, verdict) in enumerate(zip(question.key_points, verdicts, strict=True), 1):
        points.append({"point": n, "text": point.get(lang), **verdict.as_dict(lang)})
    counts = {
        v: sum(1 for p in points if p["verdict"] == v) for v in ("covered", "contradicted", "not_found")
    }
    return {"id": question.id, "points": points, **counts, "total": len(points)}


_MARK = {"covered": "✓", "contradicted": "✗", "not_found": "·"}
_WORD = {
    "en": {"covered": "covered", "contradicted": "contradicted", "not_found": "not found", "fix": "correction",
           "said": "evidence"},
    "zh": {"covered": "已覆盖", "contradicted": "说反了", "not_found": "未提及", "fix": "更正", "said": "依据"},
}  # fmt: skip


def _print(result: dict[str, Any], lang: str) -> None:
    from ..safetext import escape_unsafe

    words = _WORD[lang]
    lines = [
        f"{result['id']}: {result['covered']}/{result['total']} covered, {result['contradicted']} contradicted"
    ]
    for p in result["points"]:
        lines.append(f"{_MARK[p['verdict']]} {p['point']}. {words[p['verdict']]}: {p['text']}")
        if p["evidence"]:
            lines.append(f"    {words['said']}: {p['evidence']}  [{p['rule']}]")
        if p["correction"]:
            lines.append(f"    {words['fix']}: {p['correction']}")
    print(escape_unsafe("\n".join(lines)))


def _read_answer(args: argparse.Namespace) -> tuple[str | None, str | None]:
    if args.answer is not None:
        return args.answer, None
    if args.answer_file is None:
        return None, "give --answer TEXT, --answer-file FILE or --jsonl"
    if args.answer_file == "-":
        return sys.stdin.read(MAX_ANSWER + 1), None
    path = Path(args.answer_file)
    try:
        if not path.is_file():
            return None, f"{args.answer_file}: not a regular file"
        with path.open(encoding="utf-8") as handle:
            return handle.read(MAX_ANSWER + 1), None
    except (OSError, UnicodeDecodeError) as exc:
        return None, f"{args.answer_file}: {getattr(exc, 'strerror', None) or exc}"


def _bankset(args: argparse.Namespace, paths: list[str] | None = None) -> Any:
    from ..loader import load_banks

    return load_banks([*(paths or []), *(getattr(args, "bank", None) or [])])


def cmd_judge(args: argparse.Namespace) -> int:
    if args.examples is not None:
        return _examples(args)
    if args.jsonl:
        return _jsonl(args)
    if not args.id:
        _err("posenc bank judge: give a question ID (or --jsonl, or --examples)")
        return 2
    answer, problem = _read_answer(args)
    if problem is not None or answer is None:
        _err(f"posenc bank judge: {problem}")
        return 2
    if not answer.strip():
        _err("posenc bank judge: the answer is empty")
        return 2
    if len(answer) > MAX_ANSWER:
        _err(f"posenc bank judge: the answer is over {MAX_ANSWER:,} characters")
        return 2
    question, problem = _question(_bankset(args), args.id)
    if question is None:
        _err(f"posenc bank judge: {problem}")
        return 2
    from .text import is_cjk

    lang = args.lang or ("zh" if is_cjk(answer) else "en")
    result = _result(question, answer, lang)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        _print(result, lang)
    return 0


def _jsonl(args: argparse.Namespace) -> int:
    from .text import is_cjk

    bankset = _bankset(args)
    status = 0
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            if len(line) > MAX_LINE:
                raise ValueError(f"line over {MAX_LINE:,} characters")
            item = json.loads(line)
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise ValueError('each line is an object {"id": ..., "answer": ...}')
            answer = item.get("answer")
            if not isinstance(answer, str) or not answer.strip():
                raise ValueError("the answer is empty or not text")
            question, problem = _question(bankset, item["id"])
            if question is None:
                raise ValueError(problem)
        except (ValueError, RecursionError) as exc:
            status = 1
            print(json.dumps({"line": n, "error": str(exc)[:300]}, ensure_ascii=False), flush=True)
            continue
        lang = args.lang or ("zh" if is_cjk(answer) else "en")
        print(json.dumps(_result(question, answer[:MAX_ANSWER], lang), ensure_ascii=False), flush=True)
    return status


def _examples(args: argparse.Namespace) -> int:
    from ..loader import display_path, expand_bank_paths
    from .examples import judge_report

    paths = list(args.examples or [])
    bankset = _bankset(args, paths)
    targets = None
    if paths:
        files, _ = expand_bank_paths(paths)
        targets = {display_path(f) for f in files} | set(paths)
    ids = [qid for qid, where in bankset.origin.items() if targets is None or where.path in targets]
    report = judge_report(bankset, only=ids)
    for problem in sorted(report.problems, key=lambda p: (p.path, p.line, p.col)):
        print(problem)
    summary = (
        f"{report.examples_agreed}/{report.examples} examples agree "
        f"({report.points_agreed}/{report.points} key-point verdicts) in {report.questions} open questions"
    )
    if args.json:
        print(json.dumps({"questions": report.questions, "examples": report.examples,
                          "examples_agreed": report.examples_agreed, "points": report.points,
                          "points_agreed": report.points_agreed, "problems": len(report.problems)}))  # fmt: skip
    _err(summary)
    return 1 if report.problems else 0
