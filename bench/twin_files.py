"""Files onto a device twin's littlefs through its raw REPL (twin_harness.RawRepl), for the benches and
tests that put more than deploy does on a board (a release's image, a bench's stand-ins)."""
from __future__ import annotations

from typing import Any


def power_cycle(twin: Any) -> dict[str, str]:
    """The twin (twin_harness.Twin) off and on again from its flash as it is now (files put there, boot.py's
    new stand-ins in place): its BOOT."""
    twin.power_cut()
    twin.mark()
    twin.start()
    return twin.booted()


PUT_BYTES = 8192     # a file's bytes one raw REPL script carries (deflated when the board can unpack them)


def put_file(repl: Any, path: str, data: bytes) -> None:
    """A file onto the board's littlefs through its raw REPL (the app stopped): its folder made, a piece a
    script (deflated with a 1 KB window, all the board allocates, when the board can unpack it and it gets
    smaller), written as path.part then renamed, and its SHA-256 checked on the board (tallyboot's)."""
    import base64
    import hashlib
    import zlib

    inflates = "inflates" in repl.run("try:\n import deflate\n print('inflates')\nexcept ImportError:\n pass\n")
    folder = path.rsplit("/", 1)[0] if "/" in path else None
    repl.run("\n".join([
        "import os",
        "from binascii import a2b_base64",
        *(["try:", f" os.mkdir({folder!r})", "except OSError:", " pass"] if folder else []),
        f"tb_f = open({path + '.part'!r}, 'wb')",
        "def tb_put(text, packed):",
        " data = a2b_base64(text)",
        " if packed:",
        "  import deflate, io",
        "  data = deflate.DeflateIO(io.BytesIO(data), deflate.ZLIB).read()",
        " tb_f.write(data)",
    ]) + "\n", timeout=60)
    for at in range(0, len(data), PUT_BYTES):
        piece = data[at:at + PUT_BYTES]
        packer = zlib.compressobj(9, zlib.DEFLATED, 10)
        packed = packer.compress(piece) + packer.flush()
        use = inflates and len(packed) < len(piece)
        text = base64.b64encode(packed if use else piece).decode()
        repl.run(f"tb_put({text!r}, {use})\n", timeout=120)
    out = repl.run("\n".join([
        "tb_f.close()",
        f"os.rename({path + '.part'!r}, {path!r})",
        "import tallyboot",
        f"print('sha256', tallyboot.file_sha256({path!r}, {len(data)}), os.stat({path!r})[6])",
    ]) + "\n", timeout=120)
    if f"sha256 {hashlib.sha256(data).hexdigest()} {len(data)}" not in out:
        raise RuntimeError(f"{path} did not reach the twin's flash whole: {out!r}")
