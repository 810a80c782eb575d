"""The demo registry. Spec modules register each demo with `@register_demo(...)` right above its run
function; `discover()` imports every module in this package (and its subpackages), so a demo written in
any module here is listed with no catalogue to edit. Pure Python: importing this, or discovering, never
imports torch (run functions import it when they run)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .base import Demo, RunFn

_REGISTRY: dict[str, Demo] = {}
_PACKAGE = __name__.rpartition(".")[0]  # posenc_ref.demos
_discovered = False


def register(demo: Demo) -> Demo:
    if demo.name in _REGISTRY:
        raise ValueError(f"demo {demo.name!r} registered twice")
    _REGISTRY[demo.name] = demo
    return demo


def register_demo(**spec: Any) -> Callable[[RunFn], RunFn]:
    """Register the decorated run function as the demo `spec` describes (every `Demo` field but `run`)."""

    def decorate(run: RunFn) -> RunFn:
        register(Demo(run=run, **spec))
        return run

    return decorate


def import_modules(path: Iterable[str], prefix: str) -> list[str]:
    """Import every module under the folders `path` (package `prefix`, e.g. ``"posenc_ref.demos."``),
    subpackages included, in name order; a name whose last part starts with ``_`` is skipped (helpers
    such as ``_common``). Returns the module names imported."""
    names = sorted(
        info.name
        for info in pkgutil.walk_packages(list(path), prefix)
        if not info.name.rpartition(".")[2].startswith("_")
    )
    for name in names:
        importlib.import_module(name)
    return names


def discover() -> None:
    """Register every demo defined in posenc_ref/demos (once per process)."""
    global _discovered
    if not _discovered:
        import_modules([str(Path(__file__).parent)], _PACKAGE + ".")
        _discovered = True
