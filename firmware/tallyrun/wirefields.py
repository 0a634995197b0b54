# The formats and meanings of every field of a reply or an event, for the
# docs (docs/protocol.md, docs/protocol.json: python -m tallyboard.protocol_doc)
# and a host. Not part of the board's file set (host/tallyboard/fileset.py
# HOST_ONLY): the board writes each field in its format through one writer,
# tallyrun.replies.fields, and needs none of these words.
#
# FIELDS: (name, format, meaning); a "KIND.name" row (a verb's reply or an
# event's kind) says where one differs: in the doc only (HELD.held), or also
# in what the board writes, when the verb's row in protocol.VERBS names the
# field so (HELLO.players: the writer writes that one its own way). Formats:
# decimal; hex4 (4 uppercase hex digits); list (decimals, comma-separated,
# one per player in player order unless said); word (a name from a table, or
# - for none); text (printable, spaces written as _); held (- or kind,event);
# config (per key: CONFIG_KEYS); decimal or - ("-": not per player).
FIELDS = (
    ("fw", "text", "firmware version"),
    ("proto", "decimal", "protocol version (PROTOCOL_VERSION)"),
    ("board", "text", "the board definition it runs (board/<name>.json)"),
    ("games", "decimal", "number of games; GAME 0 to games-1 names them"),
    ("frame", "decimal", "the longest frame in bytes, newline included"),
    ("log", "decimal", "the event log's capacity (events in one game)"),
    ("players", "decimal", "players in the game (0: none)"),
    ("HELLO.players", "decimal", "the most players any game takes"),
    ("seqs", "decimal", "the first of the 1024 seqs this session numbers its requests with"),
    ("index", "decimal", "the game's index, as asked"),
    ("name", "word", "the game's name, as records write it"),
    ("min", "decimal", "the fewest players the game takes"),
    ("max", "decimal", "the most players the game takes"),
    ("GAME.options", "words", "the keys of the game's options as records write them, comma-separated"),
    ("options", "decimal", "the game's options as its rules pack them, + 32768 when confirmation is forced on"),
    ("game", "word", "the game in play, - for none"),
    ("n", "decimal", "events applied"),
    ("top", "decimal", "events applied plus the redo stack"),
    ("eseq", "decimal", "the sequence number of the event pushed last (a change: the one it pushed)"),
    ("ev", "decimal", "the packed event applied: its game's EV layout decodes it"),
    ("LOG.ev", "list", "count packed events log[at:at+count], comma-separated (empty when at == top)"),
    ("lcrc", "hex4", "CRC-16/CCITT-FALSE over log[0:top], each event 4 bytes little-endian"),
    ("held", "held", "- or the change waiting for its confirmation: kind,event (kind 1 apply, 2 undo, 3 redo)"),
    ("HELD.held", "held", "the change now waiting for its confirmation: kind,event"),
    ("ACCEPT.held", "held", "the change that was held and is now made: kind,event"),
    ("REJECT.held", "held", "the change that was held and is now dropped: kind,event"),
    ("OPEN.held", "word", "- or the kind alone of the change waiting for its confirmation (STATE gives its event)"),
    ("ccrc", "hex4", "CRC-16 of the settings as saved"),
    ("notes", "decimal", "problems the board found when it started (NOTE reads them)"),
    ("hands", "decimal", "hands scored"),
    ("complete", "decimal", "1 if the game is over, else 0"),
    ("winners", "decimal", "bit mask of the winners: bit p is player p"),
    ("totals", "list", "each player's total, player 0 first (Roquet: the hand in progress included)"),
    ("at", "decimal", "the log index the events start at"),
    ("LOG.count", "decimal", "how many events ev lists: always three digits, zero-padded (012)"),
    ("NOTE.count", "decimal", "how many notes the board holds (STATE's notes)"),
    ("NOTE.text", "text", "the note asked for, spaces written as _"),
    ("free", "decimal", "heap bytes free after a collection"),
    ("alloc", "decimal", "heap bytes in use after a collection"),
    ("block", "decimal", "the largest block free after a collection, to 64 bytes: the most a module loaded on a game switch can take in one piece"),
    ("served", "decimal", "requests answered since boot"),
    ("journal", "decimal", "journal records since its last snapshot"),
    ("errors", "decimal", "internal and display errors since boot"),
    ("text", "text", "words for people, spaces written as _"),
    ("key", "word", "the config key"),
    ("player", "decimal or -", "the player a per-player key is for; - for other keys"),
    ("value", "config", "the key's value as CONFIG_KEYS gives its type: decimal, text or RRGGBB hex"),
    ("src", "word", "host (a request) or board (the board's own buttons)"),
    ("by", "decimal", "bit mask of the players who may accept: bit p is player p"),
    ("KEPT.n", "decimal", "the events in force the host's archive holds"),
    ("wifi", "decimal", "1 if the board has Wi-Fi (its board definition says wifi: true), else 0"),
    ("enrolled", "decimal", "1 once the board has every setting a club link needs (NET_KEYS without a default or -, "
                            "and its CFG event and table), else 0"),
    ("joined", "decimal", "1 while the board is on the Wi-Fi with an address, else 0"),
    ("broker", "decimal", "1 while the broker has the board's link and its subscriptions, else 0"),
    ("waiting", "decimal", "the board's messages the director has not confirmed yet (its changes not yet "
                           "numbered count as one)"),
    ("error", "word", "the link's last problem, - for none: no_wifi (no Wi-Fi on this board), not_enrolled, "
                      "no_network (the access point is not in reach), wifi_password, no_address, "
                      "broker_unreachable, broker_refused (the broker said no to the login), broker_lost, "
                      "director_key (a director's message failed its signature), director_message (a director's "
                      "message of another shape, or a game the board does not have), director_ahead (the director "
                      "applied more of this board than it numbered), flash (the outbox could not be written), "
                      "memory (the heap ran short: the link tries again), link (a fault in the link: a NOTE says it)"),
    ("NET.key", "word", "the NET key GET or SET named (NET_KEYS)"),
    ("NET.value", "text", "the key's value, escaped as NET SET takes it; a secret reads set (or - when it is not)"),
)


# What each config key (protocol.CONFIG_KEYS: its type, range, per player,
# default) is for: docs/protocol.md's config table and protocol.json's
# config_keys, with the rest of each row from CONFIG_KEYS.
CONFIG_MEANINGS = {
    "brightness": "LED brightness before the current budget caps it",
    "budget_ma": "LED current budget in mA",
    "name": "the player's name on the OLED and in records",
    "colour": "the player's peg colour",
    "board": "a board definition on the board (`board/<name>.json`); takes effect at the next boot",
    "confirm": "1 makes every hand wait for an opponent's accept on the board "
               "([below](#confirmation-by-an-opponent))",
    "event": "the tag of the club evening the board scores a table of (`tallyboard event`; 0: none)",
    "table": "its table at that evening, 1 the head (0: none); the OLED sheet's heading then says `T3 R2`",
    "round": "the round in play at that table",
}
