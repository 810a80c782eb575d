"""The UI strings of app-wide messages (loading, reloading, the store) and the setup screens' topic chooser: `key:
(english, chinese)` (assembled in `tui.strings`).
"""

from __future__ import annotations

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
    # the topic chooser of the setup screens
    "topics.all": ("Topics: all {total} (Space toggles one)", "主题：全部 {total} 个（空格切换）"),
    "topics.none": ("Topics: none chosen (Space toggles one)", "主题：未选择（空格切换）"),
    "topics.some": (
        "Topics: {names} ({n} of {total}; Space toggles one)",
        "主题：{names}（{n}/{total}；空格切换）",
    ),
    "topics.from_home": (
        "Topics: {names}, the topic under Home's cursor ({n} of {total}; Space toggles one)",
        "主题：{names}，即主页光标所在主题（{n}/{total}；空格切换）",
    ),
}
