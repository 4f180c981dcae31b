#!/usr/bin/env python3
"""smr_model.py --- a trace-driven model of a drive-managed SMR disk (and of
a conventional disk with the same mechanics), for the ext4-lazy workloads.

Usage: smr_model.py [-p NAME=VALUE]... [--kv] TRACE...

TRACE (text; '-' is stdin), one request a line, '#' starts a comment:
    phase NAME                  a new phase: per-phase counters start from
                                zero, the host page cache is dropped (a
                                remount), and at the end of the phase the
                                drive cleans in idle time (idle_clean=1)
    W KIND OFFSET LENGTH        a write of LENGTH bytes at byte OFFSET
    R KIND OFFSET LENGTH        a read
    idle SECONDS                the host sends nothing for SECONDS
KIND says what the block is, for the counters only: journal, meta_home
(metadata written home: jbd2 checkpoint / writeback), cleaner (ext4-lazy's
cleaner writing a cold block home), data, meta (a metadata read), any.

Output: one line per phase, key=value (see PHASE_KEYS); --kv is the default
and the only format (bench/smr.sh makes tables).
--timeline FILE: the DM-SMR disk's time line (bench/mount.sh draws it):
"phase NAME T" at each phase start, "W|R KIND OFFSET LENGTH T" for every
request that reaches the disk (page cache hits are left out), "clean T
SECONDS" for the cleaning at the end of a phase; T is the modelled DM-SMR
time in seconds when the request starts: run time (I/O and forced
cleaning), idle gaps and end-of-phase cleaning, one after the other.

The model (every parameter is in PARAMS below, with its source)
---------------------------------------------------------------
SMR (drive-managed, Seagate ST8000AS0002 class):
* The LBA space is cut into bands of `band` bytes.  A band must be written
  sequentially.  A write piece (a write is cut at band boundaries) goes
  straight to its band ("sequential bypass") when it starts at the band's
  first byte or exactly where the previous direct write into that band
  ended (the band's write pointer).  A new stream at a band start while
  the previous stream in that band stopped short of what streams had
  written there before (a journal superblock rewrite, a restarted stream)
  means the drive had to rescue the rest of the band: the band needs a
  read-modify-write (RMW) like a cached band.  What a band held before its
  first stream is taken as dead (a fresh journal area, free space): a
  simplification in favour of streams, stated in the README.
* Any other write goes to the persistent cache: a log in a conventional
  region at the outer diameter (position 0 here), `cache` bytes; writes
  into it are appended, so consecutive cached writes need no seek.  The
  band is then dirty.  The newest copy of a cached block is read from the
  cache.
* Cleaning = one RMW of a dirty band: read the band, merge its cached
  blocks, write it back (the paper: ~90 MiB of I/O for a 30 MiB band:
  rmw_io * band bytes at `rate`, plus two positionings).  It frees the
  band's cached bytes; the band's write pointer is then at its end.
  Forced cleaning: a cached write that does not fit cleans the oldest
  dirty bands first (FIFO) until it fits; the host waits (run time).
  Idle cleaning: after `idle_delay` seconds of an `idle` record, and at the
  end of every phase (idle_clean=1: the paper measures the cleaning time
  after each benchmark), the dirty bands are cleaned; this is cleaning
  time, not run time.
CMR: every request goes where its LBA is.
Both: one head.  A request that starts where the previous one ended costs
only its transfer (len / rate); any other costs seek(d) + half a rotation
+ transfer, seek(d) = seek_min + (seek_max - seek_min) * sqrt(d / disk)
for a distance d > 0 bytes (seek_min for d = 0 on another request).
Host page cache: a read whose blocks (4 KiB) were all read or written
earlier in the same phase costs nothing (counted as a hit).
"""
import math
import sys

MiB = 1 << 20
GiB = 1 << 30

# name: (default, unit, source)
PARAMS = {
    "band": (30 * MiB, "bytes",
             "FAST'17 ext4-lazy paper / ;login: 2017: ~30 MiB bands on the "
             "ST8000AS0002; Skylight (FAST'15) measured bands of tens of MiB "
             "on Seagate DM-SMR, varying by zone"),
    "cache": (25 * GiB, "bytes",
              "FAST'17 paper: ~25 GiB persistent cache on the 8 TB drive; "
              "Skylight: one persistent cache in a conventional region at the "
              "outer diameter"),
    "rmw_io": (3.0, "x band",
               "FAST'17 paper: cleaning a 30 MiB band moves ~90 MiB"),
    "rate": (150e6, "bytes/s",
             "ST8000AS0002 data sheet: 150 MB/s average sustained"),
    "rpm": (5900, "rev/min", "ST8000AS0002 data sheet: 5900 rpm class"),
    "seek_min": (0.001, "s", "typical 3.5-inch drive track-to-track seek"),
    "seek_max": (0.016, "s", "typical 3.5-inch drive full-stroke seek"),
    "disk": (8e12, "bytes", "ST8000AS0002 capacity (full stroke)"),
    "idle_delay": (1.0, "s",
                   "Skylight: Seagate DM-SMR starts cleaning after a short "
                   "idle period (seconds)"),
    "idle_clean": (1, "0/1", "clean every dirty band at the end of a phase"),
    "page": (4096, "bytes", "host page cache granularity"),
}

PHASE_KEYS = ["phase", "reqs", "w_journal", "w_meta_home", "w_cleaner",
              "w_data", "w_any", "r_bytes", "r_hits", "direct", "cached",
              "dirty_bands", "rmw_forced", "rmw_idle", "clean_s",
              "smr_io_s", "smr_run_s", "cmr_run_s"]

CACHE = -1	# head position marker: in the persistent cache log


class Head:
    """One actuator: positioning cost between requests."""

    def __init__(self, p):
        self.p = p
        self.pos = None		# byte after the last request, or CACHE

    def seek(self, d):
        p = self.p
        frac = min(1.0, d / p["disk"])
        return p["seek_min"] + (p["seek_max"] - p["seek_min"]) * math.sqrt(frac)

    def position(self, where):
        """Cost of moving to where (a byte position, or CACHE)."""
        if self.pos is not None and where == self.pos:
            return 0.0
        rot = 30.0 / self.p["rpm"]	# half a rotation, seconds
        if where == CACHE or self.pos == CACHE:
            other = 0 if self.pos in (None, CACHE) else self.pos
            tgt = 0 if where == CACHE else where
            d = abs(tgt - other)
        elif self.pos is None:
            d = self.p["disk"] / 3
        else:
            d = abs(where - self.pos)
        return self.seek(d) + rot

    def access(self, where, length, end=None):
        t = self.position(where) + length / self.p["rate"]
        self.pos = end if end is not None else (
            CACHE if where == CACHE else where + length)
        return t


class Band:
    __slots__ = ("wp", "hw", "dirty", "cached", "blocks")

    def __init__(self):
        self.wp = None		# end of the direct stream, band-relative
        self.hw = 0		# end of what streams have written in the band
        self.dirty = False
        self.cached = 0		# bytes of this band in the persistent cache
        self.blocks = set()	# pages whose newest copy is in the cache


class Model:
    def __init__(self, params=None):
        self.p = {k: v[0] for k, v in PARAMS.items()}
        if params:
            for k, v in params.items():
                if k not in self.p:
                    raise ValueError("unknown parameter: %s" % k)
                self.p[k] = float(v)
        self.p["band"] = int(self.p["band"])
        self.p["page"] = int(self.p["page"])
        self.smr = Head(self.p)
        self.cmr = Head(self.p)
        self.bands = {}
        self.dirty = {}		# band number -> None, oldest first
        self.cache_used = 0
        self.results = []
        self.cur = None
        self.pagecache = set()
        self.timeline = None	# list of records, when asked for
        self.t = 0.0		# the DM-SMR clock of the time line
        self.new_phase("-")

    # -- bookkeeping -------------------------------------------------
    def new_phase(self, name):
        self.end_phase()
        if self.timeline is not None:
            self.timeline.append(("phase", name, self.t))
        self.cur = {k: 0 for k in PHASE_KEYS}
        self.cur["phase"] = name
        self.cur["_seen"] = False
        self.pagecache = set()

    def end_phase(self):
        c = self.cur
        if c is None:
            return
        if self.p["idle_clean"]:
            before = c["clean_s"]
            c["rmw_idle"] += self.clean(len(self.dirty), idle=True)
            if self.timeline is not None and c["clean_s"] > before:
                self.timeline.append(("clean", self.t, c["clean_s"] - before))
                self.t += c["clean_s"] - before
        c["smr_run_s"] = c["smr_io_s"] + c["_forced_s"] if "_forced_s" in c \
            else c["smr_io_s"]
        if c["_seen"]:
            self.results.append({k: c[k] for k in PHASE_KEYS})
        self.cur = None

    def band(self, n):
        b = self.bands.get(n)
        if b is None:
            b = self.bands[n] = Band()
        return b

    def t_rmw(self):
        p = self.p
        pos = self.smr.seek(p["disk"] / 3) + 30.0 / p["rpm"]
        return 2 * pos + p["rmw_io"] * p["band"] / p["rate"]

    def mark_dirty(self, n, b):
        if not b.dirty:
            b.dirty = True
            self.dirty[n] = None
            self.cur["dirty_bands"] += 1

    def clean(self, count, idle):
        """RMW the count oldest dirty bands; returns how many."""
        done = 0
        while done < count and self.dirty:
            n = next(iter(self.dirty))
            del self.dirty[n]
            b = self.bands[n]
            self.cache_used -= b.cached
            b.cached = 0
            b.blocks.clear()
            b.dirty = False
            b.wp = b.hw = self.p["band"]
            t = self.t_rmw()
            self.cur["clean_s"] += t
            if not idle:
                self.cur["_forced_s"] = self.cur.get("_forced_s", 0.0) + t
            self.smr.pos = None	# the head is wherever the RMW left it
            done += 1
        return done

    # -- requests ----------------------------------------------------
    def spent(self):
        """DM-SMR run time of the phase so far (I/O, forced cleaning)."""
        return self.cur["smr_io_s"] + self.cur.get("_forced_s", 0.0)

    def mark(self, rw, kind, off, length, before):
        """A request that started at the clock, took spent() - before."""
        if self.timeline is not None:
            self.timeline.append((rw, kind, off, length, self.t))
            self.t += self.spent() - before

    def write(self, kind, off, length):
        before = self.spent()
        self._write(kind, off, length)
        self.mark("W", kind, off, length, before)

    def read(self, kind, off, length):
        before = self.spent()
        if self._read(kind, off, length):
            self.mark("R", kind, off, length, before)

    def _write(self, kind, off, length):
        c = self.cur
        c["_seen"] = True
        c["reqs"] += 1
        key = "w_" + kind if "w_" + kind in c else "w_any"
        c[key] += length
        pg = self.p["page"]
        self.pagecache.update(range(off // pg, (off + length - 1) // pg + 1))
        c["cmr_run_s"] += self.cmr.access(off, length)
        bs = self.p["band"]
        pos, end = off, off + length
        while pos < end:
            n, rel = divmod(pos, bs)
            piece = min(end, (n + 1) * bs) - pos
            b = self.band(n)
            if rel == 0 or (b.wp is not None and rel == b.wp):
                if rel == 0 and b.wp is not None and b.wp < b.hw:
                    self.mark_dirty(n, b)	# the last stream stopped short
                b.wp = rel + piece
                b.hw = max(b.hw, b.wp)
                for q in range(pos // pg, (pos + piece - 1) // pg + 1):
                    b.blocks.discard(q)
                c["direct"] += piece
                c["smr_io_s"] += self.smr.access(pos, piece)
            else:
                while (self.cache_used + piece > self.p["cache"]
                       and self.dirty):
                    c["rmw_forced"] += self.clean(1, idle=False)
                b.cached += piece
                self.cache_used += piece
                b.blocks.update(range(pos // pg, (pos + piece - 1) // pg + 1))
                self.mark_dirty(n, b)
                c["cached"] += piece
                c["smr_io_s"] += self.smr.access(CACHE, piece)
            pos += piece

    def _read(self, kind, off, length):
        """False for a page cache hit."""
        c = self.cur
        c["_seen"] = True
        c["reqs"] += 1
        pg = self.p["page"]
        pages = range(off // pg, (off + length - 1) // pg + 1)
        if all(q in self.pagecache for q in pages):
            c["r_hits"] += length
            return False
        self.pagecache.update(pages)
        c["r_bytes"] += length
        c["cmr_run_s"] += self.cmr.access(off, length)
        bs = self.p["band"]
        pos, end = off, off + length
        while pos < end:
            n = pos // bs
            piece = min(end, (n + 1) * bs) - pos
            b = self.bands.get(n)
            incache = b is not None and any(
                q in b.blocks for q in
                range(pos // pg, (pos + piece - 1) // pg + 1))
            if incache:
                c["smr_io_s"] += self.smr.access(CACHE, piece)
                self.smr.pos = None	# cache reads are not a log stream
            else:
                c["smr_io_s"] += self.smr.access(pos, piece)
            pos += piece
        return True

    def idle(self, secs):
        self.cur["_seen"] = True
        self.t += secs
        left = secs - self.p["idle_delay"]
        if left <= 0:
            return
        self.cur["rmw_idle"] += self.clean(int(left // self.t_rmw()),
                                           idle=True)

    def run(self, lines):
        if self.cur is None:
            self.new_phase("-")
        for no, line in enumerate(lines, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            try:
                if line[0] == "phase" and len(line) == 2:
                    self.new_phase(line[1])
                elif line[0] == "idle" and len(line) == 2:
                    self.idle(float(line[1]))
                elif line[0] in ("W", "R") and len(line) == 4:
                    off, length = int(line[2]), int(line[3])
                    if off < 0 or length <= 0:
                        raise ValueError
                    if line[0] == "W":
                        self.write(line[1], off, length)
                    else:
                        self.read(line[1], off, length)
                else:
                    raise ValueError
            except ValueError:
                raise ValueError("line %d: bad request: %s" %
                                 (no, " ".join(line)))
        self.end_phase()
        return self.results


def fmt(r):
    out = []
    for k in PHASE_KEYS:
        v = r[k]
        out.append("%s=%s" % (k, ("%.3f" % v) if isinstance(v, float) else v))
    return " ".join(out)


def write_timeline(path, tl):
    with open(path, "w") as f:
        for r in tl:
            if r[0] == "phase":
                f.write("phase %s %.6f\n" % (r[1], r[2]))
            elif r[0] == "clean":
                f.write("clean %.6f %.6f\n" % (r[1], r[2]))
            else:
                f.write("%s %s %d %d %.6f\n" % r)


def main(argv):
    params = {}
    files = []
    timeline = None
    args = iter(argv[1:])
    for a in args:
        if a == "-p":
            kv = next(args, "")
            if "=" not in kv:
                sys.exit("smr_model: -p wants NAME=VALUE")
            k, v = kv.split("=", 1)
            params[k] = v
        elif a == "--kv":
            pass
        elif a == "--timeline":
            timeline = next(args, "")
            if not timeline:
                sys.exit("smr_model: --timeline wants a file")
        elif a == "--params":
            for k, (v, unit, src) in PARAMS.items():
                print("%-10s %-14g %-8s %s" % (k, v, unit, src))
            return 0
        elif a.startswith("-") and a != "-":
            sys.exit("usage: smr_model.py [-p NAME=VALUE]... [--params] "
                     "[--timeline FILE] TRACE...")
        else:
            files.append(a)
    if not files:
        sys.exit("usage: smr_model.py [-p NAME=VALUE]... [--params] "
                 "[--timeline FILE] TRACE...")
    try:
        m = Model(params)
        if timeline:
            m.timeline = []
        for f in files:
            fh = sys.stdin if f == "-" else open(f)
            with fh:
                m.run(fh)
        if timeline:
            write_timeline(timeline, m.timeline)
    except (ValueError, OSError) as e:
        sys.exit("smr_model: %s" % e)
    for r in m.results:
        print(fmt(r))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
