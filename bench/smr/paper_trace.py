#!/usr/bin/env python3
"""paper_trace.py --- one phase's block-layer trace (tracefs
block:block_rq_issue, as bench/smr/paper.sh records it) classified from
the file system's own layout, for bench/smr/smr_model.py.

Usage: paper_trace.py PHASE TRACE JOURNAL_RUNS META_EXTENTS... >MODEL_TRACE

TRACE: the lines of tracefs' trace_pipe, filtered to one device; a
"tracing_mark_write: lj_first_answer" line marks the first answer after
the mount.  JOURNAL_RUNS and META_EXTENTS: "FIRST LAST" block ranges
(4 KiB blocks): the journal's extents, and the metadata of the file
system (descriptors, bitmaps, inode tables, directory, extent and xattr
blocks: bench/smr/paper.sh takes them from bench/smr/meta_blocks before
and after the phase).  Every other block is file data.

Writes are journal, meta_home (metadata written home) or data; reads are
meta (the journal's blocks included: on the lazy file system that is
where metadata is read from) or data.  A request that spans two classes
is cut where the class changes (the pieces are contiguous: the model
charges no positioning between them).  Flushes (no sectors) are left out.

Stdout: "phase PHASE" and the model's W/R lines.  Stderr: one line,
"PHASE key=value...": requests, bytes per class, the requests and
bytes read before the first answer (the mount's own reads), and
journal_backward: the journal writes that start before the end of the
one before (the log written out of its order, or wrapped; the journal
superblock, its first block, left out).
"""
import bisect
import re
import sys

BLOCK = 4096
SECTOR = 512
ISSUE = re.compile(r"block_rq_issue: \d+,\d+ (\S+) \d+ \(.*?\) (\d+) \+ (\d+)")
MARK = "tracing_mark_write: lj_first_answer"


def read_ranges(paths):
    """Sorted, merged (first, last) block ranges from "FIRST LAST" files."""
    r = []
    for p in paths:
        with open(p) as f:
            for line in f:
                a, b = line.split()
                r.append((int(a), int(b)))
    r.sort()
    merged = []
    for a, b in r:
        if merged and a <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


class Ranges:
    def __init__(self, ranges):
        self.r = ranges
        self.starts = [a for a, _ in ranges]

    def find(self, blk):
        """(inside, end): whether blk is in a range, and the first block
        after blk where that answer may change."""
        i = bisect.bisect_right(self.starts, blk) - 1
        if i >= 0 and blk <= self.r[i][1]:
            return True, self.r[i][1] + 1
        nxt = self.starts[i + 1] if i + 1 < len(self.starts) else None
        return False, nxt


def classify(journal, meta, blk):
    """(class, first block after blk that may be of another class)"""
    inj, jend = journal.find(blk)
    if inj:
        return "journal", jend
    inm, mend = meta.find(blk)
    ends = [e for e in (jend, mend) if e is not None]
    return ("meta" if inm else "data"), (min(ends) if ends else None)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__.split("\n\n")[1])
    phase, trace = sys.argv[1], sys.argv[2]
    runs = read_ranges([sys.argv[3]])
    journal = Ranges(runs)
    jsb = runs[0][0] * BLOCK      # read_ranges sorts them
    meta = Ranges(read_ranges(sys.argv[4:]))
    stats = {"requests": 0, "before_answer_requests": 0,
             "before_answer_bytes": 0, "journal_backward": 0}
    journal_end = None
    answered = False
    print("phase", phase)
    with open(trace, errors="replace") as f:
        for line in f:
            if MARK in line:
                answered = True
                continue
            m = ISSUE.search(line)
            if not m:
                continue
            rwbs, sector, count = m.group(1), int(m.group(2)), int(m.group(3))
            if count == 0 or ("R" not in rwbs and "W" not in rwbs):
                continue
            op = "W" if "W" in rwbs else "R"
            stats["requests"] += 1
            if not answered:
                stats["before_answer_requests"] += 1
                stats["before_answer_bytes"] += count * SECTOR
            start, end = sector * SECTOR, (sector + count) * SECTOR
            pos = start
            while pos < end:
                cls, nxt = classify(journal, meta, pos // BLOCK)
                piece_end = end if nxt is None else min(end, nxt * BLOCK)
                if op == "W" and cls == "journal" and pos != jsb:
                    if journal_end is not None and pos < journal_end:
                        stats["journal_backward"] += 1
                    journal_end = piece_end
                if op == "W":
                    kind = {"journal": "journal", "meta": "meta_home",
                            "data": "data"}[cls]
                else:
                    kind = "data" if cls == "data" else "meta"
                key = "%s_%s" % (op.lower(), cls)
                stats[key] = stats.get(key, 0) + piece_end - pos
                print(op, kind, pos, piece_end - pos)
                pos = piece_end
    print(phase, " ".join("%s=%d" % kv for kv in sorted(stats.items())),
          file=sys.stderr)


if __name__ == "__main__":
    main()
