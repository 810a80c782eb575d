"""Messages that workers post to the app. Workers never touch widgets: they post one of these."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:  # (the app imports this before the bank: these modules load later, in workers)
    from quizbank.bank_preview import BankPreview
    from quizbank.bankset import BankSet
    from quizbank.progress.store import ProgressStore

__all__ = ["BankPreviewReady", "BanksLoaded", "StoreOpened", "TorchWarmed", "one_line"]


def one_line(exc: BaseException) -> str:
    """An error as the one line a message (or a notification) carries: its type and first line."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


class BankPreviewReady(Message):
    """The bank loader read the shipped bank's preview (`quizbank.bank_preview.BankPreview`) from its
    cache: Home and Search can show it while the full bank loads."""

    def __init__(self, preview: BankPreview | None, language: str | None = None) -> None:
        super().__init__()
        self.preview = preview
        self.language = language  # the saved UI language, peeked from the store ("en", "zh" or None)


class BanksLoaded(Message):
    """The bank loader worker finished (`bankset` is None when loading failed: see `error`)."""

    def __init__(
        self,
        bankset: BankSet | None,
        error: str | None = None,
        *,
        reload: bool = False,
        elapsed_ms: float = 0.0,
    ) -> None:
        super().__init__()
        self.bankset = bankset
        self.error = error
        self.reload = reload
        self.elapsed_ms = elapsed_ms


class StoreOpened(Message):
    """The progress store opened (`store`), or could not (`error`, one line)."""

    def __init__(
        self, store: ProgressStore | None, error: str | None = None, notices: list[str] | None = None
    ) -> None:
        super().__init__()
        self.store = store
        self.error = error
        self.notices = list(notices or [])


class TorchWarmed(Message):
    """The torch warm-up worker finished; `error` says why torch is unusable, if it is."""

    def __init__(self, elapsed_ms: float, device: str | None = None, error: str | None = None) -> None:
        super().__init__()
        self.elapsed_ms = elapsed_ms
        self.device = device
        self.error = error
