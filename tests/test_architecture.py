"""Import-direction and lazy-import rules: tui -> quizbank -> posenc_ref, and no torch on the light paths."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT


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
        ("posenc_ref", {"textual", "quizbank", "tui", "yaml", "rich", "pytest", "hypothesis", "support"}),
        ("quizbank", {"textual", "tui", "rich", "pytest", "hypothesis", "support"}),
        ("tui", {"pytest", "hypothesis", "support"}),  # test fixtures live in tests/support, not the wheel
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


def _public_names(path: Path) -> list[str]:
    """A module's `__all__` (the names it defines itself), else its top-level functions and classes not
    named `_*`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not node.name.startswith("_")
    }
    assigned: dict[str, ast.expr | None] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            assigned |= {t.id: node.value for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            assigned[node.target.id] = node.value
    if "__all__" in assigned:
        return [name for name in ast.literal_eval(assigned["__all__"]) if name in functions | set(assigned)]
    return sorted(functions)


def test_every_public_name_of_the_library_is_exported() -> None:
    """`posenc_ref._EXPORTS` is kept by hand (the lazy import must not read every module at start-up); this
    keeps it whole: each public name of each module resolves from `posenc_ref`, to that module."""
    import posenc_ref

    modules = [p for p in (ROOT / "posenc_ref").glob("*.py") if p.stem not in ("__init__", "cli")]
    assert len(modules) >= 16
    missing = sorted(
        f"{path.stem}.{name}"
        for path in modules
        for name in _public_names(path)
        if posenc_ref._EXPORTS.get(name) != path.stem
    )
    assert missing == [], "add these to posenc_ref/__init__.py _EXPORTS"


def test_the_export_check_sees_functions_classes_and_all(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("X = 1\ndef f(): ...\nclass C: ...\ndef _g(): ...\n", encoding="utf-8")
    assert _public_names(module) == ["C", "f"]
    module.write_text(
        "__all__ = ['f', 'X', 'imported']\nX = 1\ndef f(): ...\ndef h(): ...\n", encoding="utf-8"
    )
    assert _public_names(module) == ["f", "X"]


# ----------------------------------------------------------------------------- the import contract
#
# Every import between the project's modules, read from the source (function-local imports included;
# imports under `if TYPE_CHECKING:` never run and are left out). The arrows run one way,
# tui -> quizbank -> posenc_ref, and no set of modules imports itself round a cycle.

PACKAGES = ("posenc_ref", "quizbank", "tui")
MAY_IMPORT = {
    "posenc_ref": {"posenc_ref"},
    "quizbank": {"quizbank", "posenc_ref"},
    "tui": {"tui", "quizbank", "posenc_ref"},
}
# Cycles still being taken apart in another area, each with the reason. An entry that no longer
# matches a cycle fails `test_the_cycle_allow_list_is_current`: delete it then.
ALLOWED_CYCLES: dict[frozenset[str], str] = {}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _project_modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _nearest_module(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _targets(node: ast.Import | ast.ImportFrom, current: str, is_package: bool, modules: dict[str, Path]):
    """The project modules one import statement loads (the deepest module each name resolves to)."""
    if isinstance(node, ast.Import):
        yield from filter(None, (_nearest_module(alias.name, modules) for alias in node.names))
        return
    if node.level:
        base = current if is_package else current.rpartition(".")[0]
        for _ in range(node.level - 1):
            base = base.rpartition(".")[0]
        target = f"{base}.{node.module}" if node.module else base
    else:
        target = node.module or ""
    for alias in node.names:
        submodule = f"{target}.{alias.name}"
        found = submodule if submodule in modules else _nearest_module(target, modules)
        if found:
            yield found


def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    type_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    return [
        n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom) and id(n) not in type_only
    ]


def import_graph() -> dict[str, set[str]]:
    modules = _project_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        is_package = path.name == "__init__.py"
        graph[name] = {
            target
            for node in _runtime_imports(tree)
            for target in _targets(node, name, is_package, modules)
            if target != name
        }
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[frozenset[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(frozenset(component))
    return cycles


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"e"}}
    assert import_cycles(graph) == [frozenset({"a", "b", "c"})]
    assert import_cycles({"x": {"y"}, "y": set()}) == []


def test_the_graph_sees_function_local_and_relative_imports() -> None:
    graph = import_graph()
    assert "quizbank.bank_cache" in graph["quizbank.loader"]  # imported inside load_banks()
    assert (
        "posenc_ref.rope_compile" in graph["posenc_ref.demos"]
    )  # `from ..rope_compile import` in _run_timed
    assert "quizbank.grading" in graph["quizbank.quiz_session"]
    assert "quizbank.schema" not in graph["quizbank.bankset"]  # only under TYPE_CHECKING


def test_every_import_follows_the_arrows() -> None:
    wrong = sorted(
        f"{source} imports {target}"
        for source, targets in import_graph().items()
        for target in targets
        if target.split(".")[0] not in MAY_IMPORT[source.split(".")[0]]
    )
    assert wrong == []


def test_no_import_cycles() -> None:
    cycles = [sorted(c) for c in import_cycles(import_graph()) if c not in ALLOWED_CYCLES]
    assert cycles == []


def test_the_cycle_allow_list_is_current() -> None:
    found = set(import_cycles(import_graph()))
    stale = [sorted(c) for c in ALLOWED_CYCLES if c not in found]
    assert stale == [], "these cycles are gone: delete their ALLOWED_CYCLES entries"


MAX_MODULE_LINES = 700  # one concept per module: past this a file holds several (bank YAML is data, not code)
# one concept that is long on its own: the safe YAML reader (loader, limits and the line map in one place)
LONG_MODULES = {"quizbank/yamlsafe.py": 800}


def test_no_product_module_is_over_700_lines() -> None:
    long = {
        name: n
        for path in _project_modules().values()
        if (n := len(path.read_text(encoding="utf-8").splitlines()))
        > LONG_MODULES.get(name := path.relative_to(ROOT).as_posix(), MAX_MODULE_LINES)
    }
    assert long == {}, "split these by concept"


# ----------------------------------------------------------------------------- the test layout

TEST_FOLDERS = ("posenc_ref", "quizbank", "tui")  # tests/<package>/... mirror the packages
TOP_LEVEL_TESTS = {
    "test_architecture.py",
    "test_docs.py",
    "test_gpu_check.py",
    "test_pilot_settle.py",
}  # span the packages
CAMPAIGN_WORDS = re.compile(r"hardening|(^|_)ux(_|$)|candidate|issue|defect|batch|campaign|fixes")


def test_test_files_mirror_the_packages_and_are_named_after_concepts() -> None:
    tests = ROOT / "tests"
    files = sorted(tests.rglob("test_*.py"))
    misplaced = [
        str(f.relative_to(tests))
        for f in files
        if not (f.parent == tests and f.name in TOP_LEVEL_TESTS)
        and f.relative_to(tests).parts[0] not in TEST_FOLDERS
    ]
    assert misplaced == [], "a test file belongs under tests/<package>/ for the package it tests"
    names = [f.name for f in files]
    assert sorted({n for n in names if names.count(n) > 1}) == []  # no __init__.py: basenames must be unique
    assert [n for n in names if CAMPAIGN_WORDS.search(n[len("test_") : -len(".py")])] == []
    packages = [d for d in (tests / name for name in TEST_FOLDERS) if (d / "__init__.py").exists()]
    assert packages == []  # tests/tui as a package would shadow the tui package


# Words that name a piece of work rather than a concept, as whole words of a name (`prefixes` is fine), and
# numbered pieces of work (`item5`, `batch2`; `round6`, rounding to 6 digits, is a concept).
CAMPAIGN_NAME_WORDS = {
    "hardening",
    "ux",
    "issue",
    "issues",
    "defect",
    "defects",
    "campaign",
    "fixes",
    "bugfix",
}
NUMBERED_WORK = re.compile(r"(item|batch|phase|part|ticket|issue|pr|bug|wave|sprint|task)\d+")


def _name_words(name: str) -> list[str]:
    return [w.lower() for w in re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).split("_") if w]


def test_functions_and_classes_are_named_after_concepts() -> None:
    """Test names (and every function and class name in the tests and the packages) say what is true, not
    which issue or batch of work brought them: `test_the_issue_example_loads` said neither."""
    named = []
    for folder in ("tests", *PACKAGES):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                    words = _name_words(node.name)
                    if any(w in CAMPAIGN_NAME_WORDS or NUMBERED_WORK.fullmatch(w) for w in words):
                        named.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert named == []
    assert _name_words("test_the_issue_example") == ["test", "the", "issue", "example"]
    assert NUMBERED_WORK.fullmatch("item5") and not NUMBERED_WORK.fullmatch("round6")


def _module_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_no_test_file_keeps_its_own_copy_of_a_support_helper() -> None:
    """tests/support is the helper library: a test file defining a function of the same name as one of its
    helpers (a wait, an app maker, a bank writer, a marker) holds a private copy. Import the helper instead,
    or give a helper that does something else a name of its own."""
    support = ROOT / "tests" / "support"
    helpers = {
        name for path in support.glob("*.py") for name in _module_functions(path) if not name.startswith("_")
    }
    assert {"wait_for", "make_app", "screen_text", "start_quiz", "marker_source", "alive"} <= helpers
    copies = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in (ROOT / "tests").rglob("*.py")
        if support not in path.parents
        for name in _module_functions(path) & helpers
    )
    assert copies == []


def test_no_test_skips_when_our_own_code_fails_to_import() -> None:
    """`pytest.importorskip("quizbank.cli")` turned an ImportError in our own CLI into a skip: our modules are
    imported plainly, so that breaking one fails the tests that need it."""
    packages = "|".join(PACKAGES)
    ours = re.compile(rf"importorskip\(\s*[\"']({packages})\b")
    skips = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if path != Path(__file__) and ours.search(path.read_text(encoding="utf-8"))
    ]
    assert skips == []
    assert ours.search('pytest.importorskip("quizbank.cli")') and not ours.search(
        'importorskip("playwright")'
    )
