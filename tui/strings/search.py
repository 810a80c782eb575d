"""The UI strings of Search and the glossary: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # search
    "search.placeholder": ("Search questions, topics and demos…", "搜索题目、主题和演示…"),
    "search.none": ("No match", "没有匹配项"),
    "search.topic": ("topic", "主题"),
    "search.demo": ("demo", "演示"),
    "search.question": ("question", "题目"),
    "search.term": ("term", "术语"),
    # glossary
    "glossary.title": ("Glossary · one Chinese term per concept", "术语表 · 每个概念一个中文术语"),
    "glossary.placeholder": ("Filter terms (English or 中文)…", "筛选术语（English 或中文）…"),
    "glossary.count": ("{n} terms", "{n} 个术语"),
    "glossary.count_one": ("1 term", "1 个术语"),
    "glossary.failed": ("Could not read the glossary: {error}", "无法读取术语表：{error}"),
    "key.glossary": ("Glossary", "术语表"),
    "palette.placeholder": ("Jump to a question, topic or demo…", "跳转到题目、主题或演示…"),
    "palette.open_question": ("Open question {id}", "打开题目 {id}"),
    "palette.browse_topic": ("Browse topic", "浏览主题"),
    "palette.open_demo": ("Open in the demo lab", "在演示实验室中打开"),
    "palette.mock": ("Start a timed mock interview", "开始一场计时模拟面试"),
    "palette.quiz": ("Start a quiz: pick topics, types and length", "开始测验：选择主题、题型和题数"),
    "palette.study": ("Study the cards that are due (spaced repetition)", "复习到期的卡片（间隔重复）"),
    "palette.drills": ("Coding drills: implement the encodings yourself", "编程练习：自己实现这些位置编码"),
    "palette.open_drill": ("Open the coding drill", "打开编程练习"),
    "search.drill": ("drill", "练习"),
    "quiz.drill_link": (
        "Coding drill: {name}. Press c to implement it yourself.",
        "编程练习：{name}。按 c 亲手实现它。",
    ),
    "palette.export": ("Export your progress to a file", "把学习进度导出到文件"),
    "palette.language": ("Switch the language (English / 中文)", "切换语言（English / 中文）"),
    "palette.demo_lab": ("Run any demo with your own parameters", "用自己的参数运行任意演示"),
    "palette.stats": ("Reviews, retention, due forecast and mastery", "复习次数、保留率、到期预测与掌握度"),
    "palette.glossary": ("Every term with its Chinese name and definition", "所有术语及其中文名称和定义"),
    "palette.search": ("Search questions, topics and demos", "搜索题目、主题和演示"),
    "palette.reload": ("Reload the question banks from disk", "从磁盘重新加载题库"),
    "palette.help": ("Keys and how the app works", "按键说明与使用方法"),
    "search.command": ("command", "命令"),
    # the Search screen
    "search.key_close": ("Close", "关闭"),
    "glossary.key_close": ("Close the glossary", "关闭术语表"),
    "search.key_down": ("Next result", "下一个结果"),
    "search.key_up": ("Previous result", "上一个结果"),
}
