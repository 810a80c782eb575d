"""Key bindings with stable ids, localized descriptions and user remaps.

Every binding in the app is made with `bind()`, which gives it an id `posenc.<name>`; users remap
keys with the store setting "keymap" (`{"posenc.next": "j"}`), applied through
`App.set_keymap`. Footer descriptions follow the app language: `localize_bindings(node, lang)`
rewrites the node's binding descriptions from `tui.i18n`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from textual.binding import Binding

from .i18n import tr

__all__ = [
    "DESCRIPTION_KEYS",
    "bind",
    "binding_ids",
    "focused_takes_text",
    "LIBRARY_DESCRIPTIONS",
    "current_keymap",
    "keymap_errors",
    "localize_bindings",
]

# binding id -> i18n key of its description
DESCRIPTION_KEYS: dict[str, str] = {}
# Textual's own bindings that our footer shows (they have no id): their description's string key
LIBRARY_DESCRIPTIONS: dict[str, str] = {"Dismiss menu": "key.dismiss_menu"}  # an open Select's list


def bind(
    keys: str,
    action: str,
    name: str,
    description_key: str,
    *,
    show: bool = True,
    priority: bool = False,
    key_display: str | None = None,
) -> Binding:
    """A Binding with id `posenc.<name>` whose description is the i18n string `description_key`."""
    binding_id = f"posenc.{name}"
    DESCRIPTION_KEYS[binding_id] = description_key
    return Binding(
        keys,
        action,
        tr(description_key, "en"),
        show=show,
        priority=priority,
        key_display=key_display,
        id=binding_id,
    )


def localize_bindings(node: Any, lang: str) -> None:
    """Rewrite the descriptions of `node`'s bindings into `lang` (footer and help follow)."""
    bindings_map = getattr(node, "_bindings", None)
    if bindings_map is None:
        return
    for key, bindings in list(bindings_map.key_to_bindings.items()):
        bindings_map.key_to_bindings[key] = [
            replace(b, description=tr(DESCRIPTION_KEYS[b.id], lang)) if b.id in DESCRIPTION_KEYS else b
            for b in bindings
        ]


def focused_takes_text(app: Any) -> bool:
    """True when the focused widget turns printable keys into text (an Input, unless it says
    otherwise with `takes_text`): the footer then hides the letter commands it would swallow."""
    focused = app.focused
    if focused is None:
        return False
    takes = getattr(focused, "takes_text", None)
    if takes is not None:
        return bool(takes)
    return any(cls.__name__ in ("Input", "TextArea") for cls in type(focused).__mro__)


# binding ids that were renamed: a keymap saved with the old id keeps working (the mock's and the drill's
# yes/no questions became one ConfirmScreen)
RENAMED_BINDING_IDS = {
    "posenc.mock.confirm.yes": "posenc.confirm.yes",
    "posenc.mock.confirm.no": "posenc.confirm.no",
    "posenc.drill.confirm.yes": "posenc.confirm.yes",
    "posenc.drill.confirm.no": "posenc.confirm.no",
}


def current_keymap(keymap: dict[str, str]) -> dict[str, str]:
    """`keymap` with renamed binding ids under their current names (an entry for the new id wins)."""
    out = {RENAMED_BINDING_IDS.get(binding_id, binding_id): keys for binding_id, keys in keymap.items()}
    out.update(
        {binding_id: keys for binding_id, keys in keymap.items() if binding_id not in RENAMED_BINDING_IDS}
    )
    return out


def keymap_errors(keymap: Any) -> str | None:
    """Why a stored keymap is unusable, or None if it is a {binding id: keys} mapping of strings."""
    if not isinstance(keymap, dict):
        return "the keymap must be a mapping of binding id to keys"
    for binding_id, keys in keymap.items():
        if not isinstance(binding_id, str) or not isinstance(keys, str) or not keys.strip():
            return f"bad entry {binding_id!r}: {keys!r} (keys must be a non-empty string)"
    return None


def binding_ids() -> list[str]:
    """Every binding id a keymap may remap (`posenc progress config keymap.<id>` checks against it):
    the app's and every screen's and widget's, registered by `bind` when their modules are imported."""
    import importlib
    import pkgutil

    from . import screens, widgets

    importlib.import_module(f"{__package__}.app")
    for package in (screens, widgets):
        for module in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(module.name)
    return sorted(DESCRIPTION_KEYS)
