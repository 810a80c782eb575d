"""`posenc bank ...`: validate, create and count question banks.

    posenc bank validate [PATH ...] [--no-checks]
    posenc bank new TOPIC [--dir DIR]
    posenc bank stats [--json]
    posenc bank sample ID [--seed N] [--json]

The global `--bank PATH` option (on the top-level `posenc` parser, `args.bank`) adds banks to
`validate` and `stats`.

`validate` with no PATH checks everything the app would load: the shipped bank, the `--bank`
paths and the user bank folder. With PATHs it checks those files (folders are searched for
*.yaml / *.yml): everything else the app would load (shipped bank, `--bank` paths, user folder)
is loaded beside them, so that id clashes and follow_ups across files are found as the app will
see them, but only problems in the given files are printed and only their checks run. A file
with structural errors is skipped like in the app, but the checks of its valid questions still
run, so that one run reports every problem.

Exit status: 0 clean (warnings allowed), 1 problems, 2 usage errors.
Problems go to stdout, one `path:line:col: message` per line; the summary goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    bank = subparsers.add_parser(
        "bank",
        help="validate, create and count question banks",
        description="Validate, create and count question banks (docs/bank-format.md).",
    )
    actions = bank.add_subparsers(dest="bank_command", metavar="ACTION")

    validate = actions.add_parser(
        "validate",
        help="check bank files and run their checks",
        description="Check bank files: YAML, schema, languages, ids, follow_ups, demo references, "
        "then run every check. With no PATH: the shipped bank, --bank paths and the user banks.",
    )
    validate.add_argument("paths", nargs="*", metavar="PATH", help="bank file or folder (default: all banks)")
    validate.add_argument("--no-checks", action="store_true", help="skip running demos and checks")
    validate.add_argument(
        "--device", default="cpu", help="device for the check computations: cpu (default), cuda, auto"
    )
    validate.set_defaults(func=cmd_validate)

    new = actions.add_parser(
        "new",
        help="write a commented template bank file",
        description="Write TOPIC.yaml: one commented question of each type, valid as written.",
    )
    new.add_argument("topic", metavar="TOPIC", help="topic id (lowercase letters, digits, '.', '_', '-')")
    new.add_argument("--dir", metavar="DIR", help="folder for the file (default: the user bank folder)")
    new.set_defaults(func=cmd_new)

    stats = actions.add_parser(
        "stats",
        help="count questions by topic, type, difficulty and language",
        description="Counts over every loaded bank (shipped, --bank paths, user banks).",
    )
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.set_defaults(func=cmd_stats)

    sample = actions.add_parser(
        "sample",
        help="print one instance of a generated question",
        description="Draw one instance of a generated question (vary): its parameters, prompt and the "
        "answer computed by its demo. The same seed gives the same instance in any process.",
    )
    sample.add_argument("id", metavar="ID", help="question id")
    sample.add_argument("--seed", type=int, default=None, help="seed (default: a fresh one, printed)")
    sample.add_argument("--json", action="store_true", help="print JSON")
    sample.add_argument("--device", default="cpu", help="device for the demo: cpu (default), cuda, auto")
    sample.set_defaults(func=cmd_sample)

    from .judge.cli import add_judge_parser

    add_judge_parser(actions)

    def no_action(args: argparse.Namespace) -> int:
        bank.print_help(sys.stderr)
        return 2

    bank.set_defaults(func=no_action)
    return bank


def _err(message: str) -> None:
    from .safetext import clip_long_runs, escape_unsafe

    print(escape_unsafe(clip_long_runs(message), one_line=True), file=sys.stderr)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def cmd_validate(args: argparse.Namespace) -> int:
    from .checks import RunCache, check_report, default_runner
    from .loader import display_path, expand_bank_paths, load_banks

    paths = list(args.paths or [])
    extra = list(getattr(args, "bank", None) or [])
    for path in paths:
        if not Path(path).expanduser().exists():
            _err(f"posenc bank validate: no such file or folder: {path}")
            return 2
    targets: set[str] | None = None
    if paths:
        files, _ = expand_bank_paths(paths)
        targets = {display_path(f) for f in files} | set(paths)
        if not files:
            _err(f"posenc bank validate: no *.yaml or *.yml bank files in {', '.join(paths)}")
            return 2
        bankset = load_banks([*paths, *extra])
    else:
        bankset = load_banks(extra)
    problems = [p for p in bankset.problems if targets is None or p.path in targets]
    ids = [qid for qid, where in bankset.origin.items() if targets is None or where.path in targets]
    # the valid questions of skipped files: their checks run too, so one run shows every problem
    unloaded = bankset.skipped_bank
    unloaded_ids = (
        [qid for qid, where in unloaded.origin.items() if targets is None or where.path in targets]
        if unloaded is not None
        else []
    )
    report = None
    if not args.no_checks and (ids or unloaded_ids):
        # a device this machine lacks is a usage error, said once, not a failure of every check
        from posenc_ref.device import DeviceUnavailableError, pick_device

        try:
            pick_device(args.device)
        except DeviceUnavailableError as exc:
            _err(f"posenc bank validate: {exc}; use --device cpu, or --no-checks")
            return 2
        cache = RunCache(default_runner(args.device))
        report = check_report(bankset, only=ids, cache=cache)
        if unloaded_ids:
            more = check_report(unloaded, only=unloaded_ids, cache=cache)
            report.problems.extend(more.problems)
            report.checks_run += more.checks_run
            report.checks_passed += more.checks_passed
            report.demos_verified += more.demos_verified
            report.runs += more.runs
            report.seconds += more.seconds
        problems.extend(report.problems)
    live = None
    if report is not None:
        from .generated.instance_checks import fold_into, instance_report

        live = instance_report(bankset, cache, only=ids)
        origin = dict(bankset.origin)
        if unloaded_ids and unloaded is not None:
            live.extend(instance_report(unloaded, cache, only=unloaded_ids))
            origin.update(unloaded.origin)
        # one line per problem: a failure on 8 seeds that the loader already named is a tally on its line
        problems = fold_into(problems, live, origin)
    judged = None
    if not args.no_checks and ids:
        from .judge.examples import judge_report

        judged = judge_report(bankset, only=ids)
        problems.extend(judged.problems)
    problems.sort(key=lambda p: (p.path, p.line, p.col, p.message))
    for problem in problems:
        print(problem)
    errors = [p for p in problems if p.is_error]
    warnings = len(problems) - len(errors)
    n_files = (
        len(targets & set(bankset.files) | {p.path for p in problems})
        if targets
        else len(set(bankset.files) | {path for path, _ in bankset.skipped})
    )
    checked = f"{_plural(len(ids) + len(unloaded_ids), 'question')} in {_plural(n_files, 'file')}"
    if report is not None:
        checked += (
            f"; {report.checks_passed}/{report.checks_run} checks passed, "
            f"{report.demos_verified} demos verified ({_plural(report.runs, 'run')}, {report.seconds:.1f} s)"
        )
        if live is not None and live.questions:
            checked += (
                f"; {live.instances_passed}/{live.instances} instances of "
                f"{_plural(live.questions, 'generated question')} passed"
            )
    if judged is not None and judged.examples:
        checked += (
            f"; {judged.examples_agreed}/{judged.examples} judge examples agree "
            f"({judged.points_agreed}/{judged.points} key-point verdicts)"
        )
    elif args.no_checks:
        checked += "; checks not run (--no-checks)"
    if errors:
        where = {p.path for p in errors}
        skipped = [path for path, _ in bankset.skipped if targets is None or path in targets]
        tail = f"; {_plural(len(skipped), 'file')} skipped" if skipped else ""
        _err(f"{_plural(len(errors), 'problem')} in {_plural(len(where), 'file')}{tail}; checked {checked}")
        return 1
    note = f" ({_plural(warnings, 'warning')})" if warnings else ""
    _err(f"ok: {checked}{note}")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from .loader import user_bank_dir
    from .template import render_template, valid_topic_id

    topic = args.topic
    if not valid_topic_id(topic):
        _err(
            f"posenc bank new: {topic!r} is not a valid topic id: use lowercase letters, digits, "
            "'.', '_' and '-', starting with a letter or digit"
        )
        return 2
    folder = Path(args.dir).expanduser() if args.dir else user_bank_dir()
    target = folder / f"{topic}.yaml"
    if target.exists():
        _err(f"posenc bank new: {target} already exists; not overwriting it")
        return 2
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with target.open("x", encoding="utf-8") as handle:
            handle.write(render_template(topic, filename=str(target)))
    except FileExistsError:
        _err(f"posenc bank new: {target} already exists; not overwriting it")
        return 2
    except OSError as exc:
        _err(f"posenc bank new: cannot write {target}: {exc.strerror or exc}")
        return 2
    from .safetext import escape_unsafe

    print(escape_unsafe(str(target), one_line=True))
    _err(f"wrote a template with 6 questions; edit it, then run: posenc bank validate {target}")
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from .loader import load_banks
    from .safetext import escape_json_unsafe, escape_unsafe
    from .stats import bank_stats, format_stats

    bankset = load_banks(list(getattr(args, "bank", None) or []))
    stats = bank_stats(bankset)
    if args.json:
        print(escape_json_unsafe(json.dumps(stats, ensure_ascii=False, indent=2)))
    else:
        print(escape_unsafe(format_stats(stats, bankset)))
    if bankset.skipped:
        _err(
            f"note: {_plural(len(bankset.skipped), 'bank file')} skipped because of problems (not counted above):"
        )
        for _path, problems in bankset.skipped:
            errors = [p for p in problems if p.is_error] or problems
            for problem in errors[:5]:
                _err(f"  {problem}")
            if len(errors) > 5:
                _err(
                    f"  … and {len(errors) - 5} more: posenc bank validate {escape_unsafe(_path, one_line=True)}"
                )
    return 0


def cmd_sample(args: argparse.Namespace) -> int:
    from .generated.draw import VaryError, format_param
    from .generated.instances import MAX_SEED, InstanceError, draw_instance, fresh_seed, is_generated, resolve
    from .generated.instances import default_runner as instance_runner
    from .loader import load_banks
    from .safetext import escape_json_unsafe, escape_unsafe

    seed = fresh_seed() if args.seed is None else args.seed
    if not 0 <= seed <= MAX_SEED:
        _err(f"posenc bank sample: --seed must be in 0..{MAX_SEED}, got {seed}")
        return 2
    bankset = load_banks(list(getattr(args, "bank", None) or []))
    question = bankset.questions.get(args.id)
    if question is None or not is_generated(question):
        from .validate import did_you_mean

        generated = sorted(qid for qid, q in bankset.questions.items() if is_generated(q))
        what = "no question" if question is None else "not a generated question (no vary)"
        _err(f"posenc bank sample: {args.id!r} is {what}{did_you_mean(args.id, generated)}")
        return 2
    from posenc_ref.device import DeviceUnavailableError, pick_device

    try:
        pick_device(args.device)
    except DeviceUnavailableError as exc:
        _err(f"posenc bank sample: {exc}; use --device cpu")
        return 2
    try:
        instance = resolve(draw_instance(question, seed), question, instance_runner(args.device))
    except (VaryError, InstanceError) as exc:
        _err(f"posenc bank sample: {args.id} seed {seed}: {exc}")
        return 1
    if args.json:
        print(escape_json_unsafe(json.dumps(instance.to_json(), ensure_ascii=False, indent=2)))
        return 0
    lines = [f"{instance.question_id}  seed {seed}"]
    lines.append("params: " + ", ".join(f"{k}={format_param(v)}" for k, v in instance.params.items()))
    for lang, text in instance.prompt.items():
        lines.append(f"{lang}: {text}")
    lines.append(f"answer: {instance.value:.10g} (± {instance.tolerance:.3g})")
    demo_params = " ".join(f"{k}={format_param(v)}" for k, v in instance.demo_params.items())
    lines.append(f"demo: posenc demo run {instance.demo_name} {demo_params}  ->  {instance.path}".rstrip())
    print(escape_unsafe("\n".join(lines)))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser (`python -m quizbank.cli`) with the same global --bank option."""
    parser = argparse.ArgumentParser(prog="posenc")
    parser.add_argument(
        "--bank", action="append", default=[], metavar="PATH", help="extra bank file or folder"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        _err("interrupted")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
