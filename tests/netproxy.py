"""A TCP proxy that delays and "loses" what it forwards, for the partition tests (this kernel has no ``netem``).

``python tests/netproxy.py --listen IP:PORT --to IP:PORT --control FILE``: every connection to ``--listen`` is
forwarded to ``--to``; ``FILE`` (JSON, re-read when it changes) says ``delay_ms``, ``jitter_ms`` and ``loss``.
Each chunk read is written on the other side ``delay_ms`` (+- ``jitter_ms``) later, in order; with probability
``loss`` a chunk waits a retransmission timeout more (200 to 400 ms): what a lost segment costs a TCP stream
(a proxy cannot drop bytes from a stream without breaking it). With everything 0, chunks go straight through.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from typing import Any


class Shape:
    def __init__(self, path: str) -> None:
        self.path = path
        self.mtime = 0.0
        self.delay_ms = self.jitter_ms = self.loss = 0.0
        self.checked = 0.0

    def refresh(self) -> None:
        now = time.monotonic()
        if now - self.checked < 0.02:
            return
        self.checked = now
        try:
            mtime = os.stat(self.path).st_mtime
            if mtime == self.mtime:
                return
            data: dict[str, Any] = json.loads(open(self.path).read() or "{}")
        except (OSError, ValueError):
            return
        self.mtime = mtime
        self.delay_ms = float(data.get("delay_ms", 0))
        self.jitter_ms = float(data.get("jitter_ms", 0))
        self.loss = float(data.get("loss", 0))

    def wait_s(self) -> float:
        self.refresh()
        ms = self.delay_ms + (random.uniform(-self.jitter_ms, self.jitter_ms) if self.jitter_ms else 0.0)
        if self.loss and random.random() < self.loss:
            ms += random.uniform(200, 400)
        return max(0.0, ms) / 1000


async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, shape: Shape) -> None:
    queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
    last = 0.0

    async def send() -> None:
        while True:
            due, chunk = await queue.get()
            if not chunk:
                break
            pause = due - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
            writer.write(chunk)
            await writer.drain()

    sender = asyncio.create_task(send())
    try:
        while True:
            chunk = await reader.read(65536)
            wait = shape.wait_s()
            due = max(last, time.monotonic() + wait) if wait or last > time.monotonic() else 0.0
            last = due
            await queue.put((due, chunk))
            if not chunk:
                break
        await sender
    except (ConnectionError, OSError):
        pass
    finally:
        sender.cancel()
        writer.close()


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--to", required=True)
    ap.add_argument("--control", required=True)
    args = ap.parse_args()
    shape = Shape(args.control)
    host, port = args.listen.rsplit(":", 1)
    to_host, to_port = args.to.rsplit(":", 1)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(to_host, int(to_port))
        except OSError:
            writer.close()
            return
        await asyncio.gather(pump(reader, up_writer, shape), pump(up_reader, writer, shape),
                             return_exceptions=True)

    server = await asyncio.start_server(handle, host, int(port), reuse_address=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
