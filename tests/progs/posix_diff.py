#!/usr/bin/env python3
"""posix_diff.py --- the same system calls on any mounted tree, for
comparing a mount with the kernel's ext4 (tests/u_posix_*).

  posix_diff.py calls DIR          the scripted calls (every errno case
                                   POSIX lists for the calls below, and
                                   the kernel's access control)
  posix_diff.py random DIR SEED N  N seeded random calls by several
                                   processes taking turns
  posix_diff.py limits DIR         EMLINK at 65000 links, a preallocated
                                   file written all over, a full inode
                                   table and a full file system
  posix_diff.py inline DIR         lseek, copy_file_range and flags on
                                   files the kernel left inline
  posix_diff.py times DIR          what each kind of call changes of
                                   the times; times set at the format's
                                   limits, read back
  posix_diff.py formats DIR        a compact set for the format matrix
                                   (tests/u_mount_formats)
  posix_diff.py tree DIR           the final tree: path, type, mode,
                                   owner, links, size, sha256, link
                                   target, every xattr's value

Each call is made by a worker process with its own credentials (root, or
a user with its uid, gid and supplementary groups set by setgroups,
setresgid and setresuid); the workers take turns, so the order of calls
is the script's.  One line per call: its number, label, who made it,
what it was, and its result (ok, ok with a value, or the errno's name),
then in brackets which times it changed on the inodes it named (class
Times below).  Nothing in a line depends on inode numbers, times of day
or readdir order, so two runs compare line by line.
"""
import ctypes
import errno
import fcntl
import hashlib
import os
import pickle
import random
import stat
import struct
import sys
import time

# ---------------------------------------------------------------------
# Who makes the calls

USERS = {
    "root": (0, 0, [0]),
    "alice": (1001, 1001, [1001, 3000]),
    "bob": (1002, 1002, [1002]),
    "carol": (1003, 3000, [3000, 1001]),
}

libc = ctypes.CDLL(None, use_errno=True)


class Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


UTIME_NOW = (1 << 30) - 1
UTIME_OMIT = (1 << 30) - 2
AT_FDCWD = -100
AT_SYMLINK_NOFOLLOW = 0x100
AT_SYMLINK_FOLLOW = 0x400
AT_EMPTY_PATH = 0x1000
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
SYS_renameat2 = 316
FALLOC = {"keep": 1, "punch": 2, "collapse": 8, "zero": 16, "insert": 32}

# the inode flags as chattr(1) spells them (linux/fs.h values)
IFLAGS = [("s", 0x1), ("u", 0x2), ("c", 0x4), ("S", 0x8), ("i", 0x10),
          ("a", 0x20), ("d", 0x40), ("A", 0x80), ("m", 0x400),
          ("E", 0x800), ("I", 0x1000), ("j", 0x4000), ("t", 0x8000),
          ("D", 0x10000), ("T", 0x20000), ("e", 0x80000), ("V", 0x100000),
          ("C", 0x800000), ("x", 0x2000000), ("N", 0x10000000),
          ("P", 0x20000000), ("F", 0x40000000)]
FS_IOC_GETFLAGS = 0x80086601
FS_IOC_SETFLAGS = 0x40086602
FS_IOC_GETVERSION = 0x80087601
FS_IOC_FSGETXATTR = 0x801c581f

FLAGS = {n: getattr(os, n) for n in (
    "O_RDONLY", "O_WRONLY", "O_RDWR", "O_CREAT", "O_EXCL", "O_TRUNC",
    "O_APPEND", "O_DIRECTORY", "O_NOFOLLOW", "O_NONBLOCK", "O_NOATIME",
    "O_PATH", "O_NOCTTY", "O_SYNC")}
FLAGS["O_TMPFILE"] = getattr(os, "O_TMPFILE", 0o20200000)


def cerr(ret):
    if ret < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return ret


def acl_bytes(text):
    """'u::rw-,u:1002:r--,g::r-x,m::rwx,o::---' as the xattr form of a
    POSIX ACL (version 2; tag le16, perm le16, id le32)."""
    tags = {"u": 1, "g": 4, "m": 0x10, "o": 0x20}
    ents = []
    for e in text.split(","):
        kind, qual, perm = e.split(":")
        bits = sum(b for b, c in zip((4, 2, 1), perm) if c != "-")
        if qual:
            tag, ident = (2 if kind == "u" else 8), int(qual)
        else:
            tag, ident = tags[kind], 0xffffffff
        ents.append((tag, ident, bits))
    ents.sort()
    return struct.pack("<I", 2) + b"".join(
        struct.pack("<HHI", t, b, i) for t, i, b in ents)


def acl_text(v):
    """The xattr form back as text (what getfacl would show)."""
    if len(v) < 4 or (len(v) - 4) % 8:
        return "raw:" + v.hex()
    names = {1: "u:", 2: "u:%d", 4: "g:", 8: "g:%d", 0x10: "m:", 0x20: "o:"}
    out = []
    for off in range(4, len(v), 8):
        tag, perm, ident = struct.unpack_from("<HHI", v, off)
        who = names.get(tag, "?%d:" % tag)
        if "%d" in who:
            who = who % ident
        out.append("%s:%s" % (who, "".join(
            c if perm & b else "-" for c, b in zip("rwx", (4, 2, 1)))))
    return ",".join(out)


def fmt_stat(st):
    kind = {stat.S_IFREG: "reg", stat.S_IFDIR: "dir", stat.S_IFLNK: "lnk",
            stat.S_IFIFO: "fifo", stat.S_IFCHR: "chr", stat.S_IFBLK: "blk",
            stat.S_IFSOCK: "sock"}.get(stat.S_IFMT(st.st_mode), "?")
    s = "%s %04o %d:%d n%d" % (kind, stat.S_IMODE(st.st_mode), st.st_uid,
                               st.st_gid, st.st_nlink)
    if kind in ("reg", "lnk"):
        s += " s%d" % st.st_size
    if kind in ("chr", "blk"):
        s += " rdev%d:%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
    return s


def xval(v):
    try:
        t = v.decode()
        if t.isprintable() and len(t) <= 40:
            return repr(t)
    except UnicodeDecodeError:
        pass
    if len(v) > 40:
        return "%dB:%s" % (len(v), hashlib.sha256(v).hexdigest()[:16])
    return v.hex()


# ---------------------------------------------------------------------
# The worker: one process per user, answering one call at a time

class Worker:
    def __init__(self, base):
        self.base = base
        self.fds = {}
        self.marks = {}

    def p(self, path):
        if path is None or path == "":
            return ""
        if path.startswith("/"):
            return path
        return os.path.join(self.base, path) if path != "." else self.base

    # -- the calls; each returns None (ok) or a value to print
    def umask(self, m):
        os.umask(m)

    def open(self, path, flags, mode=0o644, label=None):
        fl = 0
        for f in flags.split("|"):
            fl |= FLAGS[f]
        fd = os.open(self.p(path), fl, mode)
        if label:
            self.fds[label] = fd
        else:
            os.close(fd)

    def fd(self, label):
        if label not in self.fds:	# its open failed
            raise OSError(errno.EBADF, "no such fd")
        return self.fds[label]

    def close(self, label):
        os.close(self.fd(label))
        del self.fds[label]

    def write(self, label, data, offset=None):
        if isinstance(data, int):
            data = bytes((i * 7 + 3) & 0xff for i in range(data))
        fd = self.fd(label)
        n = os.write(fd, data) if offset is None else \
            os.pwrite(fd, data, offset)
        return n

    def read(self, label, n, offset=0):
        v = os.pread(self.fd(label), n, offset)
        return "%d %s" % (len(v), hashlib.sha256(v).hexdigest()[:16])

    def fstat(self, label):
        return fmt_stat(os.fstat(self.fd(label)))

    def fsync(self, label):
        os.fsync(self.fd(label))

    def ftruncate(self, label, size):
        os.ftruncate(self.fd(label), size)

    def fchmod(self, label, mode):
        os.fchmod(self.fd(label), mode)

    def fchown(self, label, uid, gid):
        os.fchown(self.fd(label), uid, gid)

    def fallocate(self, label, mode, off, length):
        m = 0
        for f in mode.split("|") if mode else []:
            m |= FALLOC[f]
        libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int,
                                   ctypes.c_long, ctypes.c_long]
        cerr(libc.fallocate(self.fd(label), m, off, length))
        st = os.fstat(self.fd(label))
        return "s%d" % st.st_size

    def lseek(self, label, off, whence):
        """SEEK_DATA ("data") or SEEK_HOLE ("hole") from off"""
        return os.lseek(self.fd(label), off, {"data": os.SEEK_DATA,
                                              "hole": os.SEEK_HOLE}[whence])

    def copy_file_range(self, lin, lout, n, off_in=None, off_out=None,
                        flags=0):
        """copy_file_range(2); returns the count, and the offsets the
        call moved (the fds' own when off_in/off_out are None)"""
        f = libc.copy_file_range
        f.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                      ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint]
        f.restype = ctypes.c_ssize_t
        oi = None if off_in is None else ctypes.c_longlong(off_in)
        oo = None if off_out is None else ctypes.c_longlong(off_out)
        n = cerr(f(self.fd(lin), None if oi is None else ctypes.byref(oi),
                   self.fd(lout), None if oo is None else ctypes.byref(oo),
                   n, flags))
        pos = [o.value if o is not None else
               os.lseek(self.fd(l), 0, os.SEEK_CUR)
               for o, l in ((oi, lin), (oo, lout))]
        return "%d in@%d out@%d" % (n, pos[0], pos[1])

    def ioctl_get(self, path, req, size):
        """The size bytes a reading ioctl req fills in, on path"""
        fd = os.open(self.p(path), os.O_RDONLY | os.O_NONBLOCK)
        try:
            buf = bytearray(size)
            fcntl.ioctl(fd, req, buf, True)
        finally:
            os.close(fd)
        return buf

    def getflags(self, path):
        """FS_IOC_GETFLAGS (lsattr): chattr's letters, and the rest in
        hex"""
        v = struct.unpack_from("<I", self.ioctl_get(path, FS_IOC_GETFLAGS,
                                                    8))[0]
        s = "".join(c for c, b in IFLAGS if v & b)
        rest = v & ~sum(b for _, b in IFLAGS)
        return (s or "-") + (" 0x%x" % rest if rest else "")

    def setflags(self, path, spec):
        """FS_IOC_SETFLAGS (chattr): "+ia", "-i", "=e" (letters)"""
        fd = os.open(self.p(path), os.O_RDONLY | os.O_NONBLOCK)
        try:
            buf = bytearray(8)
            fcntl.ioctl(fd, FS_IOC_GETFLAGS, buf, True)
            v = struct.unpack_from("<I", buf)[0]
            bits = sum(b for c, b in IFLAGS if c in spec[1:])
            v = {"+": v | bits, "-": v & ~bits, "=": bits}[spec[0]]
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, struct.pack("<Q", v))
        finally:
            os.close(fd)

    def getversion(self, path):
        """FS_IOC_GETVERSION (lsattr -v): answered (the number is random)"""
        self.ioctl_get(path, FS_IOC_GETVERSION, 8)

    def fsgetxattr(self, path):
        """FS_IOC_FSGETXATTR (lsattr -p): xflags, extsize, nextents,
        projid"""
        return "x%x e%d n%d p%d" % struct.unpack_from(
            "<IIII", self.ioctl_get(path, FS_IOC_FSGETXATTR, 28))

    def blocks(self, path):
        """allocated size in KiB (st_blocks / 2)"""
        return "%dK" % (os.lstat(self.p(path)).st_blocks // 2)

    def cat(self, path):
        fd = os.open(self.p(path), os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as f:
            v = f.read()
        return "%d %s" % (len(v), hashlib.sha256(v).hexdigest()[:16])

    def creat(self, path, mode=0o644):
        os.close(os.open(self.p(path), os.O_CREAT | os.O_WRONLY |
                         os.O_TRUNC, mode))

    def mkdir(self, path, mode=0o755):
        os.mkdir(self.p(path), mode)

    def rmdir(self, path):
        os.rmdir(self.p(path))

    def unlink(self, path):
        os.unlink(self.p(path))

    def rename(self, a, b):
        os.rename(self.p(a), self.p(b))

    def renameat2(self, a, b, flags):
        fl = {"noreplace": RENAME_NOREPLACE, "exchange": RENAME_EXCHANGE}[
            flags]
        cerr(libc.syscall(SYS_renameat2, AT_FDCWD, self.p(a).encode(),
                          AT_FDCWD, self.p(b).encode(), fl))

    def link(self, a, b, follow=False):
        os.link(self.p(a), self.p(b), follow_symlinks=follow)

    def symlink(self, target, path):
        os.symlink(target, self.p(path))

    def readlink(self, path, size=None):
        if size is None:
            return os.readlink(self.p(path))
        buf = ctypes.create_string_buffer(size)
        n = cerr(libc.readlink(self.p(path).encode(), buf, size))
        return buf.raw[:n].decode()

    def chmod(self, path, mode):
        os.chmod(self.p(path), mode)

    def chown(self, path, uid, gid):
        os.chown(self.p(path), uid, gid)

    def lchown(self, path, uid, gid):
        os.lchown(self.p(path), uid, gid)

    def truncate(self, path, size):
        os.truncate(self.p(path), size)

    def utimensat(self, path, at, mt, nofollow=False, fdlabel=None):
        def ts(x):
            if x == "now":
                return Timespec(0, UTIME_NOW)
            if x == "omit":
                return Timespec(0, UTIME_OMIT)
            return Timespec(x[0], x[1])
        times = None if at is None else (Timespec * 2)(ts(at), ts(mt))
        if fdlabel:
            cerr(libc.utimensat(self.fd(fdlabel), None, times, 0))
        else:
            cerr(libc.utimensat(AT_FDCWD, self.p(path).encode(), times,
                                AT_SYMLINK_NOFOLLOW if nofollow else 0))

    def times(self, path, nofollow=True):
        st = os.stat(self.p(path), follow_symlinks=not nofollow)
        now = time.time_ns()

        def one(ns):
            if abs(now - ns) < 600 * 10**9:
                return "recent"
            return "%d.%09d" % (ns // 10**9, ns % 10**9)
        return "a=%s m=%s" % (one(st.st_atime_ns), one(st.st_mtime_ns))

    def mark_ctime(self, path, name):
        self.marks[name] = os.lstat(self.p(path)).st_ctime_ns

    def ctime_changed(self, path, name):
        return "changed" if os.lstat(self.p(path)).st_ctime_ns != \
            self.marks[name] else "same"

    def mknod(self, path, mode, major=0, minor=0):
        os.mknod(self.p(path), mode, os.makedev(major, minor))

    def mkfifo(self, path, mode=0o644):
        os.mkfifo(self.p(path), mode)

    def stat(self, path):
        return fmt_stat(os.stat(self.p(path)))

    def lstat(self, path):
        return fmt_stat(os.lstat(self.p(path)))

    def access(self, path, mode):
        cerr(libc.access(self.p(path).encode(), mode))

    def listdir(self, path):
        return " ".join(sorted(os.listdir(self.p(path))))

    def chdir_ls(self, path):
        """search permission: stat of an entry through the directory"""
        return " ".join(sorted(os.listdir(self.p(path))))

    def setxattr(self, path, name, value, flags=0, nofollow=False):
        if isinstance(value, str):
            value = value.encode()
        os.setxattr(self.p(path), name, value, flags,
                    follow_symlinks=not nofollow)

    def getxattr(self, path, name, nofollow=False):
        v = os.getxattr(self.p(path), name, follow_symlinks=not nofollow)
        if name.startswith("system.posix_acl"):
            return acl_text(v)
        return xval(v)

    def listxattr(self, path, nofollow=False):
        return " ".join(sorted(os.listxattr(self.p(path),
                                            follow_symlinks=not nofollow)))

    def removexattr(self, path, name):
        os.removexattr(self.p(path), name)

    def setfacl(self, path, text, default=False):
        name = "system.posix_acl_default" if default else \
            "system.posix_acl_access"
        os.setxattr(self.p(path), name, acl_bytes(text) if text else b"")

    def statfs(self, path):
        s = os.statvfs(self.p(path))
        return "bsize=%d frsize=%d namemax=%d files=%d" % (
            s.f_bsize, s.f_frsize, s.f_namemax, s.f_files)

    def statfs_mark(self, path):
        s = os.statvfs(self.p(path))
        self.marks["statfs"] = (s.f_bfree, s.f_ffree, s.f_bavail)

    def statfs_delta(self, path):
        s = os.statvfs(self.p(path))
        b, f, a = self.marks["statfs"]
        return "bfree%+d ffree%+d bavail%+d" % (s.f_bfree - b,
                                                s.f_ffree - f,
                                                s.f_bavail - a)

    # -- bigger steps
    def manylinks(self, src, prefix, n, per_dir=1000):
        """n links to src in directories of per_dir entries; the errno
        of the first link that fails, and how many were made"""
        made = 0
        for i in range(n):
            d = "%s%d" % (prefix, i // per_dir)
            if i % per_dir == 0:
                os.mkdir(self.p(d))
            try:
                os.link(self.p(src), self.p("%s/%d" % (d, i)))
            except OSError as e:
                return "%d made, then %s" % (made, errno.errorcode[e.errno])
            made += 1
        return "%d made" % made

    def prealloc(self, path, blocks, seed, fallocate=True):
        """a file preallocated (fallocate) and then written all over, 4 KiB
        at a time in seeded random order; its content read back"""
        rng = random.Random(seed)
        fd = os.open(self.p(path), os.O_CREAT | os.O_RDWR, 0o644)
        try:
            if fallocate:
                os.posix_fallocate(fd, 0, blocks * 4096)
            order = list(range(blocks))
            rng.shuffle(order)
            for b in order:
                os.pwrite(fd, struct.pack("<I", b) * 1024, b * 4096)
            os.fsync(fd)
            h = hashlib.sha256()
            for b in range(blocks):
                h.update(os.pread(fd, 4096, b * 4096))
        finally:
            os.close(fd)
        return h.hexdigest()[:16]

    def rmtree(self, path):
        top = self.p(path)
        for d, dirs, files in os.walk(top, topdown=False):
            for n in files:
                os.unlink(os.path.join(d, n))
            for n in dirs:
                full = os.path.join(d, n)
                if os.path.islink(full):
                    os.unlink(full)
                else:
                    os.rmdir(full)
        os.rmdir(top)

    def fill_inodes(self, dirpath, limit):
        """files until creation fails: how it failed"""
        for i in range(limit):
            try:
                os.close(os.open(self.p("%s/%d" % (dirpath, i)),
                                 os.O_CREAT | os.O_WRONLY, 0o644))
            except OSError as e:
                return "%d made, then %s" % (i, errno.errorcode[e.errno])
        return "no failure in %d" % limit

    def fill_blocks(self, path, chunk):
        """write until the fs is full: how it failed (the amount differs
        with allocation policy, so is not printed)"""
        fd = os.open(self.p(path), os.O_CREAT | os.O_WRONLY, 0o644)
        data = b"\xa5" * chunk
        try:
            while True:
                os.write(fd, data)
        except OSError as e:
            res = "failed with %s" % errno.errorcode[e.errno]
        try:
            os.fsync(fd)
        except OSError as e:
            res += ", fsync %s" % errno.errorcode[e.errno]
        os.close(fd)
        return res


def worker_main(user, base, rfd, wfd):
    uid, gid, groups = USERS[user]
    if uid:
        os.setgroups(groups)
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    os.umask(0o022)
    w = Worker(base)
    rf = os.fdopen(rfd, "rb")
    wf = os.fdopen(wfd, "wb")
    while True:
        try:
            call = pickle.load(rf)
        except EOFError:
            break
        op, args = call[0], call[1:]
        try:
            v = getattr(w, op)(*args)
            res = "ok" if v is None else "ok %s" % (v,)
        except OSError as e:
            res = errno.errorcode.get(e.errno, str(e.errno))
        except Exception as e:	# a bug in the script: say it
            res = "SCRIPT-ERROR %s: %s" % (type(e).__name__, e)
        pickle.dump(res, wf)
        wf.flush()
    os._exit(0)


class Team:
    def __init__(self, base, users):
        self.w = {}
        for u in users:
            r1, w1 = os.pipe()
            r2, w2 = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(w1)
                os.close(r2)
                for _, wf, rf in self.w.values():	# the others' pipes
                    wf.close()
                    rf.close()
                worker_main(u, base, r1, w2)
            os.close(r1)
            os.close(w2)
            self.w[u] = (pid, os.fdopen(w1, "wb"), os.fdopen(r2, "rb"))
        self.n = 0

    def call(self, user, *call):
        _, wf, rf = self.w[user]
        pickle.dump(call, wf)
        wf.flush()
        return pickle.load(rf)

    def close(self):
        for pid, wf, rf in self.w.values():
            wf.close()
            rf.close()
            os.waitpid(pid, 0)


MODE_ARG = {"chmod": 1, "fchmod": 1, "mkdir": 1, "creat": 1, "mkfifo": 1,
            "mknod": 1, "open": 2, "umask": 0}


def show(op, args):
    out = []
    for i, a in enumerate(args):
        if isinstance(a, (bytes, str)) and len(a) > 40:
            out.append("<%d%s %s>" % (len(a), "B" if isinstance(a, bytes)
                                      else "C", repr(a[:4])))
        elif isinstance(a, int) and MODE_ARG.get(op) == i:
            out.append("0%o" % a)
        else:
            out.append(repr(a))
    return ",".join(out)


# ---------------------------------------------------------------------
# Times: what a call changed
#
# Around every call the driver (root) holds an O_PATH descriptor to each
# inode the call names (path arguments, not following a last symlink, and
# what the symlink leads to; the file behind a descriptor label) and to
# each one's parent directory, and to what is at those paths after the
# call; it stats them before and after.  Per inode: which of atime, mtime
# and ctime the call changed, written by value ("m=c": both changed, to
# one value; "a<m=c": three, atime the earliest); "new" for an inode that
# was not there before.  Values themselves (times of day) are not
# compared, but where a call sets them ("times").  The kernel's FUSE
# client marks its inodes S_NOATIME and serves reads, readdir and
# (cached) symlinks from its caches without asking the server, so no
# FUSE server can follow ext4's relatime on reads: atime is compared for
# every call but those that only read (READ_OPS) and never on symlinks.
# POSIX_TIMES=values: no changes compared, only times read back (on
# 128-byte inodes ext4 keeps whole seconds, so whether a call changed a
# time depends on when in the second it came: the kernel's and ours
# cannot be compared call by call).

# the arguments that are paths; that are descriptor labels
PATH_ARGS = {"open": (0,), "creat": (0,), "mkdir": (0,), "rmdir": (0,),
             "unlink": (0,), "rename": (0, 1), "renameat2": (0, 1),
             "link": (0, 1), "symlink": (1,), "readlink": (0,),
             "chmod": (0,), "chown": (0,), "lchown": (0,), "truncate": (0,),
             "utimensat": (0,), "mknod": (0,), "mkfifo": (0,),
             "setxattr": (0,), "getxattr": (0,), "listxattr": (0,),
             "removexattr": (0,), "setfacl": (0,), "listdir": (0,),
             "chdir_ls": (0,), "cat": (0,), "stat": (0,), "lstat": (0,),
             "access": (0,), "getflags": (0,), "setflags": (0,),
             "getversion": (0,), "fsgetxattr": (0,), "blocks": (0,),
             "prealloc": (0,), "fill_blocks": (0,), "fill_inodes": (0,),
             "rmtree": (0,), "manylinks": (0,)}
FD_ARGS = {"close": (0,), "write": (0,), "read": (0,), "fstat": (0,),
           "fsync": (0,), "ftruncate": (0,), "fchmod": (0,), "fchown": (0,),
           "fallocate": (0,), "lseek": (0,), "copy_file_range": (0, 1),
           "utimensat": (4,)}
READ_OPS = {"read", "cat", "listdir", "chdir_ls", "readlink",
            "copy_file_range", "prealloc", "rmtree"}
# calls of many changes: the kernel's times of one coarse clock tick may
# be equal or not, so only what changed is compared, not the order
MANY_OPS = {"rmtree", "manylinks", "fill_inodes", "fill_blocks",
            "prealloc"}


class Times:
    def __init__(self, base):
        self.base = base
        self.fdpath = {}	# (user, label): O_PATH descriptor

    def opath(self, path, follow=False):
        try:
            return os.open(path, os.O_PATH | (0 if follow else
                                              os.O_NOFOLLOW))
        except (OSError, ValueError):
            return None

    def targets(self, user, call):
        """(role, path or None, follow, descriptor or None)"""
        op, args = call[0], call[1:]
        out = []
        for i in PATH_ARGS.get(op, ()):
            if i >= len(args) or not isinstance(args[i], str) or \
                    not args[i] or args[i].startswith("/"):
                continue
            p = os.path.join(self.base, args[i])
            out.append((str(i), p, False, None))
            out.append((str(i) + ">", p, True, None))
            out.append((str(i) + "/..", os.path.dirname(p.rstrip("/")),
                        True, None))
        for i in FD_ARGS.get(op, ()):
            if i < len(args) and (user, args[i]) in self.fdpath:
                out.append(("fd" + str(i), None, False,
                            self.fdpath[(user, args[i])]))
        return out

    def before(self, user, call):
        held = []
        for role, p, follow, fd in self.targets(user, call):
            if fd is None:
                fd = self.opath(p, follow)
                mine = True
            else:
                mine = False
            st = os.fstat(fd) if fd is not None else None
            held.append([role, p, follow, fd, mine, st])
        return held

    def after(self, user, call, held, res):
        op, args = call[0], call[1:]
        seen = set()
        out = []
        for role, p, follow, fd, mine, st in held:
            new = False
            if fd is None:	# a path made by the call
                fd = self.opath(p, follow) if p else None
                if fd is None:
                    continue
                mine, new = True, True
            now = os.fstat(fd)
            if mine:
                os.close(fd)
            key = (now.st_dev, now.st_ino)
            if key in seen or (new and role.endswith("/..")):
                continue
            seen.add(key)
            out.append(role + ":" + self.changes(op, st, now, new))
        if op == "open" and res == "ok" and len(args) > 3 and args[3]:
            fd = self.opath(os.path.join(self.base, args[0]), True)
            if fd is not None:
                self.fdpath[(user, args[3])] = fd
        if op == "close" and (user, args[0]) in self.fdpath:
            os.close(self.fdpath.pop((user, args[0])))
        return " ".join(out)

    @staticmethod
    def changes(op, st, now, new):
        names = ["a", "m", "c"]
        v = {"a": now.st_atime_ns, "m": now.st_mtime_ns,
             "c": now.st_ctime_ns}
        if stat.S_ISLNK(now.st_mode) or (op in READ_OPS and not new):
            names.remove("a")
        if not new:
            old = {"a": st.st_atime_ns, "m": st.st_mtime_ns,
                   "c": st.st_ctime_ns}
            names = [n for n in names if v[n] != old[n]]
        if not names:
            return "-"
        if op in MANY_OPS:
            return "".join(names)
        names.sort(key=lambda n: v[n])
        s = names[0]
        for a, b in zip(names, names[1:]):
            s += ("=" if v[a] == v[b] else "<") + b
        return ("new " if new else "") + s


def run_list(base, calls, out):
    """POSIX_USERS (comma-separated): only those users' calls"""
    users = os.environ.get("POSIX_USERS")
    users = users.split(",") if users else sorted(USERS)
    calls = [x for x in calls if x[1] in users]
    team = Team(base, users)
    tm = Times(base) if os.environ.get("POSIX_TIMES") != "values" else None
    for i, (label, user, call) in enumerate(calls):
        held = tm.before(user, call) if tm else None
        res = team.call(user, *call)
        t = " [%s]" % tm.after(user, call, held, res) if tm else ""
        out.write("%d %s %s %s(%s): %s%s\n" % (
            i, label, user, call[0], show(call[0], call[1:]), res, t))
    team.close()


# ---------------------------------------------------------------------
# The scripted calls

def script():
    C = []
    sect = ["setup"]

    def c(user, op, *args):
        C.append((sect[0], user, (op,) + args))

    R, A, B, K = "root", "alice", "bob", "carol"
    L256 = "n" * 256

    def bad_paths(op, *rest, loop="ahome/loop1"):
        """alice's op on the paths it must refuse: ENOENT, ENOTDIR,
        ELOOP (loop: the symlink loop, or a name under it for calls
        that do not follow the last component), ENAMETOOLONG."""
        for p in ("ahome/missing", "ahome/a644/x", loop, "ahome/" + L256):
            c(A, op, p, *rest)
    # setup: directories of every kind
    c(R, "mkdir", "pub", 0o777); c(R, "chmod", "pub", 0o777)
    c(R, "mkdir", "sticky", 0o777); c(R, "chmod", "sticky", 0o1777)
    c(R, "mkdir", "sgid", 0o775); c(R, "chown", "sgid", 0, 3000)
    c(R, "chmod", "sgid", 0o2775)
    c(R, "mkdir", "grp", 0o770); c(R, "chown", "grp", 0, 3000)
    c(R, "mkdir", "ahome", 0o755); c(R, "chown", "ahome", 1001, 1001)
    c(R, "mkdir", "ahome/priv", 0o700); c(R, "chown", "ahome/priv", 1001, 1001)
    c(R, "mkdir", "ahome/noexec", 0o666); c(R, "chmod", "ahome/noexec", 0o666)
    c(R, "chown", "ahome/noexec", 1001, 1001)
    c(R, "mkdir", "ahome/ro", 0o555); c(R, "chown", "ahome/ro", 1001, 1001)
    c(R, "creat", "ahome/ro/f", 0o644)
    c(R, "creat", "ahome/noexec/f", 0o644)
    c(R, "creat", "ahome/priv/f", 0o644)
    c(R, "mkdir", "bhome", 0o755); c(R, "chown", "bhome", 1002, 1002)
    c(R, "chmod", "grp", 0o770)
    c(A, "creat", "ahome/a600", 0o600)
    c(A, "creat", "ahome/a644", 0o644)
    c(A, "creat", "ahome/a664", 0o664); c(A, "chmod", "ahome/a664", 0o664)
    c(A, "creat", "ahome/a606", 0o606); c(A, "chmod", "ahome/a606", 0o606)
    c(A, "creat", "ahome/a060", 0o666); c(A, "chmod", "ahome/a060", 0o060)
    c(A, "creat", "ahome/a000", 0o000)
    c(A, "creat", "ahome/a755", 0o755)
    c(A, "mkdir", "ahome/sub", 0o755)
    c(A, "creat", "ahome/sub/x", 0o644)
    c(A, "symlink", "a644", "ahome/sl")
    c(A, "symlink", "nowhere", "ahome/dangling")
    c(A, "symlink", "loop2", "ahome/loop1")
    c(A, "symlink", "loop1", "ahome/loop2")

    sect[0] = "open"
    c(A, "open", "ahome/a600", "O_RDWR")
    c(B, "open", "ahome/a600", "O_RDONLY")          # EACCES
    c(B, "open", "ahome/a644", "O_RDONLY")
    c(B, "open", "ahome/a644", "O_WRONLY")          # EACCES
    c(B, "open", "ahome/a606", "O_RDWR")
    c(B, "open", "ahome/a664", "O_WRONLY")          # EACCES
    c(K, "open", "ahome/a664", "O_WRONLY")          # group via supplementary
    c(K, "open", "ahome/a060", "O_RDWR")            # group: 1001 supplementary
    c(A, "open", "ahome/a060", "O_RDONLY")          # owner class: EACCES
    c(B, "open", "ahome/a060", "O_RDONLY")          # other: EACCES
    c(R, "open", "ahome/a000", "O_RDWR")            # root overrides
    c(A, "open", "ahome/a000", "O_RDONLY")
    c(B, "open", "ahome/priv/f", "O_RDONLY")        # search: EACCES
    c(A, "open", "ahome/noexec/f", "O_RDONLY")      # no x on dir
    c(R, "open", "ahome/noexec/f", "O_RDONLY")
    c(A, "open", "ahome/ro/new", "O_WRONLY|O_CREAT", 0o644)  # EACCES
    c(R, "open", "ahome/ro/new", "O_WRONLY|O_CREAT", 0o644)
    c(A, "open", "ahome/a644", "O_WRONLY|O_CREAT|O_EXCL", 0o644)  # EEXIST
    c(A, "open", "ahome/sl", "O_WRONLY|O_CREAT|O_EXCL", 0o644)    # EEXIST
    c(A, "open", "ahome/dangling", "O_WRONLY|O_CREAT|O_EXCL")     # EEXIST
    c(A, "open", "ahome/dangling", "O_WRONLY|O_CREAT", 0o640)     # creates
    c(A, "lstat", "ahome/nowhere")
    c(A, "open", "ahome/sub", "O_WRONLY")           # EISDIR
    c(A, "open", "ahome/sub", "O_RDWR")             # EISDIR
    c(A, "open", "ahome/sub", "O_RDONLY")
    c(A, "open", "ahome/sub", "O_RDONLY|O_CREAT")   # EISDIR
    c(A, "open", "ahome/loop1", "O_RDONLY")         # ELOOP
    c(A, "open", "ahome/sl", "O_RDONLY|O_NOFOLLOW") # ELOOP
    c(A, "open", "ahome/sl", "O_PATH|O_NOFOLLOW")
    c(A, "open", "ahome/" + L256, "O_RDONLY")       # ENAMETOOLONG
    c(A, "open", "ahome/" + L256, "O_WRONLY|O_CREAT")
    c(A, "open", "ahome/" + "d/" * 2100 + "x", "O_RDONLY")  # PATH_MAX
    c(A, "open", "ahome/missing", "O_RDONLY")       # ENOENT
    c(A, "open", "ahome/missing/x", "O_WRONLY|O_CREAT")  # ENOENT
    c(A, "open", "", "O_RDONLY")                    # ENOENT
    c(A, "open", "ahome/a644/x", "O_RDONLY")        # ENOTDIR
    c(A, "open", "ahome/a644/x", "O_WRONLY|O_CREAT")
    c(A, "open", "ahome/a644", "O_RDONLY|O_DIRECTORY")  # ENOTDIR
    c(A, "open", "ahome/sl/", "O_RDONLY")           # ENOTDIR
    c(A, "mkfifo", "ahome/fifo", 0o666)
    c(A, "open", "ahome/fifo", "O_WRONLY|O_NONBLOCK")   # ENXIO
    c(A, "open", "ahome/fifo", "O_RDONLY|O_NONBLOCK")
    c(B, "open", "ahome/a644", "O_RDONLY|O_NOATIME")    # EPERM
    c(A, "open", "ahome/a644", "O_RDONLY|O_NOATIME")
    c(R, "open", "ahome/a644", "O_RDONLY|O_NOATIME")
    c(B, "open", "ahome/a606", "O_WRONLY|O_TRUNC")
    c(B, "open", "ahome/a644", "O_RDONLY|O_TRUNC")      # EACCES
    c(A, "open", "ahome/sub", "O_RDONLY|O_TMPFILE", 0o600)  # EINVAL
    c(A, "open", "ahome/a644", "O_WRONLY|O_CREAT|O_DIRECTORY")  # EINVAL
    c(A, "open", "ahome", "O_WRONLY|O_TMPFILE", 0o600)
    c(A, "open", "ahome/newc", "O_WRONLY|O_CREAT|O_TRUNC", 0o4777)
    c(A, "stat", "ahome/newc")
    c(A, "umask", 0o077)
    c(A, "open", "ahome/umask077", "O_WRONLY|O_CREAT", 0o666)
    c(A, "stat", "ahome/umask077")
    c(A, "umask", 0)
    c(A, "open", "ahome/umask0", "O_WRONLY|O_CREAT", 0o666)
    c(A, "stat", "ahome/umask0")
    c(A, "umask", 0o022)
    # O_APPEND, O_TRUNC content
    c(A, "open", "ahome/data", "O_RDWR|O_CREAT", 0o644, "d")
    c(A, "write", "d", 5000)
    c(A, "write", "d", b"middle", 4000)
    c(A, "close", "d")
    c(A, "open", "ahome/data", "O_WRONLY|O_APPEND", 0, "d")
    c(A, "write", "d", b"tail", 0)
    c(A, "close", "d")
    c(A, "cat", "ahome/data")
    c(A, "open", "ahome/data2", "O_RDWR|O_CREAT", 0o644, "d")
    c(A, "write", "d", 70000)
    c(A, "close", "d")
    c(A, "open", "ahome/data2", "O_RDWR|O_TRUNC", 0o644)
    c(A, "stat", "ahome/data2")

    sect[0] = "mkdir"
    c(A, "mkdir", "ahome/d1", 0o777)
    c(A, "stat", "ahome/d1")
    c(A, "mkdir", "ahome/d1", 0o777)                 # EEXIST
    c(A, "mkdir", "ahome/sl", 0o777)                 # EEXIST
    c(A, "mkdir", "ahome/dangling2/x", 0o777)        # ENOENT
    c(A, "symlink", "nowhere2", "ahome/dangling2")
    c(A, "mkdir", "ahome/dangling2", 0o777)          # EEXIST
    c(B, "mkdir", "ahome/bdir", 0o777)               # EACCES
    c(A, "mkdir", "ahome/ro/d", 0o777)               # EACCES
    c(A, "mkdir", "ahome/noexec/d", 0o777)           # EACCES
    c(A, "mkdir", "ahome/loop1/d", 0o777)            # ELOOP
    c(A, "mkdir", "ahome/" + L256, 0o777)            # ENAMETOOLONG
    c(A, "mkdir", "ahome/missing/d", 0o777)          # ENOENT
    c(A, "mkdir", "ahome/a644/d", 0o777)             # ENOTDIR
    c(A, "mkdir", "", 0o777)                         # ENOENT
    c(A, "mkdir", "ahome/modes", 0o7777)
    c(A, "stat", "ahome/modes")
    c(A, "mkdir", "ahome/d1/d2/", 0o755)
    c(A, "stat", "ahome/d1")
    c(K, "mkdir", "grp/kd", 0o775)
    c(A, "mkdir", "grp/ad", 0o775)                   # supplementary group
    c(B, "mkdir", "grp/bd", 0o775)                   # EACCES
    c(A, "stat", "grp/ad")

    sect[0] = "sgid"
    c(A, "creat", "sgid/af", 0o2775)
    c(A, "stat", "sgid/af")
    c(B, "mkdir", "sgid/bd", 0o775)                 # EACCES (not group)
    c(K, "mkdir", "sgid/kd", 0o755)
    c(K, "stat", "sgid/kd")
    c(K, "mkdir", "sgid/kd/deeper", 0o700)
    c(K, "stat", "sgid/kd/deeper")
    c(K, "creat", "sgid/kf", 0o2755)
    c(K, "stat", "sgid/kf")
    c(K, "mknod", "sgid/kfifo", stat.S_IFIFO | 0o2666)
    c(K, "stat", "sgid/kfifo")
    c(K, "symlink", "kf", "sgid/ksym")
    c(K, "lstat", "sgid/ksym")
    c(R, "chmod", "pub", 0o2777)
    c(B, "creat", "pub/bf", 0o2775)                 # not in group 0
    c(B, "stat", "pub/bf")
    c(B, "mkdir", "pub/bd", 0o2775)
    c(B, "stat", "pub/bd")
    c(R, "chmod", "pub", 0o777)
    c(A, "creat", "ahome/g", 0o755)
    c(A, "chmod", "ahome/g", 0o2755)                # own group: kept
    c(A, "stat", "ahome/g")
    c(A, "chown", "ahome/g", -1, 3000)              # supplementary group
    c(A, "stat", "ahome/g")
    c(A, "chmod", "ahome/g", 0o2755)
    c(A, "stat", "ahome/g")
    c(A, "chown", "ahome/g", -1, 1002)              # EPERM: not a member
    c(R, "chown", "ahome/g", -1, 1002)
    c(A, "chmod", "ahome/g", 0o2755)                # not in group: cleared
    c(A, "stat", "ahome/g")
    c(R, "chmod", "ahome/g", 0o6755)
    c(A, "open", "ahome/g", "O_WRONLY", 0, "g")
    c(A, "write", "g", b"x")                        # kills suid (and sgid)
    c(A, "close", "g")
    c(A, "stat", "ahome/g")
    c(R, "chmod", "ahome/g", 0o6755)
    c(R, "open", "ahome/g", "O_WRONLY", 0, "g")
    c(R, "write", "g", b"y")                        # root: CAP_FSETID
    c(R, "close", "g")
    c(A, "stat", "ahome/g")
    c(R, "chown", "ahome/g", 1001, 1001)            # chown kills suid
    c(A, "stat", "ahome/g")
    c(R, "chmod", "ahome/g", 0o6711)
    c(A, "truncate", "ahome/g", 10)                 # truncate kills too
    c(A, "stat", "ahome/g")
    c(R, "chmod", "ahome/g", 0o2745)                # sgid without gx
    c(A, "truncate", "ahome/g", 20)
    c(A, "stat", "ahome/g")

    # Clearing privileges is the server's job on our mount (it takes
    # FUSE_HANDLE_KILLPRIV_V2): each case alone, the kernel the oracle.
    sect[0] = "killpriv"
    cap = struct.pack("<5I", 0x02000001, 1 << 10, 0, 0, 0)  # v2, effective
    c(A, "creat", "ahome/kp", 0o755)
    c(A, "open", "ahome/kp", "O_WRONLY", 0, "kp")
    c(A, "write", "kp", b"a")                       # nothing to clear
    c(R, "chmod", "ahome/kp", 0o4755)               # then setuid again
    c(A, "write", "kp", b"b")                       # cleared
    c(A, "stat", "ahome/kp")
    c(R, "setxattr", "ahome/kp", "security.capability", cap)
    c(A, "write", "kp", b"c")                       # capability removed
    c(R, "getxattr", "ahome/kp", "security.capability")
    c(R, "setxattr", "ahome/kp", "security.capability", cap)
    c(R, "open", "ahome/kp", "O_WRONLY", 0, "rkp")
    c(R, "write", "rkp", b"d")                      # by root too
    c(R, "close", "rkp")
    c(R, "getxattr", "ahome/kp", "security.capability")
    c(R, "setxattr", "ahome/kp", "security.capability", cap)
    c(A, "truncate", "ahome/kp", 1)                 # truncate removes it
    c(R, "getxattr", "ahome/kp", "security.capability")
    c(R, "chown", "ahome/kp", -1, 1002)             # a group alice is not in
    c(R, "chmod", "ahome/kp", 0o2745)
    c(A, "write", "kp", b"e")                       # setgid, gx or not
    c(A, "stat", "ahome/kp")
    c(R, "chmod", "ahome/kp", 0o6755)
    c(A, "fallocate", "kp", "", 0, 8192)            # fallocate clears too
    c(A, "stat", "ahome/kp")
    c(R, "chmod", "ahome/kp", 0o6755)
    c(R, "chown", "ahome/kp", -1, -1)               # chown(-1, -1) by root
    c(A, "stat", "ahome/kp")
    c(R, "chmod", "ahome/kp", 0o6745)
    c(R, "truncate", "ahome/kp", 0)                 # root: CAP_FSETID
    c(A, "stat", "ahome/kp")
    c(A, "close", "kp")
    c(R, "chmod", "ahome/kp", 0o4777)
    c(R, "setflags", "ahome/kp", "+a")
    c(A, "open", "ahome/kp", "O_WRONLY|O_APPEND", 0, "kpa")
    c(A, "write", "kpa", b"f")                      # EPERM: a mode change
    c(A, "stat", "ahome/kp")
    c(A, "close", "kpa")
    c(R, "setflags", "ahome/kp", "-a")

    sect[0] = "sticky"
    c(A, "creat", "sticky/af", 0o666)
    c(A, "mkdir", "sticky/ad", 0o777)
    c(A, "creat", "sticky/af2", 0o666)
    c(A, "creat", "sticky/af3", 0o666)
    c(B, "creat", "sticky/bf", 0o666)
    c(B, "unlink", "sticky/af")                     # EPERM
    c(B, "rmdir", "sticky/ad")                      # EPERM
    c(B, "rename", "sticky/af", "sticky/bx")        # EPERM
    c(B, "rename", "sticky/bf", "sticky/af")        # EPERM (target)
    c(B, "rename", "sticky/bf", "sticky/bf2")
    c(B, "open", "sticky/af", "O_WRONLY|O_TRUNC")   # writable: ok
    c(B, "link", "sticky/af", "sticky/blink")       # protected_hardlinks
    c(A, "creat", "sticky/af4", 0o600)
    c(B, "link", "sticky/af4", "sticky/blink2")     # EPERM (protected)
    c(A, "unlink", "sticky/bf2")                    # EPERM
    c(R, "unlink", "sticky/bf2")                    # root
    c(A, "unlink", "sticky/af2")
    c(R, "chown", "sticky", 1002, 0)                # bob owns the dir
    c(B, "unlink", "sticky/af3")                    # dir owner may
    c(R, "chown", "sticky", 0, 0)
    c(A, "rename", "sticky/af", "sticky/ad/af")
    c(A, "listdir", "sticky")

    sect[0] = "rmdir"
    c(A, "mkdir", "ahome/e", 0o755)
    c(A, "mkdir", "ahome/ne", 0o755)
    c(A, "creat", "ahome/ne/f", 0o644)
    c(A, "rmdir", "ahome/ne")                       # ENOTEMPTY
    c(A, "rmdir", "ahome/e/.")                      # EINVAL
    c(A, "rmdir", "ahome/e/..")                     # ENOTEMPTY
    c(A, "rmdir", "ahome/a644")                     # ENOTDIR
    c(A, "rmdir", "ahome/sl")                       # ENOTDIR
    c(A, "rmdir", "ahome/missing")                  # ENOENT
    c(A, "rmdir", "ahome/loop1/x")                  # ELOOP
    c(A, "rmdir", "ahome/" + L256)                  # ENAMETOOLONG
    c(B, "rmdir", "ahome/e")                        # EACCES
    c(A, "rmdir", "ahome/ro/x")                     # ENOENT
    c(R, "mkdir", "ahome/ro/rd", 0o777)
    c(A, "rmdir", "ahome/ro/rd")                    # EACCES
    c(A, "rmdir", ".")                              # EBUSY (mount point)
    c(A, "rmdir", "ahome/e")
    c(A, "stat", "ahome")

    sect[0] = "link"
    c(A, "link", "ahome/a644", "ahome/l1")
    c(A, "stat", "ahome/a644")
    c(A, "link", "ahome/a644", "ahome/l1")          # EEXIST
    c(A, "link", "ahome/sub", "ahome/lsub")         # EPERM (dir)
    c(A, "link", "ahome/missing", "ahome/l2")       # ENOENT
    c(A, "link", "ahome/a644", "ahome/missing/l2")  # ENOENT
    c(A, "link", "ahome/a644/x", "ahome/l2")        # ENOTDIR
    c(A, "link", "ahome/a644", "ahome/a600/l2")     # ENOTDIR
    c(A, "link", "ahome/loop1/x", "ahome/l2")       # ELOOP
    c(A, "link", "ahome/a644", "ahome/" + L256)     # ENAMETOOLONG
    c(B, "link", "ahome/a644", "bhome/l3")          # EPERM: protected
    c(B, "link", "ahome/a606", "bhome/l3")          # readable+writable
    c(B, "link", "bhome/l3", "ahome/l4")            # EACCES
    c(A, "link", "ahome/priv/f", "ahome/ro/l5")     # EACCES
    c(A, "link", "ahome/sl", "ahome/lsl")           # links the symlink
    c(A, "lstat", "ahome/lsl")
    c(A, "link", "ahome/sl", "ahome/lsl2", True)    # linkat FOLLOW
    c(A, "lstat", "ahome/lsl2")
    c(A, "link", "ahome/fifo", "ahome/lfifo")
    c(A, "stat", "ahome/fifo")

    sect[0] = "unlink"
    c(A, "unlink", "ahome/l1")
    c(A, "stat", "ahome/a644")
    c(A, "unlink", "ahome/sub")                     # EISDIR
    bad_paths("unlink", loop="ahome/loop1/x")
    c(B, "unlink", "ahome/a606")                    # EACCES
    c(A, "unlink", "ahome/ro/f")                    # EACCES
    c(A, "unlink", "ahome/noexec/f")                # EACCES
    c(A, "unlink", "ahome/lsl")
    c(A, "unlink", "ahome/dangling")
    c(A, "stat", "ahome/nowhere")
    c(A, "open", "ahome/held", "O_RDWR|O_CREAT", 0o644, "h")
    c(A, "write", "h", 3000)
    c(A, "unlink", "ahome/held")                    # open, unlinked
    c(A, "write", "h", b"more", 100)
    c(A, "read", "h", 100, 90)
    c(A, "fstat", "h")
    c(A, "close", "h")

    sect[0] = "rename"
    c(A, "mkdir", "ahome/r", 0o755)
    c(A, "mkdir", "ahome/r/d1", 0o755)
    c(A, "mkdir", "ahome/r/d1/in", 0o755)
    c(A, "mkdir", "ahome/r/d2", 0o755)
    c(A, "mkdir", "ahome/r/full", 0o755)
    c(A, "creat", "ahome/r/full/x", 0o644)
    c(A, "creat", "ahome/r/f1", 0o644)
    c(A, "creat", "ahome/r/f2", 0o600)
    c(A, "rename", "ahome/r/d1", "ahome/r/d1/in/x")  # EINVAL
    c(A, "rename", "ahome/r/d1", "ahome/r/d1/in")    # EINVAL? ENOTEMPTY
    c(A, "rename", "ahome/r/d1", "ahome/r/d1")       # ok (same)
    c(A, "rename", "ahome/r/f1", "ahome/r/f1")
    c(A, "rename", "ahome/r/d1", "ahome/r/full")     # ENOTEMPTY
    c(A, "rename", "ahome/r/d1", "ahome/r/f1")       # ENOTDIR
    c(A, "rename", "ahome/r/f1", "ahome/r/d2")       # EISDIR
    c(A, "rename", "ahome/r/missing", "ahome/r/x")   # ENOENT
    c(A, "rename", "ahome/r/f1", "ahome/r/missing/x")  # ENOENT
    c(A, "rename", "ahome/r/f1/x", "ahome/r/x")      # ENOTDIR
    c(A, "rename", "ahome/r/f1", "ahome/r/f2/x")     # ENOTDIR
    c(A, "rename", "ahome/r/f1", "ahome/r/" + L256)  # ENAMETOOLONG
    c(A, "rename", "ahome/loop1/x", "ahome/r/x")     # ELOOP
    c(A, "rename", "ahome/r/.", "ahome/r/x")         # EBUSY? EINVAL
    c(A, "rename", "ahome/r/d1/..", "ahome/r/x")     # EBUSY
    c(A, "rename", "ahome/r/d2", "ahome/r/d1/in/..")  # ENOTEMPTY/EBUSY
    c(A, "rename", "ahome/r/d2/", "ahome/r/d3")
    c(A, "rename", "ahome/r/f2/", "ahome/r/f3")      # ENOTDIR
    c(A, "rename", "ahome/r/d3", "ahome/r/d1/in/d3")
    c(A, "stat", "ahome/r/d1/in")
    c(A, "stat", "ahome/r")
    c(A, "rename", "ahome/r/d1/in/d3", "ahome/r/d4")
    c(A, "stat", "ahome/r/d1/in")
    c(A, "rename", "ahome/r/d4", "ahome/r/d1/in")    # empty dir replaced
    c(A, "stat", "ahome/r/d1")
    c(A, "rename", "ahome/r/f1", "ahome/r/f2")       # replaces
    c(A, "stat", "ahome/r/f2")
    c(A, "listdir", "ahome/r")
    c(B, "rename", "ahome/r/f2", "bhome/f2")         # EACCES
    c(A, "rename", "ahome/r/f2", "bhome/f2")         # EACCES
    c(R, "rename", "ahome/r/f2", "bhome/f2")
    c(B, "stat", "bhome/f2")
    c(R, "mkdir", "pub/rd", 0o755)
    c(R, "chown", "pub/rd", 1001, 1001)
    c(R, "chmod", "pub/rd", 0o555)                    # no write: .. fixup
    c(A, "rename", "pub/rd", "ahome/rd")             # EACCES (dir not w)
    c(R, "chmod", "pub/rd", 0o755)
    c(A, "rename", "pub/rd", "ahome/rd")
    c(A, "stat", "ahome/rd")
    c(A, "rename", "ahome/r/d1", "ahome/ro/d1")      # EACCES
    c(A, "renameat2", "ahome/r/full/x", "ahome/r/d1", "noreplace")  # EEXIST
    c(A, "mkdir", "ahome/r2", 0o755)     # renameat2's flags: a scratch
    c(A, "creat", "ahome/r2/a", 0o644)   # directory (FUSE has them not)
    c(A, "mkdir", "ahome/r2/b", 0o755)
    c(A, "renameat2", "ahome/r2/a", "ahome/r2/c", "noreplace")
    c(A, "renameat2", "ahome/r2/c", "ahome/r2/b", "exchange")
    c(A, "rmtree", "ahome/r2")
    c(A, "rename", "ahome/sl", "ahome/sl2")
    c(A, "readlink", "ahome/sl2")
    c(A, "rename", "ahome/fifo", "ahome/r/fifo")

    sect[0] = "symlink"
    c(A, "symlink", "x", "ahome/a644")               # EEXIST
    c(A, "symlink", "x", "ahome/sl2")                # EEXIST
    c(A, "symlink", "x", "ahome/missing/s")          # ENOENT
    c(A, "symlink", "", "ahome/empty")               # ENOENT
    c(A, "symlink", "x", "ahome/a644/s")             # ENOTDIR
    c(A, "symlink", "x", "ahome/loop1/s")            # ELOOP
    c(A, "symlink", "x", "ahome/" + L256)            # ENAMETOOLONG
    c(A, "symlink", "t" * 4095, "ahome/longt")       # ENAMETOOLONG
    c(A, "symlink", "t" * 4096, "ahome/longt")       # ENAMETOOLONG
    c(A, "symlink", "t" * 4094, "ahome/longt2")
    c(A, "symlink", "t" * 60, "ahome/slow60")
    c(A, "symlink", "t" * 59, "ahome/fast59")
    c(B, "symlink", "x", "ahome/bs")                 # EACCES
    c(A, "symlink", "x", "ahome/ro/s")               # EACCES
    c(A, "lstat", "ahome/longt2")
    c(A, "lstat", "ahome/slow60")

    sect[0] = "readlink"
    c(A, "readlink", "ahome/sl2")
    c(A, "readlink", "ahome/sl2", 2)                 # truncated
    c(A, "readlink", "ahome/longt2")
    c(A, "readlink", "ahome/slow60")
    c(A, "readlink", "ahome/a644")                   # EINVAL
    c(A, "readlink", "ahome/sub")                    # EINVAL
    bad_paths("readlink", loop="ahome/loop1/x")
    c(B, "readlink", "ahome/priv/x")                 # EACCES
    c(A, "readlink", "")                             # ENOENT

    sect[0] = "chmod"
    c(A, "chmod", "ahome/a644", 0o640)
    c(B, "chmod", "ahome/a644", 0o666)               # EPERM
    c(K, "chmod", "ahome/a664", 0o666)               # EPERM (group)
    c(R, "chmod", "ahome/a644", 0o7777)
    c(A, "stat", "ahome/a644")
    bad_paths("chmod", 0o644)
    c(B, "chmod", "ahome/priv/f", 0o644)             # EACCES
    c(A, "chmod", "ahome/sl2", 0o600)                # follows
    c(A, "stat", "ahome/a644")
    c(A, "lstat", "ahome/sl2")
    c(A, "chmod", "ahome/sub", 0o1777)               # sticky on dir
    c(A, "chmod", "ahome/a600", 0o1600)              # sticky on file: ok
    c(A, "stat", "ahome/a600")
    c(A, "chmod", "ahome/sub", 0o755)
    c(A, "open", "ahome/a600", "O_RDONLY", 0, "f")
    c(A, "fchmod", "f", 0o4600)
    c(A, "fstat", "f")
    c(B, "open", "ahome/a644", "O_RDONLY", 0, "bf")  # EACCES
    c(R, "chmod", "ahome/a644", 0o644)
    c(B, "open", "ahome/a644", "O_RDONLY", 0, "bf")
    c(B, "fchmod", "bf", 0o666)                      # EPERM
    c(B, "close", "bf")
    c(A, "close", "f")

    sect[0] = "chown"
    c(A, "chown", "ahome/a755", 1002, -1)            # EPERM
    c(A, "chown", "ahome/a755", 1001, -1)            # no change: ok
    c(A, "chown", "ahome/a755", -1, -1)
    c(A, "chown", "ahome/a755", -1, 1001)
    c(B, "chown", "ahome/a755", -1, 1002)            # EPERM
    c(K, "chown", "ahome/a755", -1, 3000)            # EPERM (not owner)
    c(R, "chown", "ahome/a755", 1002, 1002)
    c(A, "stat", "ahome/a755")
    c(R, "chmod", "ahome/a755", 0o6755)
    c(B, "chown", "ahome/a755", -1, 1002)            # owner, same group
    c(A, "stat", "ahome/a755")
    c(R, "chmod", "ahome/a755", 0o6755)
    c(R, "chown", "ahome/a755", -1, -1)              # root, no change
    c(A, "stat", "ahome/a755")
    c(R, "chmod", "ahome/sub", 0o6755)
    c(R, "chown", "ahome/sub", 1002, 1002)           # dir: bits kept
    c(A, "stat", "ahome/sub")
    c(R, "chown", "ahome/sub", 1001, 1001)
    c(R, "chmod", "ahome/sub", 0o755)
    bad_paths("chown", 1001, 1001)
    c(B, "chown", "ahome/priv/f", 1002, 1002)        # EACCES
    c(A, "lchown", "ahome/sl2", -1, 3000)
    c(A, "lstat", "ahome/sl2")
    c(A, "stat", "ahome/sl2")
    c(R, "lchown", "ahome/sl2", 1002, 1002)
    c(A, "lstat", "ahome/sl2")
    c(A, "lchown", "ahome/loop1", 1001, 1001)        # the link itself
    c(A, "lchown", "ahome/missing", 1001, 1001)      # ENOENT
    c(R, "chown", "ahome/a600", 70000, 80000)        # 32-bit ids
    c(A, "stat", "ahome/a600")
    c(R, "chown", "ahome/a600", 1001, 1001)
    c(A, "open", "ahome/a664", "O_RDONLY", 0, "f")
    c(A, "fchown", "f", -1, 3000)
    c(A, "fstat", "f")
    c(A, "close", "f")

    sect[0] = "truncate"
    c(A, "creat", "ahome/t", 0o644)
    c(A, "truncate", "ahome/t", 100000)
    c(A, "stat", "ahome/t")
    c(A, "cat", "ahome/t")
    c(A, "truncate", "ahome/t", 10)
    c(A, "stat", "ahome/t")
    c(A, "truncate", "ahome/t", -1)                 # EINVAL
    c(A, "truncate", "ahome/t", 999999999999999)    # EFBIG
    c(A, "truncate", "ahome/t", 17592186040320)     # 16 TiB - 4 KiB: max
    c(A, "stat", "ahome/t")
    c(A, "truncate", "ahome/t", 17592186040321)     # EFBIG
    c(A, "truncate", "ahome/t", 17592186044416)     # EFBIG
    c(A, "stat", "ahome/t")
    c(A, "truncate", "ahome/t", 4096)
    c(A, "truncate", "ahome/sub", 0)                # EISDIR
    bad_paths("truncate", 0)
    c(B, "truncate", "ahome/t", 0)                  # EACCES
    c(B, "truncate", "ahome/priv/f", 0)             # EACCES
    c(A, "truncate", "ahome/fifo", 0)               # EINVAL (fifo moved)
    c(A, "truncate", "ahome/r/fifo", 0)             # EINVAL
    c(A, "truncate", "ahome/sl2", 7)                # through the link
    c(A, "stat", "ahome/sl2")
    c(A, "open", "ahome/t", "O_RDONLY", 0, "t")
    c(A, "ftruncate", "t", 0)                       # EINVAL (not written)
    c(A, "close", "t")
    c(A, "open", "ahome/t", "O_RDWR", 0, "t")
    c(A, "ftruncate", "t", -5)                      # EINVAL
    c(A, "ftruncate", "t", 999999999999999)         # EFBIG
    c(A, "ftruncate", "t", 12345)
    c(A, "fstat", "t")
    c(A, "write", "t", b"far", 17592186040319)      # EFBIG (ends past max)
    c(A, "write", "t", b"z", 17592186040319)        # last byte: ok
    c(A, "fstat", "t")
    c(A, "write", "t", b"z", 17592186040320)        # EFBIG
    c(A, "ftruncate", "t", 3)
    c(A, "close", "t")
    c(R, "chmod", "ahome/t", 0o444)
    c(A, "open", "ahome/t", "O_RDWR", 0, "t")       # EACCES
    c(R, "open", "ahome/t", "O_RDWR", 0, "t")
    c(R, "ftruncate", "t", 1)
    c(R, "close", "t")
    c(A, "open", "ahome/sub", "O_RDONLY|O_DIRECTORY", 0, "d")
    c(A, "ftruncate", "d", 0)                       # EINVAL
    c(A, "close", "d")
    c(A, "stat", "ahome/t")

    sect[0] = "utimensat"
    T1 = (1234567890, 123456789)
    T2 = (987654321, 999999999)
    c(A, "creat", "ahome/u", 0o644)
    c(A, "utimensat", "ahome/u", T1, T2)
    c(A, "times", "ahome/u")
    c(A, "utimensat", "ahome/u", "omit", (5, 1))
    c(A, "times", "ahome/u")
    c(A, "utimensat", "ahome/u", (7, 7), "omit")
    c(A, "times", "ahome/u")
    c(A, "utimensat", "ahome/u", "now", "omit")
    c(A, "times", "ahome/u")
    c(A, "utimensat", "ahome/u", "omit", "now")
    c(A, "times", "ahome/u")
    c(A, "mark_ctime", "ahome/u", "u")
    c(A, "utimensat", "ahome/u", "omit", "omit")
    c(A, "ctime_changed", "ahome/u", "u")
    c(A, "utimensat", "ahome/u", T1, T2)
    c(A, "utimensat", "ahome/u", None, None)         # both now
    c(A, "times", "ahome/u")
    c(A, "utimensat", "ahome/u", (1, 1000000000), "omit")  # EINVAL
    c(A, "utimensat", "ahome/u", (1, -1), "omit")    # EINVAL
    c(A, "utimensat", "ahome/u", (-1, 5), (0, 0))    # before 1970
    c(A, "times", "ahome/u")
    c(A, "utimensat", "ahome/u", (2**33, 3), (2**34 + 1, 4))  # past 2038
    c(A, "times", "ahome/u")
    c(A, "utimensat", "ahome/u", (-2**31 - 10, 0), "omit")   # before 1901
    c(A, "times", "ahome/u")
    c(A, "utimensat", "ahome/u", (2**34 + 2**33, 0), "omit")  # past 2446
    c(A, "times", "ahome/u")
    c(B, "utimensat", "ahome/u", T1, T2)            # EPERM
    c(B, "utimensat", "ahome/u", None, None)        # EACCES
    c(B, "utimensat", "ahome/u", "now", "now")      # EACCES
    c(B, "utimensat", "ahome/u", "omit", "omit")    # ok? no change
    c(B, "utimensat", "ahome/a606", None, None)     # writable: ok
    c(B, "utimensat", "ahome/a606", "now", "omit")
    c(B, "utimensat", "ahome/a606", T1, "omit")     # EPERM
    c(B, "utimensat", "ahome/a606", "now", T2)      # EPERM
    c(R, "utimensat", "ahome/u", T2, T1)
    c(A, "times", "ahome/u")
    bad_paths("utimensat", T1, T2)
    c(B, "utimensat", "ahome/priv/f", None, None)   # EACCES
    c(A, "utimensat", "ahome/sl2", T1, T2, True)    # the link itself
    c(A, "times", "ahome/sl2")
    c(A, "utimensat", "ahome/sub", T2, T1)
    c(A, "times", "ahome/sub")
    c(A, "open", "ahome/u", "O_RDONLY", 0, "u")
    c(A, "utimensat", None, T1, T1, False, "u")
    c(A, "close", "u")
    c(A, "times", "ahome/u")

    sect[0] = "mknod"
    c(R, "mknod", "ahome/chr", stat.S_IFCHR | 0o600, 1, 3)
    c(R, "mknod", "ahome/blk", stat.S_IFBLK | 0o600, 7, 0)
    c(R, "mknod", "ahome/bigdev", stat.S_IFCHR | 0o600, 300, 70000)
    c(R, "stat", "ahome/chr")
    c(R, "stat", "ahome/blk")
    c(R, "stat", "ahome/bigdev")
    c(A, "mknod", "ahome/chr2", stat.S_IFCHR | 0o600, 1, 3)  # EPERM
    c(A, "mknod", "ahome/fifo2", stat.S_IFIFO | 0o644)
    c(A, "mknod", "ahome/sock", stat.S_IFSOCK | 0o644)
    c(A, "mknod", "ahome/reg", stat.S_IFREG | 0o644)
    c(A, "mknod", "ahome/reg0", 0o644)               # type 0: regular
    c(A, "mknod", "ahome/dirn", stat.S_IFDIR | 0o755)  # EPERM? EINVAL
    c(A, "mknod", "ahome/bad", 0o170000 | 0o644)     # EINVAL
    c(A, "stat", "ahome/fifo2")
    c(A, "stat", "ahome/sock")
    c(A, "stat", "ahome/reg")
    c(A, "stat", "ahome/reg0")
    c(A, "mknod", "ahome/fifo2", stat.S_IFIFO | 0o644)  # EEXIST
    c(A, "mknod", "ahome/missing/f", stat.S_IFIFO | 0o644)  # ENOENT
    c(A, "mknod", "ahome/a644/f", stat.S_IFIFO | 0o644)  # ENOTDIR
    c(A, "mknod", "ahome/loop1/f", stat.S_IFIFO | 0o644)  # ELOOP
    c(A, "mknod", "ahome/" + L256, stat.S_IFIFO | 0o644)  # ENAMETOOLONG
    c(B, "mknod", "ahome/bf", stat.S_IFIFO | 0o644)  # EACCES
    c(A, "mknod", "ahome/loop1", stat.S_IFIFO | 0o644)  # EEXIST
    c(A, "mkfifo", "ahome/fifo3", 0o7777)
    c(A, "stat", "ahome/fifo3")
    c(A, "mkfifo", "ahome/fifo3", 0o644)             # EEXIST
    c(A, "mkfifo", "ahome/missing/f", 0o644)         # ENOENT
    c(A, "mkfifo", "ahome/a644/f", 0o644)            # ENOTDIR
    c(A, "mkfifo", "ahome/" + L256, 0o644)           # ENAMETOOLONG
    c(B, "mkfifo", "ahome/bf", 0o644)                # EACCES
    c(A, "mkfifo", "ahome/ro/f2", 0o644)             # EACCES

    sect[0] = "access"
    c(A, "access", "ahome/a600", os.R_OK | os.W_OK)
    c(A, "access", "ahome/a600", os.X_OK)            # EACCES
    c(R, "access", "ahome/a600", os.X_OK)            # EACCES (no x bit)
    c(R, "access", "ahome/a755", os.X_OK)
    c(R, "access", "ahome/priv", os.X_OK | os.W_OK)
    c(B, "access", "ahome/priv", os.X_OK)            # EACCES
    c(K, "access", "ahome/a664", os.W_OK)            # supplementary
    c(B, "access", "ahome/a664", os.W_OK)            # EACCES
    c(B, "access", "ahome/missing", os.F_OK)         # ENOENT

    sect[0] = "xattr"
    c(A, "setxattr", "ahome/a644", "user.one", "1")
    c(A, "setxattr", "ahome/a644", "user.one", "2", os.XATTR_CREATE)  # EEXIST
    c(A, "setxattr", "ahome/a644", "user.two", "2", os.XATTR_REPLACE)  # ENODATA
    c(A, "setxattr", "ahome/a644", "user.one", "3", os.XATTR_REPLACE)
    c(A, "getxattr", "ahome/a644", "user.one")
    c(A, "getxattr", "ahome/a644", "user.none")       # ENODATA
    c(A, "setxattr", "ahome/a644", "user.empty", "")
    c(A, "getxattr", "ahome/a644", "user.empty")
    c(A, "setxattr", "ahome/a644", "user." + "k" * 250, "x")  # ERANGE
    c(A, "setxattr", "ahome/a644", "user." + "k" * 200, "x")
    c(A, "setxattr", "ahome/a644", "user.big", b"v" * 3000)
    c(A, "setxattr", "ahome/a644", "user.huge", b"v" * 5000)  # ENOSPC
    c(A, "setxattr", "ahome/a644", "user.vast", b"v" * 70000)  # E2BIG
    c(A, "setxattr", "ahome/a644", "", "x")            # ERANGE
    c(A, "setxattr", "ahome/a644", "nonamespace", "x")  # EOPNOTSUPP
    c(A, "setxattr", "ahome/a644", "foo.bar", "x")      # EOPNOTSUPP
    c(A, "setxattr", "ahome/a644", "trusted.t", "x")    # EPERM
    c(R, "setxattr", "ahome/a644", "trusted.t", "x")
    c(A, "getxattr", "ahome/a644", "trusted.t")        # ENODATA
    c(R, "getxattr", "ahome/a644", "trusted.t")
    c(A, "setxattr", "ahome/a644", "security.s", "x")   # EPERM?
    c(R, "setxattr", "ahome/a644", "security.s", "x")
    c(A, "listxattr", "ahome/a644")
    c(R, "listxattr", "ahome/a644")
    c(B, "setxattr", "ahome/a644", "user.b", "x")      # EACCES
    c(B, "getxattr", "ahome/a644", "user.one")
    c(B, "getxattr", "ahome/a600", "user.one")         # EACCES
    c(A, "setxattr", "ahome/sl2", "user.l", "x", 0, True)  # EPERM
    c(A, "setxattr", "ahome/fifo3", "user.f", "x")      # EPERM
    c(A, "setxattr", "ahome/sub", "user.d", "dir")
    c(A, "getxattr", "ahome/sub", "user.d")
    c(A, "removexattr", "ahome/a644", "user.one")
    c(A, "removexattr", "ahome/a644", "user.one")       # ENODATA
    c(B, "removexattr", "ahome/a644", "user.empty")     # EACCES
    c(A, "listxattr", "ahome/a644")
    c(A, "getxattr", "ahome/missing", "user.x")         # ENOENT
    for i in range(40):
        c(A, "setxattr", "ahome/sub", "user.m%02d" % i, "v" * 100)
    c(A, "listxattr", "ahome/sub")
    for i in range(0, 40, 3):
        c(A, "removexattr", "ahome/sub", "user.m%02d" % i)
    c(A, "listxattr", "ahome/sub")
    # a value that fits in the inode now moves there: the block let go
    c(A, "creat", "ahome/xs", 0o644)
    c(A, "setxattr", "ahome/xs", "user.s", b"v" * 3000)
    c(A, "blocks", "ahome/xs")
    c(A, "setxattr", "ahome/xs", "user.s", b"v" * 10)
    c(A, "blocks", "ahome/xs")

    sect[0] = "acl"
    c(A, "creat", "ahome/acl", 0o644)
    c(A, "setfacl", "ahome/acl", "u::rw-,g::r--,o::r--")  # as the mode
    c(A, "listxattr", "ahome/acl")
    c(A, "stat", "ahome/acl")
    c(A, "setfacl", "ahome/acl", "u::rwx,g::r-x,o::---")
    c(A, "stat", "ahome/acl")
    c(A, "listxattr", "ahome/acl")
    c(A, "setfacl", "ahome/acl", "u::rw-,u:1002:rw-,g::r--,m::rw-,o::---")
    c(A, "stat", "ahome/acl")
    c(A, "getxattr", "ahome/acl", "system.posix_acl_access")
    c(B, "open", "ahome/acl", "O_RDWR")                 # named user entry
    c(B, "cat", "ahome/acl")
    c(K, "open", "ahome/acl", "O_RDONLY")               # EACCES
    c(A, "chmod", "ahome/acl", 0o640)                   # mask follows
    c(A, "getxattr", "ahome/acl", "system.posix_acl_access")
    c(B, "open", "ahome/acl", "O_RDWR")                 # EACCES (mask r)
    c(B, "setfacl", "ahome/acl", "u::rw-,g::r--,o::---")  # EPERM
    c(A, "setfacl", "ahome/acl", "u::rw-,u:1002:rw-,g::r--,o::---")  # EINVAL
    c(A, "setfacl", "ahome/acl", "u::rw-,g::r--")       # EINVAL
    c(A, "setxattr", "ahome/acl", "system.posix_acl_access", b"garbage")  # EINVAL
    c(A, "setfacl", "ahome/acl", "u::rwx,g::rwx,g:3000:r-x,m::r-x,o::r--")
    c(A, "stat", "ahome/acl")
    c(K, "access", "ahome/acl", os.R_OK | os.X_OK)
    c(K, "access", "ahome/acl", os.W_OK)                # EACCES
    c(A, "creat", "ahome/sgacl", 0o2755)
    c(R, "chown", "ahome/sgacl", 1001, 1002)
    c(A, "setfacl", "ahome/sgacl", "u::rwx,g::r-x,o::r-x")  # sgid cleared
    c(A, "stat", "ahome/sgacl")
    c(A, "setfacl", "ahome/acl", "u::rwx,g::r-x,o::r--", True)  # EACCES
    c(A, "mkdir", "ahome/dacl", 0o755)
    c(A, "setfacl", "ahome/dacl", "u::rwx,u:1002:rwx,g::r-x,m::rwx,o::---",
      True)
    c(A, "getxattr", "ahome/dacl", "system.posix_acl_default")
    c(A, "getxattr", "ahome/dacl", "system.posix_acl_access")  # ENODATA
    c(A, "stat", "ahome/dacl")
    c(A, "umask", 0o077)                                 # ignored here
    c(A, "creat", "ahome/dacl/f", 0o666)
    c(A, "mkdir", "ahome/dacl/d", 0o777)
    c(A, "mknod", "ahome/dacl/p", stat.S_IFIFO | 0o640)
    c(A, "symlink", "f", "ahome/dacl/s")
    c(A, "umask", 0o022)
    c(A, "stat", "ahome/dacl/f")
    c(A, "stat", "ahome/dacl/d")
    c(A, "stat", "ahome/dacl/p")
    c(A, "lstat", "ahome/dacl/s")
    c(A, "getxattr", "ahome/dacl/f", "system.posix_acl_access")
    c(A, "getxattr", "ahome/dacl/f", "system.posix_acl_default")  # ENODATA
    c(A, "getxattr", "ahome/dacl/d", "system.posix_acl_access")
    c(A, "getxattr", "ahome/dacl/d", "system.posix_acl_default")
    c(A, "getxattr", "ahome/dacl/p", "system.posix_acl_access")
    c(A, "listxattr", "ahome/dacl/s", True)
    c(B, "open", "ahome/dacl/f", "O_RDWR")               # via named entry
    c(B, "creat", "ahome/dacl/bf", 0o600)                # via default ACL
    c(B, "stat", "ahome/dacl/bf")
    c(B, "getxattr", "ahome/dacl/bf", "system.posix_acl_access")
    c(A, "mkdir", "ahome/dacl2", 0o755)
    c(A, "setfacl", "ahome/dacl2", "u::rwx,g::r-x,o::r-x", True)  # minimal
    c(A, "creat", "ahome/dacl2/f", 0o666)
    c(A, "mkdir", "ahome/dacl2/d", 0o777)
    c(A, "stat", "ahome/dacl2/f")
    c(A, "stat", "ahome/dacl2/d")
    c(A, "listxattr", "ahome/dacl2/f")
    c(A, "getxattr", "ahome/dacl2/d", "system.posix_acl_default")
    c(A, "setfacl", "ahome/dacl2", "", True)             # remove: empty
    c(A, "listxattr", "ahome/dacl2")
    c(A, "removexattr", "ahome/acl", "system.posix_acl_access")
    c(A, "stat", "ahome/acl")
    c(A, "removexattr", "ahome/acl", "system.posix_acl_access")  # ENODATA

    sect[0] = "fallocate"
    c(A, "open", "ahome/fa", "O_RDWR|O_CREAT", 0o644, "fa")
    c(A, "fallocate", "fa", "", 0, 40960)
    c(A, "blocks", "ahome/fa")
    c(A, "fallocate", "fa", "keep", 40960, 40960)
    c(A, "blocks", "ahome/fa")
    c(A, "write", "fa", 20000, 0)
    c(A, "fallocate", "fa", "punch|keep", 4096, 8192)
    c(A, "read", "fa", 20000, 0)
    c(A, "blocks", "ahome/fa")
    c(A, "fallocate", "fa", "punch", 0, 4096)          # EOPNOTSUPP
    c(A, "fallocate", "fa", "zero", 0, 100)
    c(A, "read", "fa", 20000, 0)
    c(A, "fallocate", "fa", "zero|keep", 30000, 100000)
    c(A, "fstat", "fa")
    c(A, "fallocate", "fa", "", -1, 10)                 # EINVAL
    c(A, "fallocate", "fa", "", 0, 0)                   # EINVAL
    c(A, "fallocate", "fa", "", 17592186040320, 4096)   # EFBIG
    c(A, "fallocate", "fa", "", 2**62, 2**62)           # EFBIG
    c(A, "fallocate", "fa", "", 0, 10**12)              # ENOSPC
    c(A, "ftruncate", "fa", 40960)       # what ENOSPC left differs
    c(A, "close", "fa")
    c(A, "open", "ahome/fa", "O_RDONLY", 0, "fa")
    c(A, "fallocate", "fa", "", 0, 100)                 # EBADF
    c(A, "close", "fa")
    c(A, "open", "ahome/sub", "O_RDONLY", 0, "fd")
    c(A, "fallocate", "fd", "", 0, 100)                 # EBADF
    c(A, "close", "fd")
    c(A, "cat", "ahome/fa")

    sect[0] = "seek"
    # SEEK_DATA and SEEK_HOLE: data, holes inside and at the end, the
    # unwritten blocks of a preallocation past the size brought inside
    # it by ftruncate (holes to ext4), offsets at and past the size
    c(A, "open", "ahome/sk", "O_RDWR|O_CREAT", 0o644, "sk")
    for w in ("data", "hole"):
        c(A, "lseek", "sk", 0, w)                       # ENXIO: empty
    c(A, "write", "sk", 5000, 0)
    c(A, "write", "sk", 100, 40960)
    c(A, "write", "sk", 4096, 65536)
    c(A, "ftruncate", "sk", 100000)
    for off in (0, 100, 4096, 5000, 8192, 9000, 40960, 41000, 41060,
                65536, 69631, 69632, 99999, 100000, 100001, 1 << 40, -1):
        for w in ("data", "hole"):
            c(A, "lseek", "sk", off, w)
    c(A, "fallocate", "sk", "keep", 102400, 40960)  # aligned: ours
    # writes zeros in a block that holds part of the size (doc: lazy_journal.8)
    c(A, "ftruncate", "sk", 200000)
    c(A, "write", "sk", 10, 122880)
    for off in (100000, 110000, 122880, 122890, 126976, 150000):
        for w in ("data", "hole"):
            c(A, "lseek", "sk", off, w)
    c(A, "ftruncate", "sk", 5000)
    for off in (0, 4999, 5000):
        for w in ("data", "hole"):
            c(A, "lseek", "sk", off, w)
    c(A, "close", "sk")
    c(A, "open", "ahome/sk", "O_RDONLY", 0, "sk")       # read-only: works
    c(A, "lseek", "sk", 10, "hole")
    c(A, "close", "sk")

    sect[0] = "copy_file_range"
    # as write: data, size, mtime/ctime, setuid cleared, EFBIG, short at
    # the largest size; the kernel's checks (EBADF, EINVAL, EISDIR)
    c(A, "open", "ahome/cs", "O_RDWR|O_CREAT", 0o644, "cs")
    c(A, "write", "cs", 10000, 0)
    c(A, "write", "cs", 3000, 40960)                    # a hole between
    c(A, "open", "ahome/cd", "O_RDWR|O_CREAT", 0o4755, "cd")
    c(A, "fchmod", "cd", 0o4755)
    c(A, "mark_ctime", "ahome/cd", "cd0")
    c(A, "copy_file_range", "cs", "cd", 10000, 0, 0)
    c(A, "fstat", "cd")
    c(A, "ctime_changed", "ahome/cd", "cd0")
    c(A, "read", "cd", 20000, 0)
    c(A, "copy_file_range", "cs", "cd", 3000, 1000, 5001)  # unaligned
    c(A, "copy_file_range", "cs", "cd", 100000, 0, 1 << 20)  # to EOF
    c(A, "fstat", "cd")
    c(A, "blocks", "ahome/cd")
    c(A, "read", "cd", 100000, 0)
    c(A, "read", "cd", 50000, 1 << 20)
    c(A, "copy_file_range", "cs", "cd", 100, 50000, 0)  # past EOF: 0
    c(A, "copy_file_range", "cs", "cd", 0, 0, 0)
    c(A, "copy_file_range", "cs", "cd", 500)            # the fds' offsets
    c(A, "copy_file_range", "cs", "cd", 500)
    c(A, "copy_file_range", "cs", "cd", 10, 0, 0, 1)    # EINVAL: flags
    c(A, "copy_file_range", "cs", "cd", 10, -1, 0)      # EINVAL
    c(A, "copy_file_range", "cs", "cs", 100, 0, 50)     # EINVAL: overlap
    c(A, "copy_file_range", "cs", "cs", 100, 0, 100)    # same file
    c(A, "copy_file_range", "cs", "cs", 1000, 9000, 100)  # EINVAL
    c(A, "copy_file_range", "cs", "cs", 1000, 0, 100000)
    c(A, "fstat", "cs")
    c(A, "read", "cs", 110000, 0)
    c(A, "copy_file_range", "cs", "cd", 10, 0, 17592186040320)  # EFBIG
    c(A, "copy_file_range", "cs", "cd", 100, 0, 17592186040220)  # short
    c(A, "fstat", "cd")
    c(A, "ftruncate", "cd", 0)
    c(A, "open", "ahome/cs", "O_WRONLY", 0, "cw")
    c(A, "open", "ahome/cd", "O_RDONLY", 0, "cr")
    c(A, "open", "ahome/cd", "O_WRONLY|O_APPEND", 0, "ca")
    c(A, "copy_file_range", "cw", "cd", 10, 0, 0)       # EBADF: src w-only
    c(A, "copy_file_range", "cs", "cr", 10, 0, 0)       # EBADF: dst r-only
    c(A, "copy_file_range", "cs", "ca", 10, 0, 0)       # EBADF: O_APPEND
    c(A, "open", "ahome/sub", "O_RDONLY", 0, "cdir")
    c(A, "copy_file_range", "cdir", "cd", 10, 0, 0)     # EISDIR
    for lab in ("cw", "cr", "ca", "cdir", "cs", "cd"):
        c(A, "close", lab)
    c(A, "cat", "ahome/cd")

    sect[0] = "flags"
    # lsattr and chattr (FS_IOC_GETFLAGS/SETFLAGS): who may set what,
    # the flags a file or directory may carry, inheritance; then
    # immutable and append-only files and directories as ext4 keeps them
    c(A, "creat", "ahome/fl", 0o644)
    c(A, "mkdir", "ahome/fld", 0o755)
    for p in (".", "ahome/fl", "ahome/fld"):
        c(A, "getflags", p)
        c(A, "fsgetxattr", p)
    c(A, "getversion", "ahome/fl")
    c(A, "mark_ctime", "ahome/fl", "fl0")
    c(A, "setflags", "ahome/fl", "+dA")
    c(A, "ctime_changed", "ahome/fl", "fl0")
    c(A, "getflags", "ahome/fl")
    c(A, "fsgetxattr", "ahome/fl")
    c(A, "setflags", "ahome/fl", "+S")
    c(A, "setflags", "ahome/fl", "+sutc")
    c(A, "getflags", "ahome/fl")
    c(A, "setflags", "ahome/fl", "-sutcS")
    c(A, "setflags", "ahome/fl", "+i")                  # EPERM: capability
    c(A, "setflags", "ahome/fl", "+a")                  # EPERM
    c(A, "setflags", "ahome/fl", "+j")                  # EPERM
    c(B, "setflags", "ahome/fl", "+d")                  # EPERM: not owner
    c(A, "setflags", "ahome/fl", "+D")                  # EOPNOTSUPP: a file
    c(A, "setflags", "ahome/fl", "+T")                  # EOPNOTSUPP
    c(A, "setflags", "ahome/fl", "+C")                  # EOPNOTSUPP: unknown
    c(A, "setflags", "ahome/fl", "+F")                  # EOPNOTSUPP
    c(A, "setflags", "ahome/fl", "+P")                  # EOPNOTSUPP
    c(A, "getflags", "ahome/fl")
    c(A, "setflags", "ahome/fld", "+DdATSP")
    c(A, "getflags", "ahome/fld")
    c(A, "fsgetxattr", "ahome/fld")
    c(A, "creat", "ahome/fld/f", 0o644)
    c(A, "mkdir", "ahome/fld/d", 0o755)
    c(A, "mknod", "ahome/fld/p", 0o10644)
    for p in ("ahome/fld/f", "ahome/fld/d", "ahome/fld/p"):
        c(A, "getflags", p)
    c(R, "setflags", "ahome/fld/f", "+j")
    c(R, "getflags", "ahome/fld/f")
    c(R, "setflags", "ahome/fld/f", "-j")
    c(A, "setflags", "ahome/fld", "=e")
    # immutable
    c(A, "open", "ahome/fl", "O_RDWR", 0, "fi")
    c(A, "write", "fi", 5000, 0)
    c(A, "setxattr", "ahome/fl", "user.k", b"v")
    c(R, "setflags", "ahome/fl", "+i")
    c(A, "getflags", "ahome/fl")
    c(A, "fsgetxattr", "ahome/fl")
    c(A, "write", "fi", 10, 0)                          # EPERM
    c(A, "write", "fi", 0, 0)                           # EPERM
    c(A, "ftruncate", "fi", 0)                          # EPERM
    c(A, "fallocate", "fi", "keep", 0, 8192)            # EPERM
    c(A, "open", "ahome/fo", "O_RDWR|O_CREAT", 0o644, "fo")
    c(A, "write", "fo", 3000, 0)
    c(A, "copy_file_range", "fo", "fi", 100, 0, 0)      # EPERM
    c(A, "copy_file_range", "fi", "fo", 100, 0, 4000)   # from it: ok
    c(A, "close", "fo")
    c(A, "close", "fi")
    c(A, "read", "fi", 0, 0)                            # EBADF
    c(A, "open", "ahome/fl", "O_WRONLY")                # EPERM
    c(A, "open", "ahome/fl", "O_RDWR|O_APPEND")         # EPERM
    c(A, "open", "ahome/fl", "O_RDONLY|O_TRUNC")        # EPERM
    c(A, "cat", "ahome/fl")
    c(A, "truncate", "ahome/fl", 0)                     # EPERM
    c(A, "chmod", "ahome/fl", 0o600)                    # EPERM
    c(R, "chown", "ahome/fl", 1002, -1)                 # EPERM
    c(A, "utimensat", "ahome/fl", None, None)           # EPERM
    c(A, "utimensat", "ahome/fl", (1, 0), (2, 0))       # EPERM
    c(A, "setxattr", "ahome/fl", "user.k", b"w")        # EPERM
    c(A, "removexattr", "ahome/fl", "user.k")           # EPERM
    c(A, "getxattr", "ahome/fl", "user.k")
    c(A, "unlink", "ahome/fl")                          # EPERM
    c(R, "unlink", "ahome/fl")                          # EPERM
    c(A, "rename", "ahome/fl", "ahome/fl2")             # EPERM
    c(A, "rename", "ahome/fo", "ahome/fl")              # EPERM: target
    c(A, "link", "ahome/fl", "ahome/fl3")               # EPERM
    c(A, "setflags", "ahome/fl", "+d")                  # EPERM: immutable
    c(R, "setflags", "ahome/fl", "+d")                  # EPERM
    c(R, "setflags", "ahome/fl", "-i")
    c(A, "getflags", "ahome/fl")
    c(A, "stat", "ahome/fl")
    # append-only
    c(R, "setflags", "ahome/fl", "+a")
    c(A, "open", "ahome/fl", "O_WRONLY")                # EPERM
    c(A, "open", "ahome/fl", "O_RDWR")                  # EPERM
    c(A, "open", "ahome/fl", "O_WRONLY|O_APPEND|O_TRUNC")  # EPERM
    c(A, "open", "ahome/fl", "O_WRONLY|O_APPEND", 0, "fa")
    c(A, "write", "fa", 100)
    c(A, "write", "fa", 100, 0)                         # appended still
    c(A, "fstat", "fa")
    c(A, "fallocate", "fa", "keep", 0, 40960)
    c(A, "fallocate", "fa", "", 0, 40960)               # EPERM
    c(A, "fallocate", "fa", "punch|keep", 0, 4096)      # EPERM
    c(A, "ftruncate", "fa", 0)                          # EPERM
    c(A, "close", "fa")
    c(A, "read", "fa", 0, 0)                            # EBADF
    c(A, "truncate", "ahome/fl", 0)                     # EPERM
    c(A, "chmod", "ahome/fl", 0o600)                    # EPERM
    c(A, "utimensat", "ahome/fl", (1, 0), (2, 0))       # EPERM
    c(A, "utimensat", "ahome/fl", None, None)           # now: ok
    c(A, "setxattr", "ahome/fl", "user.k", b"w")        # EPERM
    c(A, "unlink", "ahome/fl")                          # EPERM
    c(A, "rename", "ahome/fl", "ahome/fl2")             # EPERM
    c(A, "link", "ahome/fl", "ahome/fl3")               # EPERM
    c(A, "setflags", "ahome/fl", "+d")
    c(A, "setflags", "ahome/fl", "-a")                  # EPERM
    c(R, "setflags", "ahome/fl", "-ad")
    c(A, "stat", "ahome/fl")
    c(A, "cat", "ahome/fl")
    # directories
    c(A, "mkdir", "ahome/idir", 0o755)
    c(A, "creat", "ahome/idir/f", 0o644)
    c(A, "mkdir", "ahome/idir/sub", 0o755)
    c(R, "setflags", "ahome/idir", "+i")
    c(A, "creat", "ahome/idir/g", 0o644)                # EPERM
    c(A, "mkdir", "ahome/idir/d", 0o755)                # EPERM
    c(A, "symlink", "x", "ahome/idir/s")                # EPERM
    c(A, "mknod", "ahome/idir/p", 0o10644)              # EPERM
    c(A, "link", "ahome/fo", "ahome/idir/l")            # EPERM
    c(A, "unlink", "ahome/idir/f")                      # EPERM
    c(A, "rmdir", "ahome/idir/sub")                     # EPERM
    c(A, "rename", "ahome/idir/f", "ahome/f9")          # EPERM
    c(A, "rename", "ahome/fo", "ahome/idir/fo")         # EPERM
    c(A, "rmdir", "ahome/idir")                         # EPERM
    c(A, "chmod", "ahome/idir", 0o700)                  # EPERM
    c(A, "open", "ahome/idir/f", "O_WRONLY", 0, "ff")   # the file: ok
    c(A, "write", "ff", 10)
    c(A, "close", "ff")
    c(A, "listdir", "ahome/idir")
    c(R, "setflags", "ahome/idir", "-i+a")
    c(A, "creat", "ahome/idir/g", 0o644)
    c(A, "mkdir", "ahome/idir/d", 0o755)
    c(A, "rename", "ahome/fo", "ahome/idir/fo")
    c(A, "rename", "ahome/idir/g", "ahome/idir/h")      # EPERM
    c(A, "rename", "ahome/idir/fo", "ahome/idir/f")     # EPERM
    c(A, "unlink", "ahome/idir/f")                      # EPERM
    c(A, "rmdir", "ahome/idir/d")                       # EPERM
    c(A, "link", "ahome/idir/f", "ahome/idir/l")
    c(A, "listdir", "ahome/idir")
    c(R, "setflags", "ahome/idir", "-a")
    c(A, "getflags", "ahome/idir")

    sect[0] = "statfs"
    c(A, "statfs", ".")
    c(A, "statfs", "ahome/a644")
    c(B, "statfs", "ahome/priv/f")                      # EACCES
    c(A, "statfs", "ahome/missing")                     # ENOENT
    c(A, "statfs_mark", ".")
    c(A, "open", "ahome/sf", "O_RDWR|O_CREAT", 0o644, "sf")
    c(A, "write", "sf", 40960, 0)
    c(A, "fsync", "sf")
    c(A, "close", "sf")
    c(A, "statfs_delta", ".")
    c(A, "unlink", "ahome/sf")
    c(A, "statfs_delta", ".")

    sect[0] = "end"
    c(A, "listdir", "ahome")
    c(A, "stat", "ahome")
    return C


# ---------------------------------------------------------------------
# The random calls

def random_calls(seed, n):
    rng = random.Random(seed)
    users = ["root", "alice", "bob", "carol"]
    # a fixed skeleton of directories of several owners and modes, and
    # leaf names the calls make, remove and move about (a leaf made a
    # directory may hold leaves too)
    skel = [("w", 0, 0, 0o1777), ("w/pub", 0, 0, 0o777),
            ("w/alice", 1001, 1001, 0o755), ("w/grp", 1001, 3000, 0o2775),
            ("w/bob", 1002, 1002, 0o755), ("w/carol", 1003, 3000, 0o770),
            ("w/pub/deep", 1003, 1003, 0o1777)]
    dirs = [d + "/" for d, _, _, _ in skel]
    names = ["a", "b", "c", "f", "g", "s", "t"]
    ids = [0, 1001, 1002, 1003, 3000, -1]
    C = []

    def path():
        p = rng.choice(dirs)
        if rng.random() < 0.2:
            p += rng.choice(["s/", "t/"])
        return p + rng.choice(names)

    def mode(bits=0o7777):
        return rng.choice([0o644, 0o755, 0o777, 0o700, 0o600, 0o664,
                           0o2775, 0o1777, 0o4755, 0o000, 0o555,
                           rng.randrange(0o10000)]) & bits

    def c(user, op, *args):
        C.append(("r", user, (op,) + args))

    for d, uid, gid, m in skel:
        c("root", "mkdir", d, 0o755)
        c("root", "chown", d, uid, gid)
        c("root", "chmod", d, m)
    for u in users:
        c(u, "umask", rng.choice([0o022, 0o002, 0o077, 0]))
    for _ in range(n):
        u = rng.choice(users)
        k = rng.randrange(100)
        if k < 12:
            c(u, "open", path(), rng.choice([
                "O_WRONLY|O_CREAT", "O_WRONLY|O_CREAT|O_EXCL",
                "O_RDWR|O_CREAT|O_TRUNC", "O_RDONLY", "O_WRONLY|O_TRUNC",
                "O_RDONLY|O_DIRECTORY"]) + "|O_NONBLOCK", mode())
        elif k < 22:
            p = path()
            c(u, "open", p, "O_WRONLY|O_NONBLOCK", 0, "w")
            size = rng.choice([1, 100, 4096, 5000, 65536, 200000])
            c(u, "write", "w", size, rng.choice([0, 1, 4095, 100000]))
            c(u, "close", "w")
        elif k < 27:
            c(u, "truncate", path(), rng.choice([0, 1, 5000, 1 << 20,
                                                  1 << 50, -1]))
        elif k < 35:
            c(u, "mkdir", path(), mode())
        elif k < 40:
            c(u, "rmdir", path())
        elif k < 46:
            c(u, "unlink", path())
        elif k < 54:
            c(u, "rename", path(), path())
        elif k < 58:
            c(u, "link", path(), path())
        elif k < 62:
            c(u, "symlink", rng.choice(["a", "../d0", "x/y", "d1/e1"]),
              path())
        elif k < 64:
            c(u, "readlink", path())
        elif k < 69:
            c(u, "chmod", path(), mode())
        elif k < 70:
            d, _, _, _ = rng.choice(skel[1:])
            c(u, "chmod", d, rng.choice([0o755, 0o775, 0o1777, 0o2775,
                                         0o777, 0o770, 0o711]))
        elif k < 74:
            c(u, rng.choice(["chown", "lchown"]), path(), rng.choice(ids),
              rng.choice(ids))
        elif k < 77:
            t = (rng.randrange(-2**31, 2**34), rng.randrange(10**9))
            c(u, "utimensat", path(), rng.choice([t, "omit", "now"]),
              rng.choice([t, "omit"]))
            c(u, "times", path())
        elif k < 84:
            c(u, rng.choice(["stat", "lstat"]), path())
        elif k < 87:
            c(u, "listdir", rng.choice(dirs))
        elif k < 90:
            c(u, "setxattr", path(), "user." + rng.choice("pq"),
              "v" * rng.choice([1, 10, 300]))
        elif k < 92:
            c(u, "getxattr", path(), "user." + rng.choice("pq"))
        elif k < 93:
            c(u, "removexattr", path(), "user." + rng.choice("pq"))
        elif k < 96:
            ent = rng.choice(["u:1002:rw-", "u:1003:r-x", "g:3000:rwx",
                              "g:1001:r--"])
            bits = "".join(rng.choice(["r", "-"]) + rng.choice(["w", "-"]) +
                           rng.choice(["x", "-"]) for _ in range(3))
            text = "u::%s,%s,g::%s,m::rwx,o::%s" % (bits[0:3], ent,
                                                     bits[3:6], bits[6:9])
            c(u, "setfacl", path(), text, rng.random() < 0.3)
        elif k < 98:
            c(u, "mkfifo", path(), mode(0o777))
        else:
            c(u, "access", path(), rng.choice([os.R_OK, os.W_OK, os.X_OK,
                                               os.R_OK | os.W_OK]))
        if k < 22 and rng.random() < 0.1:
            c(u, "cat", path())
    return C


# ---------------------------------------------------------------------
# Limits: EMLINK, a full inode table, a full file system

def formats():
    """tests/u_mount_formats: a compact call set for every on-disk format
    (block size, inode size, block maps, bigalloc, quota, inline data,
    ea_inode...): files of every size class (inline, one block, many,
    sparse far out: indirect blocks on block-mapped files), a directory
    grown past one block (an htree), short and long symlinks, xattrs in
    the inode, in a block and too big for a block (ea_inode), statfs's
    counts around it all"""
    C = []

    def c(label, op, *args):
        C.append((label, "root", (op,) + args))

    data = bytes(range(256)) * 1200     # 300 KiB, not one block alike
    c("files", "statfs_mark", ".")
    c("files", "mkdir", "d", 0o755)
    c("files", "open", "d/small", "O_RDWR|O_CREAT", 0o644, "a")
    c("files", "write", "a", b"x" * 60)
    c("files", "fsync", "a")
    c("files", "blocks", "d/small")
    c("files", "open", "d/big", "O_RDWR|O_CREAT", 0o644, "b")
    c("files", "write", "b", data)
    c("files", "write", "b", b"far", 5 << 20)
    c("files", "fsync", "b")
    c("files", "read", "b", 100, 299950)
    c("files", "read", "b", 8192, (5 << 20) - 4096)
    c("files", "blocks", "d/big")
    c("files", "statfs_delta", ".")
    c("files", "ftruncate", "b", 100000)
    c("files", "utimensat", "d/big", (1000, 0), (1000, 0))
    c("files", "fallocate", "b", "", 200000, 50000)
    c("files", "times", "d/big")     # block maps: refused, m changed
    c("files", "fsync", "b")
    c("files", "blocks", "d/big")
    c("files", "fstat", "b")
    c("files", "open", "d/one", "O_RDWR|O_CREAT", 0o644, "o")
    c("files", "write", "o", data[:4096])
    c("files", "write", "o", b"more", 2000)
    c("files", "read", "o", 5000, 0)
    for lab in ("a", "b", "o"):
        c("files", "close", lab)
    c("dir", "mkdir", "h", 0o755)
    long = "n" * 60
    for i in range(120):
        c("dir", "creat", "h/%s-%03d" % (long, i), 0o644)
    for i in range(0, 120, 3):
        c("dir", "unlink", "h/%s-%03d" % (long, i))
    c("dir", "rename", "h/%s-%03d" % (long, 1), "d/moved")
    c("dir", "link", "d/moved", "h/again")
    c("dir", "stat", "h/%s-%03d" % (long, 2))
    c("dir", "stat", "h/%s-%03d" % (long, 3))
    c("dir", "rmdir", "h")
    c("dir", "listdir", "h")
    c("dir", "stat", "d/moved")
    c("dir", "blocks", "h")
    c("lnk", "statfs_mark", ".")
    c("lnk", "symlink", "t" * 30, "d/s1")
    c("lnk", "symlink", "u" * 500, "d/s2")
    c("lnk", "readlink", "d/s1")
    c("lnk", "readlink", "d/s2")
    c("lnk", "lstat", "d/s2")
    c("lnk", "statfs_delta", ".")
    c("xattr", "setxattr", "d/small", "user.a", b"1" * 20)
    c("xattr", "setxattr", "d/small", "user.b", b"2" * 700)
    c("xattr", "setxattr", "d/small", "user.big", b"3" * 6000)
    c("xattr", "listxattr", "d/small")
    c("xattr", "getxattr", "d/small", "user.b")
    c("xattr", "removexattr", "d/small", "user.b")
    c("xattr", "setxattr", "d", "user.dir", b"4" * 100)
    c("xattr", "blocks", "d/small")
    c("misc", "statfs_mark", ".")
    c("misc", "chmod", "d/small", 0o600)
    c("misc", "chown", "d/small", 1000, 1000)
    c("misc", "mkfifo", "d/p", 0o644)
    c("misc", "unlink", "d/one")
    c("misc", "open", "d/gone", "O_RDWR|O_CREAT", 0o644, "g")
    c("misc", "unlink", "d/gone")       # open: on the orphan list or file
    c("misc", "write", "g", data[:10000])
    c("misc", "fstat", "g")
    c("misc", "close", "g")
    # times past 2038 and before 1970 (128-byte inodes: 32 bits)
    for t in ((2**31 + 1000, 5), (-(2**31) - 1000, 0), (2**33 + 7, 123),
              (-1, 999999999)):
        c("misc", "utimensat", "d/big", t, t)
        c("misc", "times", "d/big")
    c("misc", "getflags", "d/big")
    c("misc", "getflags", "d")
    c("misc", "statfs_delta", ".")
    return C


def limits():
    C = []

    def c(label, user, op, *args):
        C.append((label, user, (op,) + args))

    c("emlink", "root", "mkdir", "L", 0o755)
    c("emlink", "root", "creat", "L/f", 0o644)
    c("emlink", "root", "manylinks", "L/f", "L/d", 65100)
    c("emlink", "root", "stat", "L/f")
    c("emlink", "root", "link", "L/f", "L/one-more")
    c("emlink", "root", "rename", "L/d0/0", "L/renamed")
    c("emlink", "root", "stat", "L/f")
    c("emlink", "root", "rmtree", "L")
    c("inodes", "root", "mkdir", "I", 0o777)
    c("inodes", "root", "chmod", "I", 0o777)
    c("inodes", "alice", "fill_inodes", "I", 100000)
    c("inodes", "alice", "mkdir", "I/d", 0o755)
    c("inodes", "alice", "symlink", "x", "I/s")
    c("inodes", "alice", "mkfifo", "I/p", 0o644)
    c("inodes", "root", "rmtree", "I")
    c("inodes", "root", "creat", "after-inodes", 0o644)
    c("prealloc", "alice", "prealloc", "P", 8192, 1)
    c("prealloc", "alice", "prealloc", "P", 8192, 2)
    c("prealloc", "alice", "stat", "P")
    c("prealloc", "alice", "unlink", "P")
    c("blocks", "root", "mkdir", "B", 0o777)
    c("blocks", "root", "chmod", "B", 0o777)
    c("blocks", "alice", "fill_blocks", "B/alice", 1 << 20)
    c("blocks", "alice", "mkdir", "B/d", 0o755)
    c("blocks", "alice", "setxattr", "B", "user.big", b"v" * 2000)
    c("blocks", "root", "rmtree", "B")
    c("blocks", "root", "creat", "after-blocks", 0o644)
    c("blocks", "root", "statfs", ".")
    return C


def inline():
    """on files the kernel left inline (tests/u_posix_inline: i/small
    100 bytes, i/small2 50 bytes, i/empty): lseek, copy_file_range from
    and into them, their flags"""
    C = []

    def c(label, op, *args):
        C.append((label, "root", (op,) + args))

    for p in ("i/small", "i/small2", "i/empty"):
        c("flags", "getflags", p)
    c("seek", "open", "i/small", "O_RDONLY", 0, "s")
    c("seek", "open", "i/empty", "O_RDONLY", 0, "e")
    for off in (0, 1, 50, 99, 100, 101, 5000, -1):
        for w in ("data", "hole"):
            c("seek", "lseek", "s", off, w)
    for w in ("data", "hole"):
        c("seek", "lseek", "e", 0, w)
    c("copy", "open", "i/small2", "O_RDWR", 0, "d")
    c("copy", "open", "cp1", "O_RDWR|O_CREAT", 0o644, "n")
    c("copy", "copy_file_range", "s", "n", 1000, 0, 0)
    c("copy", "read", "n", 1000, 0)
    c("copy", "copy_file_range", "s", "d", 30, 10, 40)   # still inline
    c("copy", "read", "d", 1000, 0)
    c("copy", "fstat", "d")
    c("copy", "getflags", "i/small2")
    c("copy", "copy_file_range", "n", "d", 100, 0, 5000)  # out of the inode
    c("copy", "fsync", "d")     # the kernel's ext4 moves it out at writeback
    c("copy", "read", "d", 10000, 0)
    c("copy", "fstat", "d")
    c("copy", "getflags", "i/small2")
    for off in (0, 100, 4096, 5000, 5100):
        for w in ("data", "hole"):
            c("copy", "lseek", "d", off, w)
    for lab in ("s", "e", "d", "n"):
        c("copy", "close", lab)
    return C


# ---------------------------------------------------------------------
# Times: what each kind of call changes, and times set at the format's
# limits (tests/u_posix_times, on 256- and 128-byte inodes)

# seconds, nanoseconds: around 0, 32-bit signed seconds' ends (the range
# of a 128-byte inode: 1901-2038), the extra field's epochs and its end
# (15032385535, in 2446), past both
TIME_VALUES = [(0, 0), (1, 999999999), (-1, 5), (-2**31, 7), (-2**31 - 1, 3),
               (-2**32, 0), (2**31 - 1, 123), (2**31, 456), (2**32 + 5, 9),
               (15032385534, 999999999), (15032385535, 0),
               (15032385535, 999), (15032385536, 5), (2**34, 0), (2**40, 1),
               (-2**40, 1)]


def times_calls():
    C = []

    def c(label, op, *args, user="root"):
        C.append((label, user, (op,) + args))

    for d in ("d1", "d2", "d1/sub", "d2/empty", "d2/sub2"):
        c("setup", "mkdir", d, 0o777)
    c("setup", "creat", "d1/f", 0o644)
    c("setup", "creat", "d1/g", 0o644)
    c("setup", "creat", "d2/h", 0o644)
    c("setup", "symlink", "f", "d1/sl")
    # names made and removed
    c("names", "creat", "d1/n", 0o644)
    c("names", "mkdir", "d1/nd", 0o755)
    c("names", "mkfifo", "d1/p", 0o644)
    c("names", "mknod", "d1/nod", 0o20644, 1, 3)
    c("names", "symlink", "nowhere", "d1/s2")
    c("names", "link", "d1/n", "d2/n2")
    c("names", "unlink", "d2/n2")
    c("names", "link", "d1/n", "d1/n3")
    c("names", "unlink", "d1/n")
    c("names", "rmdir", "d1/nd")
    c("names", "unlink", "d1/p")
    c("names", "mkdir", "d1/f", 0o755)		# EEXIST: no change
    c("names", "unlink", "d1/none")		# ENOENT: no change
    c("names", "rmdir", "d2")			# ENOTEMPTY: no change
    # renames: in one directory, to another, over a file, a directory to
    # another parent (its '..'), over an empty directory, exchanges
    c("rename", "rename", "d1/g", "d1/g2")
    c("rename", "rename", "d1/g2", "d2/g3")
    c("rename", "rename", "d2/g3", "d1/n3")
    c("rename", "rename", "d1/sub", "d2/sub")
    c("rename", "rename", "d2/sub", "d2/empty")
    c("rename", "rename", "d2/empty", "d1/sub")
    c("rename", "creat", "d2/x", 0o644)
    c("rename", "renameat2", "d1/n3", "d2/x", "exchange")
    c("rename", "renameat2", "d1/n3", "d2/sub2", "exchange")
    c("rename", "renameat2", "d1/n3", "d2/h", "noreplace")	# EEXIST
    c("rename", "rename", "d1/f", "d1/f")
    c("rename", "rename", "d1/n3", "d1/n3/in")	# EINVAL
    # attributes
    c("attr", "chmod", "d1/f", 0o600)
    c("attr", "chmod", "d1/f", 0o600)
    c("attr", "chown", "d1/f", 1001, 1001)
    c("attr", "chown", "d1/f", -1, -1)
    c("attr", "lchown", "d1/sl", 1002, 1002)
    c("attr", "chmod", "d1/f", 0o644, user="bob")	# EPERM
    c("attr", "setflags", "d1/f", "+A")
    c("attr", "setflags", "d1/f", "-A")
    # extended attributes and ACLs
    c("xattr", "setxattr", "d1/f", "user.a", "1")
    c("xattr", "setxattr", "d1/f", "user.a", "1")
    c("xattr", "setxattr", "d1/f", "user.a", "22")
    c("xattr", "setxattr", "d1/f", "user.a", "3", 1)	# EEXIST
    c("xattr", "setxattr", "d1/f", "user.b", "3", 2)	# ENODATA
    c("xattr", "removexattr", "d1/f", "user.a")
    c("xattr", "removexattr", "d1/f", "user.a")		# ENODATA
    c("xattr", "setxattr", "d1", "user.d", "x" * 300)
    c("xattr", "setfacl", "d1/f", "u::rw-,u:1002:r--,g::r--,m::r--,o::r--")
    c("xattr", "setfacl", "d1/f", "u::rw-,g::r--,o::r--")
    c("xattr", "setfacl", "d1/f", "u::rw-,g::r--,o::---")
    c("xattr", "removexattr", "d1/f", "system.posix_acl_access")
    c("xattr", "setfacl", "d1", "u::rwx,g::r-x,o::r-x,u:1001:rwx,m::rwx",
      True)
    c("xattr", "removexattr", "d1", "system.posix_acl_default")
    c("xattr", "setxattr", "d1/f", "user.a", "1", user="bob")	# EACCES
    # contents: writes, truncates, fallocate
    c("data", "open", "d1/f", "O_RDWR", 0, "f")
    c("data", "write", "f", 5000, 0)
    c("data", "write", "f", 10, 100)
    c("data", "read", "f", 100, 0)
    c("data", "ftruncate", "f", 5000)
    c("data", "ftruncate", "f", 100)
    c("data", "fallocate", "f", "keep", 0, 40960)
    c("data", "fallocate", "f", "", 0, 8192)
    c("data", "fallocate", "f", "punch", 0, 4096)
    c("data", "fallocate", "f", "zero", 100, 200)
    c("data", "fsync", "f")
    c("data", "close", "f")
    c("data", "truncate", "d1/f", 8192)
    c("data", "truncate", "d1/f", 8192)
    c("data", "truncate", "d1/f", 10)
    c("data", "open", "d1/f", "O_WRONLY|O_TRUNC")
    c("data", "open", "d1/f", "O_WRONLY|O_TRUNC")
    c("data", "open", "d1/f", "O_RDONLY|O_TRUNC", user="bob")	# EACCES
    # times set: now, omitted, and values at the format's limits
    c("set", "utimensat", "d1/f", None, None)
    c("set", "utimensat", "d1/f", "now", "omit")
    c("set", "utimensat", "d1/f", "omit", "now")
    c("set", "utimensat", "d1/f", "omit", "omit")
    c("set", "utimensat", "d1/f", None, None, user="bob")	# EACCES
    for i, t in enumerate(TIME_VALUES):
        u = TIME_VALUES[-1 - i]
        for p, nofollow in (("d1/f", False), ("d2", False),
                            ("d1/sl", True)):
            c("set", "utimensat", p, t, u, nofollow)
            c("set", "times", p, nofollow)
    c("set", "utimensat", "d1/f", (2**31 - 1, 5), "omit")
    c("set", "times", "d1/f")
    c("set", "utimensat", "d1/f", "now", "now")
    c("set", "times", "d1/f")
    return C


# ---------------------------------------------------------------------
# The final tree

def tree(root):
    def entry(rel):
        p = os.path.join(root, rel) if rel else root
        st = os.lstat(p)
        f = [rel or ".", fmt_stat(st)]
        if stat.S_ISREG(st.st_mode):
            h = hashlib.sha256()
            with open(p, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            f.append(h.hexdigest()[:16])
        elif stat.S_ISLNK(st.st_mode):
            f.append("->" + os.readlink(p))
        for n in sorted(os.listxattr(p, follow_symlinks=False)):
            v = os.getxattr(p, n, follow_symlinks=False)
            f.append("%s=%s" % (n, acl_text(v) if n.startswith(
                "system.posix_acl") else xval(v)))
        return " ".join(f)
    lines = [entry("")]
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            lines.append(entry(os.path.relpath(os.path.join(d, n), root)))
    lines.sort()
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------
# Comparing two runs

def load_allowed(path):
    """(regex, reason) pairs: a difference whose kernel line matches a
    regex is allowed, for that reason"""
    import re
    out = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            rx, _, reason = line.partition("\t")
            out.append((re.compile(rx), reason.strip()))
    return out


def compare(allowed_path, label, kout, oout, ktree, otree):
    allowed = load_allowed(allowed_path)
    bad = []
    fails = 0

    def judge(kind, k, o):
        key = k if k is not None else o
        for rx, reason in allowed:
            if rx.search(key):
                return reason
        bad.append("  %s kernel: %s\n  %s ours:   %s" % (kind, k, kind, o))
        return None

    def lines(path):
        with open(path) as f:
            return f.read().splitlines()
    k, o = lines(kout), lines(oout)
    broken = [x for x in k + o if "SCRIPT-ERROR" in x]
    if broken:	# the script, not the mount: say it, fail
        print("%s: the script failed: %s" % (label, broken[0]))
        return 1
    ndiff = nallow = 0
    for i in range(max(len(k), len(o))):
        a = k[i] if i < len(k) else None
        b = o[i] if i < len(o) else None
        if a != b:
            ndiff += 1
            if judge("call", a, b) is not None:
                nallow += 1
    kt = {x.split(" ", 1)[0]: x for x in lines(ktree)}
    ot = {x.split(" ", 1)[0]: x for x in lines(otree)}
    tdiff = tallow = 0
    for p in sorted(set(kt) | set(ot)):
        if kt.get(p) != ot.get(p):
            tdiff += 1
            if judge("tree", kt.get(p) and "tree " + kt[p],
                     ot.get(p) and "tree " + ot[p]) is not None:
                tallow += 1
    print("%s: %d calls, %d differ (%d allowed); tree: %d entries, "
          "%d differ (%d allowed)" % (label, len(k), ndiff, nallow, len(kt),
                                      tdiff, tallow))
    for b in bad[:40]:
        print(b)
    if len(bad) > 40:
        print("  ... and %d more" % (len(bad) - 40))
    return 1 if bad else 0


def main():
    if sys.argv[1] == "compare":
        sys.exit(compare(*sys.argv[2:8]))
    what, base = sys.argv[1], os.path.abspath(sys.argv[2])
    out = sys.stdout
    if what == "formats":       # tests/u_mount_formats
        run_list(base, formats(), out)
        return
    if what == "calls":
        run_list(base, script(), out)
    elif what == "random":
        run_list(base, random_calls(int(sys.argv[3]), int(sys.argv[4])),
                 out)
    elif what == "limits":
        run_list(base, limits(), out)
    elif what == "inline":
        run_list(base, inline(), out)
    elif what == "times":
        run_list(base, times_calls(), out)
    elif what == "tree":
        out.write(tree(base))
    else:
        sys.exit("usage: posix_diff.py calls|random|limits|inline|times|"
                 "formats|tree "
                 "DIR ...")


if __name__ == "__main__":
    main()
