"""One language for every `posenc` command that prints prose: the command's own `--lang`, else
`posenc --lang`, else the app's saved `language` setting, else the locale (quizbank/cli_text.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from posenc_ref.cli import format_table
from quizbank.cli_text import terminal_markdown
from tui.cli import main


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("POSENC_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("POSENC_BANK_DIR", str(tmp_path / "user-banks"))
    monkeypatch.setenv("POSENC_LANG", "en")  # the locale says English: only the setting or --lang says zh
    return tmp_path


# (argv, Chinese prose it prints, the English it printed before)
PROSE = [
    (["drill", "list"], ["共 18 个练习", "正弦位置编码表", "中等", "10 分钟"], "18 drills."),
    (["drill", "show", "rope-half"], ["RoPE：半分排布", "半分", "15 分钟", "然后"], "then"),
    (
        ["demo", "run", "alibi-slopes", "n_heads=8", "--device", "cpu"],
        ["结论：", "8 个头的斜率", "头  斜率", "自检", "项自检通过（全部通过）"],
        "checks passed",
    ),
    (["progress", "stats"], ["复习：今天 0 次", "各主题掌握度：", "新卡"], "mastery per topic"),
    (["export", "markdown", "OUT"], ["已写入", "个主题文件"], "wrote"),
]


def _no_emphasis(out: str) -> bool:
    """No `**` outside code: `base**(-2i/dim)` between backticks is a power, not Markdown."""
    return "**" not in re.sub(r"`[^`]*`", "", out)


def _run(capsys: pytest.CaptureFixture[str], argv: list[str], out_dir: Path) -> str:
    argv = [str(out_dir) if a == "OUT" else a for a in argv]
    assert main(argv) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "chinese", "english"), PROSE, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_the_saved_language_applies_to_every_command_that_prints_prose(data, capsys, argv, chinese, english):
    assert _run(capsys, ["progress", "config", "language", "zh"], data / "unused")
    out = _run(capsys, argv, data / "md")
    for fragment in chinese:
        assert fragment in out, out
    assert english not in out and _no_emphasis(out), out


@pytest.mark.parametrize(
    ("argv", "chinese", "english"), PROSE, ids=lambda v: " ".join(v) if isinstance(v, list) else ""
)
def test_the_global_lang_option_applies_to_every_command_that_prints_prose(
    data, capsys, argv, chinese, english
):
    out = _run(capsys, ["--lang", "zh", *argv], data / "md")
    assert all(fragment in out for fragment in chinese), out
    assert _no_emphasis(out), out
    assert english in _run(capsys, argv, data / "md-en")  # nothing saved, an English locale: English


def test_the_exported_markdown_follows_the_language_too(data, capsys):
    _run(capsys, ["--lang", "zh", "export", "markdown", "OUT"], data / "md")
    assert (data / "md" / "README.md").read_text(encoding="utf-8").startswith("# posenc 题库")
    _run(capsys, ["--lang", "zh", "export", "markdown", "OUT", "--lang", "en"], data / "md-en")
    assert (data / "md-en" / "README.md").read_text(encoding="utf-8").startswith("# posenc question bank")


def test_a_commands_own_lang_beats_the_saved_setting(data, capsys):
    _run(capsys, ["progress", "config", "language", "zh"], data)
    out = _run(capsys, ["drill", "show", "rope-half", "--lang", "en"], data)
    assert "RoPE, half layout" in out and "然后" not in out


def test_drill_statements_print_without_markdown_emphasis():
    text = "Use the **half** layout.\n\n\n```python\ndef f(x): return x**2\n```\n- `2**(-8/n)` stays code"
    assert terminal_markdown(text) == (
        "Use the half layout.\n\n    def f(x): return x**2\n- `2**(-8/n)` stays code"
    )


def test_demo_tables_line_up_under_chinese_headers():
    lines = format_table(["头", "斜率"], [[1, 0.5], [12, 0.25]])
    assert lines == ["  头  斜率", "  --  ----", "   1   0.5", "  12  0.25"]
