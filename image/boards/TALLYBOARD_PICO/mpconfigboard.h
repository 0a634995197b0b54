// tallyboard's image for this board (image/README.md): MicroPython v1.28.0's RPI_PICO, unchanged but for
// a ROMFS partition at the top of the code space. The firmware's .mpy files are written there
// (`tallyboard deploy`) and run in place, so their bytecode does not take the heap. The filesystem
// keeps its size and place: flashing this image over the stock one keeps the board's files.
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico"
#define MICROPY_HW_FLASH_STORAGE_BYTES          (1408 * 1024)

// 256 KiB, 4 KiB aligned: the firmware's .mpy files are about 145 KB
#define MICROPY_HW_ROMFS_BYTES                  (256 * 1024)
