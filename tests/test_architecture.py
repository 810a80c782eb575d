"""Import-direction and lazy-import rules: tui -> quizbank -> posenc_ref, and no torch on the light paths."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imported_modules(py_file: Path) -> set[str]:
    tree = ast.parse(py_file.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [
        ("posenc_ref", {"textual", "quizbank", "tui", "yaml", "rich"}),
        ("quizbank", {"textual", "tui", "rich"}),
    ],
)
def test_logic_packages_respect_the_arrows(package: str, forbidden: set[str]) -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imported_modules(path) & forbidden)
        for path in (ROOT / package).rglob("*.py")
        if _imported_modules(path) & forbidden
    }
    assert offenders == {}


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.split()
    return {m.split(".")[0] for m in out}


def test_importing_the_library_does_not_import_torch() -> None:
    loaded = _modules_after("import posenc_ref, quizbank\nimport posenc_ref.demos")
    assert "torch" not in loaded
    assert "textual" not in loaded


def test_listing_demos_does_not_import_torch() -> None:
    loaded = _modules_after(
        "from posenc_ref.demos import list_demos\nspecs = [d.to_dict() for d in list_demos()]"
    )
    assert "torch" not in loaded


def test_lazy_exports_resolve() -> None:
    import posenc_ref

    missing = []
    for name in posenc_ref.__all__:
        try:
            getattr(posenc_ref, name)
        except (AttributeError, ImportError) as exc:
            missing.append(f"{name}: {exc}")
    assert missing == []
