# The club's message kinds and their topics (docs/club-mqtt.md, "Topics"),
# in ONE table: a board on the club's Wi-Fi (tallynet.link, tallynet.outbox)
# and the host (host/tallyboard/club/kinds.py, which adds the checks of the
# bodies) both read it, so the two cannot name a topic differently.
#
# A topic is tallyboard/<event>/ and then the kind's levels, where SUBJECT
# stands for the one level that names whom the message is about: the board
# (hand, state, applied, health, offer, chunk, update) or the table host's
# login (status).
ROOT = "tallyboard"
SUBJECT = "{subject}"
TABLE = "table host"        # who sends a kind
DIRECTOR = "director"

HAND = "hand"
STATE = "state"
STATUS = "status"
ROUND = "round"
APPLIED = "applied"
HEALTH = "health"
OFFER = "offer"
CHUNK = "chunk"
UPDATE = "update"

# (name, sender, levels after tallyboard/<event>/, sequenced, retained, subject)
# sequenced: numbered from 1 per sender, applied once each, in order
# subject: whose name the SUBJECT level is: "sender" (the envelope's board),
# a field of the body, or None (no SUBJECT level)
KINDS = (
    (HAND, TABLE, ("table", SUBJECT, HAND), True, False, "sender"),
    (STATE, TABLE, ("table", SUBJECT, STATE), True, False, "sender"),
    (STATUS, TABLE, ("host", SUBJECT, STATUS), False, True, "sender"),
    (ROUND, DIRECTOR, ("director", ROUND), True, True, None),
    (APPLIED, DIRECTOR, ("director", APPLIED, SUBJECT), False, True, "board"),
    (HEALTH, TABLE, ("table", SUBJECT, HEALTH), False, True, "sender"),
    (OFFER, DIRECTOR, ("director", OFFER, SUBJECT), False, True, "board"),
    (CHUNK, DIRECTOR, ("director", CHUNK, SUBJECT), False, False, None),
    (UPDATE, TABLE, ("table", SUBJECT, UPDATE), False, True, "sender"),
)
# kinds whose payload is not an envelope: a chunk of a release (bytes checked by the signed
# release's hash chain, tallynet.update), its topic's SUBJECT the board it is for
RAW = (CHUNK,)
# what a table host's outbox numbers and keeps: the sequenced kinds a table sends
QUEUED = tuple(row[0] for row in KINDS if row[1] == TABLE and row[3])


def topic(kind, event, subject=None):
    """The topic of a message of that kind (a name above) of evening `event`
    about `subject` (ignored by a kind with no SUBJECT level)."""
    for row in KINDS:
        if row[0] == kind:
            levels = [ROOT, event]
            for level in row[2]:
                if level == SUBJECT:
                    if subject is None:
                        raise ValueError("a %s topic names its %s" % (kind, row[5]))
                    level = subject
                levels.append(level)
            return "/".join(levels)
    raise ValueError("%s: not a club message kind" % kind)
