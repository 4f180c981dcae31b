#!/usr/bin/env python3
"""mount_work.py --- the FAST'17 paper's metadata workloads on a mounted
tree (bench/mount.sh runs them on stock fuse2fs and on ours).

Usage: mount_work.py PHASE ROOT [-n COUNT] [-d DEPTH] [-f FANOUT]
                     [-F FILES] [-l LIST]

The shapes are bench/workload's (workload_tree.c, workload_walk.c), made
through system calls instead of libext2fs:
  makedirs     COUNT directories in a tree of depth DEPTH (default 10)
               under ROOT/makedirs, FANOUT (default 4) children each,
               depth-first (the first path reaches full depth)
  createfiles  COUNT 4 KiB files in a tree of depth DEPTH (default 20)
               under ROOT/createfiles: directories on levels 1..DEPTH-1
               (FANOUT each), FILES (default 32) files in each directory
               of level DEPTH-1; -l LIST writes their paths, one a line
  listdirs     ls -lR ROOT/makedirs: every directory read, every entry
               lstat'ed
  readfiles    ROOT/createfiles read as tar would: every directory read,
               every entry lstat'ed, every file's data read
  removefiles  rm -r ROOT/createfiles, post-order (unlink / rmdir)
  removedirs   rm -r ROOT/makedirs, post-order (rmdir)

Prints one line: "ops=N secs=S" (file-system operations: mkdir, create,
lstat, read of a file, unlink, rmdir; and the phase's wall time without
the interpreter's start).  Exits non-zero on any error.
"""
import os
import sys
import time

FILE_SIZE = 4096


def make_tree(top, count, depth, fanout, files, listf):
    """Depth-first tree as workload_tree.c's wl_make_tree; returns ops."""
    os.mkdir(top)
    ops = 1
    nchild = [0] * (depth + 1)
    path = [top] + [None] * depth
    level = made = 0
    while made < count:
        while True:
            cap = fanout if level + 1 < depth or not files else files
            if nchild[level] < cap:
                break
            if not level:
                sys.exit("mount_work: the tree is full: raise -f")
            level -= 1
        leaf = level + 1 == depth
        isfile = leaf and files
        name = "%s%d" % ("f" if isfile else "d", nchild[level])
        nchild[level] += 1
        p = os.path.join(path[level], name)
        ops += 1
        if isfile:
            head = ("workload file %s\n" % p).encode()
            buf = (head * (FILE_SIZE // len(head) + 1))[:FILE_SIZE]
            fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            try:
                if os.write(fd, buf) != FILE_SIZE:
                    sys.exit("mount_work: short write on %s" % p)
            finally:
                os.close(fd)
            if listf:
                listf.write(p + "\n")
            made += 1
        else:
            os.mkdir(p, 0o755)
            if not files:
                made += 1
            if not leaf:
                level += 1
                path[level] = p
                nchild[level] = 0
    return ops


def walk(top, read_data):
    """ls -lR (read_data 0) or tar's reading (1); returns ops."""
    ops = 0
    stack = [top]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            ents = sorted(it, key=lambda e: e.name)
        for e in ents:
            st = os.lstat(e.path)
            ops += 1
            if e.is_dir(follow_symlinks=False):
                stack.append(e.path)
            elif read_data:
                with open(e.path, "rb") as f:
                    got = len(f.read())
                if got != st.st_size:
                    sys.exit("mount_work: short read on %s" % e.path)
                ops += 1
    return ops


def remove_tree(top):
    """rm -r, post-order: one unlink or rmdir per inode; returns ops."""
    ops = 0
    for d, dirs, files in os.walk(top, topdown=False):
        for f in files:
            os.unlink(os.path.join(d, f))
            ops += 1
        for s in dirs:
            os.rmdir(os.path.join(d, s))
            ops += 1
    os.rmdir(top)
    return ops + 1


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    phase, root = argv[1], argv[2]
    opt = {"-n": 10000, "-d": 0, "-f": 4, "-F": 32, "-l": None}
    args = iter(argv[3:])
    for a in args:
        if a not in opt:
            sys.exit("mount_work: unknown option %s" % a)
        v = next(args, None)
        if v is None:
            sys.exit("mount_work: %s wants a value" % a)
        opt[a] = v if a == "-l" else int(v)
    t0 = time.monotonic()
    if phase == "makedirs":
        ops = make_tree(os.path.join(root, "makedirs"), opt["-n"],
                        opt["-d"] or 10, opt["-f"], 0, None)
    elif phase == "createfiles":
        listf = open(opt["-l"], "w") if opt["-l"] else None
        ops = make_tree(os.path.join(root, "createfiles"), opt["-n"],
                        opt["-d"] or 20, opt["-f"], opt["-F"], listf)
        if listf:
            listf.close()
    elif phase == "listdirs":
        ops = walk(os.path.join(root, "makedirs"), 0)
    elif phase == "readfiles":
        ops = walk(os.path.join(root, "createfiles"), 1)
    elif phase == "removefiles":
        ops = remove_tree(os.path.join(root, "createfiles"))
    elif phase == "removedirs":
        ops = remove_tree(os.path.join(root, "makedirs"))
    else:
        sys.exit("mount_work: unknown phase %s" % phase)
    print("ops=%d secs=%.3f" % (ops, time.monotonic() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
