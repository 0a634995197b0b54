# Stand-in for MicroPython's `rp2` on the unix port (the emulator; never
# deployed). Only what the firmware may touch: the BOOTSEL button (never
# pressed here) and the country code.
country_code = "XX"


def bootsel_button():
    return 0


def country(code=None):
    return country_code
