"""The UI strings of the Study screen: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # the Study screen
    "study.title": ("Study · {scope}", "学习 · {scope}"),
    "study.all": ("all topics", "全部主题"),
    "study.counts": ("due {due} · new {new} · done {done}", "到期 {due} · 新卡 {new} · 已完成 {done}"),
    "study.card_new": ("new card", "新卡片"),
    "study.card_info": (
        "{state} · {reviews} · {lapses_text} · recall {recall}",
        "{state} · 已复习 {reps} 次 · 遗忘 {lapses} 次 · 记忆 {recall}",
    ),
    "study.state.1": ("learning", "学习中"),
    "study.state.2": ("review", "复习期"),
    "study.state.3": ("relearning", "重新学习"),
    "study.again": ("Again", "重来"),
    "study.hard": ("Hard", "困难"),
    "study.good": ("Good", "良好"),
    "study.easy": ("Easy", "简单"),
    "study.reveal_hint": (
        "Answer if you like (↑↓ Enter picks a choice), or just recall it; then Enter shows the answer."
        " Ctrl+Z undoes.",
        "可以先作答（↑↓ 加回车选择），也可以只在心里回忆；然后按回车显示答案。Ctrl+Z 撤销。",
    ),
    "study.rate_hint": ("Rate your recall: 1-4", "评价你的回忆：1-4"),
    "study.suggested": ("Suggested: {rating} ({why})", "建议：{rating}（{why}）"),
    "study.why_right": ("your answer was right", "你的回答正确"),
    "study.why_wrong": ("your answer was wrong", "你的回答错误"),
    "study.why_quiz_right": ("right in a Quiz {ago} ago", "{ago}前测验答对"),
    "study.why_quiz_wrong": ("wrong in a Quiz {ago} ago", "{ago}前测验答错"),
    "study.loading": ("Loading your cards…", "正在加载卡片…"),
    "study.done_title": ("Nothing left to study right now.", "现在没有需要学习的卡片了。"),
    "study.done_session": (
        "This session: {done} ratings ({again} Again).",
        "本次：评分 {done} 次（重来 {again} 次）。",
    ),
    "study.next_due": (
        "Next card due in {interval} ({at} UTC).",
        "下一张卡片 {interval}后到期（UTC {at}）。",
    ),
    "study.nothing_due": ("No studied card in this scope yet.", "这个范围内还没有学过的卡片。"),
    "study.new_limit": (
        "New cards per day: {limit} (change: posenc progress config new_per_day N).",
        "每天新卡片：{limit} 张（修改：posenc progress config new_per_day N）。",
    ),
    "study.done_keys": ("u undoes the last rating · q goes back", "u 撤销上一次评分 · q 返回"),
    "study.no_store": ("Study needs the progress store: {error}", "学习模式需要进度存储：{error}"),
    "study.no_questions": ("No questions in this scope.", "这个范围内没有题目。"),
    "study.recorded": ("Recorded {rating} · next in {interval}", "已记录 {rating} · {interval}后再见"),
    "study.undone": ("Undid {rating} on {id}", "已撤销 {id} 的 {rating}"),
    "study.nothing_to_undo": ("Nothing to undo in this session.", "本次没有可以撤销的评分。"),
    "study.failed": ("Could not save: {error}", "无法保存：{error}"),
    "study.busy": ("Still saving the last rating…", "仍在保存上一次评分…"),
    "study.key_reveal": ("Show answer", "显示答案"),
    "study.key_undo": ("Undo", "撤销"),
    "study.key_rate": ("Rate", "评分"),
}
