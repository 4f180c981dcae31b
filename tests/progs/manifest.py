#!/usr/bin/env python3
"""manifest.py ROOT: one line per entry below ROOT, sorted by path:
path, type, mode (octal, permission bits), size (regular files), sha256
(regular files), link target (symlinks), link count, and the user.* and
security-free xattrs (name=sha256 of the value).  What a tree holds, for
comparing the same tree seen through different mounts."""
import hashlib
import os
import stat
import sys


def xattrs(path):
    try:
        names = sorted(os.listxattr(path, follow_symlinks=False))
    except OSError:
        return ""
    out = []
    for n in names:
        if not n.startswith("user."):
            continue
        v = os.getxattr(path, n, follow_symlinks=False)
        out.append("%s=%s" % (n, hashlib.sha256(v).hexdigest()[:16]))
    return ",".join(out)


def entry(root, rel):
    p = os.path.join(root, rel) if rel else root
    st = os.lstat(p)
    kind = stat.S_IFMT(st.st_mode)
    fields = [rel or ".", "%o" % kind, "%o" % stat.S_IMODE(st.st_mode)]
    if stat.S_ISREG(kind):
        h = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        fields += [str(st.st_size), h.hexdigest(), "nlink=%d" % st.st_nlink]
    elif stat.S_ISLNK(kind):
        fields += ["->" + os.readlink(p)]
    fields.append(xattrs(p))
    return " ".join(fields)


def main():
    root = sys.argv[1]
    lines = [entry(root, "")]
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not (d == root and x == "lost+found")]
        for n in dirs + files:
            rel = os.path.relpath(os.path.join(d, n), root)
            lines.append(entry(root, rel))
    lines.sort()
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
