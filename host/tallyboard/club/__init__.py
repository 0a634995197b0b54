"""A club evening across hosts over MQTT: the transport under the evening
(docs/club-mqtt.md). `envelope` signs and checks every message, `outbox`
keeps a table host's messages until the director has applied them, `link`
has the two ends (TableLink, DirectorLink) on paho-mqtt, `brokers` runs
mosquitto or the embedded amqtt broker."""
