"""`tallyboard deploy` against a fake mpremote (fake_mpremote.py): a folder
stands for the board's flash and the code deploy sends runs on it with the
MicroPython unix port. One session asks the board, one copies; only what the
board runs is copied; a definition for another chip is refused before
anything is copied."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from fake_mpremote import RP2040, RP2350, FakeMpremote, commands_of

from tallyboard.tooling import deploy, deploy_scripts, fileset
from tallyboard.common.errors import TallyboardError
from tallyboard.tooling.mpunix import micropython_binary

pytestmark = [pytest.mark.emulator, pytest.mark.process]

BOARD_DEFINITIONS = Path(__file__).resolve().parent.parent / "board"
PORT = "/dev/ttyACM7"
# a module whose .mpy deflates to less than itself (a long, repetitive text)
ALPHA = 'X = 6 * 7\nTEXT = "' + "spade heart club diamond " * 40 + '"\n'


@pytest.fixture
def one_package(monkeypatch):
    """A one-package firmware (the real one has three): fast to compile and copy."""
    monkeypatch.setattr(fileset, "PACKAGES", ("tallycore",))


def make_firmware(root: Path) -> Path:
    fw = root / "firmware"
    (fw / "tallycore").mkdir(parents=True)
    (fw / "tallycore" / "__init__.py").write_text("")
    (fw / "tallycore" / "alpha.py").write_text(ALPHA)
    (fw / "main.py").write_text("import tallycore.alpha\n")
    (fw / "boot.py").write_text("")
    (root / "board").mkdir()
    for name in ("pico-reference.json", "pico2-serpentine-nooled.json", "README.md"):
        shutil.copyfile(BOARD_DEFINITIONS / name, root / "board" / name)
    return fw


def small_set(root: Path) -> list[fileset.FirmwareFile]:
    fw = make_firmware(root)
    return fileset.build(fw, boards=root / "board", cache=root / "cache")


def on_flash(flash: Path) -> list[str]:
    return sorted(str(p.relative_to(flash)) for p in flash.rglob("*") if p.is_file())


def test_one_session_asks_one_copies_and_only_what_the_board_runs(tmp_path, one_package):
    files = small_set(tmp_path)
    board = FakeMpremote(tmp_path / "flash", RP2040)
    steps = []
    done = deploy.deploy(PORT, files, runner=board, progress=lambda *step: steps.append(step))
    # two mpremote runs in all (were one per file, 8 here): the survey, then one copy session
    assert len(board.sessions) == 2 and done.sessions == 2
    assert [c[0] for c in commands_of(board.sessions[0])] == ["connect", "exec"]
    assert [c[0] for c in commands_of(board.sessions[1])] == [
        "connect", "resume", "exec", "run", "run", "run", "run", "run", "run", "reset"]
    assert board.sessions[1][:2] == ["connect", PORT]
    # an RP2040 runs pico-reference (the default); the Pico 2 definition and the
    # board folder's README.md stay behind
    assert on_flash(board.flash) == ["board/pico-reference.json", "boot.py", "main.py", "release",
                                     "tallycore/__init__.mpy", "tallycore/alpha.mpy"]
    for f in done.files:
        assert (board.flash / f.dest).read_bytes() == f.data
    assert done.written == ["tallycore/__init__.mpy", "tallycore/alpha.mpy", "board/pico-reference.json",
                            "release", "boot.py", "main.py"]
    assert done.board == "pico-reference" and not done.board_set and board.resets == 1
    # progress from the board's own lines: 1 survey + 1 prepare + 6 files + 1 reset = 9 steps
    assert steps == [("the board is an rp2040; 0 of 6 files already there", 1, 9),
                     ("prepared the board's folders", 2, 9),
                     ("copied tallycore/__init__.mpy", 3, 9),
                     ("copied tallycore/alpha.mpy", 4, 9),
                     ("copied board/pico-reference.json", 5, 9),
                     ("copied release", 6, 9),
                     ("copied boot.py", 7, 9),
                     ("copied main.py", 8, 9),
                     ("reset the board", 9, 9)]
    # the firmware runs from what was copied
    out = subprocess.run([micropython_binary(), "-c", "import tallycore.alpha as a; print(a.X)"],
                         cwd=board.flash, capture_output=True, text=True, env={"MICROPYPATH": ""})
    assert out.stdout.strip() == "42"


def test_a_file_the_board_holds_already_is_not_copied_again(tmp_path, one_package):
    files = small_set(tmp_path)
    board = FakeMpremote(tmp_path / "flash", RP2040)
    deploy.deploy(PORT, files, runner=board)
    again = deploy.deploy(PORT, files, runner=board)
    assert again.written == [] and len(again.files) == 6
    assert [c[0] for c in commands_of(board.sessions[-1])] == ["connect", "resume", "exec", "reset"]
    (tmp_path / "firmware" / "main.py").write_text("import tallycore.alpha  # changed\n")
    changed = deploy.deploy(PORT, small_set_again(tmp_path), runner=board)
    assert changed.written == ["release", "main.py"]      # a file changed: the set's release id too
    assert (board.flash / "main.py").read_text() == "import tallycore.alpha  # changed\n"


def small_set_again(root: Path) -> list[fileset.FirmwareFile]:
    return fileset.build(root / "firmware", boards=root / "board", cache=root / "cache")


def test_files_go_deflated_to_a_board_that_can_unpack_them(tmp_path, one_package):
    files = small_set(tmp_path)
    packed = FakeMpremote(tmp_path / "packed", RP2040)
    plain = FakeMpremote(tmp_path / "plain", RP2040, inflates=False)
    for board in (packed, plain):
        deploy.deploy(PORT, files, runner=board)
        alpha = next(script for script in board.scripts_run if "'tallycore/alpha.mpy'" in script)
        assert alpha.rstrip().endswith(", True)") == (board is packed), alpha[-80:]
    assert on_flash(packed.flash) == on_flash(plain.flash)
    for name in on_flash(packed.flash):
        assert (packed.flash / name).read_bytes() == (plain.flash / name).read_bytes()


def test_a_definition_for_another_chip_is_refused_before_anything_is_copied(tmp_path, one_package):
    files = small_set(tmp_path)
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "config.txt").write_text("brightness 64\nboard pico2-serpentine-nooled\n")
    board = FakeMpremote(flash, RP2040)
    with pytest.raises(TallyboardError) as refused:
        deploy.deploy(PORT, files, runner=board)
    assert str(refused.value) == (
        "board definition pico2-serpentine-nooled (the board's setting) is for an rp2350, and the board on "
        "/dev/ttyACM7 is an rp2040 (Raspberry Pi Pico with RP2040); nothing was copied. Choose a definition "
        "for an rp2040: tallyboard deploy --board NAME, one of: pico-reference")
    assert len(board.sessions) == 1 and on_flash(flash) == ["config.txt"]
    # chosen with --board on a blank RP2040: refused the same way
    blank = FakeMpremote(tmp_path / "blank", RP2040)
    with pytest.raises(TallyboardError, match=r"^board definition pico2-serpentine-nooled \(chosen with "
                                              r"--board\) is for an rp2350, and the board on /dev/ttyACM7 is an rp2040"):
        deploy.deploy(PORT, files, runner=blank, board="pico2-serpentine-nooled")
    assert on_flash(blank.flash) == []
    # a definition the checkout does not have
    with pytest.raises(TallyboardError, match="^there is no board definition 'pico3'; the definitions for "
                                              "this rp2040 are: pico-reference$"):
        deploy.deploy(PORT, files, runner=blank, board="pico3")
    # the default, pico-reference, on a blank Pico 2: refused, with the way out
    pico2 = FakeMpremote(tmp_path / "pico2", RP2350)
    with pytest.raises(TallyboardError, match=r"pico-reference \(the default\) is for an rp2040, .* is an rp2350 "
                                              r".*tallyboard deploy --board NAME, one of: pico2-serpentine-nooled$"):
        deploy.deploy(PORT, files, runner=pico2)


def test_a_pico_w_gets_its_own_definitions_and_a_plain_pico_none_of_them(tmp_path, one_package):
    """A Pico W definition ("wifi": true) runs only where there is the wireless
    chip, and a definition wiring the chip's GPIOs is refused on a W."""
    small_set(tmp_path)
    shutil.copyfile(BOARD_DEFINITIONS / "picow-reference.json", tmp_path / "board" / "picow-reference.json")
    plain = json.loads((BOARD_DEFINITIONS / "pico-reference.json").read_text())
    plain["name"], plain["buttons"]["undo"] = "undo-on-25", 25        # fine on a Pico: GP25 is a GPIO there
    (tmp_path / "board" / "undo-on-25.json").write_text(json.dumps(plain))
    files = fileset.build(tmp_path / "firmware", boards=tmp_path / "board", cache=tmp_path / "cache")
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "config.txt").write_text("board picow-reference\n")
    pico_w = FakeMpremote(tmp_path / "w", "Raspberry Pi Pico W with RP2040")
    done = deploy.deploy(PORT, files, runner=pico_w)
    assert done.survey.wifi and done.board == "picow-reference"
    # a plain Pico's definition that leaves GP23-25 and GP29 alone runs on a W as well
    assert sorted(p.name for p in (pico_w.flash / "board").iterdir()) == [
        "pico-reference.json", "picow-reference.json", "undo-on-25.json"]
    with pytest.raises(TallyboardError) as refused:
        deploy.deploy(PORT, files, runner=pico_w, board="undo-on-25")
    assert str(refused.value) == (
        "board definition undo-on-25 (chosen with --board) wires GPIO 25, which the wireless chip of the board on "
        "/dev/ttyACM7 (Raspberry Pi Pico W with RP2040) takes; nothing was copied. Choose a definition made for a "
        "Pico W (\"wifi\": true): tallyboard deploy --board NAME, one of: picow-reference")
    pico = FakeMpremote(tmp_path / "pico", RP2040)
    with pytest.raises(TallyboardError) as refused:
        deploy.deploy(PORT, files, runner=pico, board="picow-reference")
    assert str(refused.value) == (
        "board definition picow-reference (chosen with --board) is for a Pico W or Pico 2 W, and the board on "
        "/dev/ttyACM7 (Raspberry Pi Pico with RP2040) has no Wi-Fi; nothing was copied. Choose one of: "
        "pico-reference, undo-on-25")
    assert on_flash(pico.flash) == []
    done = deploy.deploy(PORT, files, runner=pico)
    assert sorted(p.name for p in (pico.flash / "board").iterdir()) == ["pico-reference.json", "undo-on-25.json"]


def test_board_sets_the_definition_with_the_firmware_s_own_config(tmp_path):
    files = fileset.build()      # the real firmware: its tallyrun.config writes the setting
    board = FakeMpremote(tmp_path / "flash", RP2350)
    steps = []
    done = deploy.deploy(PORT, files, runner=board, board="pico2-serpentine-nooled",
                         progress=lambda *step: steps.append(step))
    assert len(board.sessions) == 2          # the whole firmware fits one copy session
    assert done.board_set and done.board == "pico2-serpentine-nooled"
    assert "board pico2-serpentine-nooled" in (board.flash / "config.txt").read_text().splitlines()
    assert sorted(p.name for p in (board.flash / "board").iterdir()) == ["pico2-serpentine-nooled.json"]
    modules = len([f for f in files if f.dest.endswith(".mpy")])
    # survey, prepare, the modules + 1 definition + the release + boot.py + main.py, the setting, the reset
    assert steps[-2:] == [("set the board to run pico2-serpentine-nooled", modules + 7, modules + 8),
                          ("reset the board", modules + 8, modules + 8)]
    # the next deploy keeps it, without --board, and copies nothing
    again = deploy.deploy(PORT, files, runner=board)
    assert again.board == "pico2-serpentine-nooled" and not again.board_set and again.written == []


def test_a_chip_that_is_neither_gets_every_definition(tmp_path, one_package):
    files = small_set(tmp_path)
    flash = tmp_path / "flash"
    flash.mkdir()
    (flash / "config.txt").write_text("board pico2-serpentine-nooled\n")
    board = FakeMpremote(flash, "linux [GCC 14.2.1] version")
    done = deploy.deploy(PORT, files, runner=board)
    assert done.survey.mcu is None and done.board == "pico2-serpentine-nooled"
    assert sorted(p.name for p in (flash / "board").iterdir()) == [
        "pico-reference.json", "pico2-serpentine-nooled.json"]


def test_a_long_command_line_is_split_into_sessions(tmp_path, one_package, monkeypatch):
    files = small_set(tmp_path)
    monkeypatch.setattr(deploy, "COMMAND_LINE_BUDGET", 1)     # one command past the opening each
    board = FakeMpremote(tmp_path / "flash", RP2040)
    done = deploy.deploy(PORT, files, runner=board)
    # the survey; prepare + the first file; one session for each of the 5 other
    # files; the reset: 8 sessions, each opening with its own tallyboard_write
    assert len(board.sessions) == 8 and done.sessions == 8
    for session in board.sessions[1:]:
        assert session[:4] == ["connect", PORT, "resume", "exec"]
        assert "def tallyboard_write(" in session[4]
    assert [c[0] for c in commands_of(board.sessions[-1])] == ["connect", "resume", "exec", "reset"]
    assert done.written[-1] == "main.py" and board.resets == 1
    assert on_flash(board.flash) == ["board/pico-reference.json", "boot.py", "main.py", "release",
                                     "tallycore/__init__.mpy", "tallycore/alpha.mpy"]


def test_a_failed_copy_stops_there_and_says_what_it_left(tmp_path, one_package):
    files = small_set(tmp_path)
    flash = tmp_path / "flash"
    (flash / "boot.py" / "in-the-way").mkdir(parents=True)     # boot.py cannot replace a folder
    board = FakeMpremote(flash, RP2040)
    with pytest.raises(TallyboardError) as failed:
        deploy.deploy(PORT, files, runner=board)
    assert str(failed.value).startswith("mpremote failed after copying 4 of 6 files (OSError: ")
    assert str(failed.value).endswith("); the board keeps its old main.py (main.py comes last); check the "
                                      "cable and that no other program has the port open, then run "
                                      "tallyboard deploy again")
    assert not (flash / "main.py").exists() and board.resets == 0


def test_a_board_that_does_not_answer_the_survey(tmp_path, one_package):
    files = small_set(tmp_path)

    def no_board(argv, on_line):
        raise deploy.MpremoteFailed("mpremote: failed to access /dev/ttyACM7 (it may be in use by another program)")

    with pytest.raises(TallyboardError, match=r"^mpremote failed while asking the board which chip it is "
                                              r"\(mpremote: failed to access /dev/ttyACM7 .*\); check the cable"):
        deploy.deploy(PORT, files, runner=no_board)


def test_a_bad_definition_in_the_checkout_is_refused(tmp_path, one_package):
    fw = make_firmware(tmp_path)
    (tmp_path / "board" / "mine.json").write_text('{"name": "mine", "mcu": "esp32"}')
    files = fileset.build(fw, boards=tmp_path / "board", cache=tmp_path / "cache")
    board = FakeMpremote(tmp_path / "flash", RP2040)
    with pytest.raises(TallyboardError, match=r"mine.json: board: mcu must be rp2040 or rp2350; fix it or take "
                                              r"it out of the board folder, then run tallyboard deploy again"):
        deploy.deploy(PORT, files, runner=board)
    assert board.sessions == []


def test_prepare_script_runs_on_micropython(tmp_path, one_package):
    """The script deploy runs on the board first, run here on the unix port."""
    files = small_set(tmp_path)
    board = tmp_path / "board-fs"
    (board / "tallycore").mkdir(parents=True)
    (board / "tallycore" / "alpha.py").write_text("")
    (board / "tallycore" / "alpha.mpy").write_text("")
    (board / "tallycore" / "alpha.mpy.part").write_text("")     # a cut-short deploy's
    (board / "tallycore" / "old.mpy").write_text("")
    (board / "main.py.part").write_text("")
    (board / "journal.bin").write_text("keep")
    (board / "chumicro_mqtt").mkdir()            # an earlier deploy's MQTT client (fileset.RETIRED)
    (board / "chumicro_mqtt" / "client.mpy").write_text("")
    (board / "update").mkdir()                   # an update over the air under way (firmware/tallyboot.py)
    for name in ("state", "new.rom", "old.rom", "new.man", "new.pos"):
        (board / "update" / name).write_text("")
    out = subprocess.run([micropython_binary(), "-c", deploy_scripts.prepare_script(files)], cwd=board,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "tallyboard: prepared\n"
    assert sorted(p.name for p in (board / "tallycore").iterdir()) == ["alpha.mpy"]
    assert (board / "board").is_dir() and not (board / "main.py.part").exists()
    assert not (board / "chumicro_mqtt").exists()
    assert list((board / "update").iterdir()) == []     # what deploy writes is what runs at the next power-up
    assert (board / "journal.bin").read_text() == "keep"


def romfs_firmware(root: Path) -> list[fileset.FirmwareFile]:
    """The small set with a module of about 10 KB that does not deflate: a ROMFS image of three 4 KB blocks."""
    fw = make_firmware(root)
    digits = "".join(f"{(n * 7919) % 10007:05d}" for n in range(2000))     # 10,000 characters
    (fw / "tallycore" / "beta.py").write_text(f"DIGITS = {digits!r}\n")
    return fileset.build(fw, boards=root / "board", cache=root / "cache")


ROM_CHECK = """
import sys, vfs
with open(%r, "rb") as f:
    vfs.mount(vfs.VfsRom(f.read()), "/rom")
sys.path.insert(0, "/rom")
import tallycore.alpha, tallycore.beta
print(tallycore.alpha.X, len(tallycore.beta.DIGITS), tallycore.alpha.__file__)
"""


def test_a_board_with_a_romfs_partition_gets_the_packages_there_block_0_last(tmp_path, one_package):
    """An image with a ROMFS partition (image/README.md): the packages go there as one
    image, its header block erased first and written last; their littlefs copy goes
    once the image is whole; a second deploy writes nothing."""
    files = romfs_firmware(tmp_path)
    board = FakeMpremote(tmp_path / "flash", RP2040, romfs_blocks=64)
    (board.flash / "tallycore").mkdir()
    (board.flash / "tallycore" / "alpha.mpy").write_bytes(b"an earlier deploy's copy")
    steps = []
    done = deploy.deploy(PORT, files, runner=board, progress=lambda *step: steps.append(step))
    rom_steps = [what for what, _, _ in steps if what.startswith("ROMFS")]     # after the survey and prepare
    assert rom_steps == ["ROMFS block 0 erased", "ROMFS block 1 written", "ROMFS block 2 written",
                         "ROMFS block 0 written"]
    assert steps[2 + len(rom_steps)][0] == "deleted the packages' littlefs copy (the ROMFS holds them)"
    assert on_flash(board.flash) == ["board/pico-reference.json", "boot.py", "main.py", "release"]
    assert done.romfs > 8192 and sorted(done.written) == ["board/pico-reference.json", "boot.py", "main.py",
                                                          "release", "tallycore/__init__.mpy", "tallycore/alpha.mpy",
                                                          "tallycore/beta.mpy"]
    # what the partition holds is a ROMFS the unix port mounts and imports from (6 * 7 = 42;
    # 2,000 numbers of five digits)
    out = subprocess.run([micropython_binary(), "-c", ROM_CHECK % str(board.rom)], capture_output=True,
                         text=True, env={"MICROPYPATH": ""})
    assert out.stdout.split() == ["42", "10000", "/rom/tallycore/alpha.mpy"], out.stderr
    again = deploy.deploy(PORT, files, runner=board)
    assert again.written == [] and again.romfs == done.romfs
    assert [c[0] for c in commands_of(board.sessions[-1])] == ["connect", "resume", "exec", "reset"]


def test_a_deploy_cut_while_writing_the_romfs_leaves_no_romfs_and_the_littlefs_copy(tmp_path, one_package):
    files = romfs_firmware(tmp_path)
    board = FakeMpremote(tmp_path / "flash", RP2040, romfs_blocks=64, rom_writes_before_failing=1)
    (board.flash / "tallycore").mkdir()
    (board.flash / "tallycore" / "alpha.mpy").write_bytes(b"an earlier deploy's copy")
    with pytest.raises(TallyboardError, match=r"while writing the ROMFS image .*the board has no ROMFS now and "
                                              r"runs the packages' littlefs copy, if it has one; .*run "
                                              r"tallyboard deploy again"):
        deploy.deploy(PORT, files, runner=board)
    assert board.rom.read_bytes()[:3] == b"\xff\xff\xff"          # no ROMFS header: nothing to mount
    assert (board.flash / "tallycore" / "alpha.mpy").read_bytes() == b"an earlier deploy's copy"
    board.rom_writes_left = -1
    deploy.deploy(PORT, files, runner=board)
    assert board.rom.read_bytes()[:3] == b"\xd2\xcd\x31" and not (board.flash / "tallycore").exists()


def test_a_romfs_partition_too_small_for_the_packages_leaves_them_on_littlefs(tmp_path, one_package):
    files = romfs_firmware(tmp_path)
    board = FakeMpremote(tmp_path / "flash", RP2040, romfs_blocks=2)        # 8 KB: the image needs three blocks
    done = deploy.deploy(PORT, files, runner=board)
    assert done.romfs == 0 and (board.flash / "tallycore" / "beta.mpy").exists()
    assert board.rom.read_bytes() == b"\xff" * 8192


def test_a_pico_w_set_for_the_clubs_wifi_on_an_image_without_romfs_is_told_to_flash_tallyboards(tmp_path,
                                                                                                one_package):
    small_set(tmp_path)
    shutil.copyfile(BOARD_DEFINITIONS / "picow-reference.json", tmp_path / "board" / "picow-reference.json")
    files = fileset.build(tmp_path / "firmware", boards=tmp_path / "board", cache=tmp_path / "cache")
    boards = {}
    for name, setting, romfs_blocks in (("stock", "picow-reference", 0), ("ours", "picow-reference", 64),
                                        ("usb", "pico-reference", 0)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "config.txt").write_text(f"board {setting}\n")
        boards[name] = FakeMpremote(tmp_path / name, "Raspberry Pi Pico W with RP2040", romfs_blocks=romfs_blocks)
    advice = deploy.deploy(PORT, files, runner=boards["stock"]).advice
    assert advice is not None and advice.startswith("this Pico W runs an image without a ROMFS partition")
    assert "copy image/tallyboard-pico-w.uf2 onto it" in advice
    # with tallyboard's image, or set to run a definition without Wi-Fi (scored over USB), nothing to say
    assert deploy.deploy(PORT, files, runner=boards["ours"]).advice is None
    assert deploy.deploy(PORT, files, runner=boards["usb"]).advice is None
