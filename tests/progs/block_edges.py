#!/usr/bin/env python3
"""block_edges.py --- system calls at block boundaries on any mounted tree,
for comparing a mount with the kernel's ext4 (tests/u_posix_block_edges).

  block_edges.py run DIR BS     the cases below, one file each, on a file
                                system of block size BS; one line per
                                case: its name and the call's answer (ok
                                or the errno's name)
  block_edges.py tree DIR       every file: name, size, sha256 of its bytes

Each case starts from a file of its own, one of two bases:
  full    3*BS-7 bytes of seeded random data (the last block partial)
  holey   the same size, block 1 a hole (never written)
then makes one call (or a short sequence) at offsets around a block
boundary (BS-1, BS, BS+1, inside a block holding data, across two
blocks, past the end):
  write   LEN bytes of a pattern at OFF;
  trunc   truncate to SIZE (shrink, grow; shrink then grow back, so the
          bytes past the cut must come back as zeros);
  falloc  fallocate MODE (0, keep, punch|keep, zero, zero|keep) OFF LEN
          (libc fallocate by ctypes: os has no modes), and for the keep
          modes a truncate past the range after it (preallocated blocks
          must read as zeros);
  symlink a target of BS-1 and of BS bytes (ext4: a target and its NUL
          must fit one block, else ENAMETOOLONG).
"""
import ctypes
import errno
import hashlib
import os
import random
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_long,
                           ctypes.c_long]
FALLOC = {"0": 0, "keep": 1, "punch|keep": 3, "zero": 16, "zero|keep": 17}


def fallocate(fd, mode, off, length):
    if libc.fallocate(fd, FALLOC[mode], off, length) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def base(path, kind, bs, seed):
    data = random.Random(seed).randbytes(3 * bs - 7)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        if kind == "full":
            os.pwrite(fd, data, 0)
        else:
            os.pwrite(fd, data[:bs], 0)
            os.pwrite(fd, data[2 * bs:], 2 * bs)
    finally:
        os.close(fd)


def offsets(bs):
    """(OFF, LEN) pairs around the boundaries of a 3-block file."""
    return [(0, 1), (1, 1), (bs - 1, 1), (bs - 1, 2), (bs, 1), (bs + 1, 1),
            (bs // 2, 10), (bs // 2, bs), (bs - 10, 20), (0, bs),
            (bs, bs), (1, 2 * bs), (bs + 1, bs - 2), (2 * bs - 1, bs + 1),
            (3 * bs - 8, 1), (3 * bs - 7, 1), (3 * bs - 1, 2),
            (3 * bs + 1, bs), (4 * bs, 1)]


def cases(bs):
    """(name, base, calls): each call ("write"|"trunc"|"falloc", args)."""
    out = []
    for kind in ("full", "holey"):
        for off, n in offsets(bs):
            out.append(("write %s %d+%d" % (kind, off, n), kind,
                        [("write", off, n)]))
        for size in (0, 1, bs - 1, bs, bs + 1, 2 * bs - 1, 2 * bs + 1,
                     3 * bs, 4 * bs + 1):
            out.append(("trunc %s %d" % (kind, size), kind,
                        [("trunc", size)]))
            if size < 3 * bs - 7:
                out.append(("trunc %s %d then %d" % (kind, size, 3 * bs),
                            kind, [("trunc", size), ("trunc", 3 * bs)]))
        for mode in FALLOC:
            for off, n in offsets(bs):
                calls = [("falloc", mode, off, n)]
                if "keep" in mode:
                    calls.append(("trunc", max(off + n, 3 * bs) + 3))
                out.append(("falloc %s %s %d+%d" % (kind, mode, off, n),
                            kind, calls))
    return out


def run(root, bs):
    for i, (name, kind, calls) in enumerate(cases(bs)):
        path = os.path.join(root, "c%03d" % i)
        base(path, kind, bs, i)
        fd = os.open(path, os.O_WRONLY)   # what fallocate needs, no more
        res = "ok"
        try:
            for c in calls:
                if c[0] == "write":
                    pat = bytes((0x41 + (j % 26)) for j in range(c[2]))
                    os.pwrite(fd, pat, c[1])
                elif c[0] == "trunc":
                    os.ftruncate(fd, c[1])
                else:
                    fallocate(fd, c[1], c[2], c[3])
        except OSError as e:
            res = errno.errorcode.get(e.errno, str(e.errno))
        finally:
            os.close(fd)
        print("c%03d %s: %s" % (i, name, res))
    for n in (bs - 1, bs):
        try:
            os.symlink("t" * n, os.path.join(root, "sym%d" % n))
            res = "ok"
        except OSError as e:
            res = errno.errorcode.get(e.errno, str(e.errno))
        print("symlink target of %d bytes: %s" % (n, res))


def tree(root):
    for name in sorted(os.listdir(root)):
        p = os.path.join(root, name)
        if name == "lost+found":
            continue
        if os.path.islink(p):
            t = os.readlink(p)
            print("%s -> %d bytes %s" % (name, len(t),
                                         hashlib.sha256(t.encode())
                                         .hexdigest()[:16]))
            continue
        with open(p, "rb") as f:
            data = f.read()
        print("%s %d %s" % (name, len(data),
                            hashlib.sha256(data).hexdigest()))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        run(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "tree":
        tree(sys.argv[2])
    else:
        sys.exit("usage: block_edges.py run DIR BS | tree DIR")


main()
