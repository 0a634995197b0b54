# tallyboard: runs first at power-up, before main.py. Kept minimal so that it
# can never be what locks the board out; the safe-mode check (a button held
# at power-up skips the app) is at the top of main.py, before the app starts.
import micropython

micropython.alloc_emergency_exception_buf(100)
