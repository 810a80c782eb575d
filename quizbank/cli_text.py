"""The language the `posenc` commands print in, and their prose in English and Chinese.

One language for every command that prints prose (`drill list`, `drill show`, `demo run`,
`progress stats`, `export ...`): a command's own `--lang`, else the global `posenc --lang en|zh`,
else the `language` setting saved in the progress store (read without opening the store for
writing), else the locale (`POSENC_LANG`, `LC_ALL`, `LC_MESSAGES`, `LANG`), as the app starts. The
top-level parser (`tui/cli.py`) resolves it once into `args.language`; a command run through another
entry point (`python -m quizbank.cli`, the tests' parsers) resolves it the same way.

The strings are one table, `TEXT` (key -> (English, Chinese)), read with `say`. `posenc demo`
keeps its few labels beside it in `posenc_ref/cli.py`, which cannot import quizbank.
"""

from __future__ import annotations

import os
import re
from typing import Any

__all__ = ["LANGS", "TEXT", "cli_language", "say", "terminal_markdown"]

LANGS: tuple[str, ...] = ("en", "zh")

TEXT: dict[str, tuple[str, str]] = {
    # posenc drill list / show
    "drill.difficulty.1": ("easy", "简单"),
    "drill.difficulty.2": ("medium", "中等"),
    "drill.difficulty.3": ("hard", "困难"),
    "drill.minutes": ("{n} min", "{n} 分钟"),
    "drill.listed": (
        "{n} drills. `posenc drill show NAME` for the task, `posenc drill start NAME` to begin.",
        "共 {n} 个练习。`posenc drill show NAME` 查看题目，`posenc drill start NAME` 开始练习。",
    ),
    "drill.next": (
        "posenc drill start {name}   then   posenc drill check {name} FILE",
        "posenc drill start {name}   然后   posenc drill check {name} FILE",
    ),
    # posenc progress stats
    "stats.reviews": (
        "reviews: {today} today, {window} in {days} days, {total} total",
        "复习：今天 {today} 次，{days} 天内 {window} 次，共 {total} 次",
    ),
    "stats.retention": (
        "true retention ({days} days): {retention} of {n} reviews of mature cards",
        "真实记忆保持率（{days} 天）：成熟卡片的 {n} 次复习中 {retention}",
    ),
    "stats.streak": ("streak: {n} day(s)", "连续学习：{n} 天"),
    "stats.scheduler_default": (
        "scheduler: FSRS-6 with fsrs's default parameters ('posenc progress optimize' fits them to you)",
        "调度：FSRS-6，使用 fsrs 的默认参数（'posenc progress optimize' 按你的复习记录拟合）",
    ),
    "stats.scheduler_fitted": (
        "scheduler: FSRS-6 fitted to {reviews} reviews on {day}",
        "调度：FSRS-6，{day} 按 {reviews} 次复习拟合",
    ),
    "stats.forecast": ("due, next 14 days: {counts}", "未来 14 天到期：{counts}"),
    "stats.mastery": ("mastery per topic:", "各主题掌握度："),
    "stats.topic": (
        "due {due:>4}  new {new:>4}  studied {studied:>4}  mastery {mastery:>4}",
        "到期 {due:>4}  新卡 {new:>4}  已学 {studied:>4}  掌握度 {mastery:>4}",
    ),
    "stats.leeches": ("leeches (>= 5 lapses): {leeches}", "难点卡片（遗忘 ≥ 5 次）：{leeches}"),
    # posenc export anki / markdown
    "export.anki": (
        "wrote {notes} notes in {decks} decks to {out}",
        "已写入 {notes} 张笔记（{decks} 个牌组）到 {out}",
    ),
    "export.markdown": (
        "wrote {topics} topic files ({questions} questions) and README.md to {out}",
        "已写入 {topics} 个主题文件（{questions} 道题）和 README.md 到 {out}",
    ),
}


def say(key: str, lang: str, **fields: Any) -> str:
    """The string `key` in `lang` ("en" or "zh"), with `fields` filled in."""
    en, zh = TEXT[key]
    return (zh if lang == "zh" else en).format(**fields)


def _locale_language() -> str:
    for var in ("POSENC_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def cli_language(args: Any) -> str:
    """The language a command prints in ("en" or "zh"); see the module doc for the order."""
    for given in (
        getattr(args, "lang", None),
        getattr(args, "language", None),
        getattr(args, "global_lang", None),
    ):
        if given in LANGS:
            return str(given)
    from .progress.paths import peek_setting

    saved = peek_setting(getattr(args, "data_dir", None), "language")
    return saved if saved in LANGS else _locale_language()


_FENCE = re.compile(r"^\s*```")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_EMPHASIS = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")


def terminal_markdown(text: str) -> str:
    """Markdown as plain terminal text: `**bold**` and `__bold__` lose their markers, headings their `#`,
    a fenced code block is indented by 4 spaces without its fences, and runs of blank lines become one.
    Code (in a block or between backticks) is kept exactly as written, `2**(-8/n)` included."""
    out: list[str] = []
    in_code = False
    for line in text.splitlines():
        if _FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            out.append(("    " + line).rstrip())
            continue
        heading = _HEADING.match(line)
        if heading:
            line = heading.group(2)
        pieces = _CODE_SPAN.split(line)
        # re.split with two groups gives [text, ticks, code, text, ticks, code, ...]
        plain = []
        for i in range(0, len(pieces), 3):
            plain.append(_EMPHASIS.sub(r"\2", pieces[i]))
            if i + 2 < len(pieces):
                plain.append(pieces[i + 1] + pieces[i + 2] + pieces[i + 1])
        line = "".join(plain).rstrip()
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)
