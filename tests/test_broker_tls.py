"""The embedded broker's TLS listener (issue 40, "Private on the air") holds the limits its plain one
does (docs/club-mqtt.md, the embedded broker's limits): a connection counts against its address
from its first byte, its TLS handshake included, and a handshake not finished within the time a
login has is closed; and a table host's pinned check, over a real socket, refuses a stranger's
certificate sent beside the club's real CA, however it is malformed, and goes on trying."""
from __future__ import annotations

import socket
import ssl
import threading
import time

import pytest

from test_club_guard import LOGIN_S, mqtt_connect_packet
from test_club_mqtt import EVENT, USERS
from waiting import until
from tallyboard.club import certificates, embedded_broker

pytestmark = [pytest.mark.broker]


@pytest.fixture
def tls_embedded(request, tmp_path):
    login_s = getattr(request, "param", LOGIN_S)
    running = embedded_broker.EmbeddedBroker(0, USERS, event=EVENT, connect_timeout=login_s,
                                             tls=certificates.broker_files(tmp_path / "club-ca"))
    running.start()
    try:
        yield running, certificates.pin_of((tmp_path / "club-ca" / certificates.CA_FILE).read_bytes())
    finally:
        running.stop()


def test_a_tls_handshake_never_begun_is_closed_in_a_logins_time(tls_embedded):
    broker, _ = tls_embedded
    with socket.create_connection(("127.0.0.1", broker.port), timeout=LOGIN_S + 10) as idle:
        started = time.monotonic()
        try:
            closed = idle.recv(16) == b""          # closed by the broker, not by this timeout
        except ConnectionResetError:
            closed = True
        assert closed and time.monotonic() - started >= LOGIN_S - 0.1


@pytest.mark.parametrize("tls_embedded", [embedded_broker.CONNECT_TIMEOUT], indirect=True)
def test_one_address_holds_at_most_its_share_handshakes_included(tls_embedded):
    broker, pin = tls_embedded
    wait = embedded_broker.CONNECT_TIMEOUT + 10
    held = [socket.create_connection(("127.0.0.1", broker.port), timeout=wait)
            for _ in range(embedded_broker.MAX_PER_ADDRESS)]   # TCP only: no handshake begun
    try:
        # one more, with a whole TLS handshake: closed before it is done
        with socket.create_connection(("127.0.0.1", broker.port), timeout=wait) as extra:
            with pytest.raises((ssl.SSLError, ConnectionError)):
                certificates.pinned_context(pin).wrap_socket(extra)
    finally:
        for sock in held:
            sock.close()

    def logs_in() -> bool:        # once the broker has seen those go: a CONNACK, accepted (20 02 00 00)
        try:
            with socket.create_connection(("127.0.0.1", broker.port), timeout=wait) as raw, \
                    certificates.pinned_context(pin).wrap_socket(raw) as tls:
                tls.sendall(mqtt_connect_packet("director", f"{EVENT}-director"))
                return tls.recv(4) == b"\x20\x02\x00\x00"
        except (ssl.SSLError, ConnectionError):
            return False

    until(logs_in, 60, "the director's login over TLS once the held connections were closed")


def forged_server(ca_pem: bytes, tmp_path) -> tuple[socket.socket, threading.Thread]:
    """A TLS server on loopback that holds the club CA's certificate (public) but not its key: its own
    certificate, self-signed, carrying the club CA's name, sent with the club's real CA after it."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    ca = x509.load_pem_x509_certificate(ca_pem)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(ca.subject).issuer_name(ca.subject).public_key(key.public_key())
            .serial_number(7).not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    chain, key_file = tmp_path / "forged.pem", tmp_path / "forged.key"
    chain.write_bytes(cert.public_bytes(serialization.Encoding.PEM) + ca_pem)
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain, key_file)
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(raw, server_side=True) as tls:
                    tls.recv(1)
            except (OSError, ssl.SSLError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return listener, thread


def test_a_stranger_with_the_clubs_ca_beside_his_own_certificate_is_refused_over_a_socket(tmp_path):
    ca_pem = certificates.club_ca(tmp_path / "club-ca").read_bytes()
    listener, thread = forged_server(ca_pem, tmp_path)
    try:
        context = certificates.pinned_context(certificates.pin_of(ca_pem))
        with socket.create_connection(listener.getsockname()) as raw:
            with pytest.raises(certificates.PinMismatch, match="was not issued by the club's CA"):
                context.wrap_socket(raw)
        assert certificates.refusal(context).startswith("the broker's certificate was not issued by the club's CA")
        # a memory BIO (asyncio's TLS) would skip the check: the pinned context refuses to make one
        with pytest.raises(TypeError, match="on a socket only"):
            context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO())
    finally:
        listener.close()
        thread.join(10)
