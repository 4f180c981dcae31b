#!/usr/bin/env python3
"""htree_ops.py --- many names in one directory (tests/u_mount_htree).

  htree_ops.py run ROOT N      in ROOT/big: N creates (short, long and
                               255-byte names, UTF-8), subdirectories,
                               symlinks, hard links (within big and from
                               ROOT/other), renames (to new names, over
                               existing ones, out of and into big), unlinks;
                               every name then looked up and checked
                               against the model (inode, link count), and
                               names never made or removed answer ENOENT;
                               a listing read while 1,000 names are added
                               gives every earlier name once.
                               Prints a summary; exit 1 on a difference.
  htree_ops.py list ROOT       every entry of ROOT/big and ROOT/other:
                               name, inode, mode, links, size (sorted)
  htree_ops.py more ROOT N     N more creates in ROOT/big (the kernel adds
                               to our index), each looked up
"""
import errno
import os
import random
import stat
import sys


def names(rng, n, prefix):
    out = []
    for i in range(n):
        kind = i % 10
        if kind < 6:
            name = "%s%06d" % (prefix, i)
        elif kind < 8:
            name = "%s_%06d_%s" % (prefix, i, "x" * rng.randrange(20, 120))
        elif kind == 8:
            name = ("%s%06d" % (prefix, i)).ljust(255, "L")
        else:
            name = "%s %06d \u00e9t\u00e9 \u65e5\u672c" % (prefix, i)
        out.append(name)
    return out


def plain_files(big, model):
    return sorted(k for k in model
                  if stat.S_ISREG(os.lstat(os.path.join(big, k)).st_mode))


def fail(msg):
    print("FAILED: " + msg)
    sys.exit(1)


def run(root, n):
    rng = random.Random(37)
    big = os.path.join(root, "big")
    other = os.path.join(root, "other")
    os.mkdir(big)
    os.mkdir(other)
    model = {}		# name in big -> inode
    outside = {}	# name in other -> inode
    for i, name in enumerate(names(rng, n, "f")):
        p = os.path.join(big, name)
        fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        if i % 7 == 0:
            os.write(fd, name.encode()[:40])
        os.close(fd)
        model[name] = os.lstat(p).st_ino
    for i in range(20):
        p = os.path.join(big, "dir%03d" % i)
        os.mkdir(p)
        model["dir%03d" % i] = os.lstat(p).st_ino
        p = os.path.join(big, "sym%03d" % i)
        os.symlink("target%03d" % i, p)
        model["sym%03d" % i] = os.lstat(p).st_ino
    files = plain_files(big, model)
    for i, name in enumerate(rng.sample(files, n // 20)):
        new = "hard%05d" % i
        os.link(os.path.join(big, name), os.path.join(big, new))
        model[new] = model[name]
    for i, name in enumerate(rng.sample(files, 50)):
        new = "out%03d" % i
        os.link(os.path.join(big, name), os.path.join(other, new))
        outside[new] = model[name]
    for i in range(50):
        p = os.path.join(other, "in%03d" % i)
        os.close(os.open(p, os.O_CREAT | os.O_WRONLY, 0o600))
        outside["in%03d" % i] = os.lstat(p).st_ino
    names_now = sorted(model)
    # renames within big, to new names
    for i, name in enumerate(rng.sample(names_now, n // 10)):
        new = "renamed%05d_%s" % (i, "r" * (i % 90))
        os.rename(os.path.join(big, name), os.path.join(big, new))
        model[new] = model.pop(name)
    # renames over existing names (the target's name now the source's)
    files = plain_files(big, model)
    pick = rng.sample(files, 2 * (n // 50))
    for src, dst in zip(pick[0::2], pick[1::2]):
        if model[src] == model[dst]:
            continue	# two links of one inode: rename does nothing
        os.rename(os.path.join(big, src), os.path.join(big, dst))
        model[dst] = model.pop(src)
    # out of big and into it
    files = plain_files(big, model)
    for i, name in enumerate(rng.sample(files, 40)):
        new = "moved%03d" % i
        os.rename(os.path.join(big, name), os.path.join(other, new))
        outside[new] = model.pop(name)
    for i in range(40):
        name = "in%03d" % i
        new = "came_in%03d" % i
        os.rename(os.path.join(other, name), os.path.join(big, new))
        model[new] = outside.pop(name)
    # a directory moved in, one moved out
    os.mkdir(os.path.join(other, "subdir_in"))
    os.rename(os.path.join(other, "subdir_in"), os.path.join(big, "subdir_in"))
    model["subdir_in"] = os.lstat(os.path.join(big, "subdir_in")).st_ino
    for d in ("dir_out", "dir_gone"):
        os.mkdir(os.path.join(big, d))
        model[d] = os.lstat(os.path.join(big, d)).st_ino
    os.rename(os.path.join(big, "dir_out"), os.path.join(other, "dir_out"))
    outside["dir_out"] = model.pop("dir_out")
    # an indexed directory moved in (its '..' rewritten in its dx_root)
    sub = os.path.join(other, "indexed")
    os.mkdir(sub)
    for i in range(300):
        os.close(os.open(os.path.join(sub, "entry%04d" % i), os.O_CREAT, 0o600))
    os.rename(sub, os.path.join(big, "indexed_in"))
    model["indexed_in"] = os.lstat(os.path.join(big, "indexed_in")).st_ino
    if os.lstat(os.path.join(big, "indexed_in", "..")).st_ino != \
            os.lstat(big).st_ino or \
            len(os.listdir(os.path.join(big, "indexed_in"))) != 300:
        fail("indexed_in: '..' or its names wrong after the move")
    # unlinks (and a removed directory)
    files = plain_files(big, model)
    gone = rng.sample(files, n // 5)
    for name in gone:
        os.unlink(os.path.join(big, name))
        del model[name]
    os.rmdir(os.path.join(big, "dir_gone"))
    del model["dir_gone"]
    gone.append("dir_gone")
    # a listing in progress while names are added (leaves split): every
    # name there at opendir comes once, none twice
    # (a name added first: the kernel's cached listing is dropped at the
    # open, so that the rest of this one comes from the server)
    os.close(os.open(os.path.join(big, "late_first"), os.O_CREAT, 0o600))
    model["late_first"] = os.lstat(os.path.join(big, "late_first")).st_ino
    before = set(model)
    seen = []
    with os.scandir(big) as it:
        for _ in range(200):
            seen.append(next(it).name)
        for i in range(1000):
            name = "late%05d" % i
            os.close(os.open(os.path.join(big, name), os.O_CREAT, 0o600))
            model[name] = os.lstat(os.path.join(big, name)).st_ino
        seen.extend(e.name for e in it)
    if len(seen) != len(set(seen)) or before - set(seen):
        fail("a listing during creates: %d names twice, %d missing" %
             (len(seen) - len(set(seen)), len(before - set(seen))))
    check(big, other, model, outside, gone + ["never%05d" % i for i in range(100)])
    print("run: %d names in big, %d in other, %d lookups, %d absent" %
          (len(model), len(outside), len(model), len(gone) + 100))


def check(big, other, model, outside, absent):
    listed = set(os.listdir(big))
    if listed != set(model):
        fail("readdir: %d names, the model %d; missing %s, extra %s" %
             (len(listed), len(model), sorted(set(model) - listed)[:3],
              sorted(listed - set(model))[:3]))
    if set(os.listdir(other)) != set(outside):
        fail("readdir of other differs from the model")
    links = {}
    for ino in list(model.values()) + list(outside.values()):
        links[ino] = links.get(ino, 0) + 1
    for name, ino in model.items():
        st = os.lstat(os.path.join(big, name))
        if st.st_ino != ino:
            fail("%s: inode %d, the model %d" % (name[:40], st.st_ino, ino))
        want = 2 if os.path.isdir(os.path.join(big, name)) and \
            not os.path.islink(os.path.join(big, name)) else links[ino]
        if st.st_nlink != want:
            fail("%s: %d links, the model %d" % (name[:40], st.st_nlink, want))
    for name in absent:
        try:
            os.lstat(os.path.join(big, name))
            fail("%s: still there" % name[:40])
        except OSError as e:
            if e.errno != errno.ENOENT:
                fail("%s: %s" % (name[:40], errno.errorcode[e.errno]))


def listing(root):
    for d in ("big", "other"):
        for name in sorted(os.listdir(os.path.join(root, d))):
            st = os.lstat(os.path.join(root, d, name))
            print("%s/%s\t%d\t%o\t%d\t%d" % (d, name, st.st_ino, st.st_mode,
                                             st.st_nlink, st.st_size))


def more(root, n):
    big = os.path.join(root, "big")
    before = set(os.listdir(big))
    new = names(random.Random(38), n, "k")
    for name in new:
        os.close(os.open(os.path.join(big, name), os.O_CREAT | os.O_EXCL, 0o644))
    for name in new:
        os.lstat(os.path.join(big, name))
    if set(os.listdir(big)) != before | set(new):
        fail("kernel: readdir after adding differs")
    print("more: %d names added and found" % n)


if __name__ == "__main__":
    cmd, root = sys.argv[1], sys.argv[2]
    try:
        if cmd == "run":
            run(root, int(sys.argv[3]))
        elif cmd == "list":
            listing(root)
        elif cmd == "more":
            more(root, int(sys.argv[3]))
        else:
            sys.exit("usage: htree_ops.py run|list|more ROOT [N]")
    except OSError as e:
        fail("%s: %s: %s" % (cmd, errno.errorcode.get(e.errno, e.errno),
                             (e.filename or "")[-60:]))
