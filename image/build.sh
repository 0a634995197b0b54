#!/usr/bin/env bash
# Build tallyboard's MicroPython images (image/README.md): MicroPython v1.28.0, each board unchanged
# but for a ROMFS partition, from the board folders beside this script.
#
#   image/build.sh [BOARD ...]        BOARD: TALLYBOARD_PICO_W (default), TALLYBOARD_PICO, or RPI_PICO:
#                                     MicroPython's own board, unchanged (stock-pico.uf2, the device twin's
#                                     default image)
#
# Needs git, cmake, make, python3 and Debian's gcc-arm-none-eabi and libnewlib-arm-none-eabi. The
# MicroPython tree is cloned into $MICROPYTHON_DIR (default ~/.cache/tallyboard-image/micropython) with
# the submodules the rp2 port pins; name an existing v1.28.0 tree there to use it. Each image is
# written beside this script as tallyboard-<board>.uf2, its SHA-256 into SHA256SUMS.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=v1.28.0
MICROPYTHON_DIR=${MICROPYTHON_DIR:-$HOME/.cache/tallyboard-image/micropython}
boards=("$@")
[ ${#boards[@]} -gt 0 ] || boards=(TALLYBOARD_PICO_W)
for tool in git cmake make python3 arm-none-eabi-gcc; do
    command -v "$tool" >/dev/null || { echo "image/build.sh: $tool is missing; on Debian: apt-get install git cmake make python3 gcc-arm-none-eabi libnewlib-arm-none-eabi" >&2; exit 2; }
done
if [ ! -d "$MICROPYTHON_DIR/ports/rp2" ]; then
    mkdir -p "$(dirname "$MICROPYTHON_DIR")"
    git clone --depth 1 --branch "$VERSION" https://github.com/micropython/micropython "$MICROPYTHON_DIR"
fi
have=$(git -C "$MICROPYTHON_DIR" describe --tags --exact-match 2>/dev/null || echo "not $VERSION")
if [ "$have" != "$VERSION" ]; then
    echo "image/build.sh: $MICROPYTHON_DIR is MicroPython $have; the images are built from $VERSION" >&2
    exit 2
fi
make -C "$MICROPYTHON_DIR/mpy-cross" -j"$(nproc)" >/dev/null
for board in "${boards[@]}"; do
    if [ "$board" = RPI_PICO ]; then
        dir="$MICROPYTHON_DIR/ports/rp2/boards/RPI_PICO"
        out=stock-pico.uf2
    else
        dir="$HERE/boards/$board"
        [ -d "$dir" ] || { echo "image/build.sh: no board $board in $HERE/boards" >&2; exit 2; }
        out="tallyboard-$(echo "${board#TALLYBOARD_}" | tr 'A-Z_' 'a-z-').uf2"
    fi
    build="$MICROPYTHON_DIR/ports/rp2/build-$board"
    make -C "$MICROPYTHON_DIR/ports/rp2" BOARD_DIR="$dir" BUILD="$build" submodules >/dev/null
    make -C "$MICROPYTHON_DIR/ports/rp2" BOARD_DIR="$dir" BUILD="$build" -j"$(nproc)" >/dev/null
    cp "$build/firmware.uf2" "$HERE/$out"
    echo "built image/$out ($(stat -c %s "$HERE/$out") bytes)"
done
(cd "$HERE" && sha256sum stock-pico.uf2 tallyboard-*.uf2 > SHA256SUMS)
