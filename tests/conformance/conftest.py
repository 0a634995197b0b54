"""The conformance tests' fixtures (shared_board.py)."""
from shared_board import watched, watched_all_along  # noqa: F401 - pytest fixtures
