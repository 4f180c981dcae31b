#!/usr/bin/env python3
"""mount_workload.py DIR RECORD SEED: the mount workload of
tests/c_crash_mount.

Sixteen files written and fsynced one after the other (sizes 1 byte to
160 KiB, seeded random contents), and between them what is not fsynced
and so may come back either way after a crash: scratch files written,
renamed, linked, truncated and unlinked (their blocks are freed and
reused by the next files), directories made and removed, symbolic links,
xattrs, a 2 MiB file written and unlinked, seven directories of 400
empty files, then half of those inodes changed: on a 1 MiB log the live
metadata outgrows three quarters of it, so the cleaner re-logs, sends
cold blocks home and moves the tail, and the head soon reuses what it
freed (each step of it in the record).  After each fsync
returns, one line on stdout: "PATH SHA256 SIZE_OF_RECORD" -- how far the
crash model's record (LJ_CRASH_RECORD) had got by then: a crash state cut
after that point must hold the file, intact."""
import hashlib
import os
import random
import sys

root, record, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
rnd = random.Random(seed)


def put(path, data, sync):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for i in range(0, len(data), 65536):
        os.write(fd, data[i:i + 65536])
    if sync:
        os.fsync(fd)
    os.close(fd)


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(fd)
    os.close(fd)


os.mkdir(os.path.join(root, "t"))
os.mkdir(os.path.join(root, "s"))
for i in range(16):
    s = os.path.join(root, "s")
    # not fsynced: scratch work
    put(os.path.join(s, "a%d" % i), rnd.randbytes(rnd.randrange(1, 40000)),
        False)
    if i % 3 == 0:
        os.rename(os.path.join(s, "a%d" % i), os.path.join(s, "r%d" % i))
        os.link(os.path.join(s, "r%d" % i), os.path.join(s, "h%d" % i))
        os.symlink("r%d" % i, os.path.join(s, "l%d" % i))
        os.setxattr(os.path.join(s, "r%d" % i), "user.i", b"%d" % i)
    if i % 3 == 1:
        os.truncate(os.path.join(s, "a%d" % i), 100)
        os.mkdir(os.path.join(s, "d%d" % i))
    if i % 3 == 2:
        for n in os.listdir(s):     # blocks freed: reused below
            p = os.path.join(s, n)
            if os.path.isdir(p) and not os.path.islink(p):
                os.rmdir(p)
            else:
                os.unlink(p)
    if i == 5:
        put(os.path.join(s, "big"), rnd.randbytes(2 << 20), False)
    if i == 7:
        os.unlink(os.path.join(s, "big"))
    if i in (2, 4, 6, 8, 10, 12, 14):
        d = os.path.join(root, "burst%d" % i)
        os.mkdir(d)
        for n in range(400):
            put(os.path.join(d, "entry-%03d" % n), b"", False)
    if i == 15:     # inodes of every burst changed: the log fills
        for b in (2, 4, 6, 8, 10, 12, 14):
            for n in range(0, 400, 2):
                os.chmod(os.path.join(root, "burst%d" % b, "entry-%03d" % n),
                         0o600)
    # a file fsynced: durable from here on
    size = rnd.choice([1, 4096, 5000, rnd.randrange(1, 160 << 10)])
    data = rnd.randbytes(size)
    path = os.path.join(root, "t", "f%02d" % i)
    put(path, data, True)
    fsync_dir(os.path.join(root, "t"))
    print("/t/f%02d %s %d" % (i, hashlib.sha256(data).hexdigest(),
                              os.stat(record).st_size), flush=True)
