"""The host's file reading and writing, each failure one line that names the
file: a JSON document in (a record, a hand), an output file or standard
output out."""
from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, Iterator

from .errors import TallyboardError


class FileError(TallyboardError):
    """A file (or standard output) that cannot be read or written."""


def cache_folder(name: str) -> Path:
    """The host's cache of one kind (views, mpy, descriptions): $XDG_CACHE_HOME/tallyboard/<name>,
    else ~/.cache/tallyboard/<name>; not made here."""
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path.home() / ".cache") / "tallyboard" / name


# ---------------------------------------------------------------- reading

def read_json(path: str | Path, what: str = "record") -> Any:
    """The JSON document in the file at path (what: "record", "hand", ... for the messages)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FileError(f"{path}: cannot read the {what} ({exc.strerror})") from None
    return parse_json(data, str(path), what)


def read_stdin() -> bytes:
    """All of standard input, as bytes: parse_json says what is wrong with them."""
    stdin = getattr(sys.stdin, "buffer", None)
    return stdin.read() if stdin is not None else sys.stdin.read().encode("utf-8")


def parse_json(data: bytes | str, source: str, what: str = "record", hint: str = "") -> Any:
    """One JSON document in UTF-8 (loads()); source names it in the messages
    ("r.json", "stdin"), hint follows the message for bad JSON ("; write it as ...")."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FileError(f"{source}: not UTF-8 JSON (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
                            f"save the {what} as UTF-8 text") from None
    if not data.strip():
        raise FileError(f"{source}: empty: no {what} in it{hint or ''}")
    try:
        return loads(data, what)
    except DocumentRefused as exc:
        raise FileError(f"{source}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise FileError(f"{source}: bad JSON at line {exc.lineno} column {exc.colno}: {exc.msg}{hint}") from None


# What a JSON document the host reads may hold (issue 30's finding 6). tallyboard's documents are a
# few levels deep (a record 5, a snapshot 7, a board definition 4) and their whole numbers small (a
# board's event is below 2**30, docs/protocol.md; scores, counts and checksums are smaller): a deeper
# document, or a longer number, is refused before Python's parser (RecursionError) or int() (ValueError
# past 4300 digits) meets it, and said in one line.
MAX_DEPTH = 32
MAX_WHOLE = 2 ** 30         # a whole number is above -MAX_WHOLE and below MAX_WHOLE
_MAX_DIGITS = len(str(MAX_WHOLE))
# a JSON string (skipped whole: its brackets are text) or a bracket
_STRING_OR_BRACKET = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


class DocumentRefused(ValueError):
    """A JSON document nested too deep, or with a whole number too big: the message says
    which and asks whether it is the document meant (without the file's name)."""


def loads(text: str, what: str = "record") -> Any:
    """The one way the host parses a JSON document it reads (a file, standard input, a
    column of the archive): json.loads, but a document nested more than MAX_DEPTH
    deep, or with a whole number not between -MAX_WHOLE and MAX_WHOLE, is refused
    (DocumentRefused, saying which); bad JSON is json.JSONDecodeError, as from json.loads."""
    depth = 0
    for token in _STRING_OR_BRACKET.finditer(text):
        bracket = token.group()
        if bracket in ("[", "{"):
            depth += 1
            if depth > MAX_DEPTH:
                raise DocumentRefused(f"too deeply nested (arrays or objects more than {MAX_DEPTH} deep, and "
                                      f"{_a(what)} has a few); is it {_a(what)}?")
        elif bracket in ("]", "}"):
            depth -= 1

    def whole(digits: str) -> int:
        if len(digits.lstrip("-")) <= _MAX_DIGITS:
            value = int(digits)
            if -MAX_WHOLE < value < MAX_WHOLE:
                return value
        shown = digits if len(digits) <= 16 else f"{digits[:12]}… ({len(digits.lstrip('-'))} digits)"
        raise DocumentRefused(f"the number {shown} is too big for {_a(what)} (its whole numbers are below 2**30 = "
                              f"{MAX_WHOLE}); is it {_a(what)}?")

    return json.loads(text, parse_int=whole)


def _a(what: str) -> str:
    return ("an " if what[:1] in "aeiou" else "a ") + what


# ---------------------------------------------------------------- writing

def write_output(path: str | Path, data: bytes | str, private: bool = False) -> None:
    """Write an output file in place of what path names. A regular file is
    written beside itself and renamed over, so a failed write leaves the old
    file whole; a symlink is followed, so its target is the file replaced;
    a device or a FIFO is written into (renaming over one would replace it).
    private: readable by its owner only (0600) from its first byte (a key)."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    target = os.path.realpath(path)
    try:
        try:
            mode: int | None = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if mode is not None and not stat.S_ISREG(mode):
            with open(target, "wb") as device:
                device.write(data)
            return
        _write_and_rename(target, data, 0o600 if private else mode)
    except OSError as exc:
        raise FileError(f"cannot write {path}: {exc.strerror or exc}") from None


def _write_and_rename(target: str, data: bytes, mode: int | None) -> None:
    partial = target + ".part"
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if mode == 0o600 else 0o666)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(partial, stat.S_IMODE(mode))   # the replaced file keeps its permissions
        os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


# ---------------------------------------------------------------- standard output

class _GuardedStdout:
    """sys.stdout while a command runs: a write or flush that fails (a full
    disk) raises FileError, and is kept in `error` should the caller swallow
    it (click's probes of the stream do). A closed pipe (| head) stays the
    OSError click ends quietly with."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.error: OSError | FileError | None = None

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise self._failed(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def _failed(self, exc: OSError) -> OSError | FileError:
        if exc.errno == errno.EPIPE:
            self.error = exc
        else:
            self.error = FileError(f"cannot write to standard output: {exc.strerror or exc}")
        return self.error

    def discard(self) -> None:
        """Send what is left to /dev/null, so the interpreter's own flush at
        exit cannot fail a second time."""
        with contextlib.suppress(OSError, ValueError):
            fd = self._stream.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, fd)
            os.close(null)


@contextlib.contextmanager
def guarded_stdout() -> Iterator[None]:
    """Run a command with standard output errors as FileError, flushed at the end."""
    real = sys.stdout
    guard = _GuardedStdout(real)
    sys.stdout = guard  # type: ignore[assignment]
    try:
        yield
        guard.flush()
        if guard.error is not None:
            raise guard.error
    finally:
        if sys.stdout is guard:
            sys.stdout = real
        if guard.error is not None:
            guard.discard()
