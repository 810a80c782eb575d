"""Key bindings (tui/keys.py): a user keymap is validated, and remaps the bindings in the app."""

from __future__ import annotations

from pathlib import Path

from support.apps import make_app, start_quiz
from support.pilot import pilot_test, settle

from tui.keys import keymap_errors

SIZE = (100, 30)


def test_keymap_validation() -> None:
    assert keymap_errors({"posenc.next": "j"}) is None
    assert keymap_errors(["posenc.next"]) is not None
    assert keymap_errors({"posenc.next": ""}) is not None
    assert keymap_errors({"posenc.next": 3}) is not None


@pilot_test
async def test_user_keymap_remaps_bindings(env: Path) -> None:
    from quizbank.progress.store import open_store

    store = open_store(env / "data")
    store.set_setting("keymap", {"posenc.next": "j"})
    store.close()
    app = make_app(env)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = await start_quiz(pilot, ["fx.mcq", "fx.truefalse"])
        await pilot.press("escape", "j")
        await settle(pilot)
        assert screen.session.index == 1


def test_a_keymap_saved_with_a_renamed_id_still_remaps_its_key() -> None:
    """The mock's and the drill's yes/no questions became one ConfirmScreen (`posenc.confirm.*`); a keymap
    saved with the old ids keeps its keys, and an entry for the new id wins over an old one."""
    from tui.keys import RENAMED_BINDING_IDS, binding_ids, current_keymap

    assert current_keymap({"posenc.mock.confirm.yes": "j", "posenc.next": "k"}) == {
        "posenc.confirm.yes": "j",
        "posenc.next": "k",
    }
    assert current_keymap({"posenc.drill.confirm.no": "u", "posenc.confirm.no": "v"}) == {
        "posenc.confirm.no": "v"
    }
    ids = set(binding_ids())
    assert set(RENAMED_BINDING_IDS.values()) <= ids
    assert not set(RENAMED_BINDING_IDS) & ids  # an old id is no longer bound anywhere
    assert "posenc.mock.next" in ids or any(i.startswith("posenc.mock.") for i in ids)  # packages are walked
