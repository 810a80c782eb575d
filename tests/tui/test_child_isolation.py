"""No code runs from the folder posenc is started in. Every child interpreter the app
starts is isolated (`python -I`, a safe working folder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import ROOT

from tui.demo_host import DemoHost, host_command

PAYLOAD = "from pathlib import Path\nPath(__file__).with_name('RAN-' + Path(__file__).stem).write_text('x')\n"


@pytest.fixture
def hostile_cwd(tmp_path, monkeypatch):
    """A folder holding modules that shadow torch and the standard library, as the current folder."""
    for name in ("torch", "struct", "pickle", "numpy", "posenc_ref", "json"):
        (tmp_path / f"{name}.py").write_text(PAYLOAD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.slow  # starts the demo host process (imports torch)
def test_demo_host_ignores_modules_in_the_current_folder(hostile_cwd):
    host = DemoHost()
    try:
        device = host.warm()  # imports torch in the child
        result = host.run("alibi-slopes", {"n_heads": 8})
    finally:
        host.close()
    assert device == "cpu" or device.startswith(("cuda", "mps"))
    assert result.values["first_slope"] == 0.5
    assert sorted(p.name for p in hostile_cwd.glob("RAN-*")) == []


def test_host_command_is_isolated(hostile_cwd):
    argv, cwd = host_command()
    assert argv[1] == "-I" and "-m" not in argv
    assert Path(cwd).resolve() == ROOT.resolve()
    assert str(hostile_cwd) not in argv[-1] and '""' not in argv[-1]


def test_every_python_child_the_app_starts_is_isolated():
    """Every `sys.executable` the shipped code runs gets `-I` (no current folder on sys.path)."""
    checked = 0
    for package in ("tui", "quizbank", "posenc_ref"):
        for file in sorted((ROOT / package).rglob("*.py")):
            lines = file.read_text(encoding="utf-8").splitlines()
            for i, line in enumerate(lines):
                if "sys.executable" in line and not line.lstrip().startswith("#"):
                    window = " ".join(lines[i : i + 3])
                    assert '"-I"' in window, f"{file.relative_to(ROOT)}:{i + 1}: {line.strip()}"
                    checked += 1
    assert checked >= 1
    source = (ROOT / "tui" / "demo_host.py").read_text(encoding="utf-8")
    assert '"-m", "tui.demo_host"' not in source
