"""User-interface strings in English and Chinese. Bank text carries its own languages (`Text.get`).

`tr(key, lang, **fields)` formats a string; a key missing in one language falls back to English.
"""

from __future__ import annotations

import os

__all__ = ["LANGUAGES", "default_language", "demo_claim", "demo_title", "tr"]

LANGUAGES = ("en", "zh")

STRINGS: dict[str, tuple[str, str]] = {
    # app-wide
    "app.subtitle": ("position encoding, computed live", "位置编码 · 实时计算"),
    "lang.switched": ("Language: English", "语言：中文"),
    "loading.banks": ("Loading question banks…", "正在加载题库…"),
    "reload.done": (
        "Banks reloaded: {topics} topics, {questions} questions",
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
    "key.quit_home": ("Quit (press q twice)", "退出（按两次 q）"),
    "key.end_quiz": ("End quiz", "结束"),
    "key.got_it": ("Got it", "答对了"),
    "key.missed": ("Missed", "没答出"),
    "key.quiz": ("Quiz", "测验"),
    "key.browse": ("Browse", "浏览"),
    "key.demo_lab": ("Demo lab", "演示实验室"),
    "key.study": ("Study", "学习"),
    "key.stats": ("Stats", "统计"),
    "key.check": ("Check", "检查"),
    "key.next": ("Next", "下一题"),
    "key.prev": ("Previous", "上一题"),
    "key.demo": ("Run demo", "运行演示"),
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
    "home.counts": ("{topics} topics · {questions} questions", "{topics} 个主题 · {questions} 道题"),
    "home.topic_line": ("{count} q", "{count} 题"),
    "home.due": ("{due} due", "{due} 待复习"),
    "home.mastery": ("{pct}% mastery", "掌握 {pct}%"),
    "home.skipped": ("Skipped user bank files", "已跳过的用户题库文件"),
    "home.problems": ("Problems in the loaded banks", "已加载题库中的问题"),
    "home.notices": ("Notices", "提示"),
    "home.hint": (
        "Enter on a topic browses it; on a question opens it.",
        "在主题上按 Enter 浏览该主题；在题目上按 Enter 打开该题。",
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
    "quiz.model_answer": ("Model answer", "参考答案"),
    "quiz.key_points": ("Key points", "要点"),
    "quiz.explanation": ("Explanation", "解析"),
    "quiz.your_answer": ("Your answer", "你的答案"),
    "quiz.within": ("{value} ± {tol}", "{value} ± {tol}"),
    "quiz.open_hint": (
        "Answer in your head (or aloud), then press Space to reveal the model answer.",
        "先在心里（或大声）作答，然后按空格显示参考答案。",
    ),
    "quiz.self_grade": (
        "How did you do?  1 missed  2 hard  3 good  4 easy   (y = got it, n = missed)",
        "你答得如何？ 1 没答出  2 困难  3 良好  4 轻松   （y = 答对，n = 答错）",
    ),
    "quiz.choice_hint": ("1–{n} or ↑↓ + Enter", "按 1–{n}，或 ↑↓ 加 Enter"),
    "quiz.multi_hint": (
        "1–{n} or ↑↓ + Enter toggle · Space checks",
        "按 1–{n}，或 ↑↓ 加 Enter 选择 · 空格检查",
    ),
    "quiz.tf_hint": ("1 / t = true · 2 / f = false", "1 / t = 正确 · 2 / f = 错误"),
    "quiz.numeric_hint": ("Type a number, Enter checks", "输入数字，按 Enter 检查"),
    "quiz.cloze_hint": (
        "Fill each blank; Enter moves on and checks at the end",
        "填写每个空；按 Enter 前进，最后一个空按 Enter 检查",
    ),
    "quiz.true": ("True", "正确"),
    "quiz.false": ("False", "错误"),
    "quiz.not_number": ("Not a number: {error}", "不是数字：{error}"),
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
    "summary.score": ("Score: {right}/{total} ({pct}%)", "得分：{right}/{total}（{pct}%）"),
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
    "demo.sampled": ("showing every {step}th of {rows}×{cols}", "每 {step} 个取一个，共 {rows}×{cols}"),
    "demo.rows": ("row", "行"),
    "demo.cols": ("column", "列"),
    "demo.exact": ("exact", "精确"),
    "demo.unknown": ("Unknown demo: {error}", "未知演示：{error}"),
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
    "palette.placeholder": ("Jump to a question, topic or demo…", "跳转到题目、主题或演示…"),
    "palette.open_question": ("Open question {id}", "打开题目 {id}"),
    "palette.browse_topic": ("Browse topic", "浏览主题"),
    "palette.open_demo": ("Open in the demo lab", "在演示实验室中打开"),
}


def tr(key: str, lang: str, **fields: object) -> str:
    """The UI string `key` in `lang` ("en" or "zh"), formatted with `fields`."""
    pair = STRINGS.get(key)
    if pair is None:
        text = key
    else:
        text = pair[1] if lang == "zh" and pair[1] else pair[0]
    return text.format(**fields) if fields else text


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
