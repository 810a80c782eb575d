"""Settings: the known keys with their defaults and help, validation of typed and stored values, and the
store's `settings` table (one JSON value per key; only what the user set is stored)."""

from __future__ import annotations

import json
from typing import Any

from quizbank.progress.fitted import FittedTable
from quizbank.progress.scheduler import SeededScheduler

__all__ = [
    "DEFAULT_SETTINGS",
    "SETTING_HELP",
    "SettingsTable",
    "make_scheduler",
    "parse_setting_text",
    "validate_setting",
]

DEFAULT_SETTINGS: dict[str, Any] = {
    "language": "en",
    "keymap": {},
    "new_per_day": 20,
    "desired_retention": 0.9,
    "enable_fuzzing": True,
    "instant_submit": False,
    "quiz_schedules": True,
}

# Each entry moves the schema from version i to i + 1. Never edit a shipped entry; append a new one.

SETTING_HELP: dict[str, str] = {
    "language": "interface language: en or zh (the app's `l` key also sets it)",
    "new_per_day": "new cards introduced per UTC day in Study, 0 to 9999",
    "desired_retention": "recall probability FSRS schedules for, 0.70 to 0.99 (higher: shorter intervals)",
    "keymap": 'key remaps as JSON {"binding id": "keys"}, e.g. {"posenc.study.undo": "z"} (ids: ? in the app)',
    "enable_fuzzing": "spread long intervals by a few days so cards learned together part: true or false",
    "instant_submit": "quiz: a single-choice or true/false key answers at once (else Space/Enter confirms)",
    "quiz_schedules": "quiz answers update the Study cards (a wrong answer makes the card due): true or false",
}

_TRUE_WORDS = ("true", "yes", "on", "1")
_FALSE_WORDS = ("false", "no", "off", "0")


def parse_setting_text(key: str, text: str) -> Any:
    """A setting typed on the command line (`posenc progress config KEY VALUE`), parsed and validated.

    Numbers and booleans are read as such; `keymap` takes a JSON object. ValueError with a one-line reason.
    """
    if key not in DEFAULT_SETTINGS:
        raise ValueError(f"unknown setting {key!r}; known: {', '.join(sorted(DEFAULT_SETTINGS))}")
    raw = text.strip()
    value: Any
    if key == "new_per_day":
        try:
            value = int(raw)
        except ValueError:
            raise ValueError(f"new_per_day must be a whole number from 0 to 9999 (got {text!r})") from None
    elif key == "desired_retention":
        try:
            value = float(raw.rstrip("%")) / (100 if raw.endswith("%") else 1)
        except ValueError:
            raise ValueError(f"desired_retention must be a number from 0.70 to 0.99 (got {text!r})") from None
    elif key in ("enable_fuzzing", "instant_submit", "quiz_schedules"):
        if raw.lower() not in _TRUE_WORDS + _FALSE_WORDS:
            raise ValueError(f"{key} must be true or false (got {text!r})")
        value = raw.lower() in _TRUE_WORDS
    elif key == "keymap":
        try:
            value = json.loads(raw)
        except RecursionError:
            raise ValueError(
                "keymap must be a JSON object of binding ids and keys, not nested values"
            ) from None
        except ValueError as exc:
            raise ValueError(
                f'keymap must be a JSON object such as \'{{"posenc.study.undo": "z"}}\' ({exc})'
            ) from None
    else:
        value = raw
    return validate_setting(key, value)


MAX_KEYMAP_CHARS = 200  # a binding id or its keys: as a question id in a backup (backup_check.MAX_ID_CHARS)


def _check_keymap_text(binding: str, text: str, what: str) -> None:
    """A binding id or its keys is plain one-line text the footer can print: the importer's rule
    (no control, bidi-formatting or surrogate character, no tab or newline, at most 200 characters)."""
    from quizbank.safetext import describe_unsafe, find_unsafe

    where = "keymap." + (binding if len(binding) <= 60 else binding[:57] + "...")  # escaped where printed
    if len(text) > MAX_KEYMAP_CHARS:
        raise ValueError(f"{where}: the {what} must be at most {MAX_KEYMAP_CHARS} characters")
    bad = find_unsafe(text)
    if bad is not None or "\n" in text or "\t" in text:
        shown = describe_unsafe(text[bad]) if bad is not None else "a tab or newline"
        raise ValueError(f"{where}: the {what} contain {shown}; keymap entries are plain one-line text")


def validate_setting(key: str, value: Any) -> Any:
    """`value` checked (and normalized) for a known settings key; ValueError with a one-line reason."""
    if key == "language":
        if value not in ("en", "zh"):
            raise ValueError("language must be 'en' or 'zh'")
    elif key == "new_per_day":
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 9999:
            raise ValueError("new_per_day must be a whole number from 0 to 9999")
    elif key == "desired_retention":
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.7 <= float(value) <= 0.99:
            raise ValueError("desired_retention must be a number from 0.70 to 0.99")
        value = float(value)
    elif key == "keymap":
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and k.strip() and isinstance(v, str) and v.strip() for k, v in value.items()
        ):
            raise ValueError("keymap must map binding ids to non-empty key strings")
        for binding, keys in value.items():
            _check_keymap_text(binding, binding, "binding id")
            _check_keymap_text(binding, keys, "keys")
    elif key in ("enable_fuzzing", "instant_submit", "quiz_schedules") and not isinstance(value, bool):
        raise ValueError(f"{key} must be true or false")
    try:
        json.dumps(value)
    except (TypeError, ValueError):
        raise ValueError(f"setting {key} must be JSON-serializable") from None
    return value


class SettingsTable(FittedTable):
    """The `settings` table, cached in memory, and the FSRS scheduler those settings (and the fitted
    parameters, when there are some) configure."""

    def _settings(self) -> dict[str, Any]:
        if self._settings_cache is None:
            rows = self._read(lambda c: c.execute("SELECT key, value FROM settings").fetchall())
            cache: dict[str, Any] = {}
            for key, value in rows:
                try:
                    cache[key] = json.loads(value)
                except ValueError:
                    continue
            self._settings_cache = cache
        return self._settings_cache

    def get_setting(self, key: str, default: Any = None) -> Any:
        """A stored setting; else `default` if given; else the built-in default (DEFAULT_SETTINGS)."""
        settings = self._settings()
        if key in settings:
            return settings[key]
        if default is not None:
            return default
        return DEFAULT_SETTINGS.get(key)

    def set_setting(self, key: str, value: Any) -> None:
        """Store a JSON-serializable setting. Known keys are validated (ValueError on a bad value)."""
        value = validate_setting(key, value)
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        self._write(
            lambda c: c.execute(
                "INSERT INTO settings (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, text),
            )
        )
        self._settings()[key] = value

    def reset_setting(self, key: str) -> bool:
        """Forget a stored setting (back to the built-in default). True if one was stored."""
        cursor = self._write(lambda c: c.execute("DELETE FROM settings WHERE key = ?", (key,)))
        self._settings().pop(key, None)
        return bool(cursor.rowcount)

    def stored_settings(self) -> dict[str, Any]:
        """Only the settings the user has set (not the built-in defaults)."""
        return dict(self._settings())

    def reload_settings(self) -> None:
        """Read the settings and the fitted parameters again (another process may have changed them)."""
        self._settings_cache = None
        self._fitted_cache = None

    @property
    def scheduler(self) -> SeededScheduler:
        """The FSRS scheduler for the current settings (desired_retention, enable_fuzzing) with the fitted
        parameters when there are some (`posenc progress optimize`), else fsrs's defaults."""
        fitted = self.fitted()
        key = (
            float(self.get_setting("desired_retention")),
            bool(self.get_setting("enable_fuzzing")),
            fitted.parameters if fitted is not None else None,
        )
        if self._scheduler is None or self._scheduler_key != key:
            self._scheduler = make_scheduler(*key)
            self._scheduler_key = key
        return self._scheduler


def make_scheduler(
    desired_retention: float, enable_fuzzing: bool, parameters: tuple[float, ...] | None
) -> SeededScheduler:
    """The store's scheduler: fsrs's default parameters unless fitted ones are given."""
    if parameters is None:
        return SeededScheduler(desired_retention=desired_retention, enable_fuzzing=enable_fuzzing)
    return SeededScheduler(
        parameters=parameters, desired_retention=desired_retention, enable_fuzzing=enable_fuzzing
    )
