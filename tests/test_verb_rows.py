"""One verb, one row (issue 41): each runtime verb's row of tallyrun.protocol.VERBS names the
function that answers it, and the app dispatches by that name alone, so a verb's code is
one hop from its row; a firmware without a handler's module says which, and serves on."""
from __future__ import annotations

import importlib
import inspect
import sys

import pytest

from test_protocol_answers import Board
from tallyrun import protocol


@pytest.mark.parametrize("row", protocol.VERBS, ids=[row[0].decode() for row in protocol.VERBS])
def test_each_rows_handler_is_a_function_of_app_seq_and_request(row):
    path = row[5]
    module, _, name = path.rpartition(".")
    handler = getattr(importlib.import_module(module), name)
    assert list(inspect.signature(handler).parameters) == ["app", "seq", "req"], path
    # the firmware's, never the panel's: but the builder's self-test (LAMP, PINS, SCAN, POWER, PIXELS), which
    # reads the panel's own parts (its LED chain, buttons, OLED bus) and is loaded only when a builder asks
    panel_ok = module == "tallypanel.selftest"
    assert module.split(".")[0] in ("tallyrun", "tallynet") or panel_ok, path


def test_the_app_dispatches_by_no_verbs_name():
    # the handlers come from the rows: app.py names no V_ constant of a runtime verb in its dispatch
    import tallyrun.app as app_module
    source = inspect.getsource(app_module.App._dispatch) + inspect.getsource(app_module.App._handler)
    named = [word.rstrip(":,)") for word in source.split()
             if word.startswith("protocol.V_")]
    assert named == ["protocol.V_GAME_VERB"]      # the games' own verbs begin there (their rules' VERBS)


def test_a_verb_answered_by_a_module_this_firmware_lacks_says_which_and_the_board_serves_on(tmp_path, monkeypatch):
    # a firmware deployed without tallynet (the club link): NET's handler cannot load
    monkeypatch.setitem(sys.modules, "tallynet.verb", None)
    board = Board(tmp_path)
    assert board.ask("NET GET ssid") == (b"1 ERR RULE this firmware has no tallynet.verb for NET: deploy the "
                                         b"whole firmware (tallyboard deploy)")
    assert board.ask("SCORE") == b"2 ERR RULE no game in progress; start one with NEW"
    monkeypatch.delitem(sys.modules, "tallynet.verb")
    # once the module is there, the next NET finds it (nothing was kept of the failure): this
    # board's definition has no Wi-Fi, which only NET's own handler says
    assert board.ask("NET GET ssid") == (b"3 ERR RULE this board has no Wi-Fi (its board definition does not "
                                         b"say wifi: true): enrol a Pico W board")


def test_the_verbs_of_modules_loaded_with_the_app_are_found_before_the_first_request(tmp_path):
    board = Board(tmp_path)
    found = {row[0] for row, handler in zip(protocol.VERBS, board.app.handlers) if handler is not None}
    # the scoring path and the reads of a host's every command: none loads on its first request
    assert {b"HELLO", b"NEW", b"EV", b"UNDO", b"REDO", b"OPEN", b"STATE", b"SCORE", b"LOG", b"KEPT"} <= found
