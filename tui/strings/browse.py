"""The UI strings of the Browse screen: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # browse
    "browse.title": ("Browse · {topic}", "浏览 · {topic}"),
    "browse.position": ("{n}/{total}", "{n}/{total}"),
    "browse.empty": ("This topic has no questions.", "这个主题没有题目。"),
    "browse.choices": ("Choices", "选项"),
    "browse.blanks": ("Blanks", "填空"),
    "browse.gone": ("Topic {id} is no longer in the banks.", "题库中已没有主题 {id}。"),
    "typed.title": ("Your typed answers ({n}), oldest first", "你输入过的答案（{n} 次），从早到晚"),
    "typed.points": ("{covered}/{total} key points", "要点 {covered}/{total}"),
    "typed.contradicted": ("{n} contradicted", "{n} 处说反了"),
    "typed.source.quiz": ("Quiz", "测验"),
    "typed.source.study": ("Study", "学习"),
    "typed.source.mock": ("Mock", "模拟面试"),
}
