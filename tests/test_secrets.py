"""Secrets never required in argv (issue 22.3; docs/events.md, docs/club-mqtt.md):
the join code and the broker's password from a file or the environment, the
old argv options still there with a word about `ps` in their help."""
from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from tallyboard.common import secretfile
from tallyboard.cli import main


def test_a_password_from_a_file_goes_into_the_broker_url(tmp_path):
    seen = []

    @click.command()
    @click.option("--broker", "broker_url")
    @secretfile.broker_password_option
    def command(broker_url):
        seen.append(broker_url)

    secret = tmp_path / "password"
    secret.write_text("p@ss w/rd\n")
    secret.chmod(0o600)
    out = CliRunner().invoke(command, ["--broker", "mqtt://table@club.lan:1883", "--broker-password-file", str(secret)])
    assert out.exit_code == 0, out.output
    # quoted, so that the URL reads back the same password (club.mqtt_link.parse_url unquotes it)
    assert seen == ["mqtt://table:p%40ss%20w%2Frd@club.lan:1883"]
    from tallyboard.club.mqtt_link import parse_url
    assert parse_url(seen[0]).password == "p@ss w/rd"
    out = CliRunner().invoke(command, ["--broker", "mqtt://table@club.lan:1883"],
                             env={"TALLYBOARD_BROKER_PASSWORD": "envpw"})
    assert seen[-1] == "mqtt://table:envpw@club.lan:1883"
    out = CliRunner().invoke(command, ["--broker", "mqtt://table:own@club.lan"], env={"TALLYBOARD_BROKER_PASSWORD": "x"})
    assert seen[-1] == "mqtt://table:own@club.lan"        # the URL's own password is kept
    out = CliRunner().invoke(command, ["--broker", "mqtt://club.lan", "--broker-password-file", str(secret)])
    assert out.exit_code != 0 and "names no user for the password" in out.output


def table_host_with_join_file(tmp_path, text: str, broker: str):
    """`event table` given a join code in a 0600 file (its output; nothing listens on port 1)."""
    code = tmp_path / "join"
    code.write_text(text + "\n")
    code.chmod(0o600)
    return CliRunner().invoke(main, ["event", "table", "--broker", broker, "--join-file", str(code), "--emulators", "1"])


def test_the_join_code_from_a_file_is_read_and_checked_like_the_option(tmp_path):
    out = table_host_with_join_file(tmp_path, "tb3:not-a-code", "mqtt://table@127.0.0.1:1")
    assert out.exit_code != 0
    # the code in the file was read and checked (no code at all says where to give one, below)
    assert "not a join code: it looks like tb4:EVENT:TABLES:KEYS:PIN:CHECK; copy it again from the director" in out.output
    assert "tb3:not-a-code" not in out.output                 # a secret is not repeated


def test_an_older_join_code_is_refused_and_says_to_ask_the_director_for_a_new_one(tmp_path):
    # a tb2 code carried the director's key, with which any table could sign the director's round (issue 30)
    out = table_host_with_join_file(
        tmp_path, "tb2:club-1a2b:3:gdc4qbvnmfzgk3tffzrw63lnmvxhiidjnzsm6zlqmfzgk3tffzrw63lnmvxhi:1cb3f0",
        "mqtt://127.0.0.1:1")
    assert out.exit_code != 0
    assert "this join code is from an older tallyboard" in out.output
    assert "Ask the director for a new code for this table host's tables (tallyboard event join-code --table N)" \
        in " ".join(out.output.split())


def test_a_table_host_without_a_join_code_says_where_to_give_it():
    out = CliRunner().invoke(main, ["event", "table", "--broker", "mqtt://table@127.0.0.1:1", "--emulators", "1"],
                             env={"TALLYBOARD_JOIN": None, "TALLYBOARD_JOIN_FILE": None})
    assert out.exit_code != 0
    assert "give the evening's join code: --join-file FILE, $TALLYBOARD_JOIN" in out.output, out.output


@pytest.mark.parametrize("command, option", [(["event", "table"], "--join"),
                                             (["event", "serve"], "--broker"), (["event", "correct"], "--pin"),
                                             (["event", "pin", "set"], "--new-pin")])
def test_the_argv_options_for_secrets_say_ps_shows_them(command, option):
    out = CliRunner().invoke(main, [*command, "--help"])
    helps, current = {}, None
    for line in out.output.splitlines():
        if line.startswith("  -"):
            current = line.split()[0].rstrip(",")
            helps[current] = line
        elif current is not None:
            helps[current] += " " + line
    line = helps[option]
    assert "visible to every user of this machine in `ps`" in " ".join(line.split()), line
