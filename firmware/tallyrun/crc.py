# CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection): the frames'
# checksum (docs/protocol.md) and the journal's and the config's. Two forms of
# one loop over one table: tallyrun.native's machine code on the chip, the
# bytecode below everywhere else (the emulator's unix port, CPython); the
# tests hold the two equal (tests/mp/test_protocol_frames.py).
from array import array

# the table of CRC-16/CCITT-FALSE (poly 0x1021) by byte, little-endian u16:
# written out rather than computed at import (2,048 loop steps at power-up);
# tests/mp/test_protocol_frames.py computes it and compares
_CRC_TABLE = array("H", bytes.fromhex(
    "00002110422063308440a550c660e770088129914aa16bb18cc1add1cee1eff13112100273325222b5529442f772d662"
    "399318837bb35aa3bdd39cc3fff3dee36224433420040114e664c774a44485546aa54bb528850995eee5cff5acc58dd5"
    "5336722611163006d776f6669556b4465bb77aa719973887dff7fee79dd7bcc7c448e5588668a7784008611802282338"
    "ccc9edd98ee9aff9488969990aa92bb9f55ad44ab77a966a711a500a333a122afddbdccbbffb9eeb799b588b3bbb1aab"
    "a66c877ce44cc55c222c033c600c411caeed8ffdeccdcddd2aad0bbd688d499d977eb66ed55ef44e133e322e511e700e"
    "9fffbeefdddffccf1bbf3aaf599f788f8891a981cab1eba10cd12dc14ef16fe18010a100c230e3200450254046706760"
    "b9839893fba3dab33dc31cd37fe35ef3b1029012f322d2323542145277625672eab5cba5a89589856ef54fe52cd50dc5"
    "e234c324a01481046674476424540544dba7fab79987b8975fe77ef71dc73cd7d326f2369106b0165766767615463456"
    "4cd96dc90ef92fe9c899e9898ab9aba94458654806782768c018e1088238a3287dcb5cdb3feb1efbf98bd89bbbab9abb"
    "754a545a376a167af10ad01ab32a923a2efd0fed6cdd4dcdaabd8bade89dc98d267c076c645c454ca23c832ce01cc10c"
    "1fef3eff5dcf7cdf9bafbabfd98ff89f176e367e554e745e932eb23ed10ef01e"
))


def _crc16_bytecode(data, start, end, crc):
    table = _CRC_TABLE
    for i in range(start, end):
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ data[i]) & 0xFF]
    return crc



_crc16_loop = _crc16_bytecode
try:
    # machine code (viper), compiled for the chip: every frame in and out and every journal record
    # is checksummed. The emulator (the unix port) cannot load the chip's machine code and keeps
    # the loop above.
    from tallyrun.native import crc16_table as _crc16_native

    def _crc16_with_table(data, start, end, crc):
        return _crc16_native(data, _CRC_TABLE, start << 16 | end, crc)

    _crc16_loop = _crc16_with_table
except (ImportError, ValueError):   # CPython; an .mpy for another arch
    pass


def crc16(data, start=0, end=-1, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of data[start:end] (end -1: to the end). No allocation."""
    if end < 0:
        end = len(data)
    return _crc16_loop(data, start, end, crc)
