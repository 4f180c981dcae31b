#!/usr/bin/env python3
"""manifest.py ROOT: one line per entry below ROOT, sorted by path:
path, type, mode (octal, permission bits), size (regular files), sha256
(regular files), link target (symlinks), link count, and the user.* and
security-free xattrs (name=sha256 of the value).  What a tree holds, for
comparing the same tree seen through different mounts.

manifest.py --guest FILE: the same lines from the facts a kernel test
guest gathered with busybox (tests/kernel/guest_lib.sh lj_manifest_raw:
no python there), read from FILE."""
import hashlib
import os
import stat
import sys


def line(rel, mode, size=0, sha="", nlink=0, target="", attrs=()):
    """The manifest line of one entry; attrs: (name, value) pairs."""
    kind = stat.S_IFMT(mode)
    fields = [rel or ".", "%o" % kind, "%o" % stat.S_IMODE(mode)]
    if stat.S_ISREG(kind):
        fields += [str(size), sha, "nlink=%d" % nlink]
    elif stat.S_ISLNK(kind):
        fields += ["->" + target]
    fields.append(",".join("%s=%s" % (n, hashlib.sha256(v).hexdigest()[:16])
                           for n, v in sorted(attrs)
                           if n.startswith("user.")))
    return " ".join(fields)


def xattrs(path):
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return []
    return [(n, os.getxattr(path, n, follow_symlinks=False))
            for n in names if n.startswith("user.")]


def entry(root, rel):
    p = os.path.join(root, rel) if rel else root
    st = os.lstat(p)
    sha, target = "", ""
    if stat.S_ISREG(st.st_mode):
        h = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        sha = h.hexdigest()
    elif stat.S_ISLNK(st.st_mode):
        target = os.readlink(p)
    return line(rel, st.st_mode, st.st_size, sha, st.st_nlink, target,
                xattrs(p))


def from_guest(path):
    """Lines S|PATH|MODE_HEX|SIZE|NLINK, H|PATH|SHA256, L|PATH|TARGET,
    X|PATH|NAME|HEX (PATH "." or "./..."), in any order."""
    ent, sha, target, attrs = {}, {}, {}, {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for raw in f:
            rec = raw.rstrip("\n").split("|")
            kind, p = rec[0], rec[1] if len(rec) > 1 else ""
            rel = "" if p == "." else p[2:] if p.startswith("./") else None
            if rel is None:
                continue        # not a record of lj_manifest_raw
            if kind == "S" and len(rec) == 5:
                ent[rel] = (int(rec[2], 16), int(rec[3]), int(rec[4]))
            elif kind == "H" and len(rec) == 3:
                sha[rel] = rec[2]
            elif kind == "L" and len(rec) == 3:
                target[rel] = rec[2]
            elif kind == "X" and len(rec) == 4:
                attrs.setdefault(rel, []).append(
                    (rec[2], bytes.fromhex(rec[3])))
    return [line(rel, mode, size, sha.get(rel, ""), nlink,
                 target.get(rel, ""), attrs.get(rel, ()))
            for rel, (mode, size, nlink) in ent.items()]


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--guest":
        lines = from_guest(sys.argv[2])
    else:
        root = sys.argv[1]
        lines = [entry(root, "")]
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs
                       if not (d == root and x == "lost+found")]
            for n in dirs + files:
                rel = os.path.relpath(os.path.join(d, n), root)
                lines.append(entry(root, rel))
    lines.sort()
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
