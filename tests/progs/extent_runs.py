#!/usr/bin/env python3
"""extent_runs.py --- writes that grow an extent tree every way
(tests/u_mount_extent_runs).

  extent_runs.py write DIR       the writes, chunk by chunk, into DIR
  extent_runs.py expect-dir DIR  what the files must hold, each written
                                 whole from the same model (no mount)

A chunk is 4096 bytes of a pattern that names its file and chunk, so a
chunk landing in the wrong place shows.
"""
import os
import sys

CHUNK = 4096


def chunk(name, i):
    head = ("%s:%d:" % (name, i)).encode()
    return (head * (CHUNK // len(head) + 1))[:CHUNK]


def plan():
    """(file, [chunk indexes in write order], write size in chunks)."""
    alt = list(range(0, 6000, 2)) + list(range(5999, 0, -2))
    return [
        ("append", list(range(64)), 1),      # lengthens the last extent
        ("alternate", alt, 1),               # splits; fills holes between
        ("backwards", list(range(499, -1, -1)), 1),  # inserts before
        ("big", list(range(0, 10240, 256)), 256),    # > one extent (1k)
    ]


def write(d):
    for name, order, n in plan():
        fd = os.open(os.path.join(d, name), os.O_WRONLY | os.O_CREAT, 0o644)
        for i in order:
            buf = b"".join(chunk(name, i + k) for k in range(n))
            os.pwrite(fd, buf, i * CHUNK)
        os.close(fd)


def expect(d):
    os.makedirs(d, exist_ok=True)
    for name, order, n in plan():
        have = {}
        for i in order:
            for k in range(n):
                have[i + k] = chunk(name, i + k)
        end = max(have) + 1
        data = b"".join(have.get(i, b"\0" * CHUNK) for i in range(end))
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "expect-dir"):
        sys.exit("usage: extent_runs.py write|expect-dir DIR")
    (write if sys.argv[1] == "write" else expect)(sys.argv[2])
