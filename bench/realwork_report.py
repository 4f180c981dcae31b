#!/usr/bin/env python3
"""realwork_report.py --- the tables of bench/realwork.sh from its raw times.

Usage: realwork_report.py [--stat best|median] [--stream-mib N]
                          [--targets "lazy plain stock kernel"]
                          [--phases "cp tar ..."] TIMES

TIMES: one line per phase run, "TARGET PHASE ROUND WORK_US UMOUNT_US
CPU_US FIGURE" (CPU_US and FIGURE "-" where there is none).  A phase's
time is WORK_US + UMOUNT_US; per target and phase the best (least) or the
median over the rounds; the daemon's CPU time and the phase's figure (the
IOPS fio printed) are those of the same round.  Prints markdown: wall
time, throughput, daemon CPU, and the issue's targets as met / NOT met.
"""
import argparse
import sys

NAMES = {
    "lazy": "ours, lazy",
    "plain": "ours, plain",
    "stock": "stock fuse2fs",
    "kernel": "kernel ext4 (loop)",
}
WHAT = {
    "cp": "`cp -a /usr/include`",
    "tar": "`tar -xf` of `/usr/share/doc`",
    "sqlite": "sqlite3, committed INSERTs",
    "git": "`git init; git add -A; git commit`",
    "ls": "`ls -lR`, cold",
    "rm": "`rm -rf` of it all",
    "write": "`dd` write, `conv=fsync`",
    "read": "`dd` read back, cold",
    "random": "4 KiB random writes, fsync every 100",
}
OURS = ("lazy", "plain")


def pick(runs, stat):
    """The run (seconds, cpu, figure) chosen by stat over the rounds."""
    runs = sorted(runs)
    return runs[0] if stat == "best" else runs[(len(runs) - 1) // 2]


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(x, digits=2, suffix=""):
    return "-" if x is None else "%.*f%s" % (digits, x, suffix)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stat", choices=("best", "median"), default="best")
    ap.add_argument("--stream-mib", type=float, default=1024)
    ap.add_argument("--targets", default="lazy plain stock kernel")
    ap.add_argument("--phases",
                    default="cp tar sqlite git ls rm write read random")
    ap.add_argument("times")
    a = ap.parse_args()
    targets = a.targets.split()
    phases = a.phases.split()

    runs = {}
    for line in open(a.times):
        k, ph, _rnd, work, umnt, cpu, fig = line.split()
        secs = (int(work) + int(umnt)) / 1e6
        runs.setdefault((k, ph), []).append(
            (secs, None if cpu == "-" else int(cpu) / 1e6,
             None if fig == "-" else float(fig)))
    res = {}
    for k in targets:
        for ph in phases:
            if (k, ph) not in runs:
                sys.exit("realwork_report.py: no run of %s on %s in %s"
                         % (ph, k, a.times))
            res[k, ph] = pick(runs[k, ph], a.stat)

    def col(k, ph, i=0):
        return res[k, ph][i] if (k, ph) in res else None

    def total(k, i=0):
        if k not in targets:
            return None
        return sum(res[k, ph][i] or 0 for ph in phases)

    have_stock = "stock" in targets
    print("### Wall time (s): the phase's work + umount until the daemon "
          "exits, %s of the rounds" % a.stat)
    print()
    print("| phase | what | " + " | ".join(NAMES[k] for k in targets) +
          "".join(" | %s/stock" % k for k in targets if k != "stock"
                  and have_stock) + " |")
    print("| --- " * (2 + len(targets) + (len(targets) - 1
                                            if have_stock else 0)) + "|")
    rows = [(ph, WHAT[ph], {k: col(k, ph) for k in targets}) for ph in phases]
    rows.append(("all", "every phase above", {k: total(k) for k in targets}))
    for ph, what, v in rows:
        cells = [fmt(v[k]) for k in targets]
        if have_stock:
            cells += [fmt(ratio(v[k], v["stock"]), 2, "x")
                      for k in targets if k != "stock"]
        print("| %s | %s | %s |" % (ph, what, " | ".join(cells)))
    print()

    tput = []
    for ph, label in (("write", "write MiB/s (dd; MiB / phase time)"),
                      ("read", "read MiB/s (dd; MiB / phase time)")):
        if ph in phases:
            tput.append((label, {k: a.stream_mib / col(k, ph)
                                 for k in targets}))
    if "random" in phases:
        tput.append(("random 4 KiB writes, IOPS (fio or the python loop)",
                     {k: col(k, "random", 2) for k in targets}))
    if tput:
        print("### Throughput (from the rounds chosen above)")
        print()
        print("| measure | " + " | ".join(NAMES[k] for k in targets) +
              "".join(" | %s/stock" % k for k in targets if k != "stock"
                      and have_stock) + " |")
        print("| --- " * (1 + len(targets) + (len(targets) - 1
                                                if have_stock else 0)) + "|")
        for label, v in tput:
            cells = [fmt(v[k], 0) for k in targets]
            if have_stock:
                cells += [fmt(ratio(v[k], v["stock"]), 2, "x")
                          for k in targets if k != "stock"]
            print("| %s | %s |" % (label, " | ".join(cells)))
        print()

    daemons = [k for k in targets if k != "kernel"]
    if daemons:
        print("### The FUSE daemon's CPU time (s, user + system, "
              "/usr/bin/time), same rounds")
        print()
        ours_d = [k for k in daemons if k in OURS and have_stock]
        print("| phase | " + " | ".join(NAMES[k] for k in daemons) +
              "".join(" | %s/stock" % k for k in ours_d) + " |")
        print("| --- " * (1 + len(daemons) + len(ours_d)) + "|")
        rows = [(ph, {k: col(k, ph, 1) for k in daemons}) for ph in phases]
        rows.append(("all", {k: total(k, 1) for k in daemons}))
        for ph, v in rows:
            cells = [fmt(v[k]) for k in daemons]
            cells += [fmt(ratio(v[k], v["stock"]), 2, "x") for k in ours_d]
            print("| %s | %s |" % (ph, " | ".join(cells)))
        print()

    print("### Targets (issue 29)")
    print()
    if not have_stock:
        print("No stock target in this run: the targets are not checked.")
        return
    met = {True: "met", False: "NOT met"}
    for k in (t for t in targets if t in OURS):
        r = {ph: ratio(col(k, ph), col("stock", ph)) for ph in phases}
        worst = max(phases, key=lambda ph: r[ph])
        slow = ", ".join("%s %.2fx" % (ph, r[ph]) for ph in phases
                         if r[ph] > 1)
        print("* %s: no phase slower than stock fuse2fs: %s (%s)"
              % (NAMES[k], met[not slow],
                 slow if slow else "slowest %s %.2fx" % (worst, r[worst])))
        t = ratio(total(k), total("stock"))
        print("* %s: all phases together at most 0.6x stock's time: %.2fx "
              "(%s)" % (NAMES[k], t, met[t <= 0.6]))
        st = [ph for ph in ("write", "read") if ph in phases]
        if st:
            # throughput ratio = stock's time / ours
            tr = {ph: ratio(col("stock", ph), col(k, ph)) for ph in st}
            print("* %s: streaming at least 2x stock's throughput: %s (%s)"
                  % (NAMES[k], ", ".join("%s %.2fx" % (ph, tr[ph])
                                         for ph in st),
                     met[all(tr[ph] >= 2 for ph in st)]))
    if "kernel" in targets:
        kt = total("kernel")
        print("* the kernel's ext4: all phases %.2f s; " % kt + ", ".join(
            "%s %.1fx its time" % (NAMES[k], ratio(total(k), kt))
            for k in targets if k != "kernel"))


if __name__ == "__main__":
    main()
