"""The protocol client: the host's side of docs/protocol.md. A Board is a
session with a board (session.py: seqs, retries, events) and the game's verbs
and reads on it: rebuilding the exact game from the board's STATE and LOG with
the same core the board runs, checked against the board's own figures, and why
an event scored what it did."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tallycore import game as core_game
from tallyrun import protocol

from . import wire
from ..common.errors import BoardError, ProtocolError, RecordError
from ..games.base import LoadedGame
from ..scorebook import records, verify
from .boardgame import (BoardGame, EntryScreen, game_from_log, options_document, parse_held, reply_int as _int,
                        score_mismatch)
from .session import RequestError, Session


def sign_parts() -> int:
    """How many parts SIGN answers in: its part argument's range, as its row says."""
    row = next(row for row in protocol.VERBS if row[0] == b"SIGN")
    return next(arg for arg in row[1] if arg[0] == b"part")[3] + 1


@dataclass
class Board(Session):
    """A connected board: a session (session.py, in the protocol the board describes)
    and the game's verbs and reads."""

    view: "BoardGame | None" = None      # the game as this command knows it (commands/connect.py)
    view_names: list[str] | None = None  # and its players' names

    def reconnect(self) -> BoardGame:
        """Close and reopen the port (a pulled cable, a restarted board) and
        resynchronise: HELLO, then the full state."""
        self.link.reopen()
        self.gap = False
        self.last_eseq = 0
        self.connect()
        return self.rebuild()

    def games(self) -> list[tuple[str, int, int]]:
        """The games the board plays: (name, fewest players, most players)."""
        count = _int(self.hello_fields or self.hello(), "games")
        out = []
        for index in range(count):
            reply = self.request("GAME", index)
            out.append((reply.get("name", "?"), _int(reply, "min"), _int(reply, "max")))
        return out

    def game_options(self, index: int) -> list[str] | None:
        """The keys of the options the board takes for the game at index (GAME's
        options); None from a board that does not say (before issue 12)."""
        reply = self.request("GAME", index)
        if "options" not in reply:
            return None
        return [key for key in reply["options"].split(",") if key]

    def new(self, name: str, players: int, options: int = 0) -> dict[str, str]:
        return self.request("NEW", name, players, options)

    def kept(self, game: core_game.Game) -> dict[str, str]:
        """Tell the board that the host's archive holds its game as it stands
        (KEPT: its n events in force and their log CRC)."""
        return self.request("KEPT", game.n, "%04X" % wire.log_crc([game.log[i] for i in range(game.n)]))

    def sign(self, n: int) -> tuple[bytes, bytes, bytes]:
        """SIGN: the game's chain head after its first n events, the board's
        public key and its tag over the head (docs/records.md, The chain);
        the board makes the tag once and answers the parts from it."""
        parts = []
        for part in range(sign_parts()):
            reply = self.request("SIGN", n, part)
            if reply.get("n") != str(n) or reply.get("part") != str(part):
                raise ProtocolError(f"SIGN {n} {part}: the board answered n={reply.get('n')} "
                                    f"part={reply.get('part')}")
            try:
                parts.append(bytes.fromhex(reply.get("hex", "")))
            except ValueError:
                raise ProtocolError(f"SIGN {n} {part}: hex={reply.get('hex')!r} is not hex") from None
        if any(len(p) != 32 for p in parts):
            raise ProtocolError(f"SIGN {n}: a part of the answer is not 32 bytes")
        return parts[0], parts[1], parts[2] + parts[3]

    def event(self, packed: int) -> dict[str, str]:
        return self.request("EV", packed)

    def game_verb(self, verb: str, *args: Any) -> dict[str, str]:
        """A verb of the game in play's own (its rules module declares it:
        tallycore.game VERBS), with its arguments."""
        if verb.upper().encode() not in wire.game_verbs():
            raise RequestError(f"{verb}: no game declares this verb")
        return self.request(verb.upper(), *args)

    def undo(self) -> dict[str, str]:
        return self.request("UNDO")

    def redo(self) -> dict[str, str]:
        return self.request("REDO")

    def state(self) -> dict[str, str]:
        return self.request("STATE")

    def score(self) -> dict[str, str]:
        return self.request("SCORE")

    def log(self, top: int) -> list[int]:
        """log[0:top] (the redo stack included), in as many LOG requests as it takes."""
        return self.log_accepted(top)[0]

    def log_accepted(self, top: int) -> tuple[list[int], list[int | None]]:
        """log[0:top] (the redo stack included) and, for each event, the player
        whose accept made it (LOG's who; None: made without a confirmation, or
        a board whose LOG does not say), in as many LOG requests as it takes."""
        out: list[int] = []
        accepted: list[int | None] = []
        while len(out) < top:
            reply = self.request("LOG", len(out))
            count = _int(reply, "count")
            if _int(reply, "at") != len(out) or count < 1:
                raise ProtocolError(f"LOG {len(out)}: the board answered at={reply.get('at')} "
                                    f"count={reply.get('count')}")
            words = reply.get("ev", "")
            chunk = [int(w) for w in words.split(",")] if words else []
            if len(chunk) != count:
                raise ProtocolError(f"LOG {len(out)}: count={count} but {len(chunk)} events")
            who = reply.get("who", "-" * count)
            if len(who) != count or any(c != "-" and not c.isdigit() for c in who):
                raise ProtocolError(f"LOG {len(out)}: who={who} is not one player or - for each of the {count} events")
            out += chunk
            accepted += [None if c == "-" else int(c) for c in who]
        return out[:top], accepted[:top]

    def cfg_get(self, key: str, player: int | None = None) -> str:
        args = ["GET", key] + ([] if player is None else [player])
        return self.request("CFG", *args)["value"]

    def cfg_set(self, key: str, value: str, player: int | None = None) -> str:
        args = ["SET", key] + ([] if player is None else [player]) + [value]
        return self.request("CFG", *args)["value"]

    # ------------------------------------------------------------ resync
    def rebuild(self) -> BoardGame:
        """The exact game on the board, rebuilt with tallycore from STATE and
        LOG and checked against the board's own totals, winners, completion
        and log checksum. Clears a pending event gap."""
        state = self.state()
        self.gap = False
        if "eseq" in state and state["eseq"].isdigit():
            self.last_eseq = int(state["eseq"])
        name = state.get("game", "-")
        top = _int(state, "top")
        n = _int(state, "n")
        log, accepted = self.log_accepted(top)
        lcrc = wire.log_crc(log)
        if _int(state, "lcrc", 16) != lcrc:
            raise ProtocolError(f"the board's log checksum {state.get('lcrc')} does not match the "
                                f"{top} events it sent ({lcrc:04X}); run the command again")
        if name in ("-", ""):
            return BoardGame(None, 0, 0, None, log, state, {})
        players = _int(state, "players")
        options = _int(state, "options")
        game = game_from_log(name, players, options, log, n, parse_held(state), accepted)
        score = self.score()
        mismatch = score_mismatch(game, score)
        if mismatch:
            raise ProtocolError(mismatch)
        return BoardGame(name, players, options, game, log, state, score)

    def rebuild_settled(self, tries: int = 5) -> BoardGame:
        """rebuild(), read again when the game changed while it was read: another
        program on the shared port, or the board itself (its buttons, a round a Wi-Fi
        board seats itself in), so that the log and the score no longer agree and an
        event said so. ProtocolError when they disagree with no change heard, or
        still after tries reads."""
        while True:
            heard = self.events_heard
            try:
                return self.rebuild()
            except ProtocolError:
                tries -= 1
                if self.events_heard == heard or tries <= 0:
                    raise

    def why_parts(self, n: int | None = None) -> dict[str, str]:
        """WHY: the parts event n (1-based; None: the last applied, or the change
        held) scored and their reasons' codes, every part (asked again from at
        until all are read: a frame holds as many as fit); who, pts and why
        comma-separated as the board writes them (tallyboard.scorebook.why makes
        the words). A BoardError VERB from a firmware older than WHY."""
        reply = self.request("WHY") if n is None else self.request("WHY", n)
        lists: dict[str, list[str]] = {"who": [], "pts": [], "why": []}
        total = _int(reply, "parts")
        while True:
            count = _int(reply, "count")
            for key, got in lists.items():
                if count:
                    got.extend(reply[key].split(","))
            at = _int(reply, "at") + count
            if at >= total or count == 0:
                break
            reply = self.request("WHY", reply["n"], at)
        if len(lists["who"]) != total:
            raise ProtocolError(f"WHY {reply['n']}: the board listed {len(lists['who'])} of {total} parts")
        return dict(reply, at="0", count=str(total), **{key: ",".join(got) for key, got in lists.items()})

    def entry_screen(self) -> EntryScreen | None:
        """The hand entry open on the board's own screen, None when none is (or the
        board's firmware is older than the ENTRY request)."""
        if self.description is not None and not self.description.can("ENTRY"):
            return None     # (not read for this alone: a board without ENTRY answers VERB, and is recorded)
        try:
            return EntryScreen.from_reply(self.request("ENTRY"))
        except BoardError as exc:
            if exc.code == "VERB":      # a board before DESC that lacks it: not asked again (Session.request)
                return None
            raise

    def notes(self, count: int) -> list[str]:
        """The problems the board has noted since it started, at boot or at run time (STATE's notes=count):
        a bad board definition, damaged storage."""
        return [self.request("NOTE", i).get("text", "").replace("_", " ") for i in range(count)]

    def player_names(self, players: int) -> list[str]:
        return [self.cfg_get("name", p) for p in range(players)]

    def loaded_game(self, current: BoardGame | None = None, signed: bool = False) -> LoadedGame:
        """The board's game as a LoadedGame (for sheet and export); signed: a
        finished game with the board's signature of its chain (SIGN) when its
        firmware has one. A game still going is not signed: it is no result yet,
        and a signature takes the chip two seconds (docs/records.md, The chain)."""
        current = current or self.rebuild()
        if current.name is None or current.game is None:
            raise RecordError("no game on the board: start one with tallyboard new")
        # the core game itself, not a round trip through the record form: a
        # record's hands are finished hands, the board may be in the middle of one
        loaded = LoadedGame(current.name, self.player_names(current.players),
                            options_document(current.name, current.options), current.game)
        if signed and current.game.complete():
            loaded.chain = self.chain_of(loaded)
        return loaded

    def chain_of(self, loaded: LoadedGame) -> dict[str, Any] | None:
        """The board's signed chain of its game as read (loaded), for its record
        (docs/records.md, The chain); None when its firmware cannot sign."""
        if not self.can("SIGN"):
            return None
        head, key, tag = self.sign(records.without_pending(loaded.game).n)
        return verify.record_chain(loaded, head, key, tag)
