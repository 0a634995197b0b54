# The club link of a board with Wi-Fi (docs/club-mqtt.md, "A board on the
# club's Wi-Fi"): below the panel, beside the runtime.
