#!/usr/bin/env python3
"""mount_trace.py --- a fuse2fs daemon's device I/O, recorded by strace,
as a block trace for bench/smr/smr_model.py (bench/mount.sh).

Usage: mount_trace.py --img PATH --journal FILE [--data FILE] --phase NAME
                      [--mode lazy|baseline] [--before IMAGE] [--bs BYTES]
                      [--commit SECS] [--ckpt N] [--summary FILE]
                      STRACE_FILE...

STRACE_FILE: the per-thread files of `strace -ff -ttt -y -s 0 -P IMG`
(pread64/pwrite64/preadv/pwritev(2)/read/write/lseek/fsync/fdatasync/
openat/close), merged here by time stamp.  Only calls on IMG count; a call
on IMG this script cannot read, or that failed, is an error (exit 1): no
request is ever dropped silently.

Every request is cut into runs of blocks of one kind:
  journal    the block is one of the journal inode's (--journal: the
             output of `debugfs -R "blocks <8>"`)
  data       the block is a regular file's data block (--data: block
             numbers, whitespace-separated; bench/mount.sh takes them
             from debugfs `blocks` of every file it made)
  meta_home  any other write (metadata written home); a read: meta

--mode lazy: the requests as the daemon made them.

--mode baseline: the daemon is stock fuse2fs, which writes metadata home
and never journals; the trace is rewritten as stock ext4 (jbd2, ordered
mode) would issue it on the same file system:
  * reads and file data writes stay as they are, where they are, but a
    read of a metadata block written earlier in the trace is left out
    (r_cached: the kernel has it in its page cache; stock fuse2fs wrote
    it home, where the model's page cache would have seen it);
  * a metadata write only dirties its blocks (whole blocks, as jbd2
    journals a buffer) in the running transaction; with --before (a copy
    of the image taken before the phase; IMG is read after it), a block
    whose bytes are the same at the end of the phase as before it is not
    dirtied: stock fuse2fs rewrites blocks that did not change (a flush
    writes every initialised group's bitmaps), which the kernel would
    neither journal nor write back (w_meta_same counts them);
  * the transaction commits --commit seconds (default 5, jbd2's commit
    interval) after its first block was dirtied, at a flush of the device
    (fsync/fdatasync: fuse2fs flushes on fsync and at umount), and at the
    end of the trace (umount): one descriptor block per 254 blocks
    (64-bit tags with checksum v3), the distinct blocks, a commit block,
    written at the log head, which wraps from the journal's last block to
    its block 1; revoke blocks are not modelled;
  * a checkpoint writes home every block committed since the last one, in
    ascending block order (the flusher's order), then the journal
    superblock (the new tail): after every --ckpt commits (default 6:
    dirty metadata is written back ~30 s after it was dirtied), when the
    log is more than half full, and at the end of the trace (umount
    checkpoints everything, and the next mount starts the log again at
    its block 1, as jbd2 does after a clean unmount).
  A block changed in the phase counts as dirtied by every write stock
  makes to it, in every transaction (the kernel journals it only in the
  transactions that change it).

Output (stdout): "phase NAME", then one request a line, "W|R KIND OFFSET
LENGTH # SECONDS" (bytes; SECONDS since the phase's first call on IMG).
--summary FILE: one line, key=value, of what the daemon itself issued
(before any baseline rewriting): w_reqs, w_journal, w_data, w_meta_home,
r_reqs, r_journal, r_data, r_meta (bytes), flushes, secs; and, for the
baseline, commits, checkpoints, r_cached and w_meta_same of the model.
"""
import re
import sys

LINE = re.compile(r"^(\d+\.\d+) (\w+)\((.*)\) += (-?\d+|\?)(.*)$")
# The common case, read without split_args: pread64/pwrite64 with -s 0.
FAST = re.compile(r'^(\d+\.\d+) (pread64|pwrite64)\((\d+<[^>]*>), ""(?:\.\.\.)?, '
                  r'(\d+), (\d+)\) += (-?\d+)$')
FD = re.compile(r"^(\d+)<(.*)>$")
TAGS_PER_DESC = 254


class Trace:
    def __init__(self, opts):
        self.bs = opts["bs"]
        self.jblocks = opts["journal"]		# logical -> physical
        self.img = opts["img"]
        self.jset = set(self.jblocks)
        self.data = opts["data"]
        self.out = []
        self.sum = {k: 0 for k in ("w_reqs", "w_journal", "w_data",
                                   "w_meta_home", "r_reqs", "r_journal",
                                   "r_data", "r_meta", "flushes")}

    def kind(self, blk, write):
        if blk in self.jset:
            return "journal"
        if blk in self.data:
            return "data"
        return "meta_home" if write else "meta"

    def runs(self, off, length, write):
        """(kind, off, len) pieces of one request, cut at kind changes."""
        bs = self.bs
        end = off + length
        pos = off
        cur = None
        while pos < end:
            blk = pos // bs
            nxt = min(end, (blk + 1) * bs)
            k = self.kind(blk, write)
            if cur and cur[0] == k:
                cur[2] += nxt - pos
            else:
                if cur:
                    yield tuple(cur)
                cur = [k, pos, nxt - pos]
            pos = nxt
        if cur:
            yield tuple(cur)

    def emit(self, rw, kind, off, length, t):
        self.out.append("%s %s %d %d # %.6f" % (rw, kind, off, length, t))

    def request(self, rw, off, length, t):
        write = rw == "W"
        self.sum["w_reqs" if write else "r_reqs"] += 1
        for k, o, n in self.runs(off, length, write):
            self.sum[("w_" if write else "r_") + k] += n
            self.handle(rw, k, o, n, t)

    def handle(self, rw, kind, off, length, t):
        self.emit(rw, kind, off, length, t)

    def flush(self, t):
        self.sum["flushes"] += 1

    def finish(self, t):
        pass


class Baseline(Trace):
    """Stock fuse2fs's metadata writes as jbd2 would issue them."""

    def __init__(self, opts):
        Trace.__init__(self, opts)
        self.commit_s = opts["commit"]
        self.ckpt_every = opts["ckpt"]
        self.txn = {}			# block -> None, in dirtying order
        self.txn_t0 = None
        self.written = set()		# metadata blocks written so far
        self.dirty = set()		# committed, not yet home
        self.head = 1			# log head, journal logical block
        self.used = 0			# log blocks since the last checkpoint
        self.commits_since = 0
        self.sum["commits"] = 0
        self.sum["checkpoints"] = 0
        self.sum["r_cached"] = 0
        self.sum["w_meta_same"] = 0
        self.before = opts.get("before")
        self.same = {}			# block -> unchanged over the phase
        self.files = None

    def unchanged(self, b):
        """Are block b's bytes the same before and after the phase?"""
        if not self.before:
            return False
        if b not in self.same:
            if self.files is None:
                self.files = (open(self.before, "rb"),
                              open(self.img, "rb"))
            x = []
            for f in self.files:
                f.seek(b * self.bs)
                x.append(f.read(self.bs))
            self.same[b] = x[0] == x[1] and len(x[0]) == self.bs
        return self.same[b]

    def tick(self, t):
        if self.txn and t - self.txn_t0 >= self.commit_s:
            self.commit(self.txn_t0 + self.commit_s)

    def handle(self, rw, kind, off, length, t):
        self.tick(t)
        if rw == "W" and kind == "meta_home":
            bs = self.bs
            for b in range(off // bs, (off + length - 1) // bs + 1):
                if self.unchanged(b):
                    self.sum["w_meta_same"] += bs
                    continue
                if not self.txn:
                    self.txn_t0 = t
                self.txn[b] = None
                self.written.add(b)
            return
        if rw == "R" and kind == "meta" and all(
                b in self.written for b in
                range(off // self.bs, (off + length - 1) // self.bs + 1)):
            self.sum["r_cached"] += length	# in the page cache
            return
        self.emit(rw, kind, off, length, t)

    def log_write(self, nblocks, t):
        """nblocks at the log head, wrapping to journal block 1."""
        n = len(self.jblocks)
        run = None
        for _ in range(nblocks):
            p = self.jblocks[self.head]
            if run and run[0] + run[1] == p:
                run[1] += 1
            else:
                if run:
                    self.emit("W", "journal", run[0] * self.bs,
                              run[1] * self.bs, t)
                run = [p, 1]
            self.head = self.head + 1 if self.head + 1 < n else 1
        if run:
            self.emit("W", "journal", run[0] * self.bs, run[1] * self.bs, t)
        self.used += nblocks

    def commit(self, t):
        if not self.txn:
            return
        n = len(self.txn)
        ndesc = (n + TAGS_PER_DESC - 1) // TAGS_PER_DESC
        self.log_write(ndesc + n, t)
        self.log_write(1, t)		# the commit block, after a flush
        self.dirty.update(self.txn)
        self.txn = {}
        self.txn_t0 = None
        self.sum["commits"] += 1
        self.commits_since += 1
        if (self.commits_since >= self.ckpt_every or
                2 * self.used > len(self.jblocks)):
            self.checkpoint(t)

    def checkpoint(self, t):
        if not self.dirty:
            return
        run = None
        for b in sorted(self.dirty):
            if run and run[0] + run[1] == b:
                run[1] += 1
                continue
            if run:
                self.emit("W", "meta_home", run[0] * self.bs,
                          run[1] * self.bs, t)
            run = [b, 1]
        self.emit("W", "meta_home", run[0] * self.bs, run[1] * self.bs, t)
        self.emit("W", "journal", self.jblocks[0] * self.bs, self.bs, t)
        self.dirty = set()
        self.used = 0
        self.commits_since = 0
        self.sum["checkpoints"] += 1

    def flush(self, t):
        Trace.flush(self, t)
        self.tick(t)
        self.commit(t)

    def finish(self, t):
        self.tick(t)
        self.commit(t)
        self.checkpoint(t)


def numbers(path):
    with open(path) as f:
        return [int(w) for w in f.read().split() if w.isdigit()]


def split_args(s):
    """Top-level comma-separated arguments of a strace call."""
    out, depth, cur, quote = [], 0, "", False
    i = 0
    while i < len(s):
        c = s[i]
        if quote:
            cur += c
            if c == "\\":
                cur += s[i + 1]
                i += 1
            elif c == '"':
                quote = False
        elif c == '"':
            quote = True
            cur += c
        elif c in "[{(":
            depth += 1
            cur += c
        elif c in "]})":
            depth -= 1
            cur += c
        elif c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
        i += 1
    if cur.strip():
        out.append(cur.strip())
    return out


def events(files, img):
    """(time, call, args, ret) of the calls on img, in time order."""
    evs = []
    for fn in files:
        with open(fn) as f:
            for no, line in enumerate(f, 1):
                line = line.rstrip("\n")
                if " --- " in line or line.endswith("+++") or not line:
                    continue
                m = FAST.match(line)
                if m:
                    evs.append((float(m.group(1)), fn, no, m.group(2),
                                [m.group(3), '""', m.group(4), m.group(5)],
                                m.group(6), line))
                    continue
                m = LINE.match(line)
                if not m:
                    raise ValueError("%s:%d: cannot read: %s" % (fn, no, line))
                t, call, args, ret = m.group(1, 2, 3, 4)
                evs.append((float(t), fn, no, call, split_args(args), ret,
                            line))
    evs.sort(key=lambda e: e[0])
    return evs


def on_img(arg, img):
    m = FD.match(arg)
    return (int(m.group(1)), True) if m and m.group(2) == img else \
        ((int(m.group(1)), False) if m else (None, False))


def convert(opts, files):
    tr = (Baseline if opts["mode"] == "baseline" else Trace)(opts)
    img = opts["img"]
    pos = {}			# fd -> file position (read/write/lseek)
    t0 = None
    t = 0.0
    for ts, fn, no, call, a, ret, line in events(files, img):
        where = "%s:%d" % (fn, no)
        if call == "openat":
            if ret != "?" and int(ret) >= 0 and '"' + img + '"' in line:
                pos[int(ret)] = 0
            continue
        fd, mine = on_img(a[0], img) if a else (None, False)
        if not mine:
            if call in ("close",):
                continue
            raise ValueError("%s: not a call on %s: %s" % (where, img, line))
        if ret == "?" or int(ret) < 0:
            raise ValueError("%s: failed or unfinished: %s" % (where, line))
        r = int(ret)
        if t0 is None:
            t0 = ts
        t = ts - t0
        if call == "close":
            pos.pop(fd, None)
        elif call == "lseek":
            pos[fd] = r
        elif call in ("fsync", "fdatasync"):
            tr.flush(t)
        elif call in ("pread64", "pwrite64"):
            if r:
                tr.request("R" if call == "pread64" else "W",
                           int(a[3]), r, t)
        elif call in ("preadv", "pwritev", "preadv2", "pwritev2"):
            if r:
                tr.request("R" if call.startswith("pread") else "W",
                           int(a[3]), r, t)
        elif call in ("read", "write"):
            if fd not in pos:
                raise ValueError("%s: unknown file position: %s" %
                                 (where, line))
            if r:
                tr.request("R" if call == "read" else "W", pos[fd], r, t)
            pos[fd] += r
        else:
            raise ValueError("%s: unexpected call on %s: %s" %
                             (where, img, line))
    tr.finish(t)
    tr.sum["secs"] = "%.3f" % t
    return tr


def main(argv):
    opts = {"mode": "lazy", "bs": 4096, "commit": 5.0, "ckpt": 6,
            "data": set(), "summary": None}
    files = []
    args = iter(argv[1:])
    try:
        for a in args:
            if a in ("--img", "--journal", "--data", "--phase", "--mode",
                     "--bs", "--commit", "--ckpt", "--summary", "--before"):
                v = next(args)
                k = a[2:]
                if k == "journal":
                    v = numbers(v)
                elif k == "data":
                    v = set(numbers(v))
                elif k in ("bs", "ckpt"):
                    v = int(v)
                elif k == "commit":
                    v = float(v)
                opts[k] = v
            elif a.startswith("-"):
                raise ValueError("unknown option %s" % a)
            else:
                files.append(a)
        for k in ("img", "journal", "phase"):
            if k not in opts:
                raise ValueError("--%s is required" % k)
        if opts["mode"] not in ("lazy", "baseline"):
            raise ValueError("--mode lazy or baseline")
        if len(opts["journal"]) < 2:
            raise ValueError("the journal has fewer than 2 blocks")
        if not files:
            raise ValueError("no strace file")
        tr = convert(opts, files)
    except (StopIteration, ValueError, OSError) as e:
        sys.exit("mount_trace: %s" % (e or "an option wants a value"))
    sys.stdout.write("phase %s\n" % opts["phase"])
    sys.stdout.write("\n".join(tr.out) + ("\n" if tr.out else ""))
    if opts["summary"]:
        with open(opts["summary"], "w") as f:
            f.write(" ".join("%s=%s" % kv for kv in tr.sum.items()) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
