#!/usr/bin/env python3
"""long_names.py DIR N: empty files of 255-byte names made in DIR, one
after another, until N are made or a create fails; prints how many were
made and the error that stopped them (ENOSPC when a directory index is
full).  On 1 KiB blocks a leaf holds three such names, so a few thousand
fill a level of the index."""
import errno
import os
import sys


def main():
    d, n = sys.argv[1], int(sys.argv[2])
    made = 0
    try:
        while made < n:
            name = (("%06d" % made) * 43)[:255]
            os.close(os.open(os.path.join(d, name),
                             os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            made += 1
    except OSError as e:
        print("made %d, then %s" % (made, errno.errorcode[e.errno]))
        return
    print("made %d" % made)


main()
