"""file_steps.py --- what the step scripts comparing a mount with the
kernel's ext4 share (indirect_ops.py, bigalloc_ops.py): each step run on
a file, its answer (ok or the errno's name) and the file's size and
st_blocks after it printed on one line."""
import ctypes
import errno
import os
import random

FALLOC_KEEP = 1         # linux/falloc.h
FALLOC_PUNCH = 2
FALLOC_ZERO = 16
_libc = ctypes.CDLL(None, use_errno=True)
_libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64,
                            ctypes.c_int64]


def answer(fn):
    try:
        fn()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))


def data(seed, n):
    return random.Random(seed).randbytes(n)


def fallocate(fd, mode, off, n):
    """fallocate(2) with its modes (os.posix_fallocate has none)"""
    if _libc.fallocate(fd, mode, off, n) < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


class FileSteps:
    fsync = False       # a step on a descriptor ends in an fsync of it

    def __init__(self, root):
        self.root = root

    def path(self, name):
        return os.path.join(self.root, name)

    def after(self):
        """more to say after each step's line (", ...")"""
        return ""

    def say(self, name, step, fn):
        res = answer(fn)
        try:
            st = os.stat(self.path(name))
            what = "size %d blocks %d" % (st.st_size, st.st_blocks)
        except OSError as e:
            what = errno.errorcode.get(e.errno, str(e.errno))
        print("%s %s: %s, %s%s" % (name, step, res, what, self.after()))

    def fd_step(self, name, step, flags, fn):
        """fn(fd) on name opened with flags, the answer said."""
        def call():
            fd = os.open(self.path(name), flags, 0o644)
            try:
                fn(fd)
                if self.fsync:
                    os.fsync(fd)
            finally:
                os.close(fd)
        self.say(name, step, call)

    def pwrite(self, name, off, buf, step=None):
        def fn(fd):
            done = 0
            while done < len(buf):
                done += os.pwrite(fd, buf[done:], off + done)
        self.fd_step(name, step or "write %d+%d" % (off, len(buf)),
                     os.O_WRONLY | os.O_CREAT, fn)

    def trunc(self, name, size):
        self.say(name, "truncate %d" % size,
                 lambda: os.truncate(self.path(name), size))
