#!/usr/bin/env python3
"""paper_work.py --- the write phases of the FAST'17 ext4-lazy paper's
microbenchmarks, by their system calls, for bench/smr/paper.sh.

Usage: paper_work.py makedirs DIR N      N directories, depth 10, fanout 4
       paper_work.py createfiles DIR N   N files of 4 KiB: directories to
                                         depth 19 (fanout 4), 32 files in
                                         each deepest one
       paper_work.py age DIR N           the aging workload (below)

Both trees are made depth-first under DIR (made here), as
bench/smr/kernel_trace.sh makes them in its guest.  Prints what it made.
"""
import os
import random
import sys

DATA = b"\xa5" * 4096


def makedirs(top, n):
    made = 0

    # depth-first: a directory's children are made, each followed at once
    # by its own subtree, as a recursive mkdir -p of the tree would
    def walk(d, level):
        nonlocal made
        for i in range(4):
            if made >= n:
                return
            p = os.path.join(d, "d%d" % i)
            os.mkdir(p)
            made += 1
            if level + 1 < 10:
                walk(p, level + 1)
    walk(top, 0)
    return made


def createfiles(top, n):
    made = 0

    def walk(d, level):
        nonlocal made
        if level + 1 == 20:
            for i in range(32):
                if made >= n:
                    return
                fd = os.open(os.path.join(d, "f%d" % i),
                             os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                os.write(fd, DATA)
                os.close(fd)
                made += 1
            return
        for i in range(4):
            if made >= n:
                return
            p = os.path.join(d, "d%d" % i)
            os.mkdir(p)
            walk(p, level + 1)
    walk(top, 0)
    return made


# The aging workload's file sizes: (bytes, weight), small files most.
AGE_SIZES = ((4096, 50), (8192, 20), (32768, 20), (262144, 10))


def age(top, n, seed=36):
    """A file system in use before the benchmarks (the paper's "aged"
    run): n files of the sizes above in n/32 directories under 64 at the
    top, each into a directory drawn at random; a random half removed;
    n/2 more made the same way; a random third of those left removed.
    What stays (about 2n/3 files) leaves the block and inode bitmaps and
    the directories riddled with holes.  Seeded: the same tree each run."""
    rnd = random.Random(seed)
    ndirs = max(1, n // 32)
    dirs = [os.path.join(top, "a%d" % (i % 64), "b%d" % i)
            for i in range(ndirs)]
    for d in dirs:
        os.makedirs(d, exist_ok=True)
    sizes = [b for b, w in AGE_SIZES for _ in range(w)]
    live, serial = [], 0

    def make(count):
        nonlocal serial
        for _ in range(count):
            p = os.path.join(rnd.choice(dirs), "f%d" % serial)
            serial += 1
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            os.write(fd, b"\x5a" * rnd.choice(sizes))
            os.close(fd)
            live.append(p)

    def remove(fraction):
        rnd.shuffle(live)
        k = int(len(live) * fraction)
        for p in live[:k]:
            os.unlink(p)
        del live[:k]

    make(n)
    remove(1 / 2)
    make(n // 2)
    remove(1 / 3)
    return len(live)


WORK = {"makedirs": makedirs, "createfiles": createfiles, "age": age}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in WORK:
        sys.exit("usage: paper_work.py makedirs|createfiles|age DIR N")
    what, top, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.mkdir(top)
    made = WORK[what](top, n)
    print("%s: %d %s" % (what, made, "left" if what == "age" else "made"))


if __name__ == "__main__":
    main()
