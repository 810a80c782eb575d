"""The docs cannot drift from the code: every path, module, class attribute and make target that
docs/architecture.md names exists; every link in the README and docs/ leads somewhere; the README stays a
short page that points at each doc; and no doc quotes a timing (timings are what `make bench` prints)."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest
from support.paths import ROOT

ARCHITECTURE = ROOT / "docs" / "architecture.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PACKAGES = ("posenc_ref", "quizbank", "tui")
# Names of the libraries' classes the architecture doc speaks of (App._check_bindings, Screen._binding_chain):
# test_library_hooks.py checks those; here only our own classes' attributes are looked up.
LIBRARY_CLASSES = {
    "App",
    "Screen",
    "Widget",
    "Scheduler",
    "Key",
    "Paste",
    "Literal",
    "Server",
    "AppService",
    "AppRunner",
}


def _code_spans(text: str) -> list[str]:
    """The `code` spans of a Markdown text, fenced blocks left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return re.findall(r"`([^`\n]+)`", text)


def _repo_paths() -> list[str]:
    """Every file and folder of the checkout, as a path relative to the root ('a/b.py', 'a/')."""
    found = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if any(p.startswith(".") or p in ("__pycache__", "node_modules") for p in parts) or "egg-info" in str(
            path
        ):
            continue
        found.append("/".join(parts) + ("/" if path.is_dir() else ""))
    return found


def _exists(name: str, paths: list[str]) -> bool:
    """`name` (a path, a folder ending in '/', or a pattern with `*` or `<...>`) is the end of some path of
    the checkout: `screens/base.py` is tui/screens/base.py, `drills/data/` has to be a folder ending so."""
    pattern = re.escape(name).replace(r"\*", "[^/]*")
    pattern = re.sub(r"<[^>]*>", "[^/]+", pattern.replace(r"\<", "<").replace(r"\>", ">"))
    wanted = re.compile(rf"(^|/){pattern}{'' if name.endswith('/') else '/?'}$")
    return any(wanted.search(path) for path in paths)


def _looks_like_path(span: str) -> bool:
    return (
        " " not in span
        and not span.startswith((".", "*", "@", "_"))
        and ("/" in span or re.search(r"\.(py|md|toml|yaml|tcss|txt|svg|png)$", span) is not None)
        and not re.search(r"[<>=]=?\d", span)  # a requirement such as textual>=8.2,<8.3
    )


def architecture_paths() -> list[str]:
    """The files and folders docs/architecture.md names (a command's path arguments included)."""
    names = []
    for span in _code_spans(ARCHITECTURE.read_text(encoding="utf-8")):
        words = span.split() if span.startswith(("pytest", "python")) else [span]
        names += [w.split("::")[0] for w in words if _looks_like_path(w)]  # a test's node id names its file
    return sorted(set(names))


def test_every_path_the_architecture_doc_names_exists() -> None:
    paths = _repo_paths()
    names = architecture_paths()
    assert len(names) > 80  # the scan sees the doc's tables
    assert [name for name in names if not _exists(name, paths)] == []
    assert not _exists("drills/data/", paths) and _exists("screens/base.py", paths)  # the matcher matches


def _our_classes() -> dict[str, list[str]]:
    """Class name -> the modules of the packages that define it (read from the source, nothing imported)."""
    classes: dict[str, list[str]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.ClassDef):
                    classes.setdefault(node.name, []).append(module)
    return classes


def test_every_class_and_attribute_the_architecture_doc_names_exists() -> None:
    """`KeyQueue._dispatch`, `PosencApp.on_event`, `SafeTextArea`: our classes, and their attributes."""
    classes = _our_classes()
    spans = _code_spans(ARCHITECTURE.read_text(encoding="utf-8"))
    named = {
        m.group(1): m.group(2)
        for s in spans
        if (m := re.fullmatch(r"([A-Z]\w*[a-z]\w*)(?:\.(\w+))?(?:\(.*\))?", s))
    }
    assert {"KeyQueue", "PosencApp", "HeldKeys"} <= set(named)
    missing = []
    for name, attribute in sorted(named.items()):
        if name in LIBRARY_CLASSES:
            continue
        if name not in classes:
            missing.append(name)
            continue
        if attribute is not None:
            owner = getattr(importlib.import_module(classes[name][0]), name)
            if not hasattr(owner, attribute):
                missing.append(f"{name}.{attribute}")
    assert missing == []


def test_every_module_and_make_target_the_architecture_doc_names_exists() -> None:
    spans = _code_spans(ARCHITECTURE.read_text(encoding="utf-8"))
    dotted = sorted({s for s in spans if re.fullmatch(r"(tui|quizbank|posenc_ref|textual|fsrs)(\.\w+)+", s)})
    assert "fsrs.scheduler.FUZZ_RANGES" in dotted
    for name in dotted:
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                found = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for part in parts[cut:]:
                assert hasattr(found, part), name
                found = getattr(found, part)
            break
        else:
            pytest.fail(f"{name} is no module")
    targets = set(
        re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(encoding="utf-8"), flags=re.MULTILINE)
    )
    named = {m.group(1) for s in spans if (m := re.fullmatch(r"make ([\w-]+)", s))}
    assert {"check", "test"} <= named and named - targets == set()


@pytest.mark.parametrize("doc", [ROOT / "README.md", *DOCS], ids=lambda p: p.name)
def test_every_link_leads_somewhere(doc: Path) -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text(encoding="utf-8"))
    local = [link for link in links if not re.match(r"[a-z]+:", link)]
    assert [link for link in local if not (doc.parent / link).exists()] == []


def test_the_readme_is_short_and_points_at_every_doc() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 60, "the manual belongs in docs/usage.md"
    for command in ("make run", "make test", "make check"):
        assert command in readme
    assert [doc.name for doc in DOCS if f"(docs/{doc.name})" not in readme] == []


# A timing: a number of seconds or minutes after "about", "takes", "took", "in" or "within", as in "takes about
# 4½ minutes" or "grades in 0.47 s". Limits and settings ("a 10 s limit", "every 10 s", "after 10 idle minutes")
# are not timings.
TIMING = re.compile(r"\b(about|takes|took|in)\s+[\d.,½–-]+\s*(ms|s|seconds?|min|minutes?)\b")


@pytest.mark.parametrize("doc", [ROOT / "README.md", *DOCS], ids=lambda p: p.name)
def test_no_doc_quotes_a_timing(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    assert [m.group(0) for m in TIMING.finditer(text)] == [], "timings are what `make bench` prints: bench/"
    assert "load average" not in text
    assert TIMING.search("make check takes about 4½ minutes") and TIMING.search("grades it in 0.47 s")
    assert not TIMING.search("a 10 s limit; every 10 s; after 10 idle minutes")
