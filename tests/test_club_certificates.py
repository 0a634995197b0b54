"""The club's certificates (issue 40, "Private on the air"; tallyboard/club/certificates.py): the
club CA and the broker certificate it signs, the pin a join code carries, and the check a table
host makes of the chain a broker sends when all it has is that pin."""
from __future__ import annotations

import base64
import datetime
import hashlib
import ipaddress
import ssl

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tallyboard.club import certificates

def der_chain(pem: bytes) -> list[bytes]:
    return [ssl.PEM_cert_to_DER_cert(block.decode() + "-----END CERTIFICATE-----\n")
            for block in pem.split(b"-----END CERTIFICATE-----\n") if block.strip()]


def test_the_ca_and_the_brokers_chain_are_made_once_and_the_cas_key_stays_home(tmp_path):
    home, out = tmp_path / "club-ca", tmp_path / "for-mosquitto"
    files = certificates.broker_files(home, ["broker.club", "192.168.4.2"], into=out)
    assert (files.certfile, files.keyfile) == (out / "broker.pem", out / "broker.key")
    assert files.keyfile.stat().st_mode & 0o777 == 0o600
    assert (home / "club-ca.key").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in out.iterdir()) == ["broker.key", "broker.pem"]     # no CA key beside them
    chain = der_chain(files.certfile.read_bytes())
    ca_der = ssl.PEM_cert_to_DER_cert((home / "club-ca.pem").read_text())
    assert len(chain) == 2 and chain[1] == ca_der                 # the broker's, then the CA's
    leaf, ca = x509.load_der_x509_certificate(chain[0]), x509.load_der_x509_certificate(ca_der)
    leaf.verify_directly_issued_by(ca)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    assert not leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert {"localhost", "broker.club"} <= set(names.get_values_for_type(x509.DNSName))
    assert ipaddress.ip_address("192.168.4.2") in names.get_values_for_type(x509.IPAddress)
    # asked again: the same files, not new ones (a pin and a mosquitto that stay as they were)
    before = (files.certfile.read_bytes(), (home / "club-ca.pem").read_bytes())
    assert certificates.broker_files(home, ["broker.club", "192.168.4.2"], into=out) == files
    assert (files.certfile.read_bytes(), (home / "club-ca.pem").read_bytes()) == before


def test_the_pin_is_the_start_of_the_cas_sha256_in_base32(tmp_path):
    pem = certificates.club_ca(tmp_path).read_bytes()
    der = ssl.PEM_cert_to_DER_cert(pem.decode())
    # by hand: SHA-256 of the DER, its first 16 bytes (128 bits), base32 (26 letters, the padding off)
    assert certificates.pin_of(pem) == base64.b32encode(hashlib.sha256(der).digest()[:16]).decode().lower()[:26]
    assert certificates.check_pin(certificates.pin_of(pem))
    for typo in ("0" * 26, "a" * 25, "A" * 26):
        with pytest.raises(ValueError, match="mistyped"):
            certificates.check_pin(typo)


def forged_leaf(issuer: x509.Name, days: int = 30, not_before_days: int = -1) -> bytes:
    """A broker certificate made by someone who has the club CA's certificate (public) but not its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "x")]))
            .issuer_name(issuer).public_key(key.public_key()).serial_number(1)
            .not_valid_before(now + datetime.timedelta(days=not_before_days))
            .not_valid_after(now + datetime.timedelta(days=days)).sign(key, hashes.SHA256()))
    from cryptography.hazmat.primitives import serialization
    return cert.public_bytes(serialization.Encoding.DER)


def test_a_chain_is_taken_only_with_the_pinned_ca_and_a_certificate_it_issued(tmp_path):
    files = certificates.broker_files(tmp_path / "club")
    leaf, ca = der_chain(files.certfile.read_bytes())
    pin = certificates.pin_of(files.certfile.read_bytes().split(b"-----END CERTIFICATE-----\n", 1)[1])
    certificates.check_chain([leaf, ca], pin)
    other = der_chain(certificates.broker_files(tmp_path / "another-club").certfile.read_bytes())
    refusals = {
        "no CA sent": ([leaf], "holds no CA with the pin"),
        "another club's broker": (other, "holds no CA with the pin"),
        # the club's CA is public: a stranger's certificate with the club CA's name, sent beside it
        "a stranger's certificate beside the club's CA": (
            [forged_leaf(x509.load_der_x509_certificate(ca).subject), ca], "was not issued by the club's CA"),
        "another club's broker beside this club's CA": ([other[0], ca], "was not issued by the club's CA"),
        "nothing": ([], "sent no certificate"),
    }
    for what, (chain, words) in refusals.items():
        with pytest.raises(certificates.PinMismatch, match=words):
            certificates.check_chain(chain, pin)
    # whatever the broker sends, the refusal is a PinMismatch (the link goes on trying), never another error
    with pytest.raises(certificates.PinMismatch, match="was not issued by the club's CA"):
        certificates.check_chain([b"not a certificate at all", ca], pin)
    # in its dates only: 825 days from when it was made (BROKER_DAYS), an hour before for clocks behind
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=826)
    with pytest.raises(certificates.PinMismatch, match="check this machine's clock"):
        certificates.check_chain([leaf, ca], pin, now=later)


def test_a_broker_certificate_near_its_end_for_other_names_or_from_another_ca_is_made_again(tmp_path, monkeypatch):
    home = tmp_path / "club"
    first = certificates.broker_files(home).certfile.read_bytes()
    # 30 days before its end (825 days from now: BROKER_DAYS less RENEW_DAYS), it is made again
    later = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=825 - 30 + 1)
    monkeypatch.setattr(certificates, "_now", lambda: later)
    renewed = certificates.broker_files(home).certfile.read_bytes()
    assert renewed != first
    assert certificates.broker_files(home).certfile.read_bytes() == renewed      # and kept, once new
    monkeypatch.undo()
    named = certificates.broker_files(home, ["broker.club"]).certfile.read_bytes()   # other names: made again
    assert named != renewed
    leaf = x509.load_der_x509_certificate(der_chain(named)[0])
    assert "broker.club" in leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value \
        .get_values_for_type(x509.DNSName)
    (home / "club-ca.pem").unlink()                 # a new club CA (both its files gone: made again, a new key)
    (home / "club-ca.key").unlink()
    again = certificates.broker_files(home, ["broker.club"]).certfile.read_bytes()
    assert again != named
    leaf_der, ca_der = der_chain(again)
    x509.load_der_x509_certificate(leaf_der).verify_directly_issued_by(x509.load_der_x509_certificate(ca_der))


def test_a_club_ca_half_there_is_not_made_again_without_a_word(tmp_path):
    from tallyboard.common.errors import TallyboardError

    home = tmp_path / "club"
    certificates.club_ca(home)
    (home / "club-ca.key").unlink()
    with pytest.raises(TallyboardError, match="the club's CA is half there: .*club-ca.pem without club-ca.key"):
        certificates.club_ca(home)
    assert not (home / "club-ca.key").exists()      # no new key: the pin every join code carries still holds
