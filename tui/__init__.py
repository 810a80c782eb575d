"""posenc's study app (Textual): `posenc` with no subcommand opens it (see `tui.app.run_app`).

Layout, Posting/Harlequin style:

* `app.py` - `PosencApp`: startup (first paint, then bank loader / store / demo-host workers),
  language, keymap, jumps (`open_question`, `open_topic`, `open_demo`); `app.tcss`.
* `screens/` - home, quiz (setup, questions, summary), browse, demo lab, help, search, plus the
  progress screens (study, stats); each with its `.tcss`.
* `widgets/` - `QuestionView` (a question with type-specific input and a revealed state),
  `DemoPanel` (a live demo run in a worker), `Heatmap`.
* `demo_host.py` - the child process that imports torch and runs demos.
* pure helpers (no Textual): `mathtext.py` (LaTeX -> Unicode), `i18n.py`; grading, quiz
  sessions and question status live in `quizbank/`; `richtext.py` renders bank text as data; `cjkwrap.py` lets lines break inside
  Chinese text; `testing.py` holds test fixtures.

Importing this package is free: nothing is imported here.
"""
