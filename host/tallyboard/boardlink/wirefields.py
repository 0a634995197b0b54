# The formats and meanings of every field of a reply or an event, for the
# docs (docs/protocol.md, docs/protocol.json: python -m tallyboard.tooling.protocol_doc)
# and a host. The host's, not the firmware's: the board writes each field in
# its format through one writer, tallyrun.replies.fields, and needs none of
# these words.
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
    ("chain", "hex8 or -", "the first 4 bytes of the game's chain head after its n events (docs/records.md, The "
                           "chain), as the board's summary screen shows them; - with no game"),
    ("SIGN.n", "decimal", "the events the chain head is after, as asked"),
    ("SIGN.part", "decimal", "the part of the answer, as asked: 0 the chain head, 1 the board's public key, 2 and 3 "
                             "the tag's first and last 32 bytes"),
    ("SIGN.hex", "hex64", "that part: its 32 bytes, 2 uppercase hex digits each"),
    ("held", "held", "- or the change waiting for its confirmation: kind,event (kind 1 apply, 2 undo, 3 redo)"),
    ("HELD.held", "held", "the change now waiting for its confirmation: kind,event"),
    ("ACCEPT.held", "held", "the change that was held and is now made: kind,event"),
    ("REJECT.held", "held", "the change that was held and is now dropped: kind,event"),
    ("OPEN.held", "word", "- or the kind alone of the change waiting for its confirmation (STATE gives its event)"),
    ("ccrc", "hex4", "CRC-16 of the settings as saved"),
    ("notes", "decimal", "problems the board found when it started (NOTE reads them)"),
    ("hands", "decimal", "hands scored"),
    ("complete", "decimal", "1 if the game is over, else 0"),
    ("winners", "decimal", "bit mask of the winners: bit p is player p; while the game goes on, its leaders "
                           "on these totals; 0 while every total is 0 (docs/rules.md G5)"),
    ("totals", "list", "each player's total, player 0 first, the hand in progress counted as the game "
                       "counts it (each game's section says how)"),
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
    ("who", "decimal", "the player (0 to players - 1) whose seat button accepted the change"),
    ("LOG.who", "text", "for each event ev lists, in its order, one character: the player (0-7) whose accept "
                        "made it, or - when it was made without a confirmation (docs/rules.md CF)"),
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
                      "director_tag (a director's message failed the check of this board's tag), director_message "
                      "(a director's message of another shape, or a game the board does not have), round_ahead "
                      "(a director's round numbered more than 64 above the last taken: not taken), director_ahead "
                      "(the director applied more of this board than it numbered), flash (the outbox could not be "
                      "written), memory (the heap ran short: the link tries again), link (a fault in the link: a NOTE says it)"),
    ("head", "text", "the hand-entry screen's heading as the OLED shows it (HAND 3  DEALER CY), - when no "
                     "entry is open; ENTRY's rows keep their leading spaces (as _) and lose their trailing ones"),
    ("step", "text", "the entry's step as the OLED shows it (BID LEVEL), - when no entry is open"),
    ("ENTRY.value", "text", "the step's value between the OLED's arrows (its 14 big characters, placed as drawn), "
                            "- when no entry is open"),
    ("entered", "text", "what the entry holds so far (the OLED's row under the value), - when nothing yet; "
                        "cut where the frame ends"),
    ("WHY.n", "decimal", "the event explained: 1 the log's first, as asked (default the last applied, or the "
                         "change held for its confirmation: n + 1)"),
    ("WHY.won", "decimal or -", "- unless the event ends the game; then the winners' bit mask, bit p player p "
                                "(docs/rules.md G4, G5)"),
    ("parts", "decimal", "how many parts the event scored, in the order the rules scored them"),
    ("WHY.at", "decimal", "the first part listed (0: the first), as asked"),
    ("WHY.count", "decimal", "how many parts who, pts and why list from at (as many as fit in the frame: ask "
                             "again with at + count until at + count == parts)"),
    ("WHY.who", "list", "each part's player (0-based, fixed for the game; 255: everyone, a part of nobody's in "
                    "particular, as a misdeal's), - when none"),
    ("pts", "list", "each part's points (0 where the rule scores nothing, negative where it takes), - when none"),
    ("why", "list", "each part's reason: an index into the game's reason table (protocol.json's games' reasons: "
                    "its clause of the rule book and its words), - when none"),
    ("DESC.at", "decimal", "the first item on this page, as asked"),
    ("next", "3 digits", "the item after the last on this page: ask DESC next until it is of"),
    ("of", "decimal", "how many items the board's description has"),
    ("id", "4 hex digits", "CRC-16 of every item with ~ between: with fw and of, the description's id (a host "
                           "keeps a description it has read under it)"),
    ("items", "list", "whole items from at, ~ between them (the forms: below, The board describes itself)"),
    ("NET.key", "word", "the NET key GET or SET named (NET_KEYS)"),
    ("NET.value", "text", "the key's value, escaped as NET SET takes it; a secret reads set (or - when it is not)"),
    ("LAMP.led", "decimal or -", "the chain's LED lit now (0: the first after the data pin), as asked; - once "
                                 "the self-test ended"),
    ("LAMP.of", "decimal", "how many LEDs the board definition's chain has"),
    ("LAMP.player", "decimal or -", "the player whose hole the definition puts that LED in, - for an LED of no "
                                    "hole (beside a seat button)"),
    ("LAMP.row", "word or -", "that hole's row: station, tally (holes 0..44) or king (holes 0..19)"),
    ("LAMP.hole", "decimal or -", "that hole's number in its row (0 for the station)"),
    ("PINS.down", "list or -", "the GPIOs of the buttons held down now, read straight from their pins (a "
                               "button stuck since power-up shows here), - when none"),
    ("PINS.pressed", "list or -", "the GPIOs of the buttons the board's controls saw pressed since the last "
                                  "PINS (the knob's push is its push pin), - when none"),
    ("PINS.turned", "signed decimal", "the knob's detents turned since the last PINS, clockwise less "
                                      "anticlockwise, as the definition's encoder pins read them"),
    ("SCAN.found", "list or -", "of a display's addresses (an SSD1306's 3C and 3D, and the definition's), "
                                "those that answer on the OLED's bus (2 hex digits), - when none"),
    ("SCAN.want", "2 hex digits or -", "the OLED address the board definition names, - for a board without one"),
    ("POWER.full", "decimal", "mA the chain would draw with every LED white at full brightness, by the "
                              "definition's ma_per_channel and idle_ma_per_led"),
    ("POWER.budget", "decimal", "the current budget in mA (the budget_ma setting)"),
    ("POWER.allows", "decimal", "the brightness (0..255) at which every LED white stays within the budget"),
    ("POWER.now", "decimal", "mA the frame the game shows draws, by the same estimate"),
    ("PIXELS.pattern", "word", "the pattern the OLED shows now, as asked: ON, CHECKER or EDGES"),
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


# What each of the runtime's verbs (protocol.VERBS) does: docs/protocol.md's
# verb table and protocol.json's verbs (a game's own verbs say it in their rows).
VERB_DOES = {
    "HELLO": "identify: firmware and protocol versions, board definition, number of games (GAME "
             "lists them), limits",
    "GAME": "the game at index 0..games-1 of HELLO: its name, player range and the keys of its options",
    "NEW": "start a new game (options default 0; + 32768: confirmation by an opponent forced "
           "on); drops the game in progress",
    "EV": "apply one event of the game in play, packed as its layout says (any game)",
    "UNDO": "undo the last event (it goes on the redo stack)",
    "REDO": "redo the last undone event",
    "OPEN": "open a session as HELLO does, with what says whether a host's copy of the game is current",
    "STATE": "summary for resynchronisation",
    "SCORE": "the score now: the totals as the game counts a hand in progress (each game's section says how), "
             "the winners, or while the game goes on its leaders (docs/rules.md G5)",
    "LOG": "the event log (redo stack included) from index at, as many as fit in a frame",
    "STATS": "the board's health: heap bytes free and in use (after a collection), the largest "
             "free block, requests served, journal records, internal and display errors",
    "NOTE": "the problems the board found when it started (STATE's notes says how many)",
    "CFG": "CFG GET key [player] / CFG SET key [player] value (see CONFIG_KEYS)",
    "KEPT": "the host's archive holds the game as it stands: its n events in force, lcrc = "
            "CRC-16 of log[0:n] in 4 hex digits as STATE writes it; the board's own new game "
            "then does not warn that it is not archived",
    "NET": "the club link of a board with Wi-Fi (docs/club-mqtt.md, A board on the club's "
           "Wi-Fi): NET and NET LEAVE (the evening left: settings and numbering forgotten) "
           "reply the link's state (wifi to error); NET GET key and NET SET key value "
           "(NET_KEYS) reply key and value (a secret's value: set)",
    "ENTRY": "the hand entry open on the board's own screen (its knob and buttons), row by row as the OLED "
             "shows it: heading, step, value, what is entered so far; each - when none is open. Moving "
             "through an entry pushes no event: a host that follows it asks again",
    "WHY": "why event n of the log (1-based; default the last applied, or the change held for its "
           "confirmation) scored what it did: each part a player got, its points and its reason's code in the "
           "game's reason table (protocol.json's games' reasons), as the rules that scored it say "
           "(tallycore.why), from part at (default 0) as many as fit; the words are composed from the table",
    "DESC": "the board's own description of its protocol, written from its rows: its verbs (their arguments, "
            "reply keys and what they change), events, settings, NET keys, errors, limits and capabilities, "
            "as many whole items from at (default 0) as fit a frame, and its id",
    "SIGN": "the game's chain head after its first n events (docs/records.md, The chain), signed with the "
            "board's own Ed25519 key (made on the board the first time it signs; its private half never leaves "
            "it), one part a frame: 0 the head, 1 the key's public half, 2 and 3 the tag's halves; the tag is "
            "made once for a head (a second or two on the chip) and kept for the parts that follow",
    "LAMP": "the builder's self-test (board test): LAMP led lights only that LED of the chain, white and dim, "
            "and says the hole the definition puts it in; the first self-test verb holds the board's drawing "
            "and its controls (presses go to PINS, not the game) until LAMP - ends the test and redraws the game; "
            "the game and its journal are not touched",
    "PINS": "the self-test's buttons and knob: the buttons held down now, read from their pins, and the presses "
            "and net knob detents the controls saw since the last PINS",
    "SCAN": "the self-test's OLED: which of a display's addresses answer on its bus (each sent the display's "
            "own command to show its RAM, which it shows already), and the definition's",
    "POWER": "the self-test's current: every LED white at full brightness against the budget, the brightness "
             "the budget allows, and the current of the frame shown",
    "PIXELS": "the self-test's display: the whole OLED drawn with one pattern, every pixel on (ON), a "
              "checkerboard of single pixels that shows two neighbouring rows or columns shorted as a stripe "
              "(CHECKER), or a frame on its outermost pixels (EDGES); the game's sheet is drawn again when "
              "the test ends",
}

# What each error code (protocol.ERRORS) means.
ERROR_MEANINGS = {
    "FRAME": "the line is too long, not printable ASCII, or not a frame",
    "CRC": "the checksum is missing or wrong",
    "SEQ": "the sequence number is missing or not 1..65535",
    "VERB": "unknown verb, or a game's own verb while another game is in play",
    "ARGS": "wrong number of arguments or a malformed argument",
    "RANGE": "an argument is out of range",
    "RULE": "the rules do not allow it now (no game, game over, nothing to undo, a hand pending)",
    "FULL": "the event log is full: the game is kept; archive it and start a new one",
    "FLASH": "the board could not write its flash; nothing was changed",
    "BOARD": "the board hit an internal error serving the request; send STATE to see where it stands",
}

# When the board pushes each event (protocol.EVENTS).
EVENT_WHEN = {
    "BOOT": "the app started (state restored from flash)",
    "NEW": "a new game started",
    "EV": "an event was applied (src=host or board)",
    "UNDO": "the last event was undone",
    "REDO": "an undone event was redone",
    "CFG": "a config value changed",
    "NOTE": "a problem for people to read, or why the board refused a press of its buttons "
            "(spaces written as _)",
    "HELD": "a change waits for its confirmation by an opponent (held=kind,event; by: who may "
            "accept, bit mask)",
    "ACCEPT": "the held change was accepted on the board and made (n top after it; who: the player who accepted it)",
    "REJECT": "the held change was rejected on the board and dropped (n top after it)",
    "KEPT": "the host's archive holds the game as it stands (its first n events)",
}

# What each club link setting (protocol.NET_KEYS) is.
NET_KEY_MEANINGS = {
    "ssid": "the Wi-Fi network's name",
    "wifi_password": "the Wi-Fi's passphrase (- for an open network)",
    "broker_host": "the MQTT broker's host name or IPv4 address",
    "broker_port": "the broker's port",
    "broker_user": "the board's broker login (- : its table's, the board's identity, as the club's ACL "
                   "names each table's)",
    "broker_password": "that login's password (- : its table's, derived from the key as the director "
                       "writes the broker's users)",
    "event": "the evening's id on the wire (its club id); the board's identity there is its CFG "
             "event and table: <tag, 4 hex>.<table>",
    "key": "the key that signs the board's messages and checks the board's tag of the director's round and "
           "applied (its table's key in the join code), 32 hex digits",
    "update_key": "the public half of the club's update key, which checks a release's signature (tallyboard "
                  "release key prints it), 64 hex digits; - : the board takes no release",
}

# What SCORE's totals (and the leaders, docs/rules.md G5) make of an event that does not close its hand,
# by its form's name in the game's EVENT_FORMS: "counted", it counts as it is entered; "at_close", it
# counts once the event that closes the hand is in; "none", it scores nothing (a misdeal is no hand).
# A game whose every event closes a hand has no hand in progress. tests/test_protocol_answers.py holds
# each to what the core does.
IN_PROGRESS = {
    "peg": ("counted", "each peg counts as it is pegged"),
    "play": ("counted", "each play pegs as it is entered"),
    "go": ("counted", "a go pegs as it is entered"),
    "trick": ("counted", "each trick counts as it is entered"),
    "card": ("at_close", "the cards entered count once the hand closes; until then the totals are the "
                         "closed hands'"),
    "count": ("at_close", "the counts entered count once the hand closes; until then the totals are the "
                          "closed hands'"),
    "misdeal": ("none", "a misdeal scores nothing"),
}
