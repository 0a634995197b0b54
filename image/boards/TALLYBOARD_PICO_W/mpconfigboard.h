// tallyboard's image for this board (image/README.md): MicroPython v1.28.0's RPI_PICO_W, unchanged but for
// a ROMFS partition at the top of the code space. The firmware's .mpy files are written there
// (`tallyboard deploy`) and run in place, so their bytecode does not take the heap. The filesystem
// keeps its size and place: flashing this image over the stock one keeps the board's files.
#define MICROPY_HW_BOARD_NAME                   "Raspberry Pi Pico W"

// todo: We need something to check our binary size
#define MICROPY_HW_FLASH_STORAGE_BYTES          (848 * 1024)

// Enable networking.
#define MICROPY_PY_NETWORK 1
#define MICROPY_PY_NETWORK_HOSTNAME_DEFAULT     "PicoW"

// CYW43 driver configuration.
#define CYW43_USE_SPI (1)
#define CYW43_LWIP (1)
#define CYW43_GPIO (1)
#define CYW43_SPI_PIO (1)

// For debugging mbedtls - also set
// Debug level (0-4) 1=warning, 2=info, 3=debug, 4=verbose
// #define MODUSSL_MBEDTLS_DEBUG_LEVEL 1

#define MICROPY_HW_PIN_EXT_COUNT    CYW43_WL_GPIO_COUNT

// If this returns true for a pin then its irq will not be disabled on a soft reboot
int mp_hal_is_pin_reserved(int n);
#define MICROPY_HW_PIN_RESERVED(i) mp_hal_is_pin_reserved(i)

// 256 KiB, 4 KiB aligned: the firmware's .mpy files are about 145 KB
#define MICROPY_HW_ROMFS_BYTES                  (256 * 1024)
