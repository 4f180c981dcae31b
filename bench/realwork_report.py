#!/usr/bin/env python3
"""realwork_report.py --- the tables of bench/realwork.sh from its raw times.

Usage: realwork_report.py [--stat best|median] [--stream-mib N]
                          [--targets "lazy plain stock kernel"]
                          [--phases "cp tar ..."] [--clients CLIENTS]
                          [--requests REQUESTS] TIMES

TIMES: one line per phase run, "TARGET PHASE ROUND WORK_US UMOUNT_US
CPU_US FIGURE" (CPU_US and FIGURE "-" where there is none).  A phase's
time is WORK_US + UMOUNT_US; per target and phase the best (least) or the
median over the rounds; the daemon's CPU time and the phase's figure (the
IOPS fio printed) are those of the same round.  Prints markdown: wall
time, throughput, daemon CPU, and the issue's targets as met / NOT met.

The phases both and tar4 (issue 37: clients at once) are left out of those
tables and totals; CLIENTS holds their clients' times, one line per
client and step: "TARGET PHASE ROUND STEP CLIENT WORK_US UMOUNT_US
CPU_US" (STEP alone or together); each time is the best or the median
over the rounds.  REQUESTS: "TARGET PHASE ROUND OPCODE=COUNT ..." (our
daemon's count, opcodes numbered as in <linux/fuse.h>), tabled per phase
for each of our targets beside the phase's time and the daemon's CPU, from
the round the phase's time was picked from.
"""
import argparse
import re
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
CLIENT_PHASES = ("both", "tar4")
OURS = ("lazy", "plain")
FUSE_H = "/usr/include/linux/fuse.h"


def opcode_names():
    """Opcode number -> name (FUSE_ dropped), from <linux/fuse.h>."""
    names = {}
    try:
        text = open(FUSE_H).read()
    except OSError:
        return names
    body = re.search(r"enum fuse_opcode \{(.*?)\}", text, re.S)
    for name, num in re.findall(r"\b(?:CUSE|FUSE)_(\w+)\s*=\s*(\d+)",
                                body.group(1) if body else ""):
        names.setdefault(num, name)
    return names


def pick(runs, stat):
    """The run (seconds, cpu, figure) chosen by stat over the rounds."""
    runs = sorted(runs)
    return runs[0] if stat == "best" else runs[(len(runs) - 1) // 2]


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(x, digits=2, suffix=""):
    return "-" if x is None else "%.*f%s" % (digits, x, suffix)


def head(first, targets, have_stock):
    """A table's heading: the FIRST columns, one per target, and with
    stock one ratio to stock per other target."""
    ratios = [k for k in targets if k != "stock"] if have_stock else []
    print(first + " | " + " | ".join(NAMES[k] for k in targets) +
          "".join(" | %s/stock" % k for k in ratios) + " |")
    print("| --- " * (first.count("|") + len(targets) + len(ratios)) + "|")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stat", choices=("best", "median"), default="best")
    ap.add_argument("--stream-mib", type=float, default=1024)
    ap.add_argument("--targets", default="lazy plain stock kernel")
    ap.add_argument("--phases",
                    default="cp tar sqlite git ls rm write read random")
    ap.add_argument("--clients")
    ap.add_argument("--requests")
    ap.add_argument("times")
    a = ap.parse_args()
    targets = a.targets.split()
    all_phases = a.phases.split()
    phases = [ph for ph in all_phases if ph not in CLIENT_PHASES]

    runs = {}
    for line in open(a.times):
        k, ph, rnd, work, umnt, cpu, fig = line.split()
        secs = (int(work) + int(umnt)) / 1e6
        runs.setdefault((k, ph), []).append(
            (secs, None if cpu == "-" else int(cpu) / 1e6,
             None if fig == "-" else float(fig), rnd))
    res = {}
    for k in targets:
        for ph in all_phases:
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
    if phases:
        print("### Wall time (s): the phase's work + umount until the daemon "
              "exits, %s of the rounds" % a.stat)
        print()
        head("| phase | what", targets, have_stock)
        rows = [(ph, WHAT[ph], {k: col(k, ph) for k in targets})
                for ph in phases]
        rows.append(("all", "every phase above",
                     {k: total(k) for k in targets}))
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
        head("| measure", targets, have_stock)
        for label, v in tput:
            cells = [fmt(v[k], 0) for k in targets]
            if have_stock:
                cells += [fmt(ratio(v[k], v["stock"]), 2, "x")
                          for k in targets if k != "stock"]
            print("| %s | %s |" % (label, " | ".join(cells)))
        print()

    daemons = [k for k in targets if k != "kernel"]
    if daemons and phases:
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

    clients = read_clients(a.clients, a.stat) if a.clients else {}
    if clients:
        clients_tables(clients, targets, all_phases)
    if a.requests:
        requests_tables(a.requests, res, targets, all_phases)

    if phases:
        targets_29(targets, phases, col, total)
    if clients:
        targets_37(clients, targets, all_phases)


def targets_29(targets, phases, col, total):
    """The targets of issue 29 as met / NOT met."""
    have_stock = "stock" in targets
    print("### Targets (issue 29)")
    print()
    if not have_stock:
        print("No stock target in this run: the targets are not checked.")
        print()
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
    print()


def read_clients(path, stat):
    """(target, phase, step, client) -> (seconds of work, of work +
    umount), the best or median over the rounds."""
    runs = {}
    for line in open(path):
        k, ph, _rnd, st, c, work, umnt, _cpu = line.split()
        runs.setdefault((k, ph, st, c), []).append(
            (int(work) / 1e6, (int(work) + int(umnt)) / 1e6))
    return {key: pick(v, stat) for key, v in runs.items()}


def clients_tables(cl, targets, phases):
    """The tables of both and tar4."""
    def need(k, ph, st, c):
        if (k, ph, st, c) not in cl:
            sys.exit("realwork_report.py: no client %s (%s) of %s on %s"
                     % (c, st, ph, k))
        return cl[k, ph, st, c][0]

    if "both" in phases:
        print("### Two clients at once: `tar -xf` and the sqlite "
              "transactions on one mount (s, each client's own wall time "
              "from the common start to its exit, umount not included)")
        print()
        print("| target | tar alone | sqlite alone | tar both running | "
              "sqlite both running | tar slowed | sqlite slowed |")
        print("| --- " * 7 + "|")
        for k in targets:
            v = [need(k, "both", st, c) for st, c in
                 (("alone", "tar"), ("alone", "sqlite"),
                  ("together", "tar"), ("together", "sqlite"))]
            print("| %s | %s | %s | %s |" % (
                NAMES[k], " | ".join(fmt(x) for x in v),
                fmt(ratio(v[2], v[0]), 2, "x"),
                fmt(ratio(v[3], v[1]), 2, "x")))
        print()
    if "tar4" in phases:
        print("### Four `tar -xf` at once into four directories on one "
              "mount (s, from the common start until the last exits; "
              "then the same with the umount)")
        print()
        print("| target | one alone | four at once | four/one | "
              "one alone + umount | four + umount | four/one with umount |")
        print("| --- " * 7 + "|")
        for k in targets:
            need(k, "tar4", "alone", "tar")
            one = cl[k, "tar4", "alone", "tar"]
            four = [cl.get((k, "tar4", "together", "tar%d" % i))
                    for i in range(1, 5)]
            if None in four:
                sys.exit("realwork_report.py: tar4 on %s: not four tars" % k)
            w4 = (max(f[0] for f in four), max(f[1] for f in four))
            print("| %s | %s | %s | %s | %s | %s | %s |" % (
                NAMES[k], fmt(one[0]), fmt(w4[0]),
                fmt(ratio(w4[0], one[0]), 2, "x"), fmt(one[1]),
                fmt(w4[1]), fmt(ratio(w4[1], one[1]), 2, "x")))
        print()


def requests_tables(path, res, targets, phases):
    """Per our target, the requests the kernel sent in each phase."""
    names = opcode_names()
    counts = {}
    for line in open(path):
        f = line.split()
        c = {}
        for kv in f[3:]:
            op, n = kv.split("=")
            c[names.get(op, op)] = int(n)
        counts[f[0], f[1], f[2]] = c
    for k in (t for t in targets if t in OURS):
        print("### Requests the kernel sent per phase: %s (the daemon's "
              "count, FUSE2FS_REQUESTS; the round of the time above; both, "
              "tar4: the mount with the clients together)" % NAMES[k])
        print()
        print("| phase | time (s) | daemon CPU (s) | requests | "
              "wall us per request | CPU us per request | by opcode |")
        print("| --- " * 7 + "|")
        for ph in phases:
            secs, cpu, _fig, rnd = res[k, ph]
            c = counts.get((k, ph, rnd))
            if c is None:
                sys.exit("realwork_report.py: no request counts of %s on "
                         "%s, round %s" % (ph, k, rnd))
            n = sum(c.values())
            by = ", ".join("%s %d" % (op, c[op]) for op in
                           sorted(c, key=lambda op: (-c[op], op)))
            print("| %s | %s | %s | %d | %s | %s | %s |" % (
                ph, fmt(secs), fmt(cpu), n, fmt(ratio(secs * 1e6, n), 1),
                fmt(ratio(cpu * 1e6, n), 1), by))
        print()


def targets_37(cl, targets, phases):
    """The targets of issue 37 as met / NOT met."""
    met = {True: "met", False: "NOT met"}
    print("### Targets (issue 37)")
    print()
    ours = [k for k in targets if k in OURS]
    if "both" in phases:
        if "kernel" not in targets:
            print("No kernel target in this run: two clients not checked.")
        else:
            def slowed(k, c):
                return ratio(cl[k, "both", "together", c][0],
                             cl[k, "both", "alone", c][0])
            for k in ours:
                parts, ok = [], True
                for c in ("tar", "sqlite"):
                    s, lim = slowed(k, c), slowed("kernel", c) * 1.2
                    ok = ok and s <= lim
                    parts.append("%s %.2fx (kernel %.2fx, limit %.2fx)"
                                 % (c, s, slowed("kernel", c), lim))
                print("* %s: two clients, each slowed at most 1.2x the "
                      "kernel's slowdown: %s (%s)"
                      % (NAMES[k], ", ".join(parts), met[ok]))
    if "tar4" in phases:
        for k in ours:
            one = cl[k, "tar4", "alone", "tar"][0]
            four = max(cl[k, "tar4", "together", "tar%d" % i][0]
                       for i in range(1, 5))
            print("* %s: four tar -xf at once at most 1.5x one alone: "
                  "%.2fx (%s)" % (NAMES[k], four / one,
                                  met[four <= 1.5 * one]))
    print()


if __name__ == "__main__":
    main()
