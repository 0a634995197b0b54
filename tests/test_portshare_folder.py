"""Where a shared port's socket lives (issue 22; portshare.py, docs/protocol.md "Sharing the port"):
$XDG_RUNTIME_DIR, else a folder of this user's alone in the system's temporary folder, made private
again if loosened; one someone else made first, or a link in its place, is refused; a folder too
deep for a socket's name is said in words."""
import os
import stat

import pytest

from tallyboard.boardlink import portshare, portsocket
from tallyboard.common.errors import TransportError


def test_without_xdg_runtime_dir_the_folder_is_this_users_alone(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(portsocket.tempfile, "gettempdir", lambda: str(tmp_path))
    folder = portshare.socket_dir()
    assert folder == tmp_path / f"tallyboard-{os.getuid()}"
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.stat().st_uid == os.getuid()
    folder.chmod(0o777)                       # loosened by someone: made private again
    assert stat.S_IMODE(portshare.socket_dir().stat().st_mode) == 0o700


def test_a_folder_someone_else_made_first_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(portsocket.tempfile, "gettempdir", lambda: str(tmp_path))
    planted = tmp_path / f"tallyboard-{os.getuid()}"
    planted.mkdir(mode=0o777)
    if os.getuid() == 0:
        os.chown(planted, 65534, 65534)       # nobody's
    else:
        monkeypatch.setattr(portsocket.os, "getuid", lambda: os.stat(planted).st_uid + 1)
        planted = tmp_path / f"tallyboard-{os.getuid()}"
        planted.mkdir(mode=0o777)
    with pytest.raises(TransportError, match="belongs to another user"):
        portshare.socket_dir()


def test_a_link_in_place_of_the_folder_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(portsocket.tempfile, "gettempdir", lambda: str(tmp_path))
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / f"tallyboard-{os.getuid()}").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(TransportError, match="not a folder"):
        portshare.socket_dir()


def test_a_folder_too_deep_for_a_socket_name_is_said_in_words(tmp_path, monkeypatch):
    # a Unix socket's path holds at most 107 bytes; here the folder alone is 130
    deep = tmp_path / ("d" * (130 - len(str(tmp_path)) - 1))
    deep.mkdir()
    assert len(str(deep)) == 130
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(deep))
    with pytest.raises(TransportError, match="too long a path for a socket.*shorter folder"):
        portshare.socket_path("/dev/ttyACM0")
