#!/usr/bin/env python3
"""paper_work.py --- the write phases of the FAST'17 ext4-lazy paper's
microbenchmarks, by their system calls, for bench/smr/paper.sh.

Usage: paper_work.py makedirs DIR N      N directories, depth 10, fanout 4
       paper_work.py createfiles DIR N   N files of 4 KiB: directories to
                                         depth 19 (fanout 4), 32 files in
                                         each deepest one

Both trees are made depth-first under DIR (made here), as
bench/smr/kernel_trace.sh makes them in its guest.  Prints what it made.
"""
import os
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


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("makedirs", "createfiles"):
        sys.exit("usage: paper_work.py makedirs|createfiles DIR N")
    what, top, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.mkdir(top)
    made = (makedirs if what == "makedirs" else createfiles)(top, n)
    print("%s: %d made" % (what, made))


if __name__ == "__main__":
    main()
