import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The shared core checks in tests/mp import plain module names.
sys.path.insert(0, str(ROOT / "tests" / "mp"))
