#!/usr/bin/env python3
"""bigalloc_ops.py --- file operations around cluster boundaries on any
mounted tree of a bigalloc file system, for comparing a mount with the
kernel's ext4 (tests/u_mount_bigalloc).

  bigalloc_ops.py run DIR BS C  the steps below on a file system of block
                                size BS, C blocks a cluster; one line per
                                step (ended by an fsync of the file): the
                                file, the step, its answer (ok or the
                                errno's name), the file's size and
                                st_blocks and the file system's free blocks
                                (f_bfree) since the start
  bigalloc_ops.py tree DIR CB   every file and directory under DIR: name,
                                size, st_blocks, sha256 (a directory: see
                                below; CB bytes a cluster)
  bigalloc_ops.py statfs DIR    f_blocks, f_bfree and f_bavail, the last
                                two with the blocks of DIR's directories
                                added (ext4's htree splits leave a
                                directory more blocks than ours)

The steps (a cluster: C blocks; "in a cluster": none of its other blocks
mapped unless said):
  small   files of 100 bytes, one block, a partial cluster, clusters and
          a partial one, in a new directory
  sparse  single blocks written into one cluster out of order (a block of
          a cluster the file has takes its place there, no new cluster),
          the next cluster, block 0 last
  append  appends across a cluster boundary, a block at a time
  trunc   truncates to the middle of a cluster (the cluster stays), up,
          into the first cluster, to 0; writes in between
  punch   hole punches inside a cluster (nothing freed), over a whole
          cluster, from the middle of one cluster to the middle of the
          next, the rest of a cluster whose other blocks are gone, past
          the end
  falloc  fallocate of a block in a cluster's middle, keep-size past the
          end, zero range, then writes into the allocated blocks
  tree    a file of many extents (every other cluster: an extent-tree
          block, a cluster of its own), then truncated
  xattr   an extended attribute too big for the inode (a block: a cluster)
  rename  renames between directories, one over a file (its clusters
          freed)
  unlink  files unlinked (one while open and still written)
  dir     a directory grown to several blocks, then removed: its
          st_blocks whole clusters of its size (how many blocks ext4's
          htree splits leave differs: not compared), the free blocks as
          before once it is gone
Directories in the tree: whether st_blocks is whole clusters of the size.
"""
import hashlib
import os
import sys
import time

from file_steps import (FALLOC_KEEP, FALLOC_PUNCH, FALLOC_ZERO, FileSteps,
                        data, fallocate)


class Steps(FileSteps):
    fsync = True

    def __init__(self, root, bs, c):
        super().__init__(root)
        self.bs = bs
        self.c = c
        self.cb = bs * c        # bytes in a cluster
        self.bfree = os.statvfs(root).f_bfree

    def after(self):
        return ", bfree %+d" % (os.statvfs(self.root).f_bfree - self.bfree)

    def write(self, name, off, n, seed):
        self.pwrite(name, off, data(seed, n))

    def falloc(self, name, mode, off, n):
        self.fd_step(name, "fallocate %d %d+%d" % (mode, off, n),
                     os.O_WRONLY | os.O_CREAT,
                     lambda fd: fallocate(fd, mode, off, n))

    def blk(self, b):
        return b * self.bs

    def small(self):
        os.mkdir(self.path("d"))
        bs, c = self.bs, self.c
        for i, n in enumerate([100, bs, (c - 1) * bs + 10,
                               (3 * c + 5) * bs + 7]):
            self.write("d/f%d" % i, 0, n, 10 + i)

    def sparse(self):
        c = self.c
        for i, b in enumerate([3, c - 2, c + 2, 0, c - 1, 2 * c]):
            self.write("sparse", self.blk(b), self.bs, 20 + i)
        self.write("sparse", self.blk(1) + 5, 10, 27)

    def append(self):
        def fn(k):
            return lambda fd: os.write(fd, data(30 + k, self.bs))
        for k in range(self.c + 3):
            self.fd_step("append", "append %d" % k,
                         os.O_WRONLY | os.O_CREAT | os.O_APPEND, fn(k))

    def trunc_steps(self):
        c, bs = self.c, self.bs
        self.write("trunc", 0, 3 * self.cb, 40)
        self.trunc("trunc", self.cb + c // 2 * bs + 100)
        self.trunc("trunc", 3 * self.cb + 1)
        self.write("trunc", self.cb + (c - 1) * bs, 2 * bs, 41)
        self.trunc("trunc", c // 2 * bs)
        self.trunc("trunc", c // 2 * bs - 1)
        self.write("trunc", 2 * self.cb + 3, 5, 42)
        self.trunc("trunc", 0)

    def punch(self):
        c = self.c
        self.write("punch", 0, 5 * self.cb, 50)
        for b, n in [(2 * c + c // 2, c), (2, 2), (c, c),
                     (2 * c, c // 2), (3 * c + c // 2, c // 2),
                     (0, 2), (4, c - 4), (4 * c + 1, 2 * c)]:
            self.falloc("punch", FALLOC_PUNCH | FALLOC_KEEP,
                        self.blk(b), self.blk(n))
        self.write("punch", self.blk(c + 3), 10, 51)

    def falloc_steps(self):
        c, bs = self.c, self.bs
        self.falloc("fa", 0, self.blk(c // 2), bs)
        self.falloc("fa", FALLOC_KEEP, self.blk(c + 1), self.blk(c))
        self.falloc("fa", 0, 0, 100)
        self.falloc("fa", FALLOC_ZERO, self.blk(c // 2) - 10, bs + 20)
        self.write("fa", self.blk(c + 2), 2 * bs, 60)
        self.falloc("fa", FALLOC_ZERO | FALLOC_KEEP,
                    self.blk(3 * c + 1), self.blk(2))
        self.trunc("fa", self.blk(c) + 1)

    def tree_steps(self):
        def fn(fd):
            for i in range(12):
                os.pwrite(fd, data(70 + i, self.bs), 2 * i * self.cb + 1)
        self.fd_step("extents", "every other cluster",
                     os.O_WRONLY | os.O_CREAT, fn)
        self.trunc("extents", 3 * self.cb)

    def xattr(self):
        self.write("xa", 0, 10, 80)
        self.say("xa", "setxattr 500 bytes", lambda: os.setxattr(
            self.path("xa"), "user.big", data(81, 500)))
        self.say("xa", "removexattr", lambda: os.removexattr(
            self.path("xa"), "user.big"))

    def dir_steps(self):
        os.mkdir(self.path("big"))
        names = ["%s-%03d" % ("n" * 60, i) for i in range(200)]
        for n in names:
            open(self.path("big/" + n), "w").close()
        print("big 200 entries: %s" % dir_blocks(self.path("big"), self.cb))
        for n in names:
            os.unlink(self.path("big/" + n))
        print("big emptied: %s" % dir_blocks(self.path("big"), self.cb))
        self.say("big", "rmdir", lambda: os.rmdir(self.path("big")))

    def rename(self):
        os.mkdir(self.path("r"))
        self.write("r/a", 0, 2 * self.cb + 5, 90)
        self.write("r/b", 0, self.bs + 5, 91)
        self.say("r/c", "rename d/f3", lambda: os.rename(
            self.path("d/f3"), self.path("r/c")))
        self.say("r/a", "rename over r/b", lambda: os.rename(
            self.path("r/b"), self.path("r/a")))

    def unlink(self):
        fd = os.open(self.path("sparse"), os.O_WRONLY)
        self.say("sparse", "unlink while open",
                 lambda: os.unlink(self.path("sparse")))
        os.pwrite(fd, data(100, self.bs), self.blk(5 * self.c))
        before = os.statvfs(self.root).f_bfree
        os.close(fd)
        # a FUSE release follows the close, unwaited for: up to 5 s
        for _ in range(100):
            if os.statvfs(self.root).f_bfree != before:
                break
            time.sleep(0.05)
        self.say("sparse", "closed", lambda: None)
        for n in ["punch", "d/f2"]:
            self.say(n, "unlink", lambda: os.unlink(self.path(n)))
        self.write("after", 0, 3 * self.cb + 9, 101)

    def run(self):
        self.small()
        self.sparse()
        self.append()
        self.trunc_steps()
        self.punch()
        self.falloc_steps()
        self.tree_steps()
        self.xattr()
        self.rename()
        self.unlink()
        self.dir_steps()


def dir_blocks(path, cb):
    """whether a directory's st_blocks are the clusters of its size"""
    st = os.stat(path)
    whole = (st.st_size + cb - 1) // cb * cb // 512
    return "st_blocks whole clusters" if st.st_blocks == whole else \
        "size %d st_blocks %d, not whole clusters of %d" % (
            st.st_size, st.st_blocks, cb)


def tree(root, cb):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "lost+found")
        for name in [""] + sorted(files):
            p = os.path.join(top, name) if name else top
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            if not name:
                print("%s dir %s" % (rel, dir_blocks(p, cb)))
                continue
            h = hashlib.sha256()
            if os.path.islink(p):
                h.update(os.readlink(p).encode())
            else:
                with open(p, "rb") as f:
                    h.update(f.read())
            print("%s size %d blocks %d %s" % (rel, st.st_size, st.st_blocks,
                                               h.hexdigest()))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "run":
        Steps(sys.argv[2], int(sys.argv[3]), int(sys.argv[4])).run()
    elif len(sys.argv) == 4 and sys.argv[1] == "tree":
        tree(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "statfs":
        s = os.statvfs(sys.argv[2])
        d = sum(os.stat(top).st_blocks * 512 // s.f_frsize
                for top, _, _ in os.walk(sys.argv[2]))
        print("f_blocks %d, f_bfree %d and f_bavail %d with directories" %
              (s.f_blocks, s.f_bfree + d, s.f_bavail + d))
    else:
        sys.exit("usage: bigalloc_ops.py run DIR BS C | tree DIR CB | "
                 "statfs DIR")


main()
