"""The bank's word rarity: computed from the shipped YAML once, then read from the cache folder while its
inputs are unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quizbank.judge import rarity


@pytest.fixture
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("POSENC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(rarity, "_BANK", None)
    return tmp_path / "judge-rarity.json"


def test_common_words_are_common_and_rare_ones_rare(fresh: Path) -> None:
    table = rarity.bank_rarity()
    assert table.documents > 400
    assert table.too_common("posit") and table.too_common("attent")  # position, attention: everywhere
    assert not table.too_common("bucket")
    assert table.weight("bucket") > 2 * table.weight("posit")


def test_the_cached_table_equals_the_computed_one_and_is_used(fresh: Path, monkeypatch) -> None:
    computed = rarity.bank_rarity()
    assert fresh.is_file()
    monkeypatch.setattr(rarity, "_BANK", None)

    def refuse(*_args: object) -> None:
        raise AssertionError("computed again although the cache is current")

    monkeypatch.setattr(rarity, "compute_bank_rarity", refuse)
    cached = rarity.bank_rarity()
    assert cached == computed


def test_a_changed_bank_or_a_broken_cache_file_is_computed_again(fresh: Path, monkeypatch) -> None:
    banks = rarity._shipped_banks()
    fingerprint = rarity._fingerprint(banks)
    edited = [
        (name, data + b"\n# edited\n") if i == 0 else (name, data) for i, (name, data) in enumerate(banks)
    ]
    assert rarity._fingerprint(edited) != fingerprint

    fresh.parent.mkdir(parents=True, exist_ok=True)
    stale = {"fingerprint": "0" * 64, "documents": 3, "df": {"posit": 3}}
    fresh.write_text(json.dumps(stale))
    assert rarity.bank_rarity().documents > 400  # the stale table is not used
    assert json.loads(fresh.read_text())["fingerprint"] == fingerprint

    for broken in ("{not json", json.dumps({"fingerprint": fingerprint, "documents": "x", "df": {}}), "[]"):
        fresh.write_text(broken)
        assert rarity._read_cache(fingerprint) is None
