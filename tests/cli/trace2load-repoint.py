#!/usr/bin/env python3
# trace2load-repoint.py - copy a pcapng capture (Ethernet, as dumpcap
# writes for lo), with every IPv4 TCP segment's port OLD changed to NEW.
# tests/cli/trace2load.bats moves a connection's client port onto one that
# tshark dissects as another protocol (853: DNS over TLS).  Checksums are
# left alone: tshark does not check them by default.
#
#   trace2load-repoint.py IN OUT OLD NEW
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
import struct
import sys


def main():
    src, dst, old, new = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    data = bytearray(open(src, 'rb').read())
    off = changed = 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack_from('<II', data, off)
        if blen < 12:
            sys.exit('%s: bad block at offset %d' % (src, off))
        if btype == 6:  # enhanced packet block: the frame at +28
            p = off + 28
            if data[p + 12:p + 14] == b'\x08\x00' and data[p + 23] == 6:
                tcp = p + 14 + (data[p + 14] & 15) * 4
                for k in (0, 2):
                    if struct.unpack_from('>H', data, tcp + k)[0] == old:
                        struct.pack_into('>H', data, tcp + k, new)
                        changed += 1
        off += blen
    open(dst, 'wb').write(data)
    if not changed:
        sys.exit('%s: no TCP segment with port %d' % (src, old))


main()
