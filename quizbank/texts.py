"""Every fixed word quizbank writes into its exports and reports, in English and Chinese: one table, one `label`.

The Markdown and Anki exports (`progress/`) and the mock-interview report (`mock/report.py`) read their labels
here, so a word has one translation wherever it appears (True is 正确 in an export and in a report). The app's
own strings live in `tui/strings/`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["TEXTS", "label"]

TEXTS: dict[str, tuple[str, str]] = {
    # exports: Markdown and Anki
    "answer": ("Answer", "答案"),
    "instances": (
        "Drawn fresh each time; three instances (seeds {seeds})",
        "每次出题都重新抽取数字；以下为三个实例（种子 {seeds}）",
    ),
    "instance": ("Instance {n}", "实例 {n}"),
    "model_answer": ("Model answer", "参考答案"),
    "key_points": ("Key points", "要点"),
    "explanation": ("Explanation", "解析"),
    "sources": ("Sources", "参考资料"),
    "live_demo": ("Live demo", "实时演示"),
    "in_demo_lab": ("in posenc's Demo lab", "可在 posenc 的演示实验室运行"),
    "follow_ups": ("Follow-ups", "延伸问题"),
    "tags": ("Tags", "标签"),
    "true": ("True", "正确"),
    "false": ("False", "错误"),
    "accepted": ("Accepted", "可接受的答案"),
    "also_accepts": ("blank {n} also accepts", "第 {n} 空也接受"),
    "answer_in": ("Answer in {unit}", "答案单位：{unit}"),
    "questions": ("{n} questions", "{n} 道题"),
    "one_question": ("1 question", "1 道题"),
    "exported": ("topic `{id}` · exported by posenc", "主题 `{id}` · 由 posenc 导出"),
    "topic": ("Topic", "主题"),
    "question_count": ("Questions", "题数"),
    "bank_title": ("posenc question bank", "posenc 题库"),
    # the mock-interview report
    "mock_title": ("Mock interview report", "模拟面试报告"),
    "when": ("Started", "开始时间"),
    "length": ("Length", "时长"),
    "level": ("Level", "难度"),
    "level_basic": ("basic", "基础"),
    "level_standard": ("standard", "标准"),
    "level_deep": ("deep", "深入"),
    "ended_early": ("ended early", "提前结束"),
    "finished": ("finished", "已完成"),
    "overall": ("Overall", "总分"),
    "none": ("nothing graded", "没有评分项"),
    "unreached_counted": (
        "{n} of {total} items not reached, counted as 0; {asked} on the {done} asked",
        "{total} 题中有 {n} 题未进行，按 0 分计；已答的 {done} 题得分 {asked}",
    ),
    "unreached_counted_one": (
        "1 of {total} items not reached, counted as 0; {asked} on the {done} asked",
        "{total} 题中有 1 题未进行，按 0 分计；已答的 {done} 题得分 {asked}",
    ),
    "by_topic": ("By topic", "按主题"),
    "by_skill": ("By skill", "按能力"),
    "time": ("Time per item", "每题用时"),
    "missed": ("Missed, with model answers", "未答好的题目与参考答案"),
    "weakest": ("Weakest topics", "最弱的主题"),
    "no_missed": ("Nothing missed.", "没有未答好的题目。"),
    "your_answer": ("Your answer", "你的回答"),
    "col_item": ("Item", "题目"),
    "col_skill": ("Skill", "能力"),
    "col_budget": ("Budget", "预算"),
    "col_used": ("Used", "用时"),
    "col_score": ("Score", "得分"),
    "col_items": ("Items", "题数"),
    "not_reached": ("not reached", "未进行"),
    "skipped": ("skipped", "跳过"),
    "follow_up": ("follow-up of {id}", "追问自 {id}"),
    "minutes": ("{n} min", "{n} 分钟"),
    "used": ("{clock} used", "用时 {clock}"),
    "concept": ("concept", "概念"),
    "derivation": ("derivation", "推导"),
    "computation": ("computation", "计算"),
    "coding": ("coding", "编程"),
    "misconceptions": ("Misconceptions stated, with corrections", "说错的观点与更正"),
    "no_misconceptions": ("None stated.", "没有说错的观点。"),
    "point": ("key point {n}", "要点 {n}"),
    "correction": ("Correction", "更正"),
}


def label(key: str, lang: str, **fields: Any) -> str:
    """The text `key` in `lang`: "en", "zh", or "both" ("English / 中文"), with `fields` filled in."""
    en, zh = TEXTS[key]
    if lang == "zh":
        return zh.format(**fields)
    if lang == "both":
        return f"{en.format(**fields)} / {zh.format(**fields)}"
    return en.format(**fields)
