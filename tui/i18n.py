"""User-interface strings in English and Chinese. Bank text carries its own languages (`Text.get`).

`tr(key, lang, **fields)` formats a string; a key missing in one language falls back to English.
"""

from __future__ import annotations

import os

__all__ = ["LANGUAGES", "count", "default_language", "demo_claim", "demo_title", "tr"]

LANGUAGES = ("en", "zh")

STRINGS: dict[str, tuple[str, str]] = {
    # app-wide
    "app.subtitle": ("position encoding, computed live", "位置编码 · 实时计算"),
    "lang.switched": ("Language: English", "语言：中文"),
    "loading.banks": ("Loading question banks…", "正在加载题库…"),
    "reload.done": (
        "Banks reloaded: {topics_text}, {questions_text}",
        "题库已重新加载：{topics} 个主题，{questions} 道题",
    ),
    "reload.failed": ("Reload failed: {error}", "重新加载失败：{error}"),
    "banks.failed": ("Could not load the question banks: {error}", "无法加载题库：{error}"),
    "banks.none": ("No question banks loaded.", "没有加载任何题库。"),
    "store.off": ("Progress is not saved: {error}", "进度不会被保存：{error}"),
    "store.record_failed": ("Could not record the answer: {error}", "无法记录答案：{error}"),
    "store.setting_failed": ("Could not save the setting: {error}", "无法保存设置：{error}"),
    "keymap.bad": ("Ignoring the keymap setting: {error}", "忽略按键映射设置：{error}"),
    "module.missing": ("{what} is not available yet ({error})", "{what} 暂不可用（{error}）"),
    "question.missing": ("No question with id {id}", "没有 id 为 {id} 的题目"),
    "topic.missing": ("No topic {id}", "没有主题 {id}"),
    "not.ready": ("Still loading the banks…", "题库仍在加载…"),
    # bindings (footer and help)
    "key.quit": ("Quit", "退出"),
    "key.back": ("Back", "返回"),
    "key.help": ("Help", "帮助"),
    "key.search": ("Search", "搜索"),
    "key.language": ("中文", "English"),
    "key.reload": ("Reload", "重载"),
    "key.palette": ("Commands", "命令"),
    "key.switch_language": ("Switch language", "切换语言"),
    "key.drills": ("Drills", "编程练习"),
    "key.export": ("Export progress", "导出进度"),
    "key.quit_home": ("Quit (press q twice)", "退出（按两次 q）"),
    "key.end_quiz": ("End quiz", "结束"),
    "key.got_it": ("Got it", "答对了"),
    "key.missed": ("Missed", "没答出"),
    "key.quiz": ("Quiz", "测验"),
    "key.browse": ("Browse", "浏览"),
    "key.demo_lab": ("Demo lab", "演示实验室"),
    "key.study": ("Study", "学习"),
    "key.stats": ("Stats", "统计"),
    "key.mock": ("Mock interview", "模拟面试"),
    "key.check": ("Check", "检查"),
    "key.choose": ("Choose (mcq answers, multi toggles)", "选择（单选即作答，多选切换）"),
    "key.choice_up": ("Highlight the previous choice", "高亮上一个选项"),
    "key.choice_down": ("Highlight the next choice", "高亮下一个选项"),
    "key.choice_pick": ("Pick the highlighted choice / confirm", "选中高亮选项 / 确认"),
    "key.answer_true": ("Answer true", "回答：正确"),
    "key.answer_false": ("Answer false", "回答：错误"),
    "key.next": ("Next", "下一题"),
    "key.prev": ("Previous", "上一题"),
    "key.demo": ("Run demo", "运行演示"),
    "key.predict": ("Predict", "预测"),
    "predict.other": ("Other target", "换一个目标"),
    "predict.add_key": ("Add to Study", "加入复习"),
    "predict.title": ("Predict, then reveal: {demo} ({params})", "先预测，再揭晓：{demo}（{params}）"),
    "predict.ask": (
        "What is {target}? Type your prediction, then Enter.",
        "{target}是多少？输入你的预测，按 Enter。",
    ),
    "predict.choose": ("Target {n} of {total} (↑/↓ for another).", "目标 {n}/{total}（↑/↓ 换一个）。"),
    "predict.none": ("This demo has no number to predict.", "这个演示没有可以预测的数值。"),
    "predict.not_a_number": (
        "✗ Not a number: write e.g. 0.5, 1/256 or 2e-3.",
        "✗ 不是数字：请写成 0.5、1/256 或 2e-3 这样的形式。",
    ),
    "predict.running": ("Running the demo…", "正在运行演示……"),
    "predict.failed": ("✗ The demo could not run: {error}", "✗ 演示无法运行：{error}"),
    "predict.close": ("✓ Close: within 5%.", "✓ 很接近：误差在 5% 以内。"),
    "predict.off": ("✗ Off by more than 5%.", "✗ 误差超过 5%。"),
    "predict.numbers": (
        "The demo computed {actual}; you predicted {predicted}.",
        "演示算出 {actual}；你预测的是 {predicted}。",
    ),
    "predict.error": ("Error: {abs} ({rel} relative).", "误差：{abs}（相对误差 {rel}）。"),
    "predict.add_hint": (
        "a adds this to Study as a card · Esc goes back to the lab",
        "按 a 把它作为卡片加入复习 · Esc 返回演示实验室",
    ),
    "predict.added": ("Added {id} to Study ({path}).", "已把 {id} 加入复习（{path}）。"),
    "predict.already": ("{id} is already in Study.", "{id} 已在复习中。"),
    "key.index": ("Index", "目录"),
    "key.run": ("Run", "运行"),
    "key.reset": ("Defaults", "默认值"),
    "key.start": ("Start", "开始"),
    "key.open": ("Open", "打开"),
    "key.retry": ("Retry missed", "重做错题"),
    "key.new_quiz": ("New quiz", "新测验"),
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
    # question types (meta line, Home's mix of types); English keeps the bank format's names
    "type.mcq": ("mcq", "单选"),
    "type.multi": ("multi", "多选"),
    "type.truefalse": ("truefalse", "判断"),
    "type.numeric": ("numeric", "数值"),
    "type.cloze": ("cloze", "填空"),
    "type.open": ("open", "问答"),
    # quiz setup
    "setup.title": ("New quiz", "新测验"),
    "setup.topics": ("Topics (space toggles)", "主题（空格切换）"),
    "setup.difficulty": ("Difficulty", "难度"),
    "setup.any": ("any", "全部"),
    "setup.easy": ("easy", "简单"),
    "setup.medium": ("medium", "中等"),
    "setup.hard": ("hard", "困难"),
    "setup.count": ("Questions", "题数"),
    "setup.count_bad": ("Questions: a whole number ≥ 1, or “all”", "题数：不小于 1 的整数，或 “all”"),
    "setup.matching": ("{n} questions match", "符合条件的题目：{n} 道"),
    "setup.matching_one": ("1 question matches", "符合条件的题目：1 道"),
    "setup.none": (
        "No question matches: choose more topics or another difficulty.",
        "没有符合条件的题目：请多选主题或换个难度。",
    ),
    "setup.start": ("Start quiz", "开始测验"),
    "setup.seed": ("shuffle seed {seed}", "随机种子 {seed}"),
    # quiz
    "quiz.progress": ("Question {n}/{total}", "第 {n}/{total} 题"),
    "quiz.score": ("{right} ✓  {wrong} ✗", "{right} ✓  {wrong} ✗"),
    "quiz.difficulty": ("difficulty {d}", "难度 {d}"),
    "quiz.choose_first": (
        "Choose an answer first; Space again shows the answer, n skips",
        "请先作答；再按一次空格显示答案，按 n 跳过",
    ),
    "quiz.type_first": (
        "Type an answer first; Space again shows the answer, n skips",
        "请先输入答案；再按一次空格显示答案，按 n 跳过",
    ),
    "key.leave_input": ("Leave input", "离开输入框"),
    "quiz.correct": ("Correct", "正确"),
    "quiz.incorrect": ("Incorrect", "错误"),
    "quiz.revealed": ("Revealed", "已显示答案"),
    "quiz.self_graded_right": ("You marked this right", "你判定为答对"),
    "quiz.self_graded_wrong": ("You marked this wrong", "你判定为答错"),
    "quiz.answer": ("Answer", "答案"),
    "quiz.drawing": ("Drawing fresh numbers for {id}…", "正在为 {id} 抽取新的数字……"),
    "quiz.draw_failed": ("Could not draw {id}: {error}", "无法为 {id} 抽取数字：{error}"),
    "quiz.model_answer": ("Model answer", "参考答案"),
    "quiz.key_points": ("Key points", "要点"),
    "quiz.explanation": ("Explanation", "解析"),
    "quiz.your_answer": ("Your answer", "你的答案"),
    "quiz.within": ("{value} ± {tol}", "{value} ± {tol}"),
    "quiz.open_hint": (
        "Answer in your head (or aloud), then press Space to reveal the model answer.",
        "先在心里（或大声）作答，然后按空格显示参考答案。",
    ),
    "open.hint": (
        "Type an answer (optional) · Enter reveals and checks it · Esc leaves the box",
        "可输入答案（可选）· 回车显示答案并核对要点 · Esc 离开输入框",
    ),
    "open.key_submit": ("Check answer", "核对答案"),
    "open.covered": ("covered", "已答到"),
    "open.missed": ("missed", "未答到"),
    "open.tick_hint": ("(Tab to a point, Space changes its tick)", "（Tab 移到要点，空格改勾选）"),
    "open.score": ("Your answer covers {done}/{total} key points", "你的答案覆盖了 {done}/{total} 个要点"),
    "open.suggest": ("suggested rating: {rating} {name}", "建议评分：{rating} {name}"),
    "open.rating1": ("Again", "重来"),
    "open.rating2": ("Hard", "困难"),
    "open.rating3": ("Good", "良好"),
    "open.rating4": ("Easy", "简单"),
    "open.why_points": (
        "your answer covers {done}/{total} key points",
        "你的答案覆盖了 {done}/{total} 个要点",
    ),
    "quiz.self_grade": (
        "How did you do?  1 missed  2 hard  3 good  4 easy   (y got it · x missed · n moves on ungraded)",
        "你答得如何？ 1 没答出  2 困难  3 良好  4 轻松   （y 答对 · x 答错 · n 不评分，下一题）",
    ),
    "quiz.choice_hint": (
        "1–{n} or ↑↓ + Enter choose · Space or Enter confirms",
        "按 1–{n} 或 ↑↓ 加 Enter 选择 · 空格或 Enter 确认",
    ),
    "quiz.choice_hint_instant": ("1–{n} or ↑↓ + Enter answers", "按 1–{n} 或 ↑↓ 加 Enter 作答"),
    "quiz.choice_hint_study": ("↑↓ + Enter answers", "↑↓ 加 Enter 作答"),
    "quiz.multi_hint_study": ("↑↓ + Enter toggle · Space checks", "↑↓ 加 Enter 选择 · 空格检查"),
    "quiz.tf_hint_study": ("t = true · f = false (or ↑↓ + Enter)", "t = 正确 · f = 错误（或 ↑↓ 加 Enter）"),
    "quiz.multi_hint": (
        "1–{n} or ↑↓ + Enter toggle · Space checks",
        "按 1–{n}，或 ↑↓ 加 Enter 选择 · 空格检查",
    ),
    "quiz.tf_hint": (
        "t or 1 = true · f or 2 = false · Space or Enter confirms",
        "t 或 1 = 正确 · f 或 2 = 错误 · 空格或 Enter 确认",
    ),
    "quiz.tf_hint_instant": ("t or 1 = true · f or 2 = false", "t 或 1 = 正确 · f 或 2 = 错误"),
    "quiz.numeric_hint": ("Type a number, Enter checks", "输入数字，按 Enter 检查"),
    "quiz.cloze_hint": (
        "Fill each blank; Enter moves on and checks at the end",
        "填写每个空；按 Enter 前进，最后一个空按 Enter 检查",
    ),
    "quiz.true": ("True", "正确"),
    "quiz.false": ("False", "错误"),
    "quiz.not_number": (
        "{error}: type e.g. 0.5, 1/2, 1e-4 or 50%",
        "无法识别为数字（{error}）：可以输入 0.5、1/2、1e-4 或 50%",
    ),
    "quiz.no_demo": ("This question has no live demo.", "这道题没有实时演示。"),
    "quiz.demo_hidden": (
        "The live demo appears once you answer (d shows it now).",
        "作答后显示实时演示（按 d 立即显示）。",
    ),
    "quiz.blank": ("blank {n}", "第 {n} 空"),
    "quiz.accepts": ("accepts: {values}", "可接受：{values}"),
    "quiz.finished": ("Quiz finished", "测验结束"),
    "quiz.empty": ("This quiz has no questions.", "这个测验没有题目。"),
    # summary
    "summary.title": ("Quiz summary", "测验总结"),
    "summary.score": (
        "Score: {right}/{total} answered correctly ({pct}%)",
        "得分：已答 {total} 题，答对 {right} 题（{pct}%）",
    ),
    "summary.detail": (
        "{answered} answered · {skipped} skipped · {duration}",
        "已答 {answered} · 跳过 {skipped} · 用时 {duration}",
    ),
    "summary.by_topic": ("By topic", "按主题"),
    "summary.revisit": ("To revisit (Enter opens)", "需要复习（Enter 打开）"),
    "summary.perfect": ("Nothing to revisit. Well done.", "没有需要复习的题目，做得好。"),
    "summary.wrong": ("wrong", "答错"),
    "summary.skipped": ("skipped", "跳过"),
    "summary.revealed": ("revealed", "看了答案"),
    "summary.score_none": ("Score: nothing answered", "得分：没有作答"),
    "summary.answered": ("{n} answered", "已答 {n}"),
    "summary.correct_n": ("{n} correct", "答对 {n}"),
    "summary.wrong_n": ("{n} wrong", "答错 {n}"),
    "summary.revealed_n": ("{n} revealed", "看答案 {n}"),
    "summary.skipped_n": ("{n} skipped", "跳过 {n}"),
    "summary.not_reached_n": ("{n} not reached", "未做到 {n}"),
    "summary.duration": ("{duration}", "用时 {duration}"),
    "summary.topic_unreached": ("not reached", "未做到"),
    "summary.topic_unanswered": ("not answered", "未作答"),
    "summary.of_n": ("of {n}", "共 {n} 题"),
    # quiz: marks, hints, choices (issue 11)
    "key.flag": ("Flag", "标记"),
    "key.note": ("Note", "笔记"),
    "key.hint": ("Hint", "提示"),
    "key.read": ("Read it (a question tried from Home)", "阅读（从首页试答的题）"),
    "key.cancel": ("Cancel", "取消"),
    "quiz.flagged": ("flagged", "已标记"),
    "quiz.try_it": ("Try it (o reads it in Browse)", "试做（按 o 在浏览中阅读）"),
    "quiz.hint_n": ("Hint {n}/{total}", "提示 {n}/{total}"),
    "quiz.hints_left": ("h hint ({left} left)", "h 提示（还有 {left} 条）"),
    "quiz.no_more_hints": ("No more hints: Space shows the answer.", "没有更多提示了：按空格显示答案。"),
    "quiz.chosen": ("chosen: {choice}", "已选：{choice}"),
    "quiz.tag_picked_right": ("your pick ✓", "你的选择 ✓"),
    "quiz.tag_missed": ("missed: correct", "漏选：正确项"),
    "quiz.tag_answer": ("the answer", "正确答案"),
    "quiz.tag_picked_wrong": ("your pick ✗ wrong", "你的选择 ✗ 错误"),
    "note.title": ("Note on {id}", "{id} 的笔记"),
    "note.help": ("Enter saves (empty deletes) · Esc cancels", "Enter 保存（留空即删除）· Esc 取消"),
    "note.saved": ("Note saved", "笔记已保存"),
    "note.deleted": ("Note deleted", "笔记已删除"),
    "note.flagged": ("Flagged {id}", "已标记 {id}"),
    "note.unflagged": ("Unflagged {id}", "已取消标记 {id}"),
    "setup.types": ("Types", "题型"),
    "setup.only": ("Only", "仅限"),
    "setup.only_flagged": ("flagged", "已标记"),
    "setup.only_wrong": ("wrong last time", "上次答错"),
    "setup.only_unseen": ("unseen", "未做过"),
    "setup.none_status": (
        "No question matches: progress is not available for the status filters.",
        "没有符合条件的题目：进度不可用，无法按状态筛选。",
    ),
    "status.new": ("new", "新"),
    "status.seen": ("seen", "已做"),
    "status.wrong": ("wrong last time", "上次答错"),
    "status.due": ("due", "待复习"),
    # browse
    "browse.title": ("Browse · {topic}", "浏览 · {topic}"),
    "browse.position": ("{n}/{total}", "{n}/{total}"),
    "browse.empty": ("This topic has no questions.", "这个主题没有题目。"),
    "browse.choices": ("Choices", "选项"),
    "browse.blanks": ("Blanks", "填空"),
    "browse.gone": ("Topic {id} is no longer in the banks.", "题库中已没有主题 {id}。"),
    # demo panel
    "demo.title": ("Live demo", "实时演示"),
    "demo.running": ("Running {name}…", "正在运行 {name}…"),
    "demo.none": ("No demo selected.", "没有选择演示。"),
    "demo.failed": ("The demo failed: {error}", "演示失败：{error}"),
    "demo.not_implemented": ("not implemented yet", "尚未实现"),
    "demo.meta": ("{device} · {dtype} · {elapsed}", "{device} · {dtype} · {elapsed}"),
    "demo.checks": ("Checks", "检查"),
    "demo.check_line": ("error {err} ≤ tol {tol}", "误差 {err} ≤ 容差 {tol}"),
    "demo.check_fail": ("error {err} > tol {tol}", "误差 {err} > 容差 {tol}"),
    "demo.values": ("Values", "数值"),
    "demo.notes": ("Notes", "备注"),
    "demo.params": ("params: {params}", "参数：{params}"),
    "demo.masked": ("masked (−∞)", "已屏蔽（−∞）"),
    "demo.sampled": ("showing 1 in {step} of {rows}×{cols}", "每 {step} 个取一个，共 {rows}×{cols}"),
    "demo.rows": ("row", "行"),
    "demo.cols": ("column", "列"),
    "demo.exact": ("exact", "精确"),
    "demo.unknown": ("Unknown demo: {error}", "未知演示：{error}"),
    "demo.stale": (
        "⚠ Not rerun: the parameters were refused. The result below is from the last run.",
        "⚠ 未重新运行：参数被拒绝。下面是上一次运行的结果。",
    ),
    "demo.table_scroll": ("(scroll → for more columns)", "（向右滚动查看更多列）"),
    # demo lab
    "lab.title": ("Demo lab", "演示实验室"),
    "lab.demo": ("Demo", "演示"),
    "lab.params": ("Parameters", "参数"),
    "lab.run": ("Run", "运行"),
    "lab.reset": ("Defaults", "默认值"),
    "lab.fix": ("Fix the highlighted parameters first.", "请先修正标出的参数。"),
    "lab.bad_param": (
        "parameter {name!r} must be {bounds}, got {raw!r}",
        "参数 {name} 应为{bounds}，收到 “{raw}”",
    ),
    "lab.no_params": ("This demo has no parameters.", "这个演示没有参数。"),
    "lab.constraint": (
        "Parameters must satisfy {rule}; got {left}={left_value} and {right}={right_value}.",
        "参数必须满足 {rule}，当前 {left}={left_value}，{right}={right_value}。",
    ),
    "lab.topic": ("topic: {topic}", "主题：{topic}"),
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
    "help.mock_confirm": ("Mock interview: ending early", "模拟面试：提前结束"),
    "help.predict": ("Demo lab: predicting a result", "演示实验室：预测结果"),
    "help.drill_confirm": ("Drills: showing the solution", "编程练习：查看参考答案"),
    "help.remap": (
        'Remap keys with the “keymap” setting: binding id → keys, e.g. {"posenc.next": "j"}.',
        '可用 “keymap” 设置重新映射按键：绑定 id → 按键，例如 {"posenc.next": "j"}。',
    ),
    "help.language": ("Switch language (English ⇄ 中文)", "切换语言（English ⇄ 中文）"),
    "help.close": ("Esc or q closes", "按 Esc 或 q 关闭"),
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
    "palette.search": ("Search questions, topics and demos", "搜索题目、主题和演示"),
    "palette.reload": ("Reload the question banks from disk", "从磁盘重新加载题库"),
    "palette.help": ("Keys and how the app works", "按键说明与使用方法"),
    "search.command": ("command", "命令"),
    # mock interview (tui/screens/mock*.py)
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
    "mock.key_yes": ("End", "结束"),
    "mock.key_no": ("Go on", "继续"),
}


def tr(key: str, lang: str, **fields: object) -> str:
    """The UI string `key` in `lang` ("en" or "zh"), formatted with `fields`."""
    pair = STRINGS.get(key)
    if pair is None:
        text = key
    else:
        text = pair[1] if lang == "zh" and pair[1] else pair[0]
    return text.format(**fields) if fields else text


def count(n: int, noun: str, plural: str = "") -> str:
    """`1 review`, `2 reviews`: an English count with the noun in the right number (Chinese
    strings put the number in their own template)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def demo_title(demo: object, lang: str) -> str:
    """The title of a posenc_ref `Demo` or `DemoResult` in `lang`: `title_zh` in Chinese when the
    spec has one, else the English `title`."""
    return _demo_text(demo, "title", lang)


def demo_claim(demo: object, lang: str) -> str:
    """The one-sentence claim of a `Demo` or `DemoResult` in `lang` (English when no `claim_zh`)."""
    return _demo_text(demo, "claim", lang)


def _demo_text(demo: object, field: str, lang: str) -> str:
    if lang == "zh":
        text = getattr(demo, f"{field}_zh", "")
        if text:
            return str(text)
    return str(getattr(demo, field, "") or "")


def default_language() -> str:
    """The language before any saved setting: Chinese if the locale says so, else English."""
    for var in ("POSENC_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"
