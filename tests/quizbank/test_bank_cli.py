"""`posenc bank validate | new | stats`: exit codes, output format, --bank, templates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.banks import ALL_TYPES, USER_BANK, write
from support.cli import cli_runner
from support.paths import ROOT

from quizbank import cli
from quizbank.loader import load_bank_file, load_banks
from quizbank.template import render_template

run = cli_runner(cli.main)


STANDALONE = USER_BANK.replace("    follow_ups: [basics.open]\n", "")
BAD = "topic: bad\ntitle: Bad\nquestions:\n  - id: bad.one\n    type: truefalse\n    promt: x\n"


def test_validate_clean_file_exits_0(tmp_path, capsys, user_banks):
    path = write(tmp_path, "mine.yaml", USER_BANK.replace("    follow_ups: [basics.open]\n", ""))
    code, out, err = run(capsys, "bank", "validate", "--no-checks", str(path))
    assert code == 0
    assert out == ""
    assert err.startswith("ok: 2 questions in 1 file; checks not run (--no-checks)")


def test_validate_problems_exit_1_one_line_each(tmp_path, capsys, user_banks):
    path = write(tmp_path, "bad.yaml", BAD)
    code, out, err = run(capsys, "bank", "validate", "--no-checks", str(path))
    assert code == 1
    assert out.splitlines() == [
        f"{path}:4:5: missing required key 'correct' (a truefalse question needs it)",
        f"{path}:4:5: missing required key 'explanation'",
        f"{path}:4:5: missing required key 'prompt'",
        f"{path}:6:5: unknown key 'promt' (did you mean 'prompt'?)",
    ]
    assert err.startswith("4 problems in 1 file; 1 file skipped")


_HEAD = b"topic: t\ntitle: T\nquestions:\n"
_TF = b"  - id: t.a\n    type: truefalse\n    correct: true\n    explanation: E\n"
_BOMB = b"".join(
    f"{chr(97 + i)}: &{chr(97 + i)} [".encode() + b", ".join([f"*{chr(96 + i)}".encode()] * 9) + b"]\n"
    for i in range(1, 7)
)
UNTRUSTED = {
    "syntax": (_HEAD + b'  - id: "t.a\n', "5:1", "YAML syntax error: found unexpected end of stream"),
    "types": (_HEAD + _TF + b"    prompt: [1, 2]\n", "8:13", "prompt: expected text: a string, or {en: ..."),
    "python-tag": (
        _HEAD + b"  - !!python/object/apply:os.system [touch pwned]\n",
        "4:5",
        "tag '!!python/object/apply:os.system' is not allowed",
    ),
    "alias-bomb": (
        b"a: &a [x, x, x, x, x, x, x, x, x]\n" + _BOMB,
        "5:8",
        "aliases expand to more than 10,000",
    ),
    "not-utf8": (_HEAD + _TF + b"    prompt: caf\xe9\n", "8:16", "file is not UTF-8 text: byte 0xe9"),
    "empty": (b"", None, "file is empty"),
    "top-level": (b"- topic: t\n", "1:1", "the top level must be a mapping"),
    "no-language": (
        _HEAD + _TF + b"    prompt: {en: '', zh: ' '}\n",
        "8:13",
        "prompt: text needs at least one",
    ),
}


@pytest.mark.parametrize("case", sorted(UNTRUSTED))
def test_validate_reports_each_untrusted_case_on_one_line(tmp_path, capsys, user_banks, case):
    data, where, fragment = UNTRUSTED[case]
    path = tmp_path / f"{case}.yaml"
    path.write_bytes(data)
    code, out, err = run(capsys, "bank", "validate", str(path))
    assert code == 1, (out, err)
    prefix = f"{path}:{where}: " if where else f"{path}: "
    assert [line for line in out.splitlines() if fragment in line][0].startswith(prefix), out
    assert len(out.splitlines()) == 1, out
    assert "Traceback" not in out + err
    assert not (tmp_path / "pwned").exists()


def test_validate_refuses_a_file_over_the_size_cap(tmp_path, capsys, user_banks):
    path = tmp_path / "big.yaml"
    path.write_bytes(_HEAD + b"# " + b"x" * (5 * 2**20) + b"\n")
    code, out, _ = run(capsys, "bank", "validate", str(path))
    assert code == 1
    assert (
        out == f"{path}: file is 5.0 MiB, over the 5 MiB limit for a bank file; split it into several files\n"
    )


def test_validate_accepts_markup_as_text(tmp_path, capsys, user_banks):
    path = write(tmp_path, "markup.yaml", STANDALONE)
    code, out, _ = run(capsys, "bank", "validate", "--no-checks", str(path))
    assert (code, out) == (0, "")
    assert "[bold]RoPE[/bold]" in path.read_text()


def test_validate_missing_path_is_a_usage_error(tmp_path, capsys):
    code, out, err = run(capsys, "bank", "validate", str(tmp_path / "nope.yaml"))
    assert code == 2 and out == ""
    assert err.strip() == f"posenc bank validate: no such file or folder: {tmp_path / 'nope.yaml'}"


def test_validate_with_an_unknown_device_is_a_usage_error(tmp_path, capsys, user_banks, monkeypatch):
    monkeypatch.delenv("POSENC_DEVICE", raising=False)
    path = write(tmp_path, "mine.yaml", STANDALONE)
    code, out, err = run(capsys, "bank", "validate", "--device", "tpu", str(path))
    assert (code, out) == (2, "")
    assert err == (
        "posenc bank validate: unknown device 'tpu'; choose one of auto, cpu, cuda, mps (or cuda:N); "
        "use --device cpu, or --no-checks\n"
    )
    # nothing to run, nothing to complain about
    code, _, _ = run(capsys, "bank", "validate", "--device", "tpu", "--no-checks", str(path))
    assert code == 0


def test_validate_folder_without_banks_is_a_usage_error(tmp_path, capsys):
    code, _, err = run(capsys, "bank", "validate", str(tmp_path))
    assert code == 2 and "no *.yaml or *.yml bank files" in err


def test_validate_paths_report_only_their_own_problems(tmp_path, capsys, user_banks):
    write(user_banks, "broken.yaml", BAD)  # not named, so not reported
    other = write(tmp_path / "other", "other.yaml", BAD)  # --bank context: not reported either
    mine = write(tmp_path, "mine.yaml", USER_BANK.replace("basics.open", "mine.nope"))
    code, out, err = run(capsys, "--bank", str(other), "bank", "validate", "--no-checks", str(mine))
    assert code == 1
    assert out.splitlines() == [
        f"{mine}:9:18: follow_ups: unknown question id 'mine.nope' (did you mean 'mine.one'?)"
    ]


def test_validate_sees_shipped_ids_when_checking_a_path(tmp_path, capsys, user_banks):
    shipped = load_banks(include_user=False)
    assert shipped.questions, "the shipped bank has no questions"
    taken = next(iter(shipped.questions))
    mine = write(tmp_path, "mine.yaml", USER_BANK.replace("id: mine.two", f"id: {taken}"))
    code, out, _ = run(capsys, "bank", "validate", "--no-checks", str(mine))
    assert code == 1
    assert f"id {taken!r} is already used by the shipped bank at" in out


def test_validate_without_paths_uses_bank_option_and_user_dir(tmp_path, capsys, user_banks):
    write(user_banks, "broken.yaml", BAD)
    code, out, err = run(capsys, "bank", "validate", "--no-checks")
    assert code == 1
    assert "broken.yaml:6:5: unknown key 'promt'" in out
    extra = write(tmp_path / "extra", "x.yaml", BAD.replace("bad", "worse"))
    code, out, err = run(capsys, "--bank", str(extra), "bank", "validate", "--no-checks")
    assert "x.yaml:6:5: unknown key 'promt'" in out and "broken.yaml" in out


def test_validate_runs_checks_on_the_named_file(tmp_path, capsys, user_banks):
    text = ALL_TYPES.replace("basics", "mycheck")
    path = write(tmp_path, "checked.yaml", text)
    code, out, err = run(capsys, "bank", "validate", str(path))
    assert (code, out) == (0, "")
    assert "1/1 checks passed, 2 demos verified" in err
    broken = write(
        tmp_path, "wrong.yaml", text.replace("mycheck", "wrong").replace("expect: 0.5", "expect: 0.25")
    )
    broken.write_text(broken.read_text().replace("value: 0.5", "value: 0.25"))
    code, out, err = run(capsys, "bank", "validate", str(broken))
    assert code == 1
    assert out.startswith(
        f"{broken}:47:9: check 1 of 'wrong.numeric' failed: alibi-slopes {{n_heads: 8}} gives"
    )


def test_validate_runs_the_checks_of_a_skipped_files_valid_questions(tmp_path, capsys, user_banks):
    """One run shows the structural error and the failing check, not one after the other."""
    text = ALL_TYPES.replace("basics", "half").replace("expect: 0.5", "expect: 0.25")
    text = text.replace("value: 0.5", "value: 0.25").replace("    correct: false\n", "    correct: nope\n")
    path = write(tmp_path, "half.yaml", text)
    code, out, err = run(capsys, "bank", "validate", str(path))
    assert code == 1
    assert out.splitlines() == [
        f"{path}:36:14: correct: expected true or false, got the text 'nope'",
        f"{path}:47:9: check 1 of 'half.numeric' failed: alibi-slopes {{n_heads: 8}} gives "
        "values.first_slope = 0.5, expected 0.25 ± 1e-09 (off by 0.25)",
    ]
    assert "1 file skipped; checked 5 questions in 1 file; 0/1 checks passed, 2 demos verified" in err
    bankset = load_banks([path], include_shipped=False, include_user=False)
    assert bankset.questions == {} and sorted(bankset.skipped_bank.questions) == [
        "half.cloze",
        "half.mcq",
        "half.multi",
        "half.numeric",
        "half.open",
    ]


def test_new_writes_a_template_that_validates(tmp_path, capsys):
    folder = tmp_path / "mine"
    code, out, err = run(capsys, "bank", "new", "my-topic", "--dir", str(folder))
    assert code == 0
    target = folder / "my-topic.yaml"
    assert out.strip() == str(target)
    bank, problems = load_bank_file(target, require_languages=("en", "zh"))
    assert problems == []
    assert sorted(q.type for q in bank.topics[0].questions) == sorted(
        ["open", "mcq", "multi", "truefalse", "numeric", "cloze"]
    )
    assert any(q.demo for q in bank.topics[0].questions) and any(q.checks for q in bank.topics[0].questions)
    # the template's demos and check pass when run
    code, out, err = run(capsys, "bank", "validate", str(target))
    assert code == 0, out
    assert "1/1 checks passed" in err


@pytest.mark.parametrize("topic", ["yes", "null", "123", "1_000", "0x10", "1.5", "on"])
def test_new_quotes_topic_ids_that_yaml_would_read_as_something_else(tmp_path, capsys, topic):
    code, out, _ = run(capsys, "bank", "new", topic, "--dir", str(tmp_path))
    assert code == 0
    bank, problems = load_bank_file(out.strip(), require_languages=("en", "zh"))
    assert problems == []
    assert bank.topics[0].topic == topic
    assert f'topic: "{topic}"' in Path(out.strip()).read_text()


def test_new_refuses_to_overwrite(tmp_path, capsys):
    target = write(tmp_path, "taken.yaml", "keep me")
    code, out, err = run(capsys, "bank", "new", "taken", "--dir", str(tmp_path))
    assert code == 2 and "already exists" in err
    assert target.read_text() == "keep me"


def test_new_rejects_a_bad_topic_id(tmp_path, capsys):
    code, _, err = run(capsys, "bank", "new", "Bad Topic", "--dir", str(tmp_path))
    assert code == 2 and "not a valid topic id" in err
    assert list(tmp_path.iterdir()) == []


def test_new_defaults_to_the_user_bank_folder(tmp_path, capsys, user_banks):
    assert not user_banks.exists()
    code, out, _ = run(capsys, "bank", "new", "fresh")
    assert code == 0 and (user_banks / "fresh.yaml").is_file()
    # and the app then loads it with the rest
    bankset = load_banks()
    assert "fresh.why-positions" in bankset.questions
    assert str(user_banks / "fresh.yaml") in bankset.file_kind


def test_template_mentions_the_format_rules():
    text = render_template("x")
    for fragment in ("$...$", "$$...$$", "{{1}}", "posenc bank validate", "docs/bank-format.md", "[bold]"):
        assert fragment in text
    with pytest.raises(ValueError, match="'Not Valid' is not a valid topic id"):
        render_template("Not Valid")


def test_stats_json_shape(tmp_path, capsys, user_banks):
    write(user_banks, "mine.yaml", STANDALONE)
    code, out, err = run(capsys, "bank", "stats", "--json")
    assert code == 0
    stats = json.loads(out)
    assert set(stats) == {
        "questions",
        "by_topic",
        "by_type",
        "by_difficulty",
        "languages",
        "with_demo",
        "with_checks",
        "with_drill",
        "with_hints",
        "generated",
        "generated_by_topic",
    }
    assert stats["generated"] >= 40  # the shipped generated (vary) questions
    assert sum(stats["generated_by_topic"].values()) == stats["generated"]
    assert set(stats["generated_by_topic"]) == set(stats["by_topic"])
    assert stats["generated_by_topic"]["mine"] == 0
    assert stats["generated_by_topic"]["rope"] >= 5
    assert stats["with_hints"] >= 16
    assert stats["by_topic"]["mine"] == 2
    assert sum(stats["by_topic"].values()) == stats["questions"]
    assert sum(stats["by_type"].values()) == stats["questions"]
    assert sum(stats["by_difficulty"].values()) == stats["questions"]
    assert set(stats["languages"]) == {"en", "zh"}
    # the user questions are English-only
    assert stats["languages"]["en"] - stats["languages"]["zh"] >= 2


def test_stats_counts_exactly(tmp_path, capsys, user_banks, monkeypatch):
    write(user_banks, "all.yaml", ALL_TYPES)
    write(user_banks, "mine.yaml", USER_BANK)
    from quizbank.stats import bank_stats

    stats = bank_stats(load_banks(include_shipped=False))
    assert stats == {
        "questions": 8,
        "by_topic": {"basics": 6, "mine": 2},
        "by_type": {"open": 2, "mcq": 1, "multi": 1, "truefalse": 2, "numeric": 1, "cloze": 1},
        "by_difficulty": {"1": 1, "2": 7, "3": 0},
        "languages": {"en": 8, "zh": 6},
        "with_demo": 2,
        "with_checks": 1,
        "with_drill": 0,
        "with_hints": 0,
        "generated": 0,
        "generated_by_topic": {"basics": 0, "mine": 0},
    }


def test_stats_human_form(tmp_path, capsys, user_banks):
    write(user_banks, "mine.yaml", STANDALONE)
    write(user_banks, "broken.yaml", BAD)
    code, out, err = run(capsys, "bank", "stats")
    assert code == 0
    for heading in ("By topic", "By type", "By difficulty", "Languages", "with a demo", "with checks"):
        assert heading in out
    assert "mine (My questions)" in out
    assert "1 bank file skipped" in err


def test_stats_lists_each_skipped_file_with_its_problems(tmp_path, capsys, user_banks):
    write(user_banks, "mine.yaml", STANDALONE)
    broken = write(user_banks, "broken.yaml", BAD)
    other = write(user_banks, "other.yaml", "topic: other\ntitle: Other\nquestions: [1, 2\n")
    code, _out, err = run(capsys, "bank", "stats")
    assert code == 0
    lines = err.splitlines()
    assert lines[0] == "note: 2 bank files skipped because of problems (not counted above):"
    assert any(line.startswith(f"  {broken}:6:5: ") and "promt" in line for line in lines), err
    assert any(line.startswith(f"  {other}:") for line in lines), err


def test_bank_without_action_prints_help(capsys):
    code, _, err = run(capsys, "bank")
    assert code == 2 and "validate" in err


def test_posenc_entry_point_has_the_bank_commands(tmp_path, user_banks):
    path = write(tmp_path, "bad.yaml", BAD)
    env = {**__import__("os").environ, "POSENC_BANK_DIR": str(user_banks)}
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from tui.cli import main; sys.exit(main(sys.argv[1:]))",
            "--bank",
            str(path),
            "bank",
            "validate",
            "--no-checks",
            str(path),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert out.returncode == 1, out.stderr
    assert f"{path}:6:5: unknown key 'promt' (did you mean 'prompt'?)" in out.stdout
    assert "Traceback" not in out.stderr


HINTED_AND_GENERATED = """\
topics:
  - topic: slopes
    title: Slopes
    questions:
      - id: slopes.any
        type: numeric
        hints:
          - {en: "Head h of n heads gets 2^(-8h/n).", zh: "n 个头中第 h 个头的斜率是 2^(-8h/n)。"}
        vary:
          n_heads: {choices: [8, 16]}
        prompt: {en: "With {n_heads} heads, what is the slope of head 1?", zh: "有 {n_heads} 个头时，第 1 个头的斜率是多少？"}
        explanation: {en: "2^(-8/n).", zh: "2^(-8/n)。"}
        answer: {demo: alibi-slopes, params: {n_heads: n_heads}, path: "tables[0].rows[0][1]", rel_tol: 1e-6}
      - id: slopes.fixed
        type: truefalse
        prompt: {en: "ALiBi slopes are learned.", zh: "ALiBi 的斜率是学出来的。"}
        correct: false
        explanation: {en: "They are fixed.", zh: "它们是固定的。"}
  - topic: other
    title: Other
    questions:
      - id: other.one
        type: cloze
        hints:
          - {en: "Count the pairs.", zh: "数一数维度对。"}
        prompt: {en: "A head of dimension 8 has {{1}} pairs.", zh: "维度为 8 的头有 {{1}} 个维度对。"}
        blanks:
          - accept: ["4"]
        explanation: {en: "d/2.", zh: "d/2。"}
"""


def test_stats_count_hints_and_generated_questions_per_topic(user_banks):
    write(user_banks, "hinted.yaml", HINTED_AND_GENERATED)
    from quizbank.stats import bank_stats, format_stats

    bankset = load_banks(include_shipped=False)
    stats = bank_stats(bankset)
    assert (stats["with_hints"], stats["generated"]) == (2, 1)
    assert stats["generated_by_topic"] == {"slopes": 1, "other": 0}
    human = format_stats(stats, bankset)
    lines = [" ".join(line.split()) for line in human.splitlines()]
    assert "with hints 2 66.7%" in lines
    by_topic = lines[lines.index("Generated (vary) by topic") + 1 :]
    assert by_topic == ["slopes (Slopes) 1 33.3%"]
