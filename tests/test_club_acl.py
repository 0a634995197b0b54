"""One access rule, as the docs give it (docs/club-mqtt.md, "Who may publish what" and "A club:
mosquitto"): the ACL file and the configuration the docs show are the ones the code writes for
mosquitto, and the embedded broker's may() reads the same rows."""
from __future__ import annotations

from pathlib import Path

from tallyboard.club import brokers

DOC_EVENT = "Club-night-1a2b"     # the evening docs/club-mqtt.md writes its files for


def test_the_acl_the_docs_give_is_the_one_both_brokers_apply():
    doc = (Path(__file__).resolve().parent.parent / "docs" / "club-mqtt.md").read_text()
    given = doc.split("and `/etc/mosquitto/tallyboard.acl`", 1)[1].split("```\n", 2)[1]
    assert given == brokers.mosquitto_acl(DOC_EVENT)
    # the configuration it gives has the limits and the client-id binding Mosquitto writes, the binding
    # after the listener (before it, mosquitto 2.0 ignores it)
    conf = [line.split("#")[0].strip() for line in
            doc.split("`/etc/mosquitto/conf.d/tallyboard.conf`:", 1)[1].split("```\n", 2)[1].splitlines()]
    assert set(brokers.mosquitto_limits()) <= set(conf)
    assert conf.index(brokers.CLIENT_ID_IS_LOGIN) > conf.index("listener 8883")
    there = Path("/etc/mosquitto/tallyboard")       # its TLS listener, as `event broker-files` writes it
    listener = brokers.mosquitto_listener(8883, None, brokers.TLSFiles(there / "broker.pem", there / "broker.key"))
    assert conf[conf.index("listener 8883"):conf.index("listener 8883") + len(listener)] == listener
    # may() reads the same rows: worked out by hand from "Who may publish what"
    table = "B39D.1"
    assert brokers.may(table, None, "tallyboard/ev-1/table/B39D.1/hand", True, event="ev-1")
    assert brokers.may(table, None, "tallyboard/ev-1/host/B39D.1/status", True, event="ev-1")
    assert not brokers.may(table, None, "tallyboard/ev-1/table/B39D.2/state", True, event="ev-1")
    assert not brokers.may(table, None, "tallyboard/ev-1/host/B39D.2/status", True, event="ev-1")
    assert not brokers.may(table, None, "tallyboard/ev-1/director/round", True, event="ev-1")
    assert brokers.may(table, None, "tallyboard/ev-1/director/applied/B39D.1", False, event="ev-1")
    assert not brokers.may(table, None, "tallyboard/ev-1/director/applied/+", False, event="ev-1")      # wider than its row
    assert not brokers.may(table, None, "tallyboard/ev-1/table/B39D.1/hand", False, event="ev-1")      # no table reads hands
    assert brokers.may("director", None, "tallyboard/ev-1/table/+/+", False, event="ev-1")
    assert not brokers.may("director", None, "tallyboard/ev-1/table/B39D.1/hand", True, event="ev-1")
    assert not brokers.may("a+b", None, "tallyboard/ev-1/table/a+b/hand", True, event="ev-1")          # no pattern for it
    # this evening's only (finding 3): no login publishes or reads under another evening's topics
    assert not brokers.may(table, None, "tallyboard/ev-2/table/B39D.1/hand", True, event="ev-1")
    assert not brokers.may(table, None, "tallyboard/+/director/round", False, event="ev-1")
    assert not brokers.may("director", None, "tallyboard/ev-2/director/round", True, event="ev-1")
    assert not brokers.may("director", None, "tallyboard/+/table/+/+", False, event="ev-1")
