#!/usr/bin/env python3
# delay_proxy.py - a TCP proxy on 127.0.0.1 that holds back each chunk the
# server sends by DELAY_MS milliseconds (order kept; what the client sends
# goes on at once): a server "far away" for the tests, where loopback's
# round trips are too short to show whether a client's calls wait one
# after another or side by side.  Prints the port it listens on, then
# serves until killed.
#
#   delay_proxy.py HOST PORT DELAY_MS
#
# Copyright (C) 2026 The dbench authors.  GPL-3.0-or-later.
import asyncio
import sys


async def forward(reader, writer, delay):
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def send_later():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            if due > loop.time():
                await asyncio.sleep(due - loop.time())
            writer.write(data)
            await writer.drain()

    sender = asyncio.create_task(send_later())
    try:
        while True:
            data = await reader.read(65536)
            queue.put_nowait((loop.time() + delay, data or None))
            if not data:
                break
        await sender
    except (ConnectionError, asyncio.CancelledError):
        sender.cancel()
    finally:
        writer.close()


async def main():
    host, port, delay = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) / 1000

    async def serve(c_reader, c_writer):
        try:
            s_reader, s_writer = await asyncio.open_connection(host, port)
        except OSError:
            c_writer.close()
            return
        await asyncio.gather(forward(c_reader, s_writer, 0), forward(s_reader, c_writer, delay),
                             return_exceptions=True)

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: delay_proxy.py HOST PORT DELAY_MS")
    asyncio.run(main())
