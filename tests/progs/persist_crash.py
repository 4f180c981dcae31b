#!/usr/bin/env python3
"""persist_crash.py --- the persistence-point crash suite
(tests/c_crash_persist).

Usage: persist_crash.py WORKDIR [PP ...]   (default: every persistence point
       of PPS; "sync": every one of SYNC_PPS, tests/c_crash_sync)

Environment: OUR_FUSE2FS, OUR_E2FSCK, OUR_MKE2FS, LJ_CRASH, STOCK_E2FSCK,
STOCK_DEBUGFS (paths); PERSIST_JOBS (2), PERSIST_MIDS (mid states judged
per case, 1), PERSIST_SEED (1), PERSIST_ONLY (a regular expression: the
cases "OP1,OP2/PP" to run; for debugging), PERSIST_FORMAT (the base
image's mke2fs options, "-t ext4 -b 1024 -J size=1" unless set),
PERSIST_MIB (its size, 8) and PERSIST_PLAIN (1: a plain ext4, made
without lazy_journal): the format matrix, tests/c_crash_persist_formats.

Every sequence of one and two operations over OPS, and a creat (a new
file and an entry) or a write (an append to a file of the base), an fsync
of that file, then each operation (the persistence point then finds the
file and its directory changed since their last change committed: every
change must be recorded for fuse2fs/commit.c's fs_end_fsync, which
commits nothing for an inode whose last change is durable, and for an
fdatasync nothing but a flush where only its times changed since), then
ONE persistence point (PPS), each on its own copy of a small committed
image, mounted by our fuse2fs with -o commit=600 (nothing else commits)
and the crash model's recorder (LJ_CRASH_RECORD), then kill -9 of the
daemon right after the persistence point returned.  The record's
power-cut states
(lj_crash sample) are judged:

  * "final" and "tail" (every write before the last flush, any subset of
    the writes after it: the power cut came after the persistence point
    had returned): the tree is the model's tree after operation j for
    some j >= K, K the last operation the persistence point covers
    (doc/testing.md, "Persistence points"), contents, sizes, symbolic
    link targets and user xattrs compared;
  * "mid" (the power cut came while the persistence point ran; PERSIST_MIDS
    of them per case, seeded): the tree's names, types, sizes, targets and
    xattrs are those after some operation j >= 0, or in the middle of a
    write, cut at a page (contents of blocks written in place are free,
    as in ext4's ordered mode);
  * syncfs, which the kernel's FUSE client does not pass to the server
    (doc/mount.md): every state as "mid".

The persistence points of their own (SYNC_PPS, "sync"): a change that
must be durable when its call returns, with nothing else committing: to
a file marked chattr +S (write, ftruncate, truncate, open with O_TRUNC,
fallocate, copy_file_range into it, chmod, setxattr), in a directory
marked +S or +D or on a mount with -o dirsync (creat, mkdir, unlink,
rmdir, rename within, into and out of it, link, symlink), through an
O_SYNC or O_DSYNC descriptor (write, pwritev2, copy_file_range into it,
fallocate, ftruncate), pwritev2 with RWF_SYNC or RWF_DSYNC, on a mount
with -o sync (write, ftruncate, creat); each after one uncommitted
write to another file, alone and followed by an fsync (of the file, or
of the directory), on a base image that holds the flagged file and
directories.  After it, the tree must be the model's after the last
operation (jbd2 commits the whole running transaction, in order).

Each state is judged twice, and both verdicts are reported:
  stock: the lazy bit cleared, stock `e2fsck -E journal_only -y` (exit
    0, 1, or 12 for the lazy bit the replayed superblock brings back),
    the bit cleared again, stock `e2fsck -fn` exit 0, then the tree read
    by stock debugfs (rdump, ea_list);
  ours: our `e2fsck -fn` on the lazy state exit 0, then (for the states
    after the persistence point, and syncfs's) the tree read through our
    fuse2fs mounting it read-only (system calls only, so the same suite
    judges any server).  A plain state (PERSIST_PLAIN) is what the
    kernel's ext4 would leave, its home copies waiting for a replay that
    e2fsck -n and a read-only mount refuse to make: ours is then our
    fuse2fs mounting every state read-write (our replay), the tree read
    through it, and stock `e2fsck -fn` clean after its umount; on a
    fast_commit file system, whose log our mount does not replay (the
    kernel's may hold fast commits), ours is the refusal: one line, exit
    2, the image unchanged.

Prints one line per persistence point: "PP: N sequences: VERDICT", and
one line per failed state (at most 20 per persistence point) before it;
the counts of states go to stderr.  Exit 0 when every case passes, 1
otherwise.
"""
import ctypes
import fcntl
import hashlib
import itertools
import multiprocessing
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time

ENV = os.environ
OUR_FUSE2FS = ENV.get("OUR_FUSE2FS", "")
OUR_E2FSCK = ENV.get("OUR_E2FSCK", "")
OUR_MKE2FS = ENV.get("OUR_MKE2FS", "")
LJ_CRASH = ENV.get("LJ_CRASH", "")
STOCK_E2FSCK = ENV.get("STOCK_E2FSCK", "/usr/sbin/e2fsck")
STOCK_DEBUGFS = ENV.get("STOCK_DEBUGFS", "/usr/sbin/debugfs")
JOBS = int(ENV.get("PERSIST_JOBS", "2"))
MIDS = int(ENV.get("PERSIST_MIDS", "1"))
SEED = int(ENV.get("PERSIST_SEED", "1"))
ONLY = ENV.get("PERSIST_ONLY", "")
FORMAT = ENV.get("PERSIST_FORMAT", "-t ext4 -b 1024 -J size=1").split()
MIB = int(ENV.get("PERSIST_MIB", "8"))
PLAIN = ENV.get("PERSIST_PLAIN", "") == "1"
# a plain fast_commit file system: our mount refuses every state with a
# log to replay (the kernel's log may hold fast commits it does not
# replay; fuse2fs/formats.c), so ours is that refusal
FAST_COMMIT = PLAIN and "fast_commit" in " ".join(FORMAT)
NRAND = 1       # lj_crash sample: seeded states per epoch
PAGE = 4096

OPS = ["creat", "mkdir", "write", "overwrite", "truncate", "fallocate",
       "link", "unlink",
       "rename-file", "rename-dir", "rename-across", "symlink", "setxattr",
       "removexattr"]
# name: (what it is, the oracle: "strong" as ext4 guarantees, "weak" when
# FUSE does not pass it)
PPS = {
    "fsync-rw": "fsync of the file (read-write descriptor)",
    "fsync-ro": "fsync of the file (read-only descriptor)",
    "fdatasync": "fdatasync of the file",
    "fsync-dir": "fsync of the directory",
    "o-sync": "O_SYNC write to the file",
    "syncfs": "syncfs (not passed by FUSE)",
}

# ---------------------------------------------------------------------
# The model: objects (inodes) and the names that lead to them


class Obj:
    ids = itertools.count(1)

    def __init__(self, kind, data=b"", target=""):
        self.id = next(Obj.ids)
        self.kind = kind            # "f", "d", "l"
        self.data = data
        self.target = target
        self.xattrs = {}
        self.mode = 0o644           # a file's permission bits

    def copy(self):
        o = Obj.__new__(Obj)
        o.id, o.kind, o.data, o.target, o.mode = self.id, self.kind, \
            self.data, self.target, self.mode
        o.xattrs = dict(self.xattrs)
        return o


def pattern(tag, n):
    """n bytes, a function of tag (no two writes alike)."""
    out = b""
    i = 0
    while len(out) < n:
        out += hashlib.sha256(("%s/%d" % (tag, i)).encode()).digest()
        i += 1
    return out[:n]


class Model:
    """The tree: path -> Obj (hard links share the Obj); cur: the path of
    the file the last file operation touched; counter for new names."""

    def __init__(self):
        self.names = {}
        self.cur = None
        self.sub = "/a/sub"
        self.n = 0

    def copy(self):
        m = Model()
        objs = {}
        for p, o in self.names.items():
            if o.id not in objs:
                objs[o.id] = o.copy()
            m.names[p] = objs[o.id]
        m.cur, m.sub, m.n = self.cur, self.sub, self.n
        return m

    def new_name(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def manifest(self, contents=True):
        return manifest_of(
            (p, o.kind, len(o.data), hashlib.sha256(o.data).hexdigest()
             if contents and o.kind == "f" else "", o.target,
             tuple(sorted(o.xattrs.items())),
             o.mode if o.kind == "f" else 0) for p, o in self.names.items())

    def files(self):
        return sorted(p for p, o in self.names.items() if o.kind == "f")

    def empty_dirs(self):
        return sorted(p for p, o in self.names.items() if o.kind == "d" and
                      p not in ("/", "/lost+found", "/a", "/b") and
                      not any(q.startswith(p + "/") for q in self.names))


def manifest_of(entries):
    return tuple(sorted(entries))


def parent(p):
    return os.path.dirname(p) or "/"


# The flagged objects of the sync base (FS_IOC_SETFLAGS: facts of the
# format): a +S file, a +S directory and a +D directory, each directory
# holding a file and an empty directory made after its flag (which
# they inherit).
FL_SYNC, FL_DIRSYNC = 0x8, 0x10000
FLAGGED = (("/a/sy", "f", FL_SYNC), ("/s", "d", FL_SYNC), ("/s/e", "d", 0),
           ("/s/f", "f", 0), ("/d", "d", FL_DIRSYNC), ("/d/e", "d", 0),
           ("/d/f", "f", 0))


def base_model(flagged=False):
    m = Model()
    m.names["/"] = Obj("d")
    m.names["/lost+found"] = Obj("d")
    for d in ("/a", "/b", "/a/sub", "/a/e", "/a/e2"):
        m.names[d] = Obj("d")
    for p, n, x in (("/a/f", 5000, "hello"), ("/a/g", 3000, "world"),
                    ("/b/h", 100, "there"), ("/a/sub/s", 10, None)):
        o = Obj("f", pattern("base" + p, n))
        if x:
            o.xattrs["user." + p[-1]] = x
        m.names[p] = o
    for p, kind, _ in FLAGGED if flagged else ():
        m.names[p] = Obj(kind, pattern("base" + p, 2000) if kind == "f"
                         else b"")
    m.cur = "/a/f"
    return m


# ---------------------------------------------------------------------
# The operations.  plan(model) -> (action, touched, datatouched): action a
# tuple run on the mount by do(); touched the objects whose inode it
# changes (fsync covers it), datatouched those whose data, size or
# allocation it changes or that it creates (fdatasync covers it);
# entrydir: the directory whose entries it changed (fsync-dir's subject).

def plan(op, m):
    """Apply op to m (a Model) and return (action, touched, datatouched,
    entrydir)."""
    cur = m.cur
    co = m.names.get(cur)
    if op == "creat":
        p = parent(cur) + "/" + m.new_name("n")
        o = Obj("f")
        m.names[p] = o
        m.cur = p
        return ("creat", p), {o.id, m.names[parent(p)].id}, {o.id}, parent(p)
    if op == "mkdir":
        p = "/a/" + m.new_name("d")
        o = Obj("d")
        m.names[p] = o
        return ("mkdir", p), {o.id, m.names["/a"].id}, {o.id}, "/a"
    if op == "write":
        data = pattern("w%d" % m.n, 3000)
        m.n += 1
        off = len(co.data)
        co.data = co.data + data
        return ("write", cur, off, data), {co.id}, {co.id}, parent(cur)
    if op == "overwrite":   # in place, the size unchanged (if any)
        off = len(co.data) // 4
        data = pattern("o%d" % m.n, len(co.data) // 2 or 3000)
        m.n += 1
        co.data = co.data[:off] + data + co.data[off + len(data):]
        return ("overwrite", cur, off, data), {co.id}, {co.id}, parent(cur)
    if op == "truncate":
        size = len(co.data) // 2 if co.data else 2000
        co.data = co.data[:size] + b"\0" * (size - len(co.data))
        return ("truncate", cur, size), {co.id}, {co.id}, parent(cur)
    if op == "fallocate":
        off = len(co.data)
        co.data = co.data + b"\0" * 4096
        return ("fallocate", cur, off, 4096), {co.id}, {co.id}, parent(cur)
    if op == "link":
        p = "/b/" + m.new_name("l")
        m.names[p] = co
        return ("link", cur, p), {co.id, m.names["/b"].id}, set(), "/b"
    if op == "unlink":
        d = m.names[parent(cur)]
        del m.names[cur]
        rest = m.files()
        m.cur = rest[0]
        return ("unlink", cur), {co.id, d.id}, set(), parent(cur)
    if op == "rename-file":
        others = [p for p in m.files() if m.names[p] is not co]
        same = [p for p in others if parent(p) == parent(cur)]
        t = (same or others)[0]
        to = m.names[t]
        touched = {co.id, to.id, m.names[parent(cur)].id,
                   m.names[parent(t)].id}
        del m.names[cur]
        m.names[t] = co
        m.cur = t
        return ("rename", cur, t), touched, set(), parent(t)
    if op == "rename-dir":
        src = m.sub     # the directory holding a file, moved over an
        dst = [d for d in m.empty_dirs()    # empty one
               if d != src and parent(d) == parent(src)][0]
        so, do_ = m.names[src], m.names[dst]
        touched = {so.id, do_.id, m.names[parent(src)].id}
        moved = {p: o for p, o in m.names.items()
                 if p == src or p.startswith(src + "/")}
        for p in moved:
            del m.names[p]
        del m.names[dst]
        for p, o in moved.items():
            m.names[dst + p[len(src):]] = o
        if m.cur and (m.cur == src or m.cur.startswith(src + "/")):
            m.cur = dst + m.cur[len(src):]
        m.sub = dst
        return ("rename", src, dst), touched, set(), parent(dst)
    if op == "rename-across":
        d = "/b" if not cur.startswith("/b/") else "/a"
        name = os.path.basename(cur)
        t = d + "/" + name
        while t in m.names:
            t += "x"
        touched = {co.id, m.names[parent(cur)].id, m.names[d].id}
        del m.names[cur]
        m.names[t] = co
        m.cur = t
        return ("rename", cur, t), touched, set(), d
    if op == "symlink":
        p = "/a/" + m.new_name("s")
        target = "../b/" + "t" * 90     # a block-mapped (slow) symlink
        o = Obj("l", target=target)
        m.names[p] = o
        return ("symlink", target, p), {o.id, m.names["/a"].id}, {o.id}, "/a"
    if op == "setxattr":
        name = "user." + m.new_name("x")
        val = "value-" + name[5:]   # short: debugfs shows it
        co.xattrs[name] = val
        return ("setxattr", cur, name, val), {co.id}, set(), parent(cur)
    if op == "removexattr":
        if not co.xattrs:
            m.cur = cur = [p for p in m.files() if m.names[p].xattrs][0]
            co = m.names[cur]
        name = sorted(co.xattrs)[0]
        del co.xattrs[name]
        return ("removexattr", cur, name), {co.id}, set(), parent(cur)
    if op == "fsync":       # all committed: what follows changes it
        return ("fsync", cur), set(), set(), parent(cur)
    if op == "o-sync":      # the persistence point's own write
        data = pattern("o%d" % m.n, 100)
        m.n += 1
        off = len(co.data)
        co.data = co.data + data
        return ("o-sync", cur, off, data), {co.id}, {co.id}, parent(cur)
    raise ValueError(op)


# ---------------------------------------------------------------------
# The persistence points of their own (tests/c_crash_sync).  Each plans
# one change on the model and returns (action, subject, isdir): what an
# fsync after it syncs.  A file change goes to /a/g (open flags, pwritev2
# flags, -o sync) or to the +S file /a/sy; a directory change is in D.

def sync_file(kind, path, oflags=0, rwf=0):
    """A change to the file at path: kind write, pwritev2, ftruncate,
    truncate (by path), otrunc (open with O_TRUNC), fallocate, copy
    (copy_file_range from /b/h), chmod, setxattr."""
    def planner(m):
        o = m.names[path]
        tag = "%s%d" % (kind, m.n)
        m.n += 1
        if kind in ("write", "pwritev2"):
            data = pattern(tag, 700)
            a = ("swrite", path, len(o.data), data, rwf, kind, oflags)
            o.data += data
        elif kind == "ftruncate":
            a = ("sftruncate", path, len(o.data) // 2, oflags)
            o.data = o.data[:len(o.data) // 2]
        elif kind == "truncate":
            a = ("truncate", path, len(o.data) // 2)
            o.data = o.data[:len(o.data) // 2]
        elif kind == "otrunc":
            a = ("otrunc", path)
            o.data = b""
        elif kind == "fallocate":
            a = ("sfallocate", path, len(o.data), 4096, oflags)
            o.data += b"\0" * 4096
        elif kind == "copy":
            src = m.names["/b/h"].data
            a = ("scopy", path, len(o.data), len(src), "/b/h", oflags)
            o.data += src
        elif kind == "chmod":
            a = ("chmod", path, 0o600)
            o.mode = 0o600
        elif kind == "setxattr":
            a = ("setxattr", path, "user." + tag, "value-" + tag)
            o.xattrs["user." + tag] = "value-" + tag
        else:
            raise ValueError(kind)
        return a, path, False
    return planner


def sync_dir(kind, d):
    """A change to the entries of directory d (its file d/f)."""
    def planner(m):
        f = d + "/f"
        if kind in ("creat", "mkdir", "symlink"):
            p = d + "/" + m.new_name(kind[0])
            if kind == "symlink":
                m.names[p] = Obj("l", target="../b/" + "t" * 90)
                return ("symlink", m.names[p].target, p), d, True
            m.names[p] = Obj("f" if kind == "creat" else "d")
            return (kind, p), d, True
        if kind in ("unlink", "rmdir"):
            p = f if kind == "unlink" else d + "/e"
            del m.names[p]
            return (kind, p), d, True
        if kind == "link":
            p = d + "/" + m.new_name("l")
            m.names[p] = m.names[f]
            return ("link", f, p), d, True
        src, dst = {"rename": (f, d + "/" + m.new_name("r")),
                    "rename-in": ("/b/h", d + "/" + m.new_name("i")),
                    "rename-out": (f, "/b/" + m.new_name("o"))}[kind]
        m.names[dst] = m.names.pop(src)
        return ("rename", src, dst), d, True
    return planner


DIR_OPS = ("creat", "mkdir", "unlink", "rmdir", "rename", "rename-in",
           "rename-out", "link", "symlink")
FD_OPS = ("write", "pwritev2", "copy", "fallocate", "ftruncate")
S_OPS = ("write", "ftruncate", "truncate", "otrunc", "fallocate", "copy",
         "chmod", "setxattr")
# class: (what it is, the mount's own options, {name: planner})
SYNC_CLASSES = {
    "S-file": ("a file marked chattr +S", "",
               {"S-file-" + k: sync_file(k, "/a/sy") for k in S_OPS}),
    "O_SYNC": ("an O_SYNC descriptor", "",
               {"O_SYNC-" + k: sync_file(k, "/a/g", os.O_SYNC)
                for k in FD_OPS}),
    "O_DSYNC": ("an O_DSYNC descriptor", "",
                {"O_DSYNC-" + k: sync_file(k, "/a/g", os.O_DSYNC)
                 for k in FD_OPS}),
    "RWF": ("pwritev2 with RWF_SYNC, RWF_DSYNC", "",
            {"RWF_SYNC": sync_file("pwritev2", "/a/g", 0, os.RWF_SYNC),
             "RWF_DSYNC": sync_file("pwritev2", "/a/g", 0, os.RWF_DSYNC)}),
    "S-dir": ("a directory marked chattr +S", "",
              {"S-dir-" + k: sync_dir(k, "/s") for k in DIR_OPS}),
    "D-dir": ("a directory marked chattr +D", "",
              {"D-dir-" + k: sync_dir(k, "/d") for k in DIR_OPS}),
    "dirsync": ("a directory on a -o dirsync mount", ",dirsync",
                {"dirsync-" + k: sync_dir(k, "/a") for k in DIR_OPS}),
    "sync": ("a -o sync mount", ",sync",
             {"sync-write": sync_file("write", "/a/g"),
              "sync-ftruncate": sync_file("ftruncate", "/a/g"),
              "sync-creat": sync_dir("creat", "/a")}),
}
# name (and name+fsync: followed by an fsync of its subject) -> class
SYNC_PPS = {n + f: c for c, v in SYNC_CLASSES.items() for n in v[2]
            for f in ("", "+fsync")}


def sync_planner(pp):
    return SYNC_CLASSES[SYNC_PPS[pp]][2][pp.replace("+fsync", "")]


def do_fd(root, a):
    """The descriptor actions of the sync points: (kind, path, ...,
    open flags)."""
    k = a[0]
    fd = os.open(root + a[1], os.O_WRONLY | a[-1])
    try:
        if k == "swrite":     # path, offset, data, RWF_ flags, how
            n = (os.pwritev(fd, [a[3]], a[2], a[4]) if a[5] == "pwritev2"
                 else os.pwrite(fd, a[3], a[2]))
            if n != len(a[3]):
                raise OSError("short write")
        elif k == "sftruncate":     # path, size
            os.ftruncate(fd, a[2])
        elif k == "sfallocate":     # path, offset, length
            os.posix_fallocate(fd, a[2], a[3])
        else:       # scopy: path, offset, length, source
            src = os.open(root + a[4], os.O_RDONLY)
            try:
                if os.copy_file_range(src, fd, a[3], 0, a[2]) != a[3]:
                    raise OSError("short copy_file_range")
            finally:
                os.close(src)
    finally:
        os.close(fd)


def do(root, a):
    """Run action a on the tree mounted at root."""
    r = lambda p: root + p      # noqa: E731
    k = a[0]
    if k == "creat":
        os.close(os.open(r(a[1]), os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                         0o644))
    elif k == "mkdir":
        os.mkdir(r(a[1]), 0o755)
    elif k in ("write", "overwrite", "o-sync"):
        flags = os.O_WRONLY | (os.O_SYNC if k == "o-sync" else 0)
        fd = os.open(r(a[1]), flags)
        try:
            if os.pwrite(fd, a[3], a[2]) != len(a[3]):
                raise OSError("short write")
        finally:
            os.close(fd)
    elif k == "truncate":
        os.truncate(r(a[1]), a[2])
    elif k == "fallocate":
        fd = os.open(r(a[1]), os.O_WRONLY)
        try:
            os.posix_fallocate(fd, a[2], a[3])
        finally:
            os.close(fd)
    elif k == "link":
        os.link(r(a[1]), r(a[2]))
    elif k == "unlink":
        os.unlink(r(a[1]))
    elif k == "rmdir":
        os.rmdir(r(a[1]))
    elif k == "otrunc":
        os.close(os.open(r(a[1]), os.O_WRONLY | os.O_TRUNC))
    elif k == "rename":
        os.rename(r(a[1]), r(a[2]))
    elif k == "symlink":
        os.symlink(a[1], r(a[2]))
    elif k == "fsync":
        fsync_path(r(a[1]), False)
    elif k == "setxattr":
        os.setxattr(r(a[1]), a[2], a[3].encode())
    elif k == "removexattr":
        os.removexattr(r(a[1]), a[2])
    elif k == "chmod":
        os.chmod(r(a[1]), a[2])
    elif k in ("swrite", "sftruncate", "sfallocate", "scopy"):
        do_fd(root, a)
    else:
        raise ValueError(k)


LIBC = ctypes.CDLL(None, use_errno=True)


def fsync_path(path, isdir):
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if isdir else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def persist(root, pp, m, entrydir):
    """The persistence point pp on the tree at root (m: the model before
    it, cur its file)."""
    if pp in ("fsync-rw", "fsync-ro", "fdatasync"):
        fd = os.open(root + m.cur, os.O_RDONLY if pp == "fsync-ro"
                     else os.O_RDWR)
        try:
            (os.fdatasync if pp == "fdatasync" else os.fsync)(fd)
        finally:
            os.close(fd)
    elif pp == "fsync-dir":
        fsync_path(root + entrydir, True)
    elif pp == "syncfs":
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            if LIBC.syncfs(fd) != 0:
                raise OSError(ctypes.get_errno(), "syncfs")
        finally:
            os.close(fd)
    else:
        raise ValueError(pp)


def in_place(a, before):
    """The objects whose bytes action a changes in place (below their
    size in the model before it): an overwrite, a truncate that shrinks
    (the tail of its last block zeroed)."""
    if a[0] == "overwrite" or (a[0] == "truncate" and
                               a[2] < len(before.names[a[1]].data)):
        return {before.names[a[1]].id}
    return set()


class Case:
    """A sequence and a persistence point: the models after each
    operation (models[0] the base), and K: the first j whose tree the
    persistence point guarantees (None: nothing, weak oracle)."""

    def __init__(self, seq, pp):
        self.seq, self.pp = seq, pp
        self.name = "%s/%s" % (",".join(seq), pp)
        self.sync = pp in SYNC_PPS
        m = base_model(self.sync)
        self.models = [m.copy()]
        self.actions = []
        touched, data, inplace = [], [], []
        entrydir = "/"
        # a crash during a write may keep any page-sized part of it (the
        # kernel sends at most a page a request here): partial models,
        # allowed where the tree after some operation is
        self.partial = []
        ops = list(seq) + (["o-sync"] if pp == "o-sync" else []) + \
            (["sync"] if self.sync else [])
        for op in ops:
            if op == "sync":    # the persistence point: all of it
                a, subj, isdir = sync_planner(pp)(m)
                self.subject = (subj, isdir)
                t = dt = set()
            else:
                a, t, dt, entrydir = plan(op, m)
            if a[0] in ("write", "o-sync", "swrite"):
                for b in range((a[2] // PAGE + 1) * PAGE, a[2] + len(a[3]),
                               PAGE):
                    mp = m.copy()
                    mp.names[a[1]].data = mp.names[a[1]].data[:b]
                    self.partial.append(mp.manifest(False))
            self.actions.append(a)
            touched.append(t)
            data.append(dt)
            inplace.append(in_place(a, self.models[-1]))
            self.models.append(m.copy())
        # free[j]: the files whose contents the operations after j change
        # in place: blocks ordered mode may write before their commit
        self.free = [set().union(*inplace[j:]) for j in
                     range(len(self.models))]
        self.entrydir = entrydir
        self.files = set(p for mo in self.models for p in mo.files())
        n = len(self.actions)
        if self.sync:
            self.k = n
            return
        if pp == "syncfs":
            self.k = None
            return
        if pp == "fsync-dir":
            subj = self.models[n].names[entrydir].id
            cover = touched
        else:
            subj = self.models[n].names[self.models[n].cur].id
            cover = data if pp == "fdatasync" else touched
        self.k = max([j + 1 for j in range(n) if subj in cover[j]] or [0])


# ---------------------------------------------------------------------
# Running a case

def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, **kw)


def daemon_pid(img):
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        if len(argv) > 1 and argv[0].endswith(b"fuse2fs") and \
                argv[1] == img.encode():
            return int(d)
    return None


def wait_gone(pid):
    """Wait until pid has exited (a zombie has)."""
    for _ in range(1000):
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except (OSError, IndexError):
            return True
        time.sleep(0.005)
    return False


def mount(img, mnt, opts, record=None):
    env = dict(ENV)
    env.pop("LJ_CRASH_RECORD", None)
    if record:
        env["LJ_CRASH_RECORD"] = record
    os.makedirs(mnt, exist_ok=True)
    r = run([OUR_FUSE2FS, img, mnt, "-o", opts], env=env)
    if r.returncode != 0 or not os.path.ismount(mnt):
        raise RuntimeError("mount of %s failed: %s" %
                           (img, r.stdout.decode(errors="replace").strip()))


def umount(img, mnt):
    pid = daemon_pid(img)
    run(["umount", mnt])
    if pid:
        wait_gone(pid)


def kill9(img, mnt):
    pid = daemon_pid(img)
    if pid is None:
        raise RuntimeError("no fuse2fs daemon for %s" % img)
    os.kill(pid, signal.SIGKILL)
    wait_gone(pid)
    run(["umount", "-l", mnt])


def tree_of_mount(root, contents):
    """The manifest of the tree mounted at root, by system calls."""
    out = []
    for dp, dns, fns in os.walk(root):
        rel = dp[len(root):] or "/"
        out.append((rel, "d", 0, "", "", (), 0))
        for n in dns + fns:
            p = os.path.join(dp, n)
            q = (rel.rstrip("/") + "/" + n)
            if os.path.islink(p):
                out.append((q, "l", 0, "", os.readlink(p), (), 0))
                continue
            if os.path.isdir(p):
                continue
            with open(p, "rb") as f:
                data = f.read()
            x = tuple(sorted((k, os.getxattr(p, k).decode(errors="replace"))
                             for k in os.listxattr(p)
                             if k.startswith("user.")))
            out.append((q, "f", len(data), hashlib.sha256(data).hexdigest()
                        if contents else "", "", x,
                        os.lstat(p).st_mode & 0o777))
        # directories carry user xattrs in no case here
    return manifest_of(out)


def tree_of_stock(img, tmp, contents, files):
    """The manifest of img read by stock debugfs in one run: rdump of the
    tree, ea_list of each path in files (those of every model state)."""
    out = tmp + ".rdump"
    shutil.rmtree(out, ignore_errors=True)
    os.mkdir(out)
    with open(tmp + ".cmds", "w") as f:
        f.write("rdump / %s\n" % out)
        for p in sorted(files):
            f.write("ea_list %s\n" % p)
    r = run([STOCK_DEBUGFS, "-f", tmp + ".cmds", img])
    if r.returncode != 0:
        raise RuntimeError("stock debugfs exit %d" % r.returncode)
    tree = tree_of_mount(out, contents)
    xattrs = {}
    who = None
    for line in r.stdout.decode(errors="replace").splitlines():
        mo = re.match(r"debugfs: ea_list (.*)$", line)
        if mo:
            who = mo.group(1)
            continue
        mo = re.match(r'\s+(user\.\S+) \(\d+\) = "(.*)"$', line)
        if mo and who:
            xattrs.setdefault(who, []).append((mo.group(1), mo.group(2)))
    shutil.rmtree(out, ignore_errors=True)
    return manifest_of(e[:5] + (tuple(sorted(xattrs.get(e[0], []))),) +
                       e[6:] if e[1] == "f" else e for e in tree)


def blank(tree, paths):
    """tree with the contents of the files at paths not compared."""
    return manifest_of(e[:3] + ("",) + e[4:] if e[0] in paths else e
                       for e in tree)


def judge_tree(tree, case, strong, contents):
    """'' when tree is the model's after some j (j >= K when strong), else
    why not.  The contents of files that operations after j change in
    place are not compared: ordered mode may write those blocks before
    the commit of their operation, which the persistence point need not
    cover (an fsync of another inode whose changes are committed)."""
    lo = case.k if strong else 0
    for j in range(len(case.models) - 1, lo - 1, -1):
        m = case.models[j]
        free = set(p for p, o in m.names.items() if o.id in case.free[j])
        if blank(tree, free) == blank(m.manifest(contents), free):
            return ""
    if not strong and tree in case.partial:
        return ""
    return "tree is none of the states after operation %d..%d: %s" % (
        lo, len(case.models) - 1,
        diff_hint(tree, case.models[-1].manifest(contents)))


def diff_hint(got, want):
    g, w = set(got), set(want)
    miss = sorted(w - g)[:2]
    extra = sorted(g - w)[:2]
    return "missing %s, unexpected %s" % (
        [e[0] + ":" + e[1] for e in miss] or "nothing",
        [e[0] + ":" + e[1] for e in extra] or "nothing")


def judge_state(case, base, rec, sid, strong, tmp, mnt):
    """Both verdicts on crash state sid: a list of failures (empty: it
    passes).  Our remount reads the tree of the states after the
    persistence point (strong) and of syncfs's."""
    contents = strong
    fails = []
    st = tmp + ".st.img"
    shutil.copyfile(base, st)
    r = run([LJ_CRASH, "sample-apply", rec, sid, str(NRAND), str(SEED), st])
    if r.returncode != 0:
        return ["cannot build the state"]
    # ours: e2fsck -fn on the lazy state, then our mount, read-only; a
    # plain state: our mount, read-write, replaying the log
    r = None if PLAIN else run([OUR_E2FSCK, "-fn", st])
    if r and r.returncode != 0:
        lines = [ln for ln in r.stdout.decode(errors="replace").splitlines()
                 if not re.match(r"(e2fsck|Pass|Warning: skipping)", ln)]
        fails.append("ours: e2fsck -fn exit %d: %s" % (
            r.returncode, "; ".join(lines[:3])))
    elif PLAIN or strong or case.k is None:
        fails += judge_remount(case, st, strong, contents, tmp, mnt)
    # stock: replay, e2fsck -fn, debugfs (whatever ours said)
    run([LJ_CRASH, "unlazy", st])
    r = run([STOCK_E2FSCK, "-E", "journal_only", "-y", st])
    out = r.stdout.decode(errors="replace")
    if r.returncode not in (0, 1, 12):
        fails.append("stock: e2fsck -E journal_only exit %d" % r.returncode)
    elif "needs_recovery flag is clear, but journal has data" in out:
        fails.append("stock: log live without needs_recovery")
    else:
        run([LJ_CRASH, "unlazy", st])
        r = run([STOCK_E2FSCK, "-fn", st])
        if r.returncode != 0:
            lines = [ln for ln in r.stdout.decode(errors="replace")
                     .splitlines() if not re.match(r"(e2fsck|Pass)", ln)]
            fails.append("stock: e2fsck -fn after replay exit %d: %s" % (
                r.returncode, "; ".join(lines[:3])))
        else:
            try:
                why = judge_tree(tree_of_stock(st, tmp, contents,
                                               case.files), case,
                                 strong, contents)
            except RuntimeError as e:
                why = str(e)
            if why:
                fails.append("stock (replayed, debugfs): " + why)
    for f in (st, tmp + ".ours.img"):
        if os.path.exists(f):
            os.unlink(f)
    return fails


def judge_remount(case, st, strong, contents, tmp, mnt):
    """ours: the tree of state st read through our fuse2fs (read-only; a
    plain state read-write, then stock e2fsck -fn of what it left)."""
    ours = tmp + ".ours.img"
    shutil.copyfile(st, ours)
    fails = []
    if FAST_COMMIT:
        return refused_remount(ours, mnt)
    try:
        mount(ours, mnt, "rw,commit=600" if PLAIN else "ro")
        try:
            why = judge_tree(tree_of_mount(mnt, contents), case, strong,
                             contents)
        finally:
            umount(ours, mnt)
        if why:
            fails.append("ours (remount): " + why)
    except (RuntimeError, OSError) as e:
        fails.append("ours (remount): %s" % e)
    if PLAIN and not fails:
        r = run([STOCK_E2FSCK, "-fn", ours])
        if r.returncode != 0:
            fails.append("ours (remount): stock e2fsck -fn after it: "
                         "exit %d" % r.returncode)
    return fails


def refused_remount(img, mnt):
    """ours on a plain fast_commit state: a log to replay refused in one
    line (exit 2), the image unchanged; a clean one mounted."""
    with open(img, "rb") as f:
        before = hashlib.sha256(f.read()).hexdigest()
    r = run([OUR_FUSE2FS, img, mnt, "-o", "rw"])
    out = r.stdout.decode(errors="replace").strip()
    if r.returncode == 0:
        umount(img, mnt)
        r = run([STOCK_E2FSCK, "-fn", img])
        return [] if r.returncode == 0 else [
            "ours (remount): stock e2fsck -fn after it: exit %d" %
            r.returncode]
    with open(img, "rb") as f:
        after = hashlib.sha256(f.read()).hexdigest()
    if r.returncode != 2 or "fast commits" not in out or \
            len(out.splitlines()) != 1 or after != before:
        return ["ours (remount): exit %d, %s, image %s" % (
            r.returncode, out, "unchanged" if after == before else
            "MODIFIED")]
    return []


def run_case(args):
    """One case in this worker's files: (name, pp, [failure lines],
    nstates).  Nothing stays mounted, whatever fails."""
    seq, pp, base, work = args
    case = Case(seq, pp)
    w = multiprocessing.current_process().name.split("-")[-1]
    tmp = os.path.join(work, "w%s" % w)
    mnt = tmp + ".mnt"
    try:
        fails, judged = run_case_in(case, base, tmp, mnt)
    except (RuntimeError, OSError, subprocess.SubprocessError) as e:
        fails, judged = ["%s: %s" % (case.name, e)], 0
    finally:
        for img in (tmp + ".img", tmp + ".ours.img"):
            pid = daemon_pid(img)
            if pid:
                os.kill(pid, signal.SIGKILL)
                wait_gone(pid)
        if os.path.ismount(mnt):
            run(["umount", "-l", mnt])
    return case.name, pp, fails, judged


def run_case_in(case, base, tmp, mnt):
    """run_case: the workload, the kill, the states judged."""
    img = tmp + ".img"
    rec = tmp + ".rec"
    shutil.copyfile(base, img)
    if os.path.exists(rec):
        os.unlink(rec)
    mount(img, mnt, "commit=600" + (SYNC_CLASSES[SYNC_PPS[case.pp]][1]
                                    if case.sync else ""), rec)
    n = len(case.seq)
    try:
        for a in case.actions[:n]:
            do(mnt, a)
        if case.pp == "o-sync" or case.sync:
            do(mnt, case.actions[n])
        if case.sync and case.pp.endswith("+fsync"):
            fsync_path(mnt + case.subject[0], case.subject[1])
        elif not case.sync and case.pp != "o-sync":
            persist(mnt, case.pp, case.models[n], case.entrydir)
        done = os.path.getsize(rec)
    except OSError as e:
        raise RuntimeError("the workload failed: %s" % e)
    finally:
        kill9(img, mnt)
    fails = []
    if os.path.getsize(rec) != done:
        fails.append("%s: the daemon wrote after the persistence point"
                     % case.name)
    r = run([LJ_CRASH, "sample", rec, str(NRAND), str(SEED)])
    states = [ln.split(None, 4) for ln in
              r.stdout.decode().splitlines()]
    strong = [s for s in states if s[1] in ("tail", "final")]
    mids = [s for s in states if s[1] == "mid"]
    if not strong:
        fails.append("%s: no crash states" % case.name)
    rnd = random.Random("%d/%s" % (SEED, case.name))
    pick = rnd.sample(mids, min(len(mids), MIDS))
    judged = 0
    for s in strong + pick:
        is_strong = s in strong and case.k is not None
        for f in judge_state(case, base, rec, s[0], is_strong, tmp, mnt):
            fails.append("%s: state %s (%s, epoch %s, %s): %s" % (
                case.name, s[0], s[1], s[2], s[4], f))
        judged += 1
    return fails, judged


def set_flags(path, flag):
    """chattr: flag added to path's inode flags (FS_IOC_GETFLAGS and
    FS_IOC_SETFLAGS, an int each way)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        buf = bytearray(4)
        fcntl.ioctl(fd, 0x80086601, buf)
        v = struct.unpack("i", buf)[0] | flag
        fcntl.ioctl(fd, 0x40086602, struct.pack("i", v))
    finally:
        os.close(fd)


def stock_flags(img, path):
    r = run([STOCK_DEBUGFS, "-R", "stat " + path, img])
    mo = re.search(r"Flags: (0x[0-9a-f]+)", r.stdout.decode(errors="replace"))
    return int(mo.group(1), 16) if mo else 0


def make_base(work, flagged=False):
    """The base image: the model's base tree (with the flagged objects of
    FLAGGED when flagged), written through our mount and umounted
    (committed); checked against the model (and the flags) by stock
    tools."""
    img = os.path.join(work, "sync.img" if flagged else "base.img")
    with open(img, "wb") as f:
        f.truncate(MIB << 20)
    lazy = [] if PLAIN else ["-O", "lazy_journal"]
    r = run([OUR_MKE2FS, "-q", "-F"] + FORMAT + lazy + [
             "-E", "lazy_itable_init=1",
             "-U", "6b1d5c2e-0f0a-4f5e-9d1b-2f3c4d5e6f70", img])
    if r.returncode != 0:
        raise RuntimeError("mke2fs: " + r.stdout.decode())
    mnt = os.path.join(work, "base.mnt")
    mount(img, mnt, "commit=600")
    m = base_model(flagged)
    flags = {p: fl for p, _, fl in FLAGGED if fl} if flagged else {}
    try:
        for p, o in sorted(m.names.items()):
            if p in ("/", "/lost+found"):
                continue
            if o.kind == "d":
                os.mkdir(mnt + p, 0o755)
            else:
                with open(mnt + p, "wb") as f:
                    f.write(o.data)
                os.chmod(mnt + p, o.mode)
                for k, v in o.xattrs.items():
                    os.setxattr(mnt + p, k, v.encode())
            if p in flags:      # a directory's before what it holds
                set_flags(mnt + p, flags[p])
    finally:
        umount(img, mnt)
    chk = os.path.join(work, "base.chk")
    shutil.copyfile(img, chk)
    run([LJ_CRASH, "unlazy", chk])
    run([STOCK_E2FSCK, "-E", "journal_only", "-y", chk])
    run([LJ_CRASH, "unlazy", chk])
    if tree_of_stock(chk, chk, True, m.files()) != m.manifest():
        raise RuntimeError("the base image is not the base tree")
    for p, fl in flags.items():
        if not stock_flags(chk, p) & fl:
            raise RuntimeError("the base image: %s lacks flag %#x" % (p, fl))
    os.unlink(chk)
    return img


def group_of(pp):
    """The line a persistence point's cases are told on."""
    return SYNC_CLASSES[SYNC_PPS[pp]][0] if pp in SYNC_PPS else PPS[pp]


def verdict(done):
    """What every case of a line held (done: the persistence points its
    cases ran)."""
    pp = done[0]
    if pp == "syncfs":
        return "every crash state consistent, each the tree after some " \
            "operation"
    if pp not in SYNC_PPS:
        return "every crash state after it as ext4 guarantees, every " \
            "one during it consistent"
    cls = SYNC_PPS[pp]
    ops = [k[len(cls) + 1:] if k.startswith(cls + "-") else k
           for k in SYNC_CLASSES[cls][2]]
    fsynced = any(d.endswith("+fsync") for d in done)
    return "%s, each alone%s: every crash state after it holds the " \
        "change, every one during it consistent" % \
        (", ".join(ops), " and then fsync" if fsynced else "")


def main():
    os.umask(0o022)     # the model's modes
    work = os.path.abspath(sys.argv[1])
    pps = []
    for a in sys.argv[2:] or list(PPS):
        pps += list(SYNC_PPS) if a == "sync" else [a]
    bases = {}
    for flagged in sorted(set(pp in SYNC_PPS for pp in pps)):
        bases[flagged] = make_base(work, flagged)
    seqs = [(a,) for a in OPS] + list(itertools.product(OPS, OPS)) + \
        [(first, "fsync", a) for first in ("creat", "write") for a in OPS]
    jobs = []
    for pp in pps:
        # a sync point: after one uncommitted write to another file
        for seq in [("write",)] if pp in SYNC_PPS else seqs:
            if pp == "syncfs" and len(seq) > 1:
                continue        # nothing passed: the one-operation ones
            name = "%s/%s" % (",".join(seq), pp)
            if ONLY and not re.search(ONLY, name):
                continue
            jobs.append((seq, pp, bases[pp in SYNC_PPS], work))
    groups = []
    for pp in pps:
        if group_of(pp) not in groups:
            groups.append(group_of(pp))
    results = {g: [0, [], 0, []] for g in groups}
    with multiprocessing.Pool(JOBS) as pool:
        for name, pp, fails, n in pool.imap_unordered(run_case, jobs):
            res = results[group_of(pp)]
            res[0] += 1
            res[2] += n
            res[3].append(pp)
            if fails:
                res[1].append((name, fails))
    bad = 0
    for g in groups:
        n, fails, nst, done = results[g]
        print("%s: %d cases, %d crash states judged" % (g, n, nst),
              file=sys.stderr)
        shown = 0
        for name, fs in sorted(fails):
            for f in fs:
                if shown < 20:
                    print(f)
                shown += 1
        if fails:
            bad = 1
            print("%s: %d of %d cases FAIL" % (g, len(fails), n))
        elif done:
            print("%s: %d %s: %s" % (g, n, "sequences" if done[0] in PPS
                                     else "cases", verdict(done)))
    return bad


if __name__ == "__main__":
    sys.exit(main())
