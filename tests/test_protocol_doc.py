"""docs/protocol.md and firmware/tallyrun/protocol.py describe the same
protocol: every verb, error code, event kind and config key of the table is
in the document's tables, and the document names nothing the table lacks."""
import json
import re
from pathlib import Path

from tallyrun import protocol as P

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()


def _table_rows(heading: str) -> list[str]:
    """First cells (backquoted word) of the markdown table under a heading."""
    section = DOC.split(heading, 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("#"):
            break
        match = re.match(r"\| `([A-Za-z_]+)` \|", line)
        if match:
            rows.append(match.group(1))
    return rows


def test_the_tables_and_the_json_are_generated_from_the_firmware():
    # docs/protocol.md's tables and docs/protocol.json are written by
    # python -m tallyboard.tooling.protocol_doc; an edit of either, or of a
    # declaration without regenerating, fails here
    from tallyboard.tooling import protocol_doc
    assert protocol_doc.differences() == []


def _spec() -> dict:
    return json.loads((Path(__file__).resolve().parent.parent / "docs" / "protocol.json").read_text())


def _decode(game: dict, event: int) -> tuple[str, dict]:
    # what a client in another language does with the JSON alone
    for form in game["event_forms"]:
        if event & form["mask"] == form["value"]:
            fields = {}
            for f in form["fields"]:
                copies = 8 if f["each"] else 1
                for p in range(copies):
                    value = event >> (f["shift"] + p * f["width"]) & ((1 << f["width"]) - 1)
                    fields[f["name"] if copies == 1 else "%s%d" % (f["name"], p)] = value
            return form["form"], fields
    raise AssertionError("no form for %d" % event)


def test_a_client_decodes_events_from_the_json_alone():
    games = {g["name"]: g for g in _spec()["games"]}
    assert len(games) == 16
    # the doc's example: Roquet ev=40 = 5 << 3 | 0 << 2 | kind 0: player 0 pegs 5
    assert _decode(games["roquet"], 40) == ("peg", {"player": 0, "points": 5})
    assert _decode(games["roquet"], 1) == ("end", {})
    # HAND 2 4H - - 0 10: 2 | 4 << 2 | 2 << 5 | 4 << 8 | 4 << 11 | 10 << 15 = 2 + 16 + 64 + 1024 + 8192 + 327680 = 336978
    assert _decode(games["skicket"], 336978)[1] == {
        "purchaser": 2, "level": 4, "strain": 2, "doubled_by": 4, "redoubled_by": 4, "lone": 0, "tricks": 10}
    assert _decode(games["skicket"], 1 << 19) == ("misdeal", {})
    # Moosehead: GO is 1024; player 3 plays the 5 of hearts (rank 5, suit 2): 3 | (5 | 2 << 4) << 3 = 3 + 296
    assert _decode(games["moosehead"], 1024) == ("go", {})
    assert _decode(games["moosehead"], 299) == ("play", {"player": 3, "rank": 5, "suit": 2})
    # Despised Nines, 3 players: nines 1, 0, 3 and players less one 2: 1 | 3 << 6 | 2 << 24
    kind, fields = _decode(games["despised_nines"], 1 + 192 + 33554432)
    assert (fields["nines0"], fields["nines1"], fields["nines2"], fields["players_less_one"]) == (1, 0, 3, 2)


def test_the_json_names_every_verb_with_its_owner_and_arguments():
    spec = _spec()
    verbs = {v["name"]: v for v in spec["verbs"]}
    assert verbs["HAND"]["declared_by"] == ["skicket"] and verbs["PEG"]["declared_by"] == ["roquet"]
    assert verbs["HELLO"]["declared_by"] == ["core"] and not verbs["HELLO"]["changes_game"]
    purchaser = verbs["HAND"]["args"][0]
    assert (purchaser["name"], purchaser["min"], purchaser["max"], purchaser["index"]) == ("purchaser", 0, 3, "player")
    assert verbs["GAME"]["args"][0]["max"] == 15      # sixteen games: 0 to 15
    assert verbs["KEPT"]["args"][1]["type"] == "hex4"
    assert [f["name"] for f in verbs["EV"]["reply"]] == ["n", "top", "eseq", "ev"]
    lcrc = next(f for f in verbs["STATE"]["reply"] if f["name"] == "lcrc")
    assert lcrc["format"] == "hex4"
    # NEW's options, bit by bit: Skicket's four-hand game is bit 0 (SK16), Doolittle's cards bits 3-6
    games = {g["name"]: g for g in spec["games"]}
    skicket_options = {f["name"]: (f["shift"], f["width"]) for f in games["skicket"]["option_fields"]}
    assert skicket_options == {"hands": (0, 1), "series": (1, 1), "royal": (2, 1), "confirm": (15, 1)}
    doolittle = {f["name"]: (f["shift"], f["width"], f["index"]) for f in games["doolittle"]["option_fields"]}
    assert doolittle["first_dealer"] == (0, 3, "player") and doolittle["cards"] == (3, 4, None)
    assert spec["serial"]["baud"] == 115200 and spec["framing"]["crc"]["check"]["crc"] == "29B1"


def test_limits_and_version_are_stated():
    assert "version %d" % P.PROTOCOL_VERSION in DOC
    assert "**%d bytes**" % P.MAX_FRAME in DOC
    assert "1..%d" % P.MAX_SEQ in DOC


def test_the_config_table_is_generated_from_the_firmwares_keys():
    # the region is the generator's; each key of CONFIG_KEYS has its row there, its range from the declaration
    region = DOC.split("<!-- generated: config", 1)[1].split("<!-- end generated -->", 1)[0]
    keys = [k[0].decode() for k in P.CONFIG_KEYS]
    assert _table_rows("<!-- generated: config") == keys
    assert "| `brightness` | no | int 0-255: " in region and "| `budget_ma` | no | int 100-3000: " in region
    assert "| `name` | yes (0-7) | text, 1-12 characters: " in region      # MAX_PLAYERS 8: players 0-7
    spec = {k["key"]: k for k in _spec()["config_keys"]}
    assert list(spec) == keys and all(k["meaning"] for k in spec.values())
    assert spec["colour"]["default"][0] == "FF2000" and spec["round"]["max"] == 99


def test_each_game_documents_the_options_it_takes_and_no_other():
    # issue 32, item 9: Numero shares Quatro's rules module, but only Quatro takes hands_won
    # (NEW numero 2 8 is refused: "numero has only first_dealer")
    spec = json.loads((Path(__file__).resolve().parent.parent / "docs" / "protocol.json").read_text())
    fields = {game["name"]: [f["name"] for f in game["option_fields"]] for game in spec["games"]}
    assert fields["numero"] == ["first_dealer", "confirm"]
    assert fields["quatro"] == ["first_dealer", "hands_won", "confirm"]
    numero = DOC.split("#### `numero`", 1)[1].split("####", 1)[0]
    assert "hands_won" not in numero
    for game in spec["games"]:
        assert fields[game["name"]] == game["options"] + ["confirm"], game["name"]
