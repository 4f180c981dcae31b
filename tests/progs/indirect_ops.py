#!/usr/bin/env python3
"""indirect_ops.py --- writes, truncates, hole punches and unlinks of
block-mapped files (ext3-style: direct, indirect, double- and
triple-indirect blocks) on any mounted tree, for comparing a mount with
the kernel's ext4 (tests/u_mount_indirect).

  indirect_ops.py run DIR BS    the steps below on a file system of block
                                size BS; one line per step: the file, the
                                step, its answer (ok or the errno's name)
                                and the file's size and st_blocks after it
  indirect_ops.py tree DIR      every file: name, size, st_blocks, sha256

With A = BS/4 block numbers in an indirect block, logical blocks 0-11 are
direct, 12 to 12+A-1 indirect (IND), then A*A double-indirect (DIND),
then triple-indirect (TIND).  The steps:
  seq     1 MiB writes (dd's) into the DIND range, the last block partial
  unal    writes of seeded random lengths (1 byte to 3 blocks), unaligned
  over    overwrites across the direct/IND, IND/DIND boundaries and the
          partial last block, one past the end
  app     O_APPEND writes (and a pwrite on the O_APPEND descriptor)
  sparse  small writes far apart: direct, across 12, across IND/DIND,
          the second IND under the DIND block
  tind    writes in the TIND range (sparse), read back, truncated away
  trunc   truncates down across every level (inside DIND, at its start,
          inside IND, at its start, to 5 bytes) and up (holes), writes in
          between
  hole    a truncate whose remaining IND entries are all holes
  punch   fallocate punch|keep inside IND, over whole IND, across IND/DIND,
          inside the second IND under DIND, past the end of the file
  falloc  fallocate 0, keep, zero, zero|keep (ext4: extent files only)
  max     a write and a truncate at and past the largest size (then the
          file removed)
  gone    big files unlinked (one while open and still written), then a
          file written over the blocks they freed
The tree holds no file past 64 MiB of size (it is read whole).
"""
import hashlib
import os
import random
import sys

from file_steps import FileSteps, data, fallocate

MIB = 1 << 20


class Steps(FileSteps):
    def __init__(self, root, bs):
        super().__init__(root)
        self.bs = bs
        a = bs // 4
        self.d0 = 12 + a                # first DIND block
        self.t0 = 12 + a + a * a        # first TIND block
        self.a = a

    def seq(self):
        bs = self.bs
        size = (self.d0 + 2 * self.a + 5) * bs + 123
        buf = data(1, size)

        def fn(fd):
            for off in range(0, size, MIB):
                os.write(fd, buf[off:off + MIB])
        self.fd_step("seq", "1 MiB writes of %d bytes" % size,
                     os.O_WRONLY | os.O_CREAT | os.O_TRUNC, fn)

    def unal(self):
        bs = self.bs
        end = (self.d0 + self.a // 2) * bs + 77
        rnd = random.Random(2)

        def fn(fd):
            off = 0
            while off < end:
                n = min(rnd.randint(1, 3 * bs), end - off)
                os.write(fd, rnd.randbytes(n))
                off += n
        self.fd_step("unal", "random-length writes to %d" % end,
                     os.O_WRONLY | os.O_CREAT | os.O_TRUNC, fn)

    def over(self):
        bs = self.bs
        size = (self.d0 + self.a) * bs + 300
        self.pwrite("over", 0, data(3, size))
        for i, (off, n) in enumerate([
                (12 * bs - 100, 200), (12 * bs, bs), (11 * bs + 1, 3 * bs),
                (self.d0 * bs - 5, 10), (self.d0 * bs - bs // 2, 2 * bs),
                ((self.d0 + 1) * bs, 5 * bs + 3), (size - 10, 5),
                (size - 100, 300), (5, 7)]):
            self.pwrite("over", off, data(30 + i, n))

    def app(self):
        bs = self.bs
        rnd = random.Random(4)
        end = (self.d0 + 10) * bs

        def fn(fd):
            size = 0
            while size < end:
                n = rnd.randint(1, 2 * bs)
                os.write(fd, rnd.randbytes(n))
                size += n
            # pwrite on O_APPEND: Linux appends, the offset ignored
            os.pwrite(fd, b"appended by pwrite", 0)
        self.fd_step("app", "O_APPEND writes past %d" % end,
                     os.O_WRONLY | os.O_CREAT | os.O_APPEND, fn)

    def sparse(self):
        bs, a = self.bs, self.a
        for i, (off, n) in enumerate([
                (0, 10), (12 * bs - 5, 10), (self.d0 * bs - bs // 2, bs),
                ((self.d0 + a + 3) * bs + 1, 3 * bs),
                ((self.d0 + 2 * a) * bs - 1, 2)]):
            self.pwrite("sparse", off, data(40 + i, n))

    def tind(self):
        bs, a = self.bs, self.a
        offs = [(self.t0 + 7) * bs + 9, (self.t0 + a * a + 3) * bs,
                (self.t0 + a * a + a + 1) * bs - 50]
        for i, off in enumerate(offs):
            self.pwrite("tind", off, data(50 + i, 100))

        def back():
            fd = os.open(self.path("tind"), os.O_RDONLY)
            try:
                h = hashlib.sha256()
                for off in offs:
                    h.update(os.pread(fd, 100, off))
                print("tind read back: %s" % h.hexdigest()[:16])
            finally:
                os.close(fd)
        back()
        self.trunc("tind", (self.t0 + a * a + 1) * bs)
        self.trunc("tind", self.t0 * bs + 1)
        self.trunc("tind", (self.d0 + 1) * bs)
        self.pwrite("tind", 3, b"x")

    def trunc_steps(self):
        bs, a = self.bs, self.a
        self.pwrite("trunc", 0, data(6, (self.d0 + a + 20) * bs + 55))
        for size in [(self.d0 + a + 3) * bs + 1, (self.d0 + a) * bs,
                     self.d0 * bs + 1, self.d0 * bs,
                     self.d0 * bs - 1, 12 * bs + 1, 12 * bs,
                     (self.d0 + 5) * bs + 7]:
            self.trunc("trunc", size)
        self.pwrite("trunc", self.d0 * bs + 3, b"y")
        self.pwrite("trunc", 13 * bs - 1, b"zz")
        self.trunc("trunc", 5)
        self.trunc("trunc", 3 * bs)
        self.pwrite("trunc", 13 * bs, data(7, bs + 1))

    def hole(self):
        bs = self.bs
        self.pwrite("hole", 0, b"first")
        self.pwrite("hole", (self.d0 - 1) * bs, data(8, bs))
        self.trunc("hole", 15 * bs)
        self.pwrite("hole", (self.d0 + 2) * bs, data(9, 10))
        self.trunc("hole", (self.d0 + 1) * bs)
        self.trunc("hole", 12 * bs)

    def punch(self):
        bs, a = self.bs, self.a
        def falloc(name, mode, off, n, label):
            self.fd_step(name, "fallocate %s %d+%d" % (label, off, n),
                         os.O_WRONLY, lambda fd: fallocate(fd, mode, off, n))

        self.pwrite("punch", 0, data(10, (self.d0 + 2 * a + 10) * bs + 9))
        for off, n in [(13 * bs + 100, 7 * bs), (12 * bs, a * bs),
                       ((self.d0 - 2) * bs + 1, 4 * bs),
                       (self.d0 * bs, a * bs), (bs, 11 * bs),
                       ((self.d0 + a + 5) * bs + 3, 10 * bs),
                       ((self.d0 + 2 * a) * bs, 20 * bs)]:
            falloc("punch", 3, off, n, "punch|keep")
        # past the end: ext4 ends the range at the page holding the end
        # (an indirect block it covers only in part stays)
        page = os.sysconf("SC_PAGE_SIZE")
        for i, size in enumerate([(self.d0 + a) * bs - page,
                                   (self.d0 + a) * bs - page + 1]):
            name = "edge%d" % i
            self.pwrite(name, 0, data(16 + i, size))
            falloc(name, 3, self.d0 * bs, 1 << 30, "punch|keep")
        self.pwrite("falloc", 0, data(11, 20 * bs + 3))
        for mode, label in [(0, "0"), (1, "keep"), (16, "zero"),
                            (17, "zero|keep")]:
            falloc("falloc", mode, 5 * bs, 20 * bs, label)
            falloc("falloc", mode, 30 * bs, 20 * bs, label)

    def max_size(self):
        bs, a = self.bs, self.a
        bits = bs.bit_length() - 1
        # the kernel's s_bitmap_maxbytes without huge_file: the blocks
        # the tree addresses, or as many as i_blocks (2^32-1 sectors)
        # counts less the indirect blocks they need
        tree = 12 + a + a * a + a * a * a
        cap = ((1 << 32) - 1) >> (bits - 9)
        if tree + 1 + (1 + a) + (1 + a + a * a) <= cap:
            blocks = tree
        else:
            n = cap - 12 - a
            meta = 1
            if n < a * a:
                meta += 1 + -(-n // a)
            else:
                meta += 1 + a
                n -= a * a
                meta += 1 + -(-n // a) + -(-n // (a * a))
            blocks = cap - meta
        top = blocks * bs
        self.pwrite("max", top - 1, b"m", "write at the largest size - 1")
        self.pwrite("max", top, b"m", "write at the largest size")
        self.pwrite("max", top - 1 - bs, b"m",
                    "write at the largest size - 1 - BS")
        self.say("max", "truncate to the largest size",
                 lambda: os.truncate(self.path("max"), top))
        self.say("max", "truncate past the largest size",
                 lambda: os.truncate(self.path("max"), top + 1))
        self.trunc("max", 1)
        os.unlink(self.path("max"))

    def gone(self):
        bs, a = self.bs, self.a
        self.pwrite("big", 0, data(12, (self.d0 + 3 * a) * bs + 1))
        self.say("big", "unlink", lambda: os.unlink(self.path("big")))
        fd = os.open(self.path("open"), os.O_RDWR | os.O_CREAT, 0o644)
        os.write(fd, data(13, (self.d0 + a) * bs))
        os.unlink(self.path("open"))
        os.pwrite(fd, data(14, bs), (self.d0 + 2 * a) * bs + 7)
        st = os.fstat(fd)
        print("open unlinked: size %d blocks %d links %d" %
              (st.st_size, st.st_blocks, st.st_nlink))
        os.close(fd)
        self.pwrite("after", 0, data(15, (self.d0 + 4 * a) * bs + 3))

    def run(self):
        self.seq()
        self.unal()
        self.over()
        self.app()
        self.sparse()
        self.tind()
        self.trunc_steps()
        self.hole()
        self.punch()
        self.max_size()
        self.gone()


def tree(root):
    for name in sorted(os.listdir(root)):
        p = os.path.join(root, name)
        if name == "lost+found":
            continue
        st = os.stat(p)
        h = hashlib.sha256()
        with open(p, "rb") as f:
            while True:
                b = f.read(MIB)
                if not b:
                    break
                h.update(b)
        print("%s size %d blocks %d %s" % (name, st.st_size, st.st_blocks,
                                           h.hexdigest()))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "run":
        Steps(sys.argv[2], int(sys.argv[3])).run()
    elif len(sys.argv) == 3 and sys.argv[1] == "tree":
        tree(sys.argv[2])
    else:
        sys.exit("usage: indirect_ops.py run DIR BS | tree DIR")


main()
