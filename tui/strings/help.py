"""The UI strings of the Help screen: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # help
    "help.title": ("Keys", "按键"),
    "help.global": ("Everywhere", "全局"),
    "help.home": ("Home", "主页"),
    "help.quiz": ("Quiz", "测验"),
    "help.setup": ("Quiz setup", "测验设置"),
    "help.summary": ("Quiz summary", "测验总结"),
    "help.browse": ("Browse", "浏览"),
    "help.lab": ("Demo lab", "演示实验室"),
    "help.question": ("Answering a question", "作答"),
    "help.open_answer": ("Typing an open answer", "输入开放题答案"),
    "help.note": ("Editing a note", "编辑笔记"),
    "help.no_keys": (
        "no keys of its own: type to filter, ↑↓ and Enter open; the keys under Everywhere apply",
        "没有专属按键：输入即筛选，↑↓ 加回车打开；“全局”中的按键适用",
    ),
    "help.mock_setup": ("Mock interview setup", "模拟面试设置"),
    "help.mock_report": ("Mock interview report", "模拟面试报告"),
    "help.mock_points": ("Mock interview: key points of an open question", "模拟面试：开放题的要点"),
    # the yes/no question (tui/screens/confirm.py): end a mock interview early, show a solution
    "help.confirm": (
        "Confirming (end an interview early, show a solution)",
        "确认（提前结束面试、查看参考答案）",
    ),
    "confirm.key_yes": ("Yes", "是"),
    "confirm.key_no": ("No, go back", "否，返回"),
    "help.predict": ("Demo lab: predicting a result", "演示实验室：预测结果"),
    "help.remap": (
        'Remap keys with the “keymap” setting: binding id → keys, e.g. {"posenc.next": "j"}.',
        '可用 “keymap” 设置重新映射按键：绑定 id → 按键，例如 {"posenc.next": "j"}。',
    ),
    "help.language": ("Switch language (English ⇄ 中文)", "切换语言（English ⇄ 中文）"),
    "help.close": ("Esc or q closes", "按 Esc 或 q 关闭"),
}
