"""An update over the air on the evening's broker (issue 43; docs/club-mqtt.md, "Updates over the air";
`tallyboard event update-boards`): a link beside the director's own (`<event>-director`, which
`event serve` holds), logged in as the updater (brokers.UPDATER_USER: it may offer releases, send their
chunks and read the boards' statuses, nothing else; client id `<event>-updater`), with a clean session. It reads the chosen boards' `update` statuses, each checked as the director link
checks a board's own message (its key, its own topic, kinds._update_body), and hands them to an
UpdateServer (updates.py), publishing the chunks it answers with; UpdateRun offers, serves until every
board is done or the time is up, and withdraws the offers whatever happened."""
from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import paho.mqtt.client as mqtt
from tallynet import topics

from ..common.ratelog import RateLog
from . import brokers, envelope, kinds, releases
from .envelope import RefusedMessage
from .mqtt_link import MqttLink
from .updates import BoardUpdate, Publish, UpdateServer

log = logging.getLogger(__name__)
_REFUSED_LOG = RateLog(log, "the update link refused")

CONNECT_TIMEOUT_S = 10.0
POLL_S = 0.2               # how often the run looks at the time (resends, progress, --wait)
WITHDRAW_TIMEOUT_S = 5.0   # for the broker to take each offer's withdrawal


def client_id(event: str) -> str:
    """The update link's client id on the evening `event`'s broker: `<event>-updater` (its login's own)."""
    return f"{event}-{brokers.UPDATER_USER}"


class UpdateLink(MqttLink):
    """The director's update link: subscribed to the `update` topic of each of `boards`, each status
    checked with `key` (the key of a message's sender, as the director link's) and handed to
    on_update(board, body, retained) once checked; `retained`: the broker kept it from before and handed
    it on at subscribing (MQTT's retain flag), rather than the board saying it now."""

    def __init__(self, url: str, *, event: str, boards: Iterable[str], key: envelope.Key,
                 on_update: Callable[[str, dict[str, Any], bool], None], tls_ca: str | Path | None = None) -> None:
        super().__init__(url, client_id(event), None, None, tls_ca, max_backoff=5.0, clean_session=True)
        self.event = envelope.check_name("event", event)
        self.boards = frozenset(envelope.check_name("board", board) for board in boards)
        self.key = key
        self.on_update = on_update
        self.refused: list[tuple[str, str, str]] = []      # (topic, reason, text) of the statuses refused

    def connected_now(self) -> int | None:
        _, mid = self.client.subscribe([(topics.topic(topics.UPDATE, self.event, board), 1)
                                        for board in sorted(self.boards)])
        return mid

    def _on_message(self, message: mqtt.MQTTMessage) -> None:
        found = kinds.parse_topic(self.event, message.topic)
        board = found[1] if found is not None and found[0].name == topics.UPDATE else None
        if not message.payload:           # a status cleared: nothing said
            return
        try:
            if board is None or board not in self.boards:
                raise RefusedMessage("field", f"{message.topic} is not the update status of a board offered to")
            opened = envelope.open_message(message.payload, self.key, {board: 0}, event=self.event,
                                           topic=message.topic)
        except RefusedMessage as refused:
            _REFUSED_LOG.note(message.topic[:200], "refused %s: %s", message.topic[:200], refused)
            self.refused.append((message.topic, refused.reason, str(refused)))
            return
        self.on_update(board, opened["body"], bool(message.retain))

    def send(self, messages: list[Publish], retain: bool = False) -> list[mqtt.MQTTMessageInfo]:
        """Publish each (topic, payload): QoS 0 (chunks), or retained with QoS 1 (offers, withdrawals)."""
        return [self.client.publish(topic, payload, qos=1 if retain else 0, retain=retain)
                for topic, payload in messages]

    def stop(self) -> None:
        self._stop_client()


class UpdateRun:
    """One update of the evening `event`'s `boards` ({identity: table}) to `release` over the broker at
    `url` (as the updater, brokers.UPDATER_USER: its user and password in the URL), offers tagged with `key` (the key of a
    message's sender, {"board": board}). run() serves it and returns each board's end."""

    def __init__(self, url: str, *, event: str, release: releases.Release, boards: Mapping[str, int],
                 key: Callable[[Mapping[str, Any]], bytes | None], tls_ca: str | Path | None = None,
                 force: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.server = UpdateServer(event, release, boards, lambda board: self._key(key, board), force, clock)
        self.clock = clock
        self._lock = threading.Lock()
        self.link = UpdateLink(url, event=event, boards=boards, key=key, on_update=self._on_update, tls_ca=tls_ca)
        self.withdrawn = False        # every offer's withdrawal taken by the broker

    @staticmethod
    def _key(key: Callable[[Mapping[str, Any]], bytes | None], board: str) -> bytes:
        found = key({"board": board})
        if found is None:
            raise ValueError(f"no key for board {board!r}")
        return found

    def _on_update(self, board: str, body: dict[str, Any], retained: bool) -> None:
        with self._lock:
            chunks = self.server.on_update(board, body, retained)
        self.link.send(chunks)

    def run(self, wait: float, progress: Callable[[list[BoardUpdate]], None] | None = None,
            connect_timeout: float = CONNECT_TIMEOUT_S, poll: float = POLL_S) -> list[BoardUpdate]:
        """Connect (ConnectionRefused, TimeoutError as MqttLink.wait_connected), offer, serve until every
        board is done or `wait` seconds have passed (progress(rows) at each look), withdraw the offers
        and stop; each board's end."""
        self.link.start()
        try:
            self.link.wait_connected(connect_timeout)
            with self._lock:
                offers = self.server.offers()
            self.link.send(offers, retain=True)
            deadline = self.clock() + wait
            while True:
                with self._lock:
                    chunks = self.server.tick()
                    rows, done = self.server.rows(), self.server.finished()
                self.link.send(chunks)
                if progress is not None:
                    progress(rows)
                if done or self.clock() >= deadline:
                    return rows
                time.sleep(poll)
        finally:
            self._withdraw()
            self.link.stop()

    def _withdraw(self) -> None:
        """The offers withdrawn (empty retained messages), waited for: a board that comes later finds none."""
        if not self.link.connected.is_set():
            return
        infos = self.link.send(self.server.withdrawals(), retain=True)
        try:
            for info in infos:
                info.wait_for_publish(WITHDRAW_TIMEOUT_S)
            self.withdrawn = all(info.is_published() for info in infos)
        except (RuntimeError, ValueError):
            self.withdrawn = False
