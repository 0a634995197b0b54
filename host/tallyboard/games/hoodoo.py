"""Hoodoo on the host: scored as the first player out (games/first_out.py)."""
from . import first_out

PROFILE = first_out.profile("hoodoo")
