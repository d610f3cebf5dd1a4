#!/usr/bin/env python3
# trace2load-lost-reply.py - print, as tshark -T json would, an NFSv3
# capture whose first call is never answered: a MOUNT, a GETATTR without
# a reply, then N GETATTR calls each answered at once (a call every 100 us,
# so that all of them fall within the reply timeout).  tests/cli/
# trace2load.bats feeds it to dbench-trace2load through the stand-in for
# tshark, to see that the converter's memory does not grow with N.
#
#   trace2load-lost-reply.py N
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
import sys

FH = '"nfs.fh.length": "8", "nfs.fh.hash": "0xc62ad4e2", "nfs.fhandle": "52:52:52:52:52:52:52:52"'
CLIENT = '"ip": {"ip.src": "10.0.0.5", "ip.dst": "10.0.0.21"}, "tcp": {"tcp.srcport": "700", "tcp.dstport": "2049"}'
SERVER = '"ip": {"ip.src": "10.0.0.21", "ip.dst": "10.0.0.5"}, "tcp": {"tcp.srcport": "2049", "tcp.dstport": "700"}'


def packet(frame, usec, addr, rpc, prog):
    return ('{"_source": {"layers": {"frame": {"frame.number": "%d", "frame.time_epoch": "%d.%06d"}, '
            '%s, "rpc": {%s}, %s}}}' % (frame, 1795320000 + usec // 1000000, usec % 1000000, addr, rpc, prog))


def call(xid, program, proc, body):
    return ('"rpc.xid": "0x%08x", "rpc.msgtyp": "0", "rpc.version": "2", "rpc.program": "%d", '
            '"rpc.programversion": "3", "rpc.procedure": "%d"' % (xid, program, proc), body)


def reply(xid, program, proc, body):
    return ('"rpc.xid": "0x%08x", "rpc.msgtyp": "1", "rpc.program": "%d", "rpc.programversion": "3", '
            '"rpc.procedure": "%d", "rpc.replystat": "0", "rpc.state_accept": "0"' % (xid, program, proc), body)


def main():
    n = int(sys.argv[1])
    out = sys.stdout
    frame = 0

    def emit(addr, msg, usec):
        nonlocal frame
        frame += 1
        out.write((",\n" if frame > 1 else "[\n") + packet(frame, usec, addr, msg[0], msg[1]))

    mount = '"mount": {"mount.procedure_v3": "1", "Path: /export": {"mount.path": "/export"}}'
    emit(CLIENT, call(1, 100005, 1, mount), 0)
    emit(SERVER, reply(1, 100005, 1, '"mount": {"mount.procedure_v3": "1", "mount.status": "0", '
                       '"fhandle": {%s}, "mount.flavors": "1"}' % FH), 100)
    getattr_call = '"nfs": {"nfs.procedure_v3": "1", "object": {%s}}' % FH
    getattr_reply = '"nfs": {"nfs.procedure_v3": "1", "nfs.status3": "0", "nfs.status": "0"}'
    emit(CLIENT, call(2, 100003, 1, getattr_call), 200)  # never answered
    for i in range(n):
        xid = 3 + i
        emit(CLIENT, call(xid, 100003, 1, getattr_call), 300 + 100 * i)
        emit(SERVER, reply(xid, 100003, 1, getattr_reply), 350 + 100 * i)
    out.write("\n]\n")


main()
