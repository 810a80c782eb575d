"""The UI strings of the mock interview: `key: (english, chinese)` (assembled in `tui.strings`)."""

from __future__ import annotations

STRINGS: dict[str, tuple[str, str]] = {
    # mock interview (tui/screens/mock/)
    "mock.setup_title": ("Mock interview", "模拟面试"),
    "mock.minutes": ("Minutes", "时长（分钟）"),
    "mock.topics": ("Topics", "主题"),
    "mock.level": ("Level", "难度"),
    "mock.language": ("Language", "语言"),
    "mock.level.basic": ("basic", "基础"),
    "mock.level.standard": ("standard", "标准"),
    "mock.level.deep": ("deep", "深入"),
    "mock.start": ("Start", "开始"),
    "mock.setup_hint": (
        "5 to 180 minutes; Enter in the minutes field (or s) starts. Open questions: type, then Ctrl+R shows the key points. "
        "Drills: write the function, Ctrl+R grades it. n moves on, q ends.",
        "时长 5 到 180 分钟；在时长输入框按回车（或 s）开始。开放题：先作答，再按 Ctrl+R 显示要点。编程题：写好函数后按 Ctrl+R 评分。"
        "n 下一题，q 结束。",
    ),
    "mock.planning": ("Planning the interview…", "正在规划面试…"),
    "mock.no_topics": ("Choose at least one topic.", "请至少选择一个主题。"),
    "mock.minutes_bad": (
        "Minutes must be a whole number from {low} to {high}.",
        "时长必须是 {low} 到 {high} 之间的整数（分钟）。",
    ),
    "mock.too_small": (
        "Not enough questions for {minutes} minutes with these topics and level; at most {most} minutes.",
        "所选主题和难度的题目不够 {minutes} 分钟；最多 {most} 分钟。",
    ),
    "mock.none_match": (
        "No questions match these topics at this level; choose more topics or another level.",
        "所选主题在这个难度下没有题目；请多选几个主题或换个难度。",
    ),
    "mock.bar": ("Item {n}/{total}", "第 {n}/{total} 题"),
    "mock.clock": ("interview {used} / {total}", "面试 {used} / {total}"),
    "mock.item_clock": ("this item {used} / {budget}", "本题 {used} / {budget}"),
    "mock.over": ("over budget", "超时"),
    "mock.follow_up": ("Follow-up to your last answer", "针对上一题的追问"),
    "mock.skill.concept": ("concept", "概念"),
    "mock.skill.derivation": ("derivation", "推导"),
    "mock.skill.computation": ("computation", "计算"),
    "mock.skill.coding": ("coding", "编程"),
    "mock.answer_hint": (
        "Type your answer, then Ctrl+R to see the key points (Esc leaves the box).",
        "输入你的回答，然后按 Ctrl+R 查看要点（Esc 离开输入框）。",
    ),
    "mock.points_title": (
        "Key points: tick each one you covered (pre-ticked from your answer; 1-9 or Space ticks)",
        "要点：勾选你答到的每一条（已按你的回答预先勾选；1-9 或空格勾选）",
    ),
    "mock.points_score": ("covered {done}/{total}", "答到 {done}/{total}"),
    "mock.model_answer": ("Model answer", "参考答案"),
    "mock.drill_hint": (
        "Write `{function}` in the editor; Ctrl+R grades it (you may grade again). Esc leaves the editor.",
        "在编辑器里实现 `{function}`；Ctrl+R 评分（可以多次评分）。Esc 离开编辑器。",
    ),
    "mock.grading": ("Grading in an isolated process…", "正在隔离进程中评分…"),
    "mock.graded": ("{passed}/{total} cases passed", "通过 {passed}/{total} 个用例"),
    "mock.grade_failed": ("Could not grade: {error}", "无法评分：{error}"),
    "mock.next_hint": ("n: next item", "n：下一题"),
    "mock.end_question": ("End the interview?", "结束面试？"),
    "mock.end_detail": (
        "y ends now and writes the report (marked as ended early); n or Esc goes on.",
        "y 立即结束并生成报告（标记为提前结束）；n 或 Esc 继续面试。",
    ),
    "mock.quit_question": ("End the interview and quit?", "结束面试并退出？"),
    "mock.quit_detail": (
        "y saves the interview (marked as ended early) and quits; n or Esc goes on.",
        "y 保存面试（标记为提前结束）并退出；n 或 Esc 继续面试。",
    ),
    "mock.yes": ("Yes, end it", "是，结束"),
    "mock.yes_quit": ("Yes, save and quit", "是，保存并退出"),
    "mock.no": ("No, go on", "否，继续"),
    "mock.saved": ("Interview saved: {id}", "面试已保存：{id}"),
    "mock.save_failed": ("Could not save the interview: {error}", "无法保存面试：{error}"),
    "mock.no_store": ("The interview is not saved: {error}", "面试未保存：{error}"),
    "mock.added": ("{n} missed items are due in Study now", "{n} 道未答好的题目已加入学习（今天到期）"),
    "mock.added_one": ("1 missed item is due in Study now", "1 道未答好的题目已加入学习（今天到期）"),
    "mock.nothing_missed": ("Nothing was missed.", "没有未答好的题目。"),
    "mock.exported": ("Report written to {path}", "报告已写入 {path}"),
    "mock.export_failed": ("Could not write the report: {error}", "无法写入报告：{error}"),
    "mock.delivered": ("Report sent to your browser as {name}", "报告已发送到浏览器：{name}"),
    "mock.scores_chart": ("Mock interview scores (%)", "模拟面试得分（%）"),
    "mock.key_submit": ("Reveal / grade", "显示要点/评分"),
    "mock.key_next": ("Next item", "下一题"),
    "mock.key_tick": ("Tick key point", "勾选要点"),
    "mock.key_end": ("End interview", "结束面试"),
    "mock.key_add": ("Add missed to Study", "错题加入学习"),
    "mock.key_export": ("Export Markdown", "导出 Markdown"),
    "mock.key_leave": ("Leave editor", "离开编辑框"),
}
