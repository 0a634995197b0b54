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
    if certificate.exists() or key_file.exists():
        there, missing = (certificate, key_file) if certificate.exists() else (key_file, certificate)
        raise TallyboardError(f"the club's CA is half there: {there} without {missing.name}. Put the missing file "
                              f"back from a copy; or, to make a new CA, remove {folder} (every join code and the "
                              "brokers' certificates then change)")
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
    in `into` (default: folder; the CA's key never goes there); made again when missing, unreadable,
    within RENEW_DAYS of its end, not issued by this CA, or for other names. `names`: host names
    and addresses written in it besides localhost (for clients that do check them)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    ca_file = club_ca(folder)
    ca_cert = x509.load_pem_x509_certificate(ca_file.read_bytes())
    into = into or folder
    chain = TLSFiles(into / BROKER_FILE, into / BROKER_KEY_FILE)
    wanted = sorted(set(["localhost", "127.0.0.1", "::1", socket.gethostname(), *(names or [])]))
    alt: list[x509.GeneralName] = []
    for one in wanted:
        try:
            alt.append(x509.IPAddress(ipaddress.ip_address(one)))
        except ValueError:
            alt.append(x509.DNSName(one))
    if chain.certfile.exists() and chain.keyfile.exists():
        try:
            current = x509.load_pem_x509_certificates(chain.certfile.read_bytes())[0]
            current.verify_directly_issued_by(ca_cert)
            fresh = _not_after(current) - _now() > datetime.timedelta(days=RENEW_DAYS)
            named = set(current.extensions.get_extension_for_class(x509.SubjectAlternativeName).value) == set(alt)
        except Exception:     # a file it cannot read, a signature that does not verify (another CA), no names
            fresh = named = False
        if fresh and named:
            return chain
    ca_key = serialization.load_pem_private_key((folder / CA_KEY_FILE).read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
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
    """A client's TLS context that trusts the club CA in ca_file and nothing else (OpenSSL verifies)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = False          # the club CA signs its brokers only (the module's text)
    context.load_verify_locations(cafile=str(ca_file))
    context.sslsocket_class = _SaidSocket
    context.sslobject_class = _NoObject
    return context


class PinMismatch(ssl.SSLCertVerificationError):
    """The broker's chain does not lead to the club CA pinned in the join code."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "the broker's certificate was refused"


def pinned_context(pin: str) -> ssl.SSLContext:
    """A client's TLS context that trusts the broker whose certificate the CA with this pin issued
    (the module's text): checked when the handshake is done, before a byte of MQTT is sent. Only on
    a socket: a memory BIO (SSLObject, asyncio's TLS) would skip the check, so it is refused."""
    check_pin(pin)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE     # verified by _PinnedSocket instead, against the pin

    class _Pinned(_PinnedSocket):
        club_pin = pin

    context.sslsocket_class = _Pinned
    context.sslobject_class = _NoObject
    return context


def refusal(context: ssl.SSLContext | None) -> str | None:
    """Why the last handshake through one of this module's contexts failed, in the user's words
    (None: it did not, or none was made). Each link makes its own context."""
    return getattr(context, _REFUSAL, None) if context is not None else None


def forget_refusal(context: ssl.SSLContext | None) -> None:
    """Before a new attempt: refusal() says None until its handshake fails."""
    if context is not None:
        setattr(context, _REFUSAL, None)


_REFUSAL = "tallyboard_refusal"     # the attribute of a context that keeps refusal()'s words


class _SaidSocket(ssl.SSLSocket):
    """A client socket whose failed handshake leaves its words on its context (refusal())."""

    def do_handshake(self, block: bool = False) -> None:
        setattr(self.context, _REFUSAL, None)
        try:
            super().do_handshake(block)
            self.check_peer()
        except PinMismatch as exc:
            setattr(self.context, _REFUSAL, str(exc))
            self.close()
            raise
        except ssl.SSLCertVerificationError as exc:
            setattr(self.context, _REFUSAL, f"the broker's certificate was refused ({exc.verify_message}): it is "
                                            "not signed by the club's CA given with --tls-ca; check the broker's "
                                            "address and the file with the director")
            raise
        except ssl.SSLError as exc:
            setattr(self.context, _REFUSAL, f"no TLS with the broker ({exc.reason or exc}): is its port a plain "
                                            "mqtt:// one? A club's TLS port is usually 8883")
            raise

    def check_peer(self) -> None:
        """Nothing more than OpenSSL's own verification (pinned sockets check the chain)."""


class _PinnedSocket(_SaidSocket):
    club_pin = ""

    def check_peer(self) -> None:
        try:
            chain = _chain_of(self)
        except Exception as exc:      # whatever the broker sent, the table host's link goes on trying
            raise PinMismatch(f"the broker's certificate chain could not be read ({exc}); check the broker's "
                              "address with the director") from None
        check_chain(chain, self.club_pin)


class _NoObject(ssl.SSLObject):
    @classmethod
    def _create(cls, *args: Any, **kwargs: Any) -> Any:     # what SSLContext.wrap_bio calls
        raise TypeError("the club's TLS contexts check the broker on a socket only (wrap_socket), not a "
                        "memory BIO")


def check_chain(chain: list[bytes], pin: str, now: datetime.datetime | None = None) -> None:
    """PinMismatch unless chain (DER, the broker's certificate first) holds the CA with this pin
    and that CA issued the broker's certificate, in its dates. Whatever the chain holds, no other
    exception: a certificate that cannot be read is a PinMismatch too."""
    from cryptography import x509

    if not chain:
        raise PinMismatch("the broker sent no certificate")
    cas = [der for der in chain[1:] if _pin_of_der(der) == pin]
    if not cas:
        raise PinMismatch("the broker is not this club's: its certificate chain holds no CA with the pin in your "
                          "join code (another broker at that address, or a join code from another club); check "
                          "the broker's address with the director")
    try:
        ca = x509.load_der_x509_certificate(cas[0])
        leaf = x509.load_der_x509_certificate(chain[0])
        leaf.verify_directly_issued_by(ca)
        valid_from, valid_to = _not_before(leaf), _not_after(leaf)
    except Exception as exc:      # cryptography's InvalidSignature, a certificate it cannot read, a CA's other key
        raise PinMismatch(f"the broker's certificate was not issued by the club's CA ({exc.__class__.__name__}); "
                          "check the broker's address with the director") from None
    if not valid_from <= (now or _now()) <= valid_to:
        raise PinMismatch(f"the broker's certificate is valid from {valid_from:%Y-%m-%d} to {valid_to:%Y-%m-%d}, "
                          "not now: check this machine's clock, or have the director run tallyboard event "
                          "broker-files again")


def _chain_of(sock: ssl.SSLSocket) -> list[bytes]:
    """The certificates the peer sent, as DER: Python 3.13's SSLSocket.get_unverified_chain, or the
    same method of its _sslobj (3.11 and 3.12)."""
    getter: Any = (getattr(sock, "get_unverified_chain", None)
                   or getattr(getattr(sock, "_sslobj", None), "get_unverified_chain", None))
    if getter is None:
        raise TallyboardError("this Python cannot read the broker's certificate chain: give the club's CA file "
                              "with --tls-ca instead")
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
