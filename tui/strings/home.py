"""The UI strings of the Home screen: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # home
    "home.topics": ("Topics", "主题"),
    "home.all": ("All topics", "全部主题"),
    "home.columns": ("questions, title", "题数、标题"),
    "home.columns_progress": ("questions, due ↻, mastery", "题数、待复习 ↻、掌握度"),
    "home.start": ("Start", "开始"),
    "home.status": ("Status", "状态"),
    "home.counts": ("{topics_text} · {questions_text}", "{topics} 个主题 · {questions} 道题"),
    "home.topic_line": ("{count} q", "{count} 题"),
    "home.due": ("{due} due", "{due} 待复习"),
    "home.mastery": ("{pct}% mastery", "掌握 {pct}%"),
    "home.mastery_means": (
        "Mastery: chance of recalling a question now, over all its questions (unseen = 0).",
        "掌握度：现在能回想起题目的概率，对全部题目取平均（没学过的按 0 计）。",
    ),
    "home.skipped": ("Skipped user bank files", "已跳过的用户题库文件"),
    "home.problems": ("Problems in the loaded banks", "已加载题库中的问题"),
    "home.notices": ("Notices", "提示"),
    "home.hint": (
        "Enter on a topic browses it; on a question tries it (b reads it).",
        "在主题上按 Enter 浏览该主题；在题目上按 Enter 试做（按 b 阅读）。",
    ),
    "home.store": ("Progress: {path}", "进度：{path}"),
    "home.store_ok": ("Progress is saved.", "进度会被保存。"),
    "home.quit_again": ("Press q again to quit (Ctrl+Q quits at once)", "再按一次 q 退出（Ctrl+Q 直接退出）"),
}
