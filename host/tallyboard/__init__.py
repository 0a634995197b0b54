"""tallyboard: the host side of the tallyboard scoring board.

The rules live in `tallycore` (the firmware's scoring core); this package
imports them and never re-implements one.

LAYERS is the host's packages from the bottom up, each with what it is: a
module imports only from its own package and the ones below it
(tests/test_host_layout.py holds it so; docs/architecture.md's table and
picture are drawn from it by docs/img/host_layers.py)."""
from tallycore import VERSION as __version__  # noqa: F401

LAYERS = (
    ("common", "what every part shares: errors, the rule for names, the console, files, secrets, "
               "the SQLite files, the servers' accept errors"),
    ("games", "one profile per game and their registry"),
    ("scorebook", "finished games: the record format, the score sheet, the archive; each game's rules card"),
    ("boardlink", "the link to a board: transports, the wire, the client, the shared port, the board's REPL"),
    ("tooling", "the firmware off the board and onto it: the file set, deploy, the emulator and the unix "
                "port, pictures (the board's and a builder's), the twin's control, the differential check, "
                "the generated docs"),
    ("club", "a club evening across hosts over MQTT: envelopes, kinds, the outbox, the MQTT links, "
             "brokers, a board's enrolment"),
    ("evening", "a club evening: its record, standings, store, boards, director and live views"),
    ("season", "a club's season: the register of players, seasons and their standings, the results site"),
    ("commands", "the click commands, one module per concern"),
    ("cli", "the `tallyboard` command line (tallyboard.cli)"),
)
