"""Startup order: the first screen paints before torch (and before pydantic and the banks) load.

Each check runs the real app in a fresh interpreter (headless), because this test process may
already have imported torch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.paths import ROOT


def _run(code: str, tmp_path: Path, extra_env: dict[str, str] | None = None) -> dict:
    env = dict(os.environ)
    env.update(
        {
            "POSENC_DATA_DIR": str(tmp_path / "data"),
            "POSENC_BANK_DIR": str(tmp_path / "user-banks"),
            "POSENC_LANG": "en",
        }
    )
    env.pop("POSENC_BENCH_LOG", None)
    env.update(extra_env or {})
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_importing_the_app_is_light(tmp_path: Path) -> None:
    seen = _run(
        """
        import json, sys
        import tui.app, tui.screens.home
        print(json.dumps({m: m in sys.modules for m in
            ("torch", "pydantic", "quizbank.schema", "yaml", "textual_plotext", "numpy", "flatlatex",
             "jieba", "snowballstemmer")}))
        """,
        tmp_path,
    )
    assert seen == {m: False for m in seen}


@pytest.mark.slow
def test_home_mounts_before_torch_and_banks(tmp_path: Path) -> None:
    """The Home screen mounts (and first paints) with neither torch nor the bank loader imported;
    the loader and warm-up workers start after the first paint and do their job. Torch is
    imported only by the demo host process, never by the UI process."""
    seen = _run(
        """
        import json, sys, time
        from tui.app import PosencApp
        from tui.screens.home import HomeScreen

        record = {}
        original_mount = HomeScreen.on_mount
        original_paint = PosencApp.first_paint

        async def on_mount(self):
            record["torch_at_mount"] = "torch" in sys.modules
            record["pydantic_at_mount"] = "pydantic" in sys.modules
            record["bankset_at_mount"] = self.app.bankset is not None
            await original_mount(self)

        def first_paint(self):
            record["torch_at_paint"] = "torch" in sys.modules
            original_paint(self)

        HomeScreen.on_mount = on_mount
        PosencApp.first_paint = first_paint

        class Probe(PosencApp):
            def on_torch_warmed(self, message):
                super().on_torch_warmed(message)
                record["torch_warmed"] = message.error is None
                record["device"] = message.device or ""
                self.check_done()

            def on_banks_loaded(self, message):
                super().on_banks_loaded(message)
                record["questions"] = len(self.bankset.questions) if self.bankset else 0
                self.check_done()

            def check_done(self):
                if "torch_warmed" in record and "questions" in record:
                    self.exit(0)

        app = Probe([], None)
        app.run(headless=True, size=(100, 30))
        record["torch_at_exit"] = "torch" in sys.modules
        record["judge_at_exit"] = [m for m in ("jieba", "snowballstemmer") if m in sys.modules]
        print(json.dumps(record))
        """,
        tmp_path,
    )
    assert seen["torch_at_mount"] is False
    assert seen["pydantic_at_mount"] is False
    assert seen["bankset_at_mount"] is False
    assert seen["torch_at_paint"] is False
    assert (
        seen["torch_warmed"] is True and seen["device"] in ("cpu", "mps") or seen["device"].startswith("cuda")
    )
    assert seen["torch_at_exit"] is False  # the demo host imported it, in its own process
    assert seen["judge_at_exit"] == []  # the judge's text tools load when an open question shows
    assert seen["questions"] > 0


@pytest.mark.slow
def test_demo_host_runs_demos_and_reports_failures() -> None:
    import sys as _sys

    from tui.demo_host import DemoHost, RemoteDemoError
    from tui.widgets.demo_panel import describe_error

    had_torch = "torch" in _sys.modules
    host = DemoHost()
    try:
        assert host.warm() in ("cpu", "mps") or host.device.startswith("cuda")
        result = host.run("alibi-slopes", {"n_heads": 8})
        assert result.values["last_slope"] == 2.0**-8
        assert all(isinstance(v, float) for v in result.values.values())
        with pytest.raises(RemoteDemoError) as bad:
            host.run("alibi-slopes", {"n_heads": 0})
        assert bad.value.kind == "ParamError"
        assert describe_error(bad.value) == "parameter 'n_heads' must be int in [1, 1024], got 0"
        with pytest.raises(RemoteDemoError) as unknown:
            host.run("no-such-demo", {})
        assert "unknown demo" in describe_error(unknown.value)
    finally:
        host.close()
    assert ("torch" in _sys.modules) == had_torch  # the client never imports torch


@pytest.mark.slow
def test_bench_mode_exits_after_first_paint_and_logs_it(tmp_path: Path) -> None:
    log = tmp_path / "bench.jsonl"
    seen = _run(
        """
        import json
        from tui.app import run_app
        code = run_app([], None)
        print(json.dumps({"code": code}))
        """,
        tmp_path,
        # one size for the headless driver and Rich alike: with no terminal and no LINES, the driver takes
        # 24 rows (shutil's fallback) and Rich's console 25; so started, the app repainted at 100% CPU and
        # never reached its first paint (3 of 3 runs here, 120 s timeouts)
        {
            "POSENC_BENCH_LOG": str(log),
            "POSENC_BENCH_EXIT": "paint",
            "TEXTUAL_HEADLESS": "1",
            "COLUMNS": "80",
            "LINES": "24",
        },
    )
    assert seen["code"] == 0
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["event"] for e in events] == ["first_paint"]


def test_the_theme_is_in_place_before_the_stylesheet_is_built(tmp_path: Path) -> None:
    """The app's theme is chosen before its CSS is first parsed: set on mount, it re-parsed and re-applied all
    of it before the first paint."""
    seen = _run(
        """
        import json
        from textual.css.stylesheet import Stylesheet
        from tui.app import PosencApp

        reparsed = []
        real_reparse = Stylesheet.reparse

        def reparse(self):
            reparsed.append(1)
            return real_reparse(self)

        Stylesheet.reparse = reparse
        record = {}

        class Probe(PosencApp):
            def first_paint(self):
                record.update(reparsed=len(reparsed), theme=self.theme, classes=sorted(self.classes))
                record["background"] = self.screen.styles.background.hex  # the colours the CSS was built with
                self.exit(0)

        Probe([], None, warm_torch=False, open_store=False).run(headless=True, size=(80, 24))
        print(json.dumps(record))
        """,
        tmp_path,
    )
    assert seen["reparsed"] == 0
    assert seen["theme"] == "tokyo-night" and "-theme-tokyo-night" in seen["classes"]
    assert seen["background"].upper() == "#1A1B26"  # tokyo-night's


def test_the_bare_command_opens_the_app_without_argparse(tmp_path: Path) -> None:
    """`posenc` with no arguments skips argparse (~2 ms with gettext, before the first paint); its options
    still parse, and a subcommand still gets the whole parser."""
    seen = _run(
        """
        import json, sys
        import tui.app
        calls = []
        tui.app.run_app = lambda **kwargs: calls.append((kwargs, "argparse" in sys.modules)) or 0
        from tui.cli import main
        main([])
        main(["--lang", "zh", "--bank", "x.yaml"])
        print(json.dumps(calls))
        """,
        tmp_path,
    )
    assert seen == [
        [{"bank_paths": [], "data_dir": None, "language": None}, False],
        [{"bank_paths": ["x.yaml"], "data_dir": None, "language": "zh"}, True],
    ]


def test_a_subcommand_imports_only_its_own_cli_module():
    """`posenc drill check` must not load the serve, progress or demo command modules (startup of the CLI)."""
    import subprocess
    import sys

    code = (
        "import sys; from tui import cli; cli.build_parser(only=cli._command_in(['--data-dir', 'x', 'drill', 'list']));"
        "print(' '.join(m for m in ('tui.serve', 'quizbank.progress.cli', 'posenc_ref.cli', 'quizbank.mock.cli',"
        " 'quizbank.drills.cli') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["quizbank.drills.cli"]


def test_the_legacy_predictions_check_imports_nothing_without_the_file(tmp_path: Path) -> None:
    """Before the preview, the loader looks for the old predictions bank file: without one (the usual case) that
    is one stat, and `quizbank.predictions` (its imports) stays off the way to the topics."""
    seen = _run(
        """
        import json, sys, types
        from tui.startup import AppStartup

        app = types.SimpleNamespace(include_user=True, should_open_store=True, data_dir=None)
        AppStartup._import_legacy_predictions(app)
        print(json.dumps({"imported": "quizbank.predictions" in sys.modules}))
        """,
        tmp_path,
    )
    assert seen == {"imported": False}
