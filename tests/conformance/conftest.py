"""The conformance tests' fixtures (shared_board.py) and their client, the example
client docs/protocol.md points to (examples/tbclient.py)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

from shared_board import watched, watched_all_along  # noqa: E402, F401 - pytest fixtures
