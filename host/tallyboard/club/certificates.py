"""The club's certificates (docs/club-mqtt.md, "Private on the air"): a club CA the director
keeps, the broker certificate it signs (the embedded broker's, or mosquitto's through
`event broker-files`), and the CA's pin, which a join code carries so that a table host
trusts that club's broker and no other with nothing more than what it typed.

The CA and the broker's key are ECDSA P-256 (the `cryptography` library makes them). The
broker sends its certificate and the CA's (broker.pem holds both). A client that has the CA's
file (the director; a table host given --tls-ca) verifies the broker through OpenSSL as usual;
a table host that has only the pin takes the CA from the chain the broker sent, where it must
find the certificate whose SHA-256 begins with the pin, and the broker's certificate must be
issued by that CA and be in its dates (pinned_context). The club CA signs nothing but its
brokers, so neither checks the broker's host name: a club's laptops change addresses."""
from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import os
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..common import files
from ..common.errors import TallyboardError

CA_FILE = "club-ca.pem"
CA_KEY_FILE = "club-ca.key"
BROKER_FILE = "broker.pem"            # the broker's certificate, then the CA's: the chain it sends
BROKER_KEY_FILE = "broker.key"
PIN_BYTES = 16                        # 128 bits of the CA certificate's SHA-256, in a join code
PIN_CHARS = 26                        # PIN_BYTES in base32, without its padding
CA_DAYS = 3650
BROKER_DAYS = 825                     # the most a TLS server certificate is commonly trusted for
RENEW_DAYS = 30                       # a broker certificate this close to its end is made again


@dataclass(frozen=True)
class TLSFiles:
    """What a TLS listener needs: its certificate chain and its key (PEM files)."""
    certfile: Path
    keyfile: Path


def pin_of(certificate_pem: bytes) -> str:
    """The pin of a CA certificate: the first PIN_BYTES of its DER's SHA-256, base32, lower case."""
    der = ssl.PEM_cert_to_DER_cert(certificate_pem.decode("ascii"))
    return _pin_of_der(der)


def _pin_of_der(der: bytes) -> str:
    return base64.b32encode(hashlib.sha256(der).digest()[:PIN_BYTES]).decode("ascii").rstrip("=").lower()


def check_pin(text: str) -> str:
    """A pin as a join code carries it; ValueError when it cannot be one."""
    if len(text) != PIN_CHARS or not all(c in "abcdefghijklmnopqrstuvwxyz234567" for c in text):
        raise ValueError("the join code is mistyped (its broker pin is not 26 letters and digits 2 to 7); "
                         "copy it again from the director")
    return text


def club_ca(folder: Path) -> Path:
    """The club CA's certificate in folder, made (with its key, 0600) the first time."""
    certificate, key_file = folder / CA_FILE, folder / CA_KEY_FILE
    if certificate.exists() and key_file.exists():
        return certificate
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tallyboard club CA"),
                      x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, os.urandom(6).hex())])
    now = _now()
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    files.write_output(key_file, _key_pem(key), private=True)
    files.write_output(certificate, _cert_pem(cert))
    return certificate


def broker_files(folder: Path, names: list[str] | None = None, into: Path | None = None) -> TLSFiles:
    """The broker's certificate chain and key, signed by the club CA in folder (made if need be),
    in `into` (default: folder; the CA's key never goes there); made again when missing, near its
    end, or not issued by this CA. `names`: host names and addresses written in it besides
    localhost (for clients that do check them)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    ca_file = club_ca(folder)
    ca_cert = x509.load_pem_x509_certificate(ca_file.read_bytes())
    into = into or folder
    chain = TLSFiles(into / BROKER_FILE, into / BROKER_KEY_FILE)
    wanted = sorted(set(["localhost", "127.0.0.1", "::1", socket.gethostname(), *(names or [])]))
    if chain.certfile.exists() and chain.keyfile.exists():
        current = x509.load_pem_x509_certificates(chain.certfile.read_bytes())[0]
        try:
            current.verify_directly_issued_by(ca_cert)
            fresh = _not_after(current) - _now() > datetime.timedelta(days=RENEW_DAYS)
        except Exception:     # a signature that does not verify, a CA's key changed
            fresh = False
        if fresh:
            return chain
    ca_key = serialization.load_pem_private_key((folder / CA_KEY_FILE).read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    alt: list[x509.GeneralName] = []
    for one in wanted:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(one)))
        except ValueError:
            alt.append(x509.DNSName(one))
    now = _now()
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "tallyboard club broker")]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(min(now + datetime.timedelta(days=BROKER_DAYS), _not_after(ca_cert)))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectAlternativeName(alt), critical=False)
            .sign(ca_key, hashes.SHA256()))   # type: ignore[arg-type]
    into.mkdir(parents=True, exist_ok=True)
    files.write_output(chain.keyfile, _key_pem(key), private=True)
    files.write_output(chain.certfile, _cert_pem(cert) + ca_file.read_bytes())
    return chain


def director_context(ca_file: str | Path) -> ssl.SSLContext:
    """A client's TLS context that trusts the club CA in ca_file and nothing else."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = False          # the club CA signs its brokers only (the module's text)
    context.load_verify_locations(cafile=str(ca_file))
    return context


class PinMismatch(ssl.SSLCertVerificationError):
    """The broker's chain does not lead to the club CA pinned in the join code."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "the broker's certificate was refused"


def pinned_context(pin: str) -> ssl.SSLContext:
    """A client's TLS context that trusts the broker whose certificate the CA with this pin issued
    (the module's text): checked when the handshake is done, before a byte of MQTT is sent."""
    check_pin(pin)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE     # verified by _PinnedSocket instead, against the pin

    class _Pinned(_PinnedSocket):
        club_pin = pin
        refused: str | None = None

    context.sslsocket_class = _Pinned
    return context


def refusal(context: ssl.SSLContext | None) -> str | None:
    """Why the last handshake through a pinned context refused its broker (None: it did not)."""
    return getattr(context.sslsocket_class, "refused", None) if context is not None else None


class _PinnedSocket(ssl.SSLSocket):
    club_pin = ""
    refused: str | None = None

    def do_handshake(self, block: bool = False) -> None:
        super().do_handshake(block)
        try:
            check_chain(_chain_of(self), self.club_pin)
        except PinMismatch as exc:
            type(self).refused = str(exc)
            self.close()
            raise
        type(self).refused = None


def check_chain(chain: list[bytes], pin: str, now: datetime.datetime | None = None) -> None:
    """PinMismatch unless chain (DER, the broker's certificate first) holds the CA with this pin
    and that CA issued the broker's certificate, in its dates."""
    from cryptography import x509

    if not chain:
        raise PinMismatch("the broker sent no certificate")
    cas = [der for der in chain[1:] if _pin_of_der(der) == pin]
    if not cas:
        raise PinMismatch("the broker is not this club's: its certificate chain holds no CA with the pin in your "
                          "join code (another broker at that address, or a join code from another club); check "
                          "the broker's address with the director")
    ca = x509.load_der_x509_certificate(cas[0])
    leaf = x509.load_der_x509_certificate(chain[0])
    try:
        leaf.verify_directly_issued_by(ca)
    except Exception as exc:      # cryptography's InvalidSignature, or a CA's key of another kind
        raise PinMismatch(f"the broker's certificate was not issued by the club's CA ({exc.__class__.__name__}); "
                          "check the broker's address with the director") from None
    at = now or _now()
    if not _not_before(leaf) <= at <= _not_after(leaf):
        raise PinMismatch(f"the broker's certificate is valid from {_not_before(leaf):%Y-%m-%d} to "
                          f"{_not_after(leaf):%Y-%m-%d}, not now: check this machine's clock, or have the director "
                          "run tallyboard event broker-files again")


def _chain_of(sock: ssl.SSLSocket) -> list[bytes]:
    """The certificates the peer sent, as DER: Python 3.13's SSLSocket.get_unverified_chain, or the
    same method of its _sslobj (3.10 to 3.12)."""
    getter: Any = (getattr(sock, "get_unverified_chain", None)
                   or getattr(getattr(sock, "_sslobj", None), "get_unverified_chain", None))
    if getter is None:
        raise TallyboardError("this Python cannot read the broker's certificate chain (Python 3.10 or newer can): "
                              "give the club's CA file with --tls-ca instead")
    chain = getter() or []
    return [c if isinstance(c, bytes) else c.public_bytes(ssl._ssl.ENCODING_DER) for c in chain]  # type: ignore[attr-defined]


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)


def _not_after(cert: Any) -> datetime.datetime:
    return cert.not_valid_after_utc


def _not_before(cert: Any) -> datetime.datetime:
    return cert.not_valid_before_utc


def _key_pem(key: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _cert_pem(cert: Any) -> bytes:
    from cryptography.hazmat.primitives import serialization
    return cert.public_bytes(serialization.Encoding.PEM)
