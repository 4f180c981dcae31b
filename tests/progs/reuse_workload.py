#!/usr/bin/env python3
"""reuse_workload.py DIR RECORD SEED PART...: mount workloads where blocks
freed since a commit, or still mapped by the log, are reused for file
data (tests/c_crash_reuse, issue 30).

PARTs, in the order given (churn=ND: churn with ND directories a turn):
  freed   a file written and fsynced (committed), unlinked, and another
          written over its freed blocks and fsynced, three times: until
          the unlink commits, the committed file system still holds the
          first file, so the new data must not reach its blocks.
  skip    mkdir, fsync, rmdir, fsync, first on a fresh file system (the
          block bitmap goes back to what home holds while the log maps a
          newer copy): the commit must log the bitmap.
  churn   directory churn on a small log (see churn below): directory
          blocks logged, freed, and reused for file data in commits that
          need more room than the log has, so that the cleaner cleans the
          log's tail, the directories' old copies among it, while the
          running transaction revokes them: a block the log maps but the
          running transaction revokes holds new data at home, which no
          old copy may overwrite.

After each fsync returns, one line on stdout: "PATH SHA256 SIZE_OF_RECORD"
(how far the crash model's record, LJ_CRASH_RECORD, had got: a crash state
cut after that point must hold the file, intact); a file removed later
gets a fourth field, the record's size when its removal began: from there
on it may be gone, but where it is, it is intact."""
import hashlib
import os
import random
import sys

root, record, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
parts = sys.argv[4:]
rnd = random.Random(seed)


def rec_size():
    return os.stat(record).st_size


def fsync_path(path):
    """fsync of a directory, and of a file open for writing: a commit
    whether or not the mount commits on a directory's fsync"""
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    fd = os.open(os.path.join(root, "stamp"), os.O_WRONLY | os.O_CREAT,
                 0o644)
    os.fsync(fd)    # empty: no block allocated (skip below)
    os.close(fd)


def put(path, data):
    """data written and fsynced (with the directory): its marker fields"""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    # from an odd offset on: no whole aligned block, so libext2fs sends
    # none straight to the device, every one goes through the file's
    # buffer (ext2fs_file_flush: the mount's data path)
    os.write(fd, data[:1000])
    for i in range(1000, len(data), 131072):
        os.write(fd, data[i:i + 131072])
    os.fsync(fd)
    os.close(fd)
    fsync_path(os.path.dirname(path))
    return hashlib.sha256(data).hexdigest(), rec_size()


def mark(path, sha, size, until=None):
    rel = "/" + os.path.relpath(path, root)
    print("%s %s %d%s" % (rel, sha, size,
                          "" if until is None else " %d" % until), flush=True)


def freed():
    d = os.path.join(root, "freed")
    os.mkdir(d)
    for i in range(3):
        a = os.path.join(d, "a%d" % i)
        sha, size = put(a, rnd.randbytes(rnd.choice([3000, 20000, 70000])))
        until = rec_size()
        os.unlink(a)
        mark(a, sha, size, until)
        b = os.path.join(d, "b%d" % i)
        mark(b, *put(b, rnd.randbytes(rnd.choice([3000, 20000, 70000]))))


def skip():
    """mkdir, fsync, rmdir, fsync, twice: the block and inode bitmaps go
    back to what home holds (on a fresh file system) while the log maps
    the copies with the directory"""
    for i in range(2):
        d = os.path.join(root, "skip%d" % i)
        os.mkdir(d)
        fsync_path(root)
        os.rmdir(d)
        fsync_path(root)


def write(path, data):
    """data written from an odd offset on (see put), not fsynced"""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, data[:1000])
    for i in range(1000, len(data), 131072):
        os.write(fd, data[i:i + 131072])
    os.close(fd)
    return hashlib.sha256(data).hexdigest()


def churn(nd=32):
    """D_k (nd empty directories: a block each, logged once and never
    written again) and F_k (a file of 128 KiB) in turn, ten times,
    committed; the directories removed, committed: their blocks free,
    their old copies still live in the log.  Then in turn F_k unlinked and
    144 KiB more written to one file (128 KiB a call, the most FUSE
    passes): the allocator hands out D_k's blocks (data home, the log's
    copies revoked) then F_k's (freed since the commit: journaled), so
    the running transaction holds revokes when one call adds more than
    the free log, and the commit has the cleaner clean the log's tail,
    among it the directories' copies (on a fresh 1 KiB-block file system
    with a 1 MiB log)."""
    c = os.path.join(root, "churn")
    os.mkdir(c)
    files = []
    for k in range(10):
        for i in range(nd):
            os.mkdir(os.path.join(c, "d%d-%d" % (k, i)))
        p = os.path.join(root, "f%d" % k)
        files.append((p, write(p, rnd.randbytes(128 << 10))))
    fsync_path(c)
    size = rec_size()
    for k in range(10):
        for i in range(nd):
            os.rmdir(os.path.join(c, "d%d-%d" % (k, i)))
    fsync_path(c)
    data = rnd.randbytes(10 * (144 << 10))
    out = os.path.join(root, "data")
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, data[:1000])
    pos = 1000
    for k in range(10):
        p, sha = files[k]
        until = rec_size()
        os.unlink(p)
        mark(p, sha, size, until)
        end = min(len(data), (k + 1) * (144 << 10))
        while pos < end:
            n = min(end - pos, 131072)
            os.write(fd, data[pos:pos + n])
            pos += n
    os.fsync(fd)
    os.close(fd)
    mark(out, hashlib.sha256(data).hexdigest(), rec_size())


for p in parts:
    if p.startswith("churn="):
        churn(int(p[6:]))
    else:
        {"freed": freed, "skip": skip, "churn": churn}[p]()
