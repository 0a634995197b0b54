"""The Console every command prints through: rich's, except that text from
data (names, notes, records) never reaches the terminal as a control
character: each one a name may not hold (tallyboard.common.names) is written as an
escape. rich's own cursor moves and colours are left alone (they are control
segments and styles, not text)."""
from __future__ import annotations

from typing import Iterable

from rich.console import Console as _RichConsole
from rich.segment import Segment

from .names import shown


class Console(_RichConsole):
    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer(
            segment if segment.control else Segment(shown(segment.text), segment.style, segment.control)
            for segment in buffer)
