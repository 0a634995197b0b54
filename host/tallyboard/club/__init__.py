"""A club evening across hosts over MQTT: the transport under the evening
(docs/club-mqtt.md). `envelope` signs and checks every message, `outbox`
keeps a table host's messages until the director has applied them, `mqtt_link`
the connection both ends share and the table host's (TableLink), `director_link`
the director's (DirectorLink), on paho-mqtt; `brokers` runs mosquitto and says who
may publish and read what, `embedded_broker` runs amqtt in this process; `enrol`
puts a board with Wi-Fi on the evening."""
