#!/usr/bin/env python3
"""mount_report.py --- bench/mount.sh's tables and Figure 6 data.

Usage: mount_report.py DIR PNG

DIR holds what bench/mount.sh measured:
  times                 "KIND PHASE REP MOUNT_US WORK_US UMOUNT_US OPS
                        CPU_US", one line per timed phase (KIND stock or
                        lazy; CPU: the daemon's user + system time)
  KIND.PHASE.sum        mount_trace.py --summary of the traced run
  KIND.PHASE.ops        the traced run's operation count
  KIND.PHASE.tr         the model trace (baseline: modelled ext4, lazy: as
                        issued)
  KIND.model            smr_model.py's output for KIND's six traces
  KIND.timeline         its --timeline
Prints the tables (Markdown) on stdout, writes DIR/fig6.KIND.dat (modelled
DM-SMR seconds, offset in GiB, class: 0 read, 1 data home, 2 metadata
home, 3 log) and DIR/fig6.gp, the gnuplot script that draws PNG.
"""
import os
import sys

PHASES = ["makedirs", "createfiles", "listdirs", "readfiles", "removefiles",
          "removedirs"]
NAMES = {"makedirs": "MakeDirs", "createfiles": "CreateFiles",
         "listdirs": "ListDirs", "readfiles": "ReadFiles",
         "removefiles": "RemoveFiles", "removedirs": "RemoveDirs"}
# The FAST'17 paper's figures, as README's SMR section quotes them.
PAPER = {
    "makedirs": "cleaning 846 s vs 0 s; metadata home 4,631 MiB vs 0; "
                "1.5-2.5x faster",
    "createfiles": "1.5-2.5x faster",
    "listdirs": "13x faster on SMR, 5x on CMR",
    "readfiles": "(TarFiles: within the 2-13x of the metadata benchmarks)",
    "removefiles": "cleaning 366 s vs 20 s",
    "removedirs": "cleaning 590 s vs 10 s",
}
METADATA_HEAVY = ["makedirs", "removefiles", "removedirs"]
MiB = 1 << 20
GiB = 1 << 30
PAGE = 4096


def kv(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def median(xs):
    xs = sorted(xs)
    return xs[(len(xs) - 1) // 2]


def ratio(a, b):
    return "%.2f" % (a / b) if b else "-"


def mib(b):
    return "%.1f" % (b / MiB)


def read_trace(path):
    """[(rw, kind, off, len, t)] of a model trace."""
    out = []
    with open(path) as f:
        for line in f:
            req, _, t = line.partition("#")
            w = req.split()
            if len(w) == 4:
                out.append((w[0], w[1], int(w[2]), int(w[3]),
                            float(t) if t.strip() else 0.0))
    return out


def read_runs(trace):
    """Reads the model's page cache does not absorb: requests, runs
    (a run goes on while each read starts where the previous read
    ended), bytes, the mean distance between runs (MiB), and the reads
    from the log."""
    cache = set()
    reqs = runs = nbytes = jbytes = 0
    dist = 0
    last_end = None
    for rw, kind, off, n, _ in trace:
        pages = range(off // PAGE, (off + n - 1) // PAGE + 1)
        if rw == "W":
            cache.update(pages)
            continue
        if all(p in cache for p in pages):
            continue
        cache.update(pages)
        reqs += 1
        nbytes += n
        if kind == "journal":
            jbytes += n
        if last_end is None or off != last_end:
            runs += 1
            if last_end is not None:
                dist += abs(off - last_end)
        last_end = off + n
    return {"reqs": reqs, "runs": runs, "bytes": nbytes, "jbytes": jbytes,
            "mean_gap": dist / MiB / (runs - 1) if runs > 1 else 0.0}


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: mount_report.py DIR PNG")
    d, png = argv[1], argv[2]
    times = {}
    cpus = {}
    ops = {}
    with open(os.path.join(d, "times")) as f:
        for line in f:
            kind, ph, _, mo, wo, um, n, cpu = line.split()
            times.setdefault((kind, ph), []).append(
                (int(mo), int(wo), int(um)))
            cpus.setdefault((kind, ph), []).append(int(cpu))
            ops[ph] = int(n)
    summ, tops, model, traces = {}, {}, {}, {}
    for kind in ("stock", "lazy"):
        for ph in PHASES:
            with open(os.path.join(d, "%s.%s.sum" % (kind, ph))) as f:
                summ[kind, ph] = kv(f.read())
            with open(os.path.join(d, "%s.%s.ops" % (kind, ph))) as f:
                tops[kind, ph] = int(f.read())
            traces[kind, ph] = read_trace(
                os.path.join(d, "%s.%s.tr" % (kind, ph)))
        with open(os.path.join(d, "%s.model" % kind)) as f:
            for line in f:
                r = kv(line)
                model[kind, r["phase"]] = r
    p = print

    # -- wall time ------------------------------------------------------
    reps = len(times["stock", PHASES[0]])
    p("### Wall time (median of %d runs, ms: mount + work + umount)" % reps)
    p()
    p("| workload | ops | stock fuse2fs, plain ext4 | ours, lazy | "
      "lazy/stock | work only: stock, lazy, lazy/stock | umount: "
      "stock, lazy | daemon CPU (user+sys): stock, lazy, lazy/stock |")
    p("| --- | --- | --- | --- | --- | --- | --- | --- |")
    tot = {"stock": 0, "lazy": 0}
    ctot = {"stock": 0, "lazy": 0}
    for ph in PHASES:
        row = {}
        for kind in ("stock", "lazy"):
            t = times[kind, ph]
            row[kind] = (median([sum(x) for x in t]) / 1000,
                         median([x[1] for x in t]) / 1000,
                         median([x[2] for x in t]) / 1000,
                         median(cpus[kind, ph]) / 1000)
            tot[kind] += row[kind][0]
            ctot[kind] += row[kind][3]
        s, l = row["stock"], row["lazy"]
        p("| %s | %d | %.0f | %.0f | %s | %.0f, %.0f, %s | %.0f, %.0f | "
          "%.0f, %.0f, %s |" % (
              NAMES[ph], ops[ph], s[0], l[0], ratio(l[0], s[0]), s[1], l[1],
              ratio(l[1], s[1]), s[2], l[2], s[3], l[3], ratio(l[3], s[3])))
    p("| all | | %.0f | %.0f | %s | | | %.0f, %.0f, %s |" % (
        tot["stock"], tot["lazy"], ratio(tot["lazy"], tot["stock"]),
        ctot["stock"], ctot["lazy"], ratio(ctot["lazy"], ctot["stock"])))
    p()
    worst = max(PHASES, key=lambda ph: median([sum(x) for x in
                                               times["lazy", ph]]) /
                median([sum(x) for x in times["stock", ph]]))
    wr = (median([sum(x) for x in times["lazy", worst]]) /
          median([sum(x) for x in times["stock", worst]]))
    p("Target wall time within 1.1x of stock fuse2fs: all phases %.2fx "
      "(%s); the slowest phase %s %.2fx (%s).  The daemons' CPU time: "
      "%.2fx." % (
          tot["lazy"] / tot["stock"],
          "met" if tot["lazy"] <= 1.1 * tot["stock"] else "NOT met",
          NAMES[worst], wr, "met" if wr <= 1.1 else "NOT met",
          ctot["lazy"] / ctot["stock"]))
    p()

    # -- device I/O as the daemons issued it ---------------------------
    p("### Device I/O as each daemon issued it (the traced run: strace of "
      "the fuse2fs daemon)")
    p()
    p("| workload | mount | write requests | writes/op | data home (MiB) "
      "| metadata home (MiB) | log (MiB) | flushes | read requests | "
      "reads: log / home (MiB) |")
    p("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    lazy_meta_home = 0
    lazy_log = 0
    for ph in PHASES:
        for kind in ("stock", "lazy"):
            s = {k: float(v) for k, v in summ[kind, ph].items()}
            n = tops[kind, ph]
            if kind == "lazy":
                lazy_meta_home += s["w_meta_home"]
                lazy_log += s["w_journal"]
            p("| %s | %s | %d | %.2f | %s | %s | %s | %d | %d | %s / %s |" % (
                NAMES[ph], "stock" if kind == "stock" else "ours (lazy)",
                s["w_reqs"], s["w_reqs"] / n if n else 0, mib(s["w_data"]),
                mib(s["w_meta_home"]), mib(s["w_journal"]), s["flushes"],
                s["r_reqs"], mib(s["r_journal"]),
                mib(s["r_data"] + s["r_meta"])))
    p()
    p("Stock's metadata writes of blocks the phase left as they were, "
      "which the modelled ext4 neither journals nor writes home: %s." %
      ", ".join("%s %d blocks" % (NAMES[ph], int(
          summ["stock", ph].get("w_meta_same", 0)) // PAGE)
          for ph in PHASES))
    p()
    p("Metadata written home by the lazy mount over the whole run: %d "
      "blocks (%s MiB), against %s MiB written to its log (%.2f%%)." % (
          lazy_meta_home // 4096, mib(lazy_meta_home), mib(lazy_log),
          100.0 * lazy_meta_home / (lazy_meta_home + lazy_log)
          if lazy_meta_home + lazy_log else 0))
    p()

    # -- SMR model ------------------------------------------------------
    p("### DM-SMR / CMR model (bench/smr/smr_model.py, defaults), "
      "baseline = stock ext4 modelled from stock fuse2fs's trace")
    p()
    p("| workload | mode | metadata home (MiB) | journal (MiB) | data "
      "(MiB) | reads (MiB) | band RMWs (forced) | cleaning (s) | DM-SMR "
      "run (s) | CMR run (s) | lazy/baseline: SMR run, CMR run, cleaning "
      "| paper (ext4 vs ext4-lazy) |")
    p("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
      "| --- |")
    for ph in PHASES:
        for kind in ("stock", "lazy"):
            m = {k: float(v) for k, v in model[kind, ph].items()
                 if k != "phase"}
            b = {k: float(v) for k, v in model["stock", ph].items()
                 if k != "phase"}
            r = "" if kind == "stock" else "%s, %s, %s" % (
                ratio(m["smr_run_s"], b["smr_run_s"]),
                ratio(m["cmr_run_s"], b["cmr_run_s"]),
                ratio(m["clean_s"], b["clean_s"]))
            p("| %s | %s | %s | %s | %s | %s | %d (%d) | %.1f | %.2f | %.2f "
              "| %s | %s |" % (
                  NAMES[ph], "ext4 (modelled)" if kind == "stock" else
                  "lazy", mib(m["w_meta_home"] + m["w_cleaner"]),
                  mib(m["w_journal"]), mib(m["w_data"]), mib(m["r_bytes"]),
                  m["rmw_forced"] + m["rmw_idle"], m["rmw_forced"],
                  m["clean_s"], m["smr_run_s"], m["cmr_run_s"], r,
                  PAPER[ph] if kind == "stock" else ""))
    p()
    for ph in METADATA_HEAVY:
        b = float(model["stock", ph]["clean_s"])
        l = float(model["lazy", ph]["clean_s"])
        p("Target cleaning at most 5%% of the baseline's, %s: %.1f s vs "
          "%.1f s = %s%% (%s)." % (
              NAMES[ph], l, b, "%.1f" % (100 * l / b) if b else "-",
              "met" if l <= 0.05 * b else "NOT met"))
    p()

    # -- reads ----------------------------------------------------------
    p("### Reads that reach the disk (after the model's page cache)")
    p()
    p("| workload | mode | read requests | runs | mean gap between runs "
      "(MiB) | read (MiB) | from the log (MiB) | DM-SMR run (s) |")
    p("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for ph in PHASES:
        for kind in ("stock", "lazy"):
            r = read_runs(traces[kind, ph])
            if not r["reqs"]:
                continue
            p("| %s | %s | %d | %d | %.1f | %s | %s | %s |" % (
                NAMES[ph], "ext4 (modelled)" if kind == "stock" else "lazy",
                r["reqs"], r["runs"], r["mean_gap"], mib(r["bytes"]),
                mib(r["jbytes"]), model[kind, ph]["smr_run_s"]))
    p()

    # -- Figure 6 -------------------------------------------------------
    cls = {"data": 1, "meta_home": 2, "cleaner": 2, "journal": 3}
    panels = []
    for kind in ("stock", "lazy"):
        marks, cleans, end = [], [], 0.0
        with open(os.path.join(d, "%s.timeline" % kind)) as f, \
                open(os.path.join(d, "fig6.%s.dat" % kind), "w") as out:
            for line in f:
                w = line.split()
                if w[0] == "phase":
                    marks.append((float(w[2]), NAMES.get(w[1], w[1])))
                elif w[0] == "clean":
                    cleans.append((float(w[1]), float(w[2])))
                    end = max(end, float(w[1]) + float(w[2]))
                else:
                    t = float(w[4])
                    c = 0 if w[0] == "R" else cls.get(w[1], 2)
                    out.write("%.6f %.6f %d\n" % (t, int(w[2]) / GiB, c))
                    end = max(end, t)
        panels.append((kind, marks, cleans, end))
    with open(os.path.join(d, "fig6.gp"), "w") as g:
        g.write('set terminal pngcairo size 1400,900 font ",10" noenhanced\n')
        g.write('set output "%s"\n' % png)
        g.write("set multiplot layout 2,1\n")
        g.write('set ylabel "disk offset (GiB)"\n')
        g.write('set xlabel "modelled DM-SMR time (s): requests as they '
                'reach the disk (page cache hits left out), grey: the '
                'drive cleaning bands after the phase"\n')
        g.write("set key outside right top\n")
        xmax = max(p[3] for p in panels) * 1.02 or 1
        for kind, marks, cleans, end in panels:
            g.write('set title "%s"\n' % (
                "ext4 (modelled from stock fuse2fs: metadata journaled, then "
                "written home at checkpoints)" if kind == "stock" else
                "ext4-lazy: our fuse2fs on lazy_journal (metadata only in "
                "the log, file data home)"))
            g.write("set xrange [0:%.3f]\n" % xmax)	# one scale for both
            g.write("unset arrow\nunset label\nunset object\n")
            for i, (x, name) in enumerate(marks):
                g.write("set arrow from %.4f, graph 0 to %.4f, graph 1 "
                        "nohead lc rgb '#999999' dt 2\n" % (x, x))
                g.write('set label "%s" at %.4f, graph %.2f left '
                        'font ",9"\n' % (name, x, 0.97 - 0.06 * (i % 2)))
            for i, (x, w) in enumerate(cleans, 1):
                g.write("set object %d rect from %.4f, graph 0 to %.4f, "
                        "graph 1 fc rgb '#dddddd' fs solid 0.6 noborder "
                        "behind\n" % (i, x, x + w))
            dat = os.path.join(d, "fig6.%s.dat" % kind)
            g.write("plot " + ", ".join(
                "'%s' using 1:($3==%d?$2:1/0) with points pt 7 ps 0.4 "
                "lc rgb '%s' title '%s'" % (dat, c, col, t)
                for c, col, t in ((0, "#1f77b4", "reads"),
                                  (1, "#2ca02c", "data home"),
                                  (2, "#d62728", "metadata home"),
                                  (3, "#ff7f0e", "log (journal)")))
                    + "\n")
        g.write("unset multiplot\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
