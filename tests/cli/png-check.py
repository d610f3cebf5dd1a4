#!/usr/bin/env python3
# png-check.py - is FILE a PNG of WIDTHxHEIGHT that is not blank?  Reads the
# chunks with the standard library only: the IHDR's size, and the pixels of
# the IDAT stream (zlib) must hold more than a few distinct byte values
# (a blank picture, all background, holds one or two).
#
# Usage: png-check.py FILE WIDTH HEIGHT
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
import struct
import sys
import zlib


def main():
    path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, size = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if size != (width, height):
        sys.exit(f"{path}: {size}, not {width}x{height}")
    pixels = zlib.decompress(idat)
    distinct = len(set(pixels))
    if distinct < 8:
        sys.exit(f"{path}: blank ({distinct} distinct byte values)")
    print(f"{path}: PNG {width}x{height}, {distinct} distinct byte values")


main()
