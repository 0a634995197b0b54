"""The wire protocol's reference, generated from the firmware's declarations.

    python -m tallyboard.tooling.protocol_doc           rewrite docs/protocol.md's tables and docs/protocol.json
    python -m tallyboard.tooling.protocol_doc --check   exit 1 (saying which) if either differs

The tables come from tallyrun.protocol (the runtime's verbs, events, errors,
config keys, which tallyrun.config keeps), tallyboard.boardlink.wirefields (each field's format and meaning, each config key's use) and from each game's rules module (its VERBS and
EVENT_FORMS, tallycore.game explains them); the prose of docs/protocol.md
between the marked regions stays hand-written. docs/protocol.json is the same
contract for a program in any language.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

from tallycore import games as core_games
from tallyrun import protocol as P
from ..boardlink import hub
from ..boardlink.wirefields import (CONFIG_MEANINGS, ERROR_MEANINGS, EVENT_WHEN, FIELDS, IN_PROGRESS,
                                    NET_KEY_MEANINGS, VERB_DOES)

DOCS = Path(__file__).resolve().parents[3] / "docs"
MARKDOWN = DOCS / "protocol.md"
JSON_SPEC = DOCS / "protocol.json"
SPEC_VERSION = 1   # the shape of protocol.json; a change of shape bumps it

SERIAL = {
    "transport": "USB CDC (the Pico's USB serial port; the board app reads stdin and writes stdout)",
    "baud": 115200,
    "data_bits": 8,
    "parity": "none",
    "stop_bits": 1,
    "flow_control": "none",
    "note": "USB CDC ignores the line settings; 115200 8N1 without flow control is what to give a "
            "program or adapter that asks. Bytes 0x01, 0x03 and 0x04 never appear in-band (the port is "
            "also MicroPython's REPL: 0x03 interrupts the app).",
}
CHANGES = {
    "": None,
    "apply": "applies one event of the game: n + 1 (held instead when it closes a hand and "
             "confirmation is on)",
    "undo": "takes the last event back: n - 1 (held instead when it undoes a hand and confirmation is on)",
    "new": "starts a new game: n = 0",
    "kept": "records the archive mark (the game itself does not change)",
    "cfg": "CFG SET changes a setting (CFG GET only reads)",
    "net": "NET SET changes a club link setting and NET LEAVE forgets them (NET and NET GET only read); "
           "no event is pushed, and the game does not change",
}
TYPES = {
    "int": "decimal digits, within min..max",
    "game": "a game's name as GAME gives it (any case)",
    "who": "a player index within min..max, or - for nobody",
    "bid": "a Skicket bid: level 1-7 then C, S, H, D, NT or NK (4H, 7NT; any case)",
    "text": "min..max characters of letters, digits, _ - .",
    "rgb": "six hex digits RRGGBB",
    "word": "one of the words listed (any case)",
    "hex4": "four hex digits (a CRC-16 as STATE writes it)",
    "escaped": "min..max characters of printable ASCII, each space, *, % and byte outside printable ASCII "
               "written %XX (two hex digits); NET SET checks the decoded value against its key (net_keys)",
    "config": "the config key's own type and range (config_keys)",
}
FORMATS = {
    "decimal": "decimal digits",
    "decimal or -": "decimal digits, or - when it does not apply",
    "hex4": "4 uppercase hex digits",
    "list": "decimals separated by commas (no spaces)",
    "words": "words separated by commas",
    "word": "one word from a table, or - for none",
    "text": "printable text with spaces written as _",
    "held": "- or kind,event: kind 1 apply, 2 undo, 3 redo; event the packed event it applies or takes back",
    "config": "per the key's type (config_keys): decimal, text, or RRGGBB hex",
}
EV_DECODING = (
    "An event (EV's argument, ev= in replies and events, LOG's ev= list) is one decimal integer below "
    "2**30 packed by the game in play. Its form is the first of the game's event_forms whose "
    "(event & mask) == value; each field of that form is (event >> shift) & ((1 << width) - 1), within "
    "min..max. A field with each=true is repeated per player: player p's copy is at shift + p * width. "
    "index says what an index field counts: player (the player's number, fixed for the game) or seat "
    "(a place at the table, which players change). closes_hand says whether an event of that form closes "
    "a hand: SCORE's hands counts them, and with confirmation on (the config key confirm, or NEW's option "
    "bit 15) such an event (by EV, a verb or REDO), and the UNDO that takes one back, waits for an opponent's accept (HELD).")


CONFIRM_OPTION = {"name": "confirm", "shift": 15, "width": 1, "min": 0, "max": 1, "index": None, "each": False,
                  "meaning": "1: confirmation by an opponent forced on for this game (any game; the rules never see it)"}


def _bits(f: tuple) -> dict[str, Any]:
    """A bit field of a game's declarations (EVENT_FORMS' fields, OPTION_FIELDS)."""
    name, shift, width, low, high, index, each, meaning = f
    return {"name": _text(name), "shift": shift, "width": width, "min": low, "max": high,
            "index": _text(index) or None, "each": bool(each), "meaning": meaning}


def _default(key: tuple) -> Any:
    """A config key's default; per player, the list of the players' (player 0 first)."""
    name, _, _, _, _, default = key
    if name == b"name":
        return ["P%d" % (p + 1) for p in range(P.MAX_PLAYERS)]
    if name == b"colour":
        return ["%06X" % c for c in P.PLAYER_COLOURS]
    return _text(default)


def _config_key(row: tuple) -> dict[str, Any]:
    """A row of CONFIG_KEYS (key, type, min, max, per player, default)."""
    key, kind, low, high, per_player, _ = row
    return {"key": _text(key), "type": P.TYPE_NAMES[kind], "min": low, "max": high,
            "per_player": bool(per_player), "default": _default(row), "meaning": CONFIG_MEANINGS[_text(key)]}


def _net_key(row: tuple) -> dict[str, Any]:
    """A row of NET_KEYS (key, form, min, max, secret, may be none, default)."""
    key, form, low, high, secret, may_be_none, default = row
    return {"key": _text(key), "form": _text(form), "min": low, "max": high, "secret": secret,
            "may_be_none": may_be_none, "default": default, "meaning": NET_KEY_MEANINGS[_text(key)]}


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


def _arg(row: tuple, optional: bool) -> dict[str, Any]:
    name, kind, lo, hi, index = row[:5]
    arg: dict[str, Any] = {"name": _text(name), "type": P.TYPE_NAMES[kind], "index": _text(index) or None,
                           "optional": optional}
    if kind == P.T_WORD:
        arg["words"] = [_text(w) for w in lo] if isinstance(lo, tuple) else [
            _text(k[0]) for k in P.CONFIG_KEYS]
    elif kind in (P.T_INT, P.T_WHO, P.T_TEXT, P.T_HEX, P.T_ESC):
        arg["min"], arg["max"] = lo, hi
    return arg


def _field(kind: str, name: str) -> dict[str, str]:
    """A field of a reply or event row: "HELLO.players" (written its verb's own way) is
    `players` on the wire, with that row's meaning; else the kind's own row or the field's."""
    rows = {row[0]: row for row in FIELDS}
    written = {f for verb in P.VERBS for f in verb[3] if "." in f}   # a verb's own, not its event's
    if "." in name:
        row, name = rows[name], name.split(".", 1)[1]
    else:
        qualified = "%s.%s" % (kind, name)
        row = rows[qualified] if qualified in rows and qualified not in written else rows[name]
    return {"name": name, "format": row[1], "meaning": row[2]}


def _modules() -> list[tuple[str, Any, list[str]]]:
    """(module name, module, the games it scores) in wire order."""
    seen: dict[str, tuple[str, Any, list[str]]] = {}
    for index, row in enumerate(core_games.GAMES):
        if row[3] not in seen:
            seen[row[3]] = (row[3], core_games.load(index), [])
        seen[row[3]][2].append(row[0])
    return list(seen.values())


def _verb(row: tuple, declared_by: list[str], optional: int, reply: tuple, change: str, does: str) -> dict[str, Any]:
    args = row[1]
    is_cfg = row[0] == b"CFG"
    parsed = [_arg(a, i >= len(args) - optional or (is_cfg and a[0] == b"player")) for i, a in enumerate(args)]
    if is_cfg:
        # CFG GET key [player] / CFG SET key [player] value: player only for a per-player key,
        # value only for SET, typed by its key
        parsed[-1] = {"name": "value", "type": "config", "index": None, "optional": True}
    return {
        "name": _text(row[0]),
        "declared_by": declared_by,
        "args": parsed,
        "changes_game": change in ("apply", "undo", "new"),
        "changes": change or None,
        "what_it_changes": CHANGES[change],
        "reply": [_field(_text(row[0]), f) for f in reply],
        "does": does,
    }


def _in_progress(rules: Any) -> tuple[str, str]:
    """What SCORE's totals make of a hand in progress in this game: "counted" (its events count as
    they are entered), "at_close", or "none" (every event that scores closes its hand), and in words,
    from its event forms that do not close a hand (wirefields.IN_PROGRESS)."""
    rows = [IN_PROGRESS[_text(form[0])] for form in rules.EVENT_FORMS if not form[5]]
    rows = [row for row in rows if row[0] != "none"]
    if not rows:
        return "none", "a hand is one event, so none is ever in progress"
    kind = "counted" if any(row[0] == "counted" for row in rows) else "at_close"
    words = []
    for row in rows:
        if row[1] not in words:
            words.append(row[1])
    return kind, "; ".join(words)


def _reasons(module_name: str) -> list[dict[str, Any]]:
    """A rules module's reason table (tallycore/reasons/<module>.py, keyed by WHY's why codes)."""
    try:
        table = importlib.import_module("tallycore.reasons." + module_name).REASONS
    except ImportError:   # rules that do not explain their scores yet: WHY answers RULE
        return []
    return [{"code": code, "clause": _text(clause), "words": _text(words)} for code, clause, words in table]


def spec() -> dict[str, Any]:
    verbs = [_verb(row, ["core"], row[2], row[3], _text(row[4]), VERB_DOES[_text(row[0])]) for row in P.VERBS]
    game_rows = []
    for module_name, rules, names in _modules():
        for row in rules.VERBS:
            verbs.append(_verb(row, names, 0, P.APPLIED, "apply", row[2]))
    for index, row in enumerate(core_games.GAMES):
        rules = core_games.load(index)
        options = row[5].split(",") if row[5] else []
        game_rows.append({
            "index": index,
            "name": row[0],
            "min_players": row[1],
            "max_players": row[2],
            "options": options,
            "rules_module": row[3],
            "verbs": [_text(v[0]) for v in rules.VERBS],
            # SCORE's totals while a hand is in progress: "counted", "at_close", or "none" (a hand is one event)
            "score_in_progress": _in_progress(rules)[0],
            # the option fields of this game (its registry row's keys): a rules module shared by
            # two games declares the fields of both (most_count: Quatro's hands_won, not Numero's)
            "option_fields": [_bits(f) for f in rules.OPTION_FIELDS if _text(f[0]) in options] + [CONFIRM_OPTION],
            "event_forms": [{
                "form": _text(form[0]),
                "mask": form[1],
                "value": form[2],
                "meaning": form[4],
                "closes_hand": bool(form[5]),
                "fields": [_bits(f) for f in form[3]],
            } for form in rules.EVENT_FORMS],
            # WHY's why codes: the index of each row (its clause of the rule book and its words)
            "reasons": _reasons(row[3]),
        })
    return {
        "spec_version": SPEC_VERSION,
        "protocol": P.PROTOCOL_VERSION,
        "firmware": P.FIRMWARE_VERSION,
        "serial": SERIAL,
        "framing": {
            "charset": "printable ASCII 0x20..0x7E",
            "line_end": "\n",
            "ignored_before_line_end": "\r",
            "max_frame": P.MAX_FRAME,
            "separator": "one or more spaces",
            "request": "<seq> <VERB> <arg>...*<CRC>",
            "reply_ok": "<seq> OK <key=value>...*<CRC>",
            "reply_err": "<seq> ERR <CODE> <message>*<CRC>",
            "event": "! <eseq> <KIND> <key=value>...*<CRC>",
            "seq": {"min": 1, "max": P.MAX_SEQ, "untrusted_line": 0, "session_seqs": P.SESSION_SEQS},
            "eseq": {"min": 1, "max": P.EVENT_SEQ_LIMIT, "after_max": 1},
            "crc": {"name": "CRC-16/CCITT-FALSE", "poly": 0x1021, "init": 0xFFFF, "reflected": False,
                    "xor_out": 0, "over": "every byte before the last *", "digits": 4, "case": "upper",
                    "check": {"input": "123456789", "crc": "29B1"}},
            "case_insensitive": ["verbs", "game names", "bid strains", "GET/SET", "config keys"],
        },
        "order": "a change is answered first (its reply names the event's eseq), then its event is pushed; "
                 "CFG SET too",
        "retry": "a request whose seq and checksum equal the last one served is answered again from the "
                 "stored reply and not applied again; its event is not pushed again",
        "sharing": {
            "what": "the board's port shared on a local socket by tallyboard share, watch or monitor: the same "
                    "frames, each connection numbering its own requests (its seqs are its own), events to all",
            "socket": "unix stream",
            "folder": "$XDG_RUNTIME_DIR/tallyboard, else tallyboard-<uid> in the system's temporary folder "
                      "(mode 0700, the user's own)",
            "name": "the first 16 lower-case hex digits of the SHA-1 of the port's real path (UTF-8), then .sock",
            "waiting_requests_per_connection": hub.QUEUE_PER_CLIENT,
            "unread_bytes_before_closing": hub.OUTBOX_LIMIT,
            "seconds_a_request_holds_the_board": hub.REPLY_WAIT_S,
            "wire_tap": {"name": "<hash>.tap beside the socket", "socket": "unix stream, read-only",
                         "lines": {">": "a line sent to the board (the sharer's seqs)",
                                   "<": "a line from the board (replies, events, noise, the REPL)",
                                   ">+": "bytes to the board that waited without their end of line",
                                   "<+": "bytes from the board that waited without their end of line "
                                         "(a REPL prompt)"},
                         "part_line_wait_s": hub.TAP_PART_WAIT_S},
            "safe_mode": "a board whose REPL answers with main.py's safe-mode marker set: every request is "
                         "answered by the sharer, '<seq> ERR BOARD safe mode: <why>: ...', until its next BOOT",
            "section": "docs/protocol.md#sharing-the-port",
        },
        "types": TYPES,
        "formats": FORMATS,
        "verbs": verbs,
        "errors": [{"code": _text(code), "meaning": ERROR_MEANINGS[_text(code)]} for code in P.ERRORS],
        "error_reply": [{"name": "code", "format": "word", "meaning": "the error code (errors)"},
                        {"name": "message", "format": "text",
                         "meaning": "what happened and what to do; RANGE and ARGS name the argument first "
                                    "(player: must be 0 to 1)"}],
        "events": [{"kind": _text(kind), "fields": [_field(_text(kind), f) for f in fields], "when": EVENT_WHEN[_text(kind)]}
                   for kind, fields in P.EVENTS],
        "config_keys": [_config_key(k) for k in P.CONFIG_KEYS],
        "net_keys": [_net_key(k) for k in P.NET_KEYS],
        "ev_decoding": EV_DECODING,
        "games": game_rows,
    }


# --- docs/protocol.md ---------------------------------------------------------------
def _args_md(verb: dict[str, Any]) -> str:
    if not verb["args"]:
        return "—"
    parts = []
    for arg in verb["args"]:
        text = "%s:%s" % (arg["name"], arg["type"])
        if "min" in arg:
            text += " %d-%d" % (arg["min"], arg["max"])
        if arg.get("words") and len(arg["words"]) <= 3:
            text += " " + "/".join(arg["words"])
        if arg["index"]:
            text += " (%s)" % arg["index"]
        text = "`%s`" % text
        parts.append("[%s]" % text if arg["optional"] else text)
    return " ".join(parts)


def _bit_span(f: dict[str, Any]) -> str:
    bits = "bit %d" % f["shift"] if f["width"] == 1 else "bits %d-%d" % (f["shift"], f["shift"] + f["width"] - 1)
    return bits + (" + %dp" % f["width"] if f["each"] else "")


def _config_value(key: dict[str, Any]) -> str:
    if key["type"] == "rgb":
        return "rgb `RRGGBB`"
    if key["type"] == "text":
        return "text, %d-%d characters" % (key["min"], key["max"])
    return "%s %d-%d" % (key["type"], key["min"], key["max"])


def _config_default(default: Any) -> str:
    if isinstance(default, list):
        return "`%s` (player 0 first)" % " ".join(default)
    return "`%s`" % default if isinstance(default, str) else str(default)


def _tables(doc: dict[str, Any]) -> dict[str, str]:
    lines = ["| Verb | Declared by | Arguments | Reply fields | Changes | What it does |", "|---|---|---|---|---|---|"]
    for verb in doc["verbs"]:
        lines.append("| `%s` | %s | %s | `%s` | %s | %s |" % (
            verb["name"], ", ".join(verb["declared_by"]), _args_md(verb),
            " ".join(f["name"] for f in verb["reply"]), verb["changes"] or "—", verb["does"]))
    verbs = "\n".join(lines)
    lines = ["| Field | Format | Meaning |", "|---|---|---|"]
    for name, form, meaning in FIELDS:
        lines.append("| `%s` | %s | %s |" % (name, form, meaning))
    fields = "\n".join(lines)
    lines = ["| Kind | Fields | When |", "|---|---|---|"]
    for event in doc["events"]:
        lines.append("| `%s` | `%s` | %s |" % (event["kind"], " ".join(f["name"] for f in event["fields"]),
                                             event["when"]))
    events = "\n".join(lines)
    lines = ["| Code | Meaning |", "|---|---|"]
    for error in doc["errors"]:
        lines.append("| `%s` | %s |" % (error["code"], error["meaning"]))
    errors = "\n".join(lines)
    lines = ["| Key | Per player | Value | Default |", "|---|---|---|---|"]
    for key in doc["config_keys"]:
        lines.append("| `%s` | %s | %s: %s | %s |" % (
            key["key"], "yes (0-%d)" % (P.MAX_PLAYERS - 1) if key["per_player"] else "no", _config_value(key),
            key["meaning"], _config_default(key["default"])))
    config = "\n".join(lines)
    out = []
    for game in doc["games"]:
        out.append("#### `%s` (index %d, %d-%d players)\n" % (game["name"], game["index"], game["min_players"],
                                                              game["max_players"]))
        out.append("Options as records name them: %s. Verbs: %s.\n" % (
            ", ".join("`%s`" % o for o in game["options"]) or "none",
            ", ".join("`%s`" % v for v in game["verbs"]) or "none of its own (`EV`)"))
        out.append("SCORE while a hand is in progress: %s.\n" % _in_progress(core_games.load(game["index"]))[1])
        out.append("NEW's options: %s.\n" % "; ".join(
            "`%s` %s: %s" % (f["name"], _bit_span(f), f["meaning"]) for f in game["option_fields"]))
        out.append("WHY's reasons: the table of `%s` ([below](#whys-reasons-why)).\n" % game["rules_module"])
        out.append("| Form | Test | Field | Bits | Range | Index | Meaning |")
        out.append("|---|---|---|---|---|---|---|")
        for form in game["event_forms"]:
            test = "`e & 0x%X == 0x%X`" % (form["mask"], form["value"]) if form["mask"] else "any"
            out.append("| **%s**%s | %s | | | | | %s |" % (form["form"], " (closes the hand)" if form["closes_hand"]
                                                          else "", test, form["meaning"]))
            for f in form["fields"]:
                bits = _bit_span(f)
                out.append("| | | `%s` | %s | %d-%d | %s | %s |" % (f["name"], bits, f["min"], f["max"],
                                                                 f["index"] or "", f["meaning"]))
        out.append("")
    lines = ["| Key | Form | Range | Secret | Default | What |", "|---|---|---|---|---|---|"]
    units = {"bytes": " bytes", "name": " characters", "host": " characters", "key": " bytes", "int": ""}
    for key in doc["net_keys"]:
        lines.append("| `%s` | %s | %s | %s | %s | %s |" % (
            key["key"], key["form"], "%d-%d%s" % (key["min"], key["max"], units[key["form"]])
            + (" or -" if key["may_be_none"] else ""),
            "yes" if key["secret"] else "no", "—" if key["default"] is None else key["default"], key["meaning"]))
    net_keys = "\n".join(lines)
    lines = ["| Rules module (games) | Code | Clause | Words |", "|---|---|---|---|"]
    for module_name, _, names in _modules():
        rows = _reasons(module_name)
        if not rows:
            lines.append("| `%s` (%s) | — | — | its rules do not explain their scores yet: `WHY` answers `RULE` |"
                         % (module_name, ", ".join(names)))
        for row in rows:
            lines.append("| `%s` (%s) | `%d` | %s | %s |" % (module_name, ", ".join(names), row["code"],
                                                          row["clause"], row["words"]))
    reasons = "\n".join(lines)
    return {"verbs": verbs, "fields": fields, "events": events, "errors": errors, "config": config,
            "net_keys": net_keys, "reasons": reasons,
            "games": "\n".join(out).rstrip("\n")}


def _begin(name: str) -> str:
    return "<!-- generated: %s (python -m tallyboard.tooling.protocol_doc) -->" % name


_END = "<!-- end generated -->"


def render_markdown(text: str, doc: dict[str, Any]) -> str:
    for name, table in _tables(doc).items():
        begin = _begin(name)
        start = text.find(begin)
        if start < 0:
            raise ValueError("docs/protocol.md has no region %r" % begin)
        end = text.index(_END, start)
        text = text[:start] + begin + "\n" + table + "\n" + text[end:]
    return text


def render_json(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def differences() -> list[str]:
    doc = spec()
    stale = []
    if MARKDOWN.read_text() != render_markdown(MARKDOWN.read_text(), doc):
        stale.append(str(MARKDOWN))
    if not JSON_SPEC.exists() or JSON_SPEC.read_text() != render_json(doc):
        stale.append(str(JSON_SPEC))
    return stale


def main(argv: list[str]) -> int:
    if "--check" in argv:
        stale = differences()
        for path in stale:
            print("%s differs from the firmware's tables: run python -m tallyboard.tooling.protocol_doc" % path)
        return 1 if stale else 0
    doc = spec()
    MARKDOWN.write_text(render_markdown(MARKDOWN.read_text(), doc))
    JSON_SPEC.write_text(render_json(doc))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
