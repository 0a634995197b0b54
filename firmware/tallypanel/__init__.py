# What the board shows and how it is worked: the LED field, the OLED sheet,
# the menu, the buttons, the board definition and the hardware layer.
