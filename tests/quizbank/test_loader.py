"""quizbank loading: the safe YAML reader, round trips of every type, sources and the BankSet API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from support.banks import ALL_TYPES, USER_BANK, shipped_dir, write
from support.paths import ROOT

from quizbank.loader import BankSet, load_bank_file, load_bank_text, load_banks, user_bank_dir
from quizbank.problems import Location, Problem
from quizbank.schema import QUESTION_TYPES, BankFile
from quizbank.yamlsafe import MAX_FILE_BYTES, parse_yaml_text, read_yaml_file


# -- the safe YAML reader -------------------------------------------------------------------------------------
def test_marks_are_one_based_and_count_characters():
    doc, problems = parse_yaml_text(
        "a:\n  - b: 1\n    c: [1, {d: 中文}]\nzh: 中文字: x\n".replace(": x", ""), "f"
    )
    assert problems == []
    assert doc.data == {"a": [{"b": 1, "c": [1, {"d": "中文"}]}], "zh": "中文字"}
    assert doc.mark(()) == (1, 1)
    assert doc.mark(("a", 0)) == (2, 5)
    assert doc.mark(("a", 0, "c", 1, "d")) == (3, 16)
    assert doc.key_mark(("a", 0, "c", 1, "d")) == (3, 13)
    assert doc.mark(("zh",)) == (4, 5)
    # a path that does not exist falls back to its deepest existing ancestor
    assert doc.mark(("a", 0, "missing")) == (2, 5)
    assert not doc.has(("a", 0, "missing")) and doc.has(("a", 0, "c"))


def test_scalars_resolve_like_the_safe_loader():
    text = "a: yes\nb: 0x10\nc: 1_000\nd: .inf\ne: 2024-01-01\nf: null\ng: '5'\nh: !!str 5\ni: !!float 3\nj: 1.5e-3\n"
    doc, problems = parse_yaml_text(text)
    assert problems == []
    expected = yaml.safe_load(text)
    expected["e"] = "2024-01-01"  # dates stay the text written
    assert doc.data == expected


def test_keys_are_text_as_written():
    doc, problems = parse_yaml_text("1: one\nyes: y\nnull: n\n")
    assert problems == [] and doc.data == {"1": "one", "yes": "y", "null": "n"}


def test_anchors_aliases_and_merge_keys_work():
    text = "base: &b {dim: 8, base: 10000}\nx:\n  <<: *b\n  dim: 16\nlist: [&v 3, *v]\n"
    doc, problems = parse_yaml_text(text)
    assert problems == []
    assert doc.data["x"] == {"dim": 16, "base": 10000}
    assert doc.data["list"] == [3, 3]


def test_alias_bomb_is_refused_with_its_line():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        prev, name = chr(96 + i), chr(97 + i)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    doc, problems = parse_yaml_text("\n".join(lines) + "\n", "bomb.yaml")
    assert doc is None
    assert len(problems) == 1
    assert problems[0].line == 4  # d: 10 * 10 * 10 * 10 values crosses 10,000
    assert "aliases expand to more than 10,000 values" in problems[0].message


def test_recursive_alias_and_undefined_alias():
    doc, problems = parse_yaml_text("a: &a [1, *a]\n")
    assert doc is None and (problems[0].line, problems[0].col) == (1, 11)
    assert "recursive alias" in problems[0].message
    doc, problems = parse_yaml_text("a: 1\nb: *nope\n")
    assert doc is None and (problems[0].line, problems[0].col) == (2, 4)
    assert "alias *nope refers to no anchor" in problems[0].message


@pytest.mark.parametrize(
    ("text", "line", "col", "fragment"),
    [
        ("a: !!python/object:os.system ls\n", 1, 4, "tag '!!python/object:os.system' is not allowed"),
        ("a: !!python/object/apply:os.system [ls]\n", 1, 4, "is not allowed"),
        ("a: 1\nb: !custom {x: 1}\n", 2, 4, "unsupported tag '!custom'"),
        ("a: !!binary aGVsbG8=\n", 1, 4, "unsupported tag '!!binary'"),
        ("a: !!set {x}\n", 1, 4, "unsupported tag '!!set'"),
    ],
)
def test_tags_other_than_plain_data_are_refused(text, line, col, fragment):
    doc, problems = parse_yaml_text(text, "t.yaml")
    assert [(p.line, p.col) for p in problems] == [(line, col)]
    assert fragment in problems[0].message


def test_python_tag_never_executes(tmp_path):
    marker = tmp_path / "pwned"
    text = f"topic: x\ntitle: !!python/object/apply:os.system ['touch {marker}']\nquestions: []\n"
    bank, problems = load_bank_text(text, "evil.yaml")
    assert bank is None and not marker.exists()
    assert any("is not allowed" in p.message and p.line == 2 for p in problems)


@pytest.mark.parametrize(
    ("text", "line", "col", "fragment"),
    [
        ("a: [1, 2\n", 2, 1, "did not find expected ',' or ']'"),
        ("a: Q: why\n", 1, 5, "must be quoted"),
        ("a:\n\tb: 1\n", 2, 1, "indent with spaces, not tabs"),
        ("a: 1\n---\nb: 2\n", 2, 1, "a bank file holds exactly one"),
        ("a: \x07\n", 1, 4, "control characters"),
    ],
)
def test_syntax_errors_have_marks(text, line, col, fragment):
    doc, problems = parse_yaml_text(text, "s.yaml")
    assert doc is None
    assert (problems[-1].line, problems[-1].col) == (line, col)
    assert fragment in problems[-1].message
    assert str(problems[-1]).startswith(f"s.yaml:{line}:{col}: ")


INDENTED = "topic: a\nquestions:\n  - id: a.x\n    type: open\n{bad}\n    explanation: e\n"


@pytest.mark.parametrize(
    ("bad", "col", "says"),
    [
        ("   prompt: hi", 4, "line 5 is indented 3 spaces, line 4 above it 4 spaces; keys of one mapping"),
        ("  prompt: hi", 3, "line 5 is indented 2 spaces, line 4 above it 4 spaces; keys of one mapping"),
        (
            "      prompt: hi",
            13,
            "line 5 is indented 6 spaces, deeper than line 4 (4), which already has its value",
        ),
    ],
)
def test_an_indentation_error_says_so_and_shows_the_lines_around_it(bad, col, says):
    """libyaml says "did not find expected '-' indicator" or "mapping values are not allowed"; the author
    needs to hear "indentation" and see which lines do not line up."""
    bank, problems = load_bank_text(INDENTED.format(bad=bad), "s.yaml")
    assert bank is None
    [problem] = problems
    first, *excerpt = str(problem).split("\n")
    assert first.startswith(f"s.yaml:5:{col}: YAML indentation error: {says}"), first
    assert excerpt == ["  4 |     type: open", f"> 5 | {bad}", "  6 |     explanation: e"]


def test_a_colon_in_text_is_still_a_quoting_hint_not_an_indentation_error():
    _, problems = parse_yaml_text("topic: a\nprompt: Q: why\n  next: 1\n", "s.yaml")
    assert "must be quoted" in problems[-1].message and "indentation" not in problems[-1].message


def test_duplicate_keys_are_reported_and_the_first_kept():
    doc, problems = parse_yaml_text("a: 1\nb: 2\na: 3\n", "d.yaml")
    assert doc.data == {"a": 1, "b": 2}
    assert [str(p) for p in problems] == [
        "d.yaml:3:1: duplicate key 'a' (first at line 1, column 1); the first value is kept"
    ]


def test_non_text_keys_are_reported():
    doc, problems = parse_yaml_text("? [1, 2]\n: x\nc: 3\n")
    assert doc.data == {"c": 3}
    assert problems[0].message == "a mapping key must be plain text, not a list"


@pytest.mark.parametrize(
    "text", ["[" * 5000, "- " * 5000 + "x", "a:\n" + "".join(" " * i + "b:\n" for i in range(1, 200))]
)
def test_deep_nesting_is_refused_not_crashed(text):
    doc, problems = parse_yaml_text(text)
    assert doc is None
    assert any("nesting is deeper than" in p.message for p in problems)


def test_not_utf8_reports_the_line(tmp_path):
    path = tmp_path / "latin.yaml"
    path.write_bytes(b"topic: x\ntitle: caf" + b"\xe9\n")
    doc, problems = read_yaml_file(path, "latin.yaml")
    assert doc is None
    assert str(problems[0]).startswith("latin.yaml:2:11: file is not UTF-8 text: byte 0xe9 at offset 19")


def test_empty_and_comment_only_files(tmp_path):
    for text in ("", "\n\n", "# only a comment\n"):
        bank, problems = load_bank_file(write(tmp_path, "e.yaml", text))
        assert bank is None
        assert [p.message for p in problems] == ["file is empty (no YAML content, only blanks or comments)"]
        assert str(problems[0]).endswith("e.yaml: file is empty (no YAML content, only blanks or comments)")


def test_file_over_the_size_cap_is_refused_unread(tmp_path):
    path = tmp_path / "big.yaml"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    bank, problems = load_bank_file(path)
    assert bank is None
    assert "over the 5 MiB limit" in problems[0].message and problems[0].line == 0


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("- a\n- b\n", "not a list"),
        ("just text\n", "not a single value"),
        ("~\n", "not a single value"),
        ("title: x\nquestons: []\n", "a bank file needs 'topic'"),
        ("topic: a\ntopics: []\n", "not both"),
    ],
)
def test_top_level_must_be_a_topic_mapping(text, fragment):
    bank, problems = load_bank_text(text, "top.yaml")
    assert bank is None
    assert fragment in problems[0].message
    assert (problems[0].line, problems[0].col) == (1, 1)


# -- round trips ---------------------------------------------------------------------------------------------------
def test_every_type_loads_and_round_trips(tmp_path):
    bank, problems = load_bank_file(write(tmp_path, "all.yaml", ALL_TYPES), require_languages=("en", "zh"))
    assert problems == []
    assert isinstance(bank, BankFile)
    questions = bank.topics[0].questions
    assert [q.type for q in questions] == list(QUESTION_TYPES)
    # dump to YAML and load again: the same models
    dumped = yaml.safe_dump(
        bank.model_dump(mode="json", exclude_defaults=True), allow_unicode=True, sort_keys=False
    )
    again, problems = load_bank_text(dumped, "again.yaml", require_languages=("en", "zh"))
    assert problems == []
    assert again == bank
    # and through JSON
    assert BankFile.model_validate(json.loads(bank.model_dump_json())) == bank


def test_round_trip_values_are_the_written_ones(tmp_path):
    bank, _ = load_bank_file(write(tmp_path, "all.yaml", ALL_TYPES))
    q = {x.id: x for x in bank.topics[0].questions}
    assert q["basics.open"].key_points[0].zh == "排列等变"
    assert q["basics.open"].explanation.en == "Scores are $q_i \\cdot k_j$."
    assert q["basics.mcq"].correct_indices() == [0]
    assert q["basics.multi"].correct_indices() == [0, 1]
    assert q["basics.tf"].correct is False
    assert (q["basics.numeric"].value, q["basics.numeric"].checks[0].path) == (0.5, "values.first_slope")
    assert q["basics.cloze"].blanks[1].accept == ["500000"]
    assert q["basics.open"].demo.params == {"seq_len": 6, "dim": 8}


def test_topics_form_with_a_list():
    raw = yaml.safe_load(ALL_TYPES)
    text = yaml.safe_dump({"topics": [raw, {"topic": "second", "title": "Second"}]}, allow_unicode=True)
    bank, problems = load_bank_text(text, "multi.yaml")
    assert problems == []
    assert [t.topic for t in bank.topics] == ["basics", "second"]
    assert len(bank.topics[0].questions) == 6


def test_markup_is_data(tmp_path):
    bank, problems = load_bank_text(USER_BANK, "user.yaml")
    assert problems == []
    two = bank.topics[0].questions[1]
    assert two.prompt.en == "Explain [bold]RoPE[/bold] in one line."
    assert two.explanation.en == "[red]Markup[/red] is shown literally."


# -- sources and the BankSet ------------------------------------------------------------------------------------------
def test_load_banks_merges_sources(tmp_path, monkeypatch):
    shipped = shipped_dir(tmp_path)
    user = tmp_path / "user"
    write(user, "mine.yaml", USER_BANK)
    write(user, ".hidden/skip.yaml", "not: [valid")
    extra = write(
        tmp_path / "extra",
        "more.yml",
        USER_BANK.replace("mine.", "more.").replace("topic: mine", "topic: basics"),
    )
    monkeypatch.setenv("POSENC_BANK_DIR", str(user))
    bankset = load_banks([extra], shipped_dir=shipped)
    assert isinstance(bankset, BankSet)
    assert bankset.problems == [] and bankset.skipped == []
    assert [t.id for t in bankset.topics] == ["basics", "mine"]  # order 5, then the default 100
    basics = bankset.topic("basics")
    assert basics.title.en == "Basics"  # the first file's title wins
    assert basics.question_ids[-2:] == ["more.one", "more.two"]
    assert len(basics.sources) == 2
    assert bankset.topic_of["mine.one"] == "mine"
    assert [q.id for q in bankset.questions_in("mine")] == ["mine.one", "mine.two"]
    assert len(bankset.questions) == 10
    assert len(bankset.files) == 3
    origin = bankset.origin["basics.mcq"]
    assert isinstance(origin, Location) and (origin.line, origin.col) == (18, 5)
    assert origin.path.endswith("basics.yaml")
    assert (
        bankset.check_origin[("basics.numeric", 0)].line,
        bankset.check_origin[("basics.numeric", 0)].col,
    ) == (47, 9)
    assert bankset.demo_origin["basics.open"].line == 17


def test_user_dir_defaults_to_platformdirs(monkeypatch):
    import platformdirs

    monkeypatch.delenv("POSENC_BANK_DIR", raising=False)
    assert user_bank_dir() == Path(platformdirs.user_config_dir("posenc")) / "banks"
    monkeypatch.setenv("POSENC_BANK_DIR", "/somewhere/banks")
    assert user_bank_dir() == Path("/somewhere/banks")


def test_missing_user_dir_is_not_created(tmp_path, monkeypatch):
    absent = tmp_path / "absent" / "banks"
    monkeypatch.setenv("POSENC_BANK_DIR", str(absent))
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path))
    assert not absent.exists()
    assert len(bankset.questions) == 6


def test_bad_user_file_is_skipped_and_shipped_still_loads(tmp_path):
    user = tmp_path / "user"
    write(user, "a-good.yaml", USER_BANK)
    write(user, "b-bad.yaml", "topic: bad\ntitle: Bad\nquestions:\n  - id: bad.one\n    type: nope\n")
    write(user, "c-broken.yaml", "topic: [unclosed\n")
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path), user_dir=user)
    assert "basics.open" in bankset.questions and "mine.one" in bankset.questions
    skipped = {Path(path).name: problems for path, problems in bankset.skipped}
    assert set(skipped) == {"b-bad.yaml", "c-broken.yaml"}
    assert "unknown question type 'nope'" in skipped["b-bad.yaml"][0].message
    assert skipped["c-broken.yaml"][0].message.startswith("YAML syntax error")
    assert all(isinstance(p, Problem) for p in bankset.problems) and len(bankset.problems) == 2


def test_bank_paths_folders_are_searched_recursively_and_sorted(tmp_path):
    folder = tmp_path / "banks"
    text = USER_BANK.replace("    follow_ups: [basics.open]\n", "")
    write(folder, "z/late.yaml", text.replace("mine", "zz"))
    write(folder, "a.yml", text.replace("mine", "aa"))
    write(folder, "notes.txt", "not a bank")
    bankset = load_banks([folder], include_shipped=False, include_user=False)
    assert [Path(f).name for f in bankset.files] == ["a.yml", "late.yaml"]
    assert bankset.problems == []
    # a follow-up to a question that is not loaded skips the file
    write(folder, "z/late.yaml", USER_BANK.replace("mine", "zz"))
    bankset = load_banks([folder], include_shipped=False, include_user=False)
    assert [Path(f).name for f in bankset.files] == ["a.yml"]
    assert [p.message for p in bankset.problems] == ["follow_ups: unknown question id 'basics.open'"]
    assert bankset.problems[0].line == 9


def test_missing_bank_path_is_recorded(tmp_path):
    bankset = load_banks([tmp_path / "nope.yaml"], shipped_dir=shipped_dir(tmp_path), include_user=False)
    assert [p.message for p in bankset.problems] == ["no such file or folder"]
    assert len(bankset.skipped) == 1 and len(bankset.questions) == 6


def test_same_file_twice_loads_once(tmp_path):
    shipped = shipped_dir(tmp_path)
    bankset = load_banks([shipped / "basics.yaml", shipped], shipped_dir=shipped, include_user=False)
    assert bankset.problems == [] and len(bankset.files) == 1


def test_search_is_case_insensitive_over_id_prompt_answer(tmp_path):
    bankset = load_banks(shipped_dir=shipped_dir(tmp_path), include_user=False)
    assert [q.id for q in bankset.search("alibi", "en")] == ["basics.mcq", "basics.numeric"]
    assert [q.id for q in bankset.search("集合", "zh")] == ["basics.open"]
    assert [q.id for q in bankset.search("BASICS.TF", "en")] == ["basics.tf"]
    assert len(bankset.search("", "en")) == 6


def test_structural_loading_never_imports_torch(tmp_path):
    shipped = shipped_dir(tmp_path)
    code = (
        "import sys\n"
        "from quizbank import load_banks, bank_stats\n"
        f"b = load_banks(shipped_dir={str(shipped)!r}, include_user=False)\n"
        "assert b.problems == [], b.problems\n"
        "bank_stats(b)\n"
        "b2 = load_banks(include_user=False)\n"
        "import quizbank.cli, quizbank.checks, quizbank.template\n"
        "print('torch' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_package_import_is_lazy():
    code = "import sys, quizbank; print('pydantic' in sys.modules, 'yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "False False"


# ----------------------------------------------------------------------------- non-regular bank files (FIFOs, devices)


def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "bank.yaml"
    os.mkfifo(fifo)
    start = time.perf_counter()
    bank, problems = load_bank_file(fifo)
    assert time.perf_counter() - start < 1.0
    assert bank is None
    assert str(problems[0]).endswith(
        "is not a regular file (a FIFO, device or socket); bank files must be files"
    )
    bankset = load_banks([fifo], include_shipped=False, include_user=False)
    assert [path for path, _ in bankset.skipped] == [problems[0].path]


def test_a_character_device_is_refused():
    bank, problems = load_bank_file("/dev/zero")  # would never end if it were read
    assert bank is None and "is not a regular file" in str(problems[0])


@pytest.mark.parametrize("how", ["validate", "--bank"])
def test_cli_with_a_fifo_returns_instead_of_hanging(tmp_path, how):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    argv = (
        ["bank", "validate", str(fifo), "--no-checks"]
        if how == "validate"
        else ["--bank", str(fifo), "bank", "stats"]
    )
    env = {**os.environ, "POSENC_BANK_DIR": str(tmp_path / "none")}
    proc = subprocess.run(
        [sys.executable, "-m", "quizbank.cli", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr
    if how == "validate":
        assert proc.returncode == 1 and "is not a regular file" in proc.stdout
    else:
        assert proc.returncode == 0 and "1 bank file skipped" in proc.stderr


def test_hints_are_an_optional_localized_field() -> None:
    from quizbank.schema import OpenQuestion

    question = OpenQuestion.model_validate(
        {
            "id": "t.q",
            "type": "open",
            "prompt": {"en": "p"},
            "answer": {"en": "a"},
            "key_points": [{"en": "k"}],
            "explanation": {"en": "e"},
            "hints": [{"en": "first", "zh": "第一"}, {"en": "second"}],
        }
    )
    assert [h.get("zh") for h in question.hints] == ["第一", "second"]
    assert question.hints[0] in question.text_fields()
