# tallycore: the scoring core of the tallyboard, shared by the board and the host.
# Runs unchanged on the Pico, under the MicroPython unix port and under CPython.
VERSION = "0.1.0"
