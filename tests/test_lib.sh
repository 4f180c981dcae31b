# shellcheck shell=bash
#
# test_lib.sh --- helpers shared by the scenario scripts in tests/*/script.
#
# Sourced by each script; run_tests.sh exports TMPD (a fresh scratch
# directory), SRCDIR, BUILDDIR and E2FSPROGS_SBIN.  Everything a script
# prints to stdout is compared with its expect file, so helpers print only
# deterministic text (no times, UUIDs or temporary paths).
#
# Journals are written with the STOCK debugfs journal commands (jo/jw/jc).
# Facts about them that shape these helpers (e2fsprogs 1.47.0):
#  * `jw -b B1,B2,... FILE` reads the block contents SEQUENTIALLY from the
#    start of FILE (first listed block <- bytes 0..bs-1, and so on).
#  * `jo -c` turns checksums on only while the log is empty and
#    needs_recovery is clear: with metadata_csum it gives csum v3 (or v2
#    with `-v 2`), without metadata_csum the v1 COMPAT_CHECKSUM (crc32_be
#    over the transaction's blocks in the commit block).  Without -c: none.
#    The journal gets the 64bit feature iff the file system has 64bit.
#  * A `jw` with both -b and -r leaves the next transaction of the same jo
#    session starting ON its commit block (block estimate too small), so
#    such a transaction is always followed by `jc` + `jo` here (jo finds the
#    head again by scanning the log).
#  * jw never wraps: a transaction that does not fit before the end of the
#    journal fails with ENOSPC.  Wrap-around is made by rotating the whole
#    log area afterwards (jrotate), which keeps every block's content.
#  * `jw -c` writes a transaction without its commit block (uncommitted);
#    it must be the last one written.
#  * The first tag of a descriptor has no SAME_UUID flag; stock writes its
#    16-byte UUID slot after the tag but fills in the wrong place (zeros).

SBIN=${E2FSPROGS_SBIN:-/usr/sbin}
STOCK_DEBUGFS=$SBIN/debugfs
STOCK_E2FSCK=$SBIN/e2fsck
STOCK_MKE2FS=$SBIN/mke2fs
STOCK_DUMPE2FS=$SBIN/dumpe2fs
BUILDDIR=${BUILDDIR:-${SRCDIR:-.}}
SRCDIR=${SRCDIR:-.}
OUR_DEBUGFS=$BUILDDIR/debugfs/debugfs
LJ_APPLY=$BUILDDIR/tests/progs/lj_apply
TESTLIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ORACLE_AWK=$TESTLIB_DIR/oracle_jmap.awk

# ---------------------------------------------------------------------
# Images

# mkimg IMG SIZE_MB BLOCKSIZE FEATURES [JOURNAL_MB]
#   FEATURES is a mke2fs -O list, e.g. "64bit,metadata_csum" or
#   "^64bit,^metadata_csum".  The image is sparse.
mkimg() {
	local img=$1 size=$2 bs=$3 feat=$4 jsize=${5:-}
	local jopt=()
	[ -n "$jsize" ] && jopt=(-J "size=$jsize")
	rm -f "$img"
	truncate -s "${size}M" "$img"
	"$STOCK_MKE2FS" -q -F -t ext4 -b "$bs" -O "$feat" "${jopt[@]}" \
		-E lazy_itable_init=1,nodiscard \
		"$img" >/dev/null 2>&1 \
		|| { echo "mkimg: mke2fs failed for $feat bs=$bs"; return 1; }
}

# img_bs IMG: file system block size
img_bs() {
	"$STOCK_DUMPE2FS" -h "$1" 2>/dev/null | awk '/^Block size:/ {print $3}'
}

# jblock_pblk IMG JBLOCK: file-system block holding journal block JBLOCK
jblock_pblk() {
	"$STOCK_DEBUGFS" -R "bmap <8> $2" "$1" 2>/dev/null | tail -n 1
}

# journal_pblocks IMG: every fs block of the journal inode, in order
journal_pblocks() {
	# `stat <8>` names logical ranges; `blocks <8>` would also list the
	# indirect blocks of an ext3 journal and shift every later entry.
	"$STOCK_DEBUGFS" -R "stat <8>" "$1" 2>/dev/null | perl -ne '
		next unless /^\(/ .. /^TOTAL/;
		while (/\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?/g) {
			my ($l0, $l1, $p0) = ($1, defined $2 ? $2 : $1, $3);
			print $p0 + $_ - $l0, "\n" for $l0 .. $l1;
		}'
}

# mkdata FILE NBLOCKS BS TAG: NBLOCKS blocks of deterministic content,
# block i starts with "TAG/i" and is filled with a pattern derived from it.
mkdata() {
	perl -e '
		my ($n, $bs, $tag) = @ARGV;
		for my $i (0 .. $n - 1) {
			my $s = sprintf("%s/%d;", $tag, $i);
			my $b = $s x (int($bs / length($s)) + 1);
			print substr($b, 0, $bs);
		}' "$2" "$3" "$4" >"$1"
}

# mkdata_magic FILE BS: one block that starts with the jbd2 magic
# (big-endian 0xC03B3998), so stock jw stores it escaped.
mkdata_magic() {
	perl -e '
		my $bs = $ARGV[0];
		my $b = pack("N", 0xC03B3998) . ("escaped-block;" x $bs);
		print substr($b, 0, $bs);' "$2" >"$1"
}

# ---------------------------------------------------------------------
# Writing transactions with stock debugfs

# jlog_init CMDFILE [JO_ARGS...]: start a command file ("jo ARGS")
jlog_init() {
	local f=$1
	shift
	echo "jo $*" >"$f"
}

# jlog_txn CMDFILE BLOCKS REVOKES DATAFILE [nocommit]
#   BLOCKS / REVOKES: comma lists or "" for none.
jlog_txn() {
	local f=$1 blocks=$2 revokes=$3 data=$4 nocommit=${5:-}
	local cmd="jw"
	[ -n "$blocks" ] && cmd="$cmd -b $blocks"
	[ -n "$revokes" ] && cmd="$cmd -r $revokes"
	[ -n "$nocommit" ] && cmd="$cmd -c"
	[ -n "$blocks" ] && cmd="$cmd $data"
	echo "$cmd" >>"$f"
	# see the header: a data+revoke transaction needs the head found again
	if [ -n "$blocks" ] && [ -n "$revokes" ]; then
		printf 'jc\njo\n' >>"$f"
	fi
}

# jlog_run IMG CMDFILE: close the journal and run the command file with
# stock debugfs; complain (on stdout, so the test fails) on any error.
jlog_run() {
	local img=$1 f=$2 out
	echo "jc" >>"$f"
	out=$("$STOCK_DEBUGFS" -w -f "$f" "$img" 2>&1)
	if printf '%s\n' "$out" | grep -vE '^(debugfs( [0-9.]+ \(.*\))?:? |Setting csum v)' \
		| grep -q .; then
		echo "jlog_run: stock debugfs complained:"
		printf '%s\n' "$out" | grep -vE '^debugfs' | head -n 5
		return 1
	fi
}

# ---------------------------------------------------------------------
# Raw block access (perl: pack/unpack and crc32c)

# read_blk IMG BLK BS > file
read_blk() {
	dd if="$1" bs="$3" skip="$2" count=1 status=none
}

# write_blk IMG BLK BS < file
write_blk() {
	dd of="$1" bs="$3" seek="$2" count=1 conv=notrunc status=none
}

# poke IMG BYTE_OFFSET HEXBYTES: overwrite bytes at an absolute offset
poke() {
	perl -e '
		my ($img, $off, $hex) = @ARGV;
		open(my $fh, "+<", $img) or die "poke: $img: $!\n";
		binmode $fh;
		seek($fh, $off, 0);
		print $fh pack("H*", $hex);
		close($fh);' "$1" "$2" "$3"
}

# flip_byte IMG BYTE_OFFSET: xor one byte with 0xff
flip_byte() {
	perl -e '
		my ($img, $off) = @ARGV;
		open(my $fh, "+<", $img) or die "flip: $img: $!\n";
		binmode $fh;
		seek($fh, $off, 0);
		read($fh, my $c, 1);
		seek($fh, $off, 0);
		print $fh chr(ord($c) ^ 0xff);
		close($fh);' "$1" "$2"
}

# corrupt_jblock IMG JBLOCK OFFSET: flip the byte at OFFSET in journal
# block JBLOCK (found through stock bmap <8>).
corrupt_jblock() {
	local img=$1 jb=$2 off=$3 bs p
	bs=$(img_bs "$img")
	p=$(jblock_pblk "$img" "$jb")
	flip_byte "$img" $((p * bs + off))
}

# The perl library used by the journal-superblock and commit helpers.
# crc32c here is the raw (no final inversion) form that jbd2 uses.
# shellcheck disable=SC2016  # perl code, not shell
PERL_JLIB='
my @T;
for my $i (0 .. 255) {
	my $c = $i;
	for (1 .. 8) { $c = ($c & 1) ? (($c >> 1) ^ 0x82F63B78) : ($c >> 1); }
	$T[$i] = $c;
}
sub crc32c {
	my ($crc, $d) = @_;
	for my $b (unpack("C*", $d)) {
		$crc = $T[($crc ^ $b) & 0xff] ^ ($crc >> 8);
	}
	return $crc;
}
sub rd { my ($fh, $off, $len) = @_; seek($fh, $off, 0);
	read($fh, my $b, $len) == $len or die "short read\n"; return $b; }
sub wr { my ($fh, $off, $b) = @_; seek($fh, $off, 0); print $fh $b; }
sub jsb_fix_csum {	# checksum of a 1024-byte journal sb, if v2/v3
	my ($sb) = @_;
	my $inc = unpack("N", substr($sb, 0x28, 4));
	return $sb unless $inc & 0x18;
	substr($sb, 0xFC, 4) = pack("N", 0);
	substr($sb, 0xFC, 4) = pack("N", crc32c(0xFFFFFFFF, $sb));
	return $sb;
}
'

# jsb_get IMG FIELD: print a journal superblock field (decimal)
#   FIELD: maxlen first sequence start compat incompat
jsb_get() {
	local img=$1 f=$2 bs p
	bs=$(img_bs "$img")
	p=$(jblock_pblk "$img" 0)
	perl -e "$PERL_JLIB"'
		my ($img, $off, $f) = @ARGV;
		my %o = (maxlen => 0x10, first => 0x14, sequence => 0x18,
			 start => 0x1C, compat => 0x24, incompat => 0x28);
		open(my $fh, "<", $img) or die; binmode $fh;
		my $sb = rd($fh, $off, 1024);
		print unpack("N", substr($sb, $o{$f}, 4)), "\n";' \
		"$img" $((p * bs)) "$f"
}

# jsb_set IMG FIELD=VALUE...: set journal superblock fields, fix checksum
jsb_set() {
	local img=$1 bs p
	shift
	bs=$(img_bs "$img")
	p=$(jblock_pblk "$img" 0)
	perl -e "$PERL_JLIB"'
		my ($img, $off, @kv) = @ARGV;
		my %o = (maxlen => 0x10, first => 0x14, sequence => 0x18,
			 start => 0x1C, compat => 0x24, incompat => 0x28,
			 magic => 0x00, blocksize => 0x0C);
		open(my $fh, "+<", $img) or die; binmode $fh;
		my $sb = rd($fh, $off, 1024);
		for my $kv (@kv) {
			my ($k, $v) = split(/=/, $kv);
			die "jsb_set: unknown field $k\n" unless exists $o{$k};
			$v = oct($v) if $v =~ /^0/;
			substr($sb, $o{$k}, 4) = pack("N", $v);
		}
		wr($fh, $off, jsb_fix_csum($sb));
		close($fh);' "$img" $((p * bs)) "$@"
}

# jsb_csum_ok IMG: "ok" if the journal sb checksum (v2/v3) verifies or is
# not used, "bad" otherwise
jsb_csum_ok() {
	local img=$1 bs p
	bs=$(img_bs "$img")
	p=$(jblock_pblk "$img" 0)
	perl -e "$PERL_JLIB"'
		my ($img, $off) = @ARGV;
		open(my $fh, "<", $img) or die; binmode $fh;
		my $sb = rd($fh, $off, 1024);
		print((jsb_fix_csum($sb) eq $sb) ? "ok\n" : "bad\n");' \
		"$img" $((p * bs))
}

# jrotate IMG SHIFT: rotate the log area (journal blocks s_first ..
# s_maxlen-1) forward by SHIFT blocks and move s_start with it, so that a
# log written from s_first now wraps past the end of the journal.  Block
# contents do not depend on their position, so the log stays valid.
jrotate() {
	local img=$1 shift_by=$2 bs
	bs=$(img_bs "$img")
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	perl -e "$PERL_JLIB"'
		my ($img, $bs, $shift, $listf) = @ARGV;
		open(my $lf, "<", $listf) or die; my @p = map { chomp; $_ } <$lf>;
		open(my $fh, "+<", $img) or die; binmode $fh;
		my $sb = rd($fh, $p[0] * $bs, 1024);
		my ($maxlen, $first, $seq, $start) =
			unpack("N4", substr($sb, 0x10, 16));
		my $len = $maxlen - $first;
		my @old = map { rd($fh, $p[$_] * $bs, $bs) } ($first .. $maxlen - 1);
		for my $k (0 .. $len - 1) {
			my $n = $first + (($k + $shift) % $len);
			wr($fh, $p[$n] * $bs, $old[$k]);
		}
		if ($start) {
			$start = $first + (($start - $first + $shift) % $len);
			substr($sb, 0x1C, 4) = pack("N", $start);
		}
		wr($fh, $p[0] * $bs, jsb_fix_csum($sb));
		close($fh);' "$img" "$bs" "$shift_by" "$TMPD/.jpblocks"
}

# commit_set_time IMG JBLOCK SECONDS: rewrite the commit time of the
# commit block at JBLOCK and recompute its checksum (v2/v3: crc32c over
# the block with the checksum field zeroed, seeded with crc32c(~0, uuid)).
commit_set_time() {
	local img=$1 jb=$2 sec=$3 bs p j0
	bs=$(img_bs "$img")
	p=$(jblock_pblk "$img" "$jb")
	j0=$(jblock_pblk "$img" 0)
	perl -e "$PERL_JLIB"'
		my ($img, $bs, $off, $j0, $sec) = @ARGV;
		open(my $fh, "+<", $img) or die; binmode $fh;
		my $sb = rd($fh, $j0, 1024);
		my $inc = unpack("N", substr($sb, 0x28, 4));
		my $b = rd($fh, $off, $bs);
		substr($b, 0x30, 8) = pack("NN", int($sec / 4294967296), $sec % 4294967296);
		if ($inc & 0x18) {
			my $seed = crc32c(0xFFFFFFFF, substr($sb, 0x30, 16));
			substr($b, 16, 4) = pack("N", 0);
			substr($b, 16, 4) = pack("N", crc32c($seed, $b));
		}
		wr($fh, $off, $b);
		close($fh);' "$img" "$bs" $((p * bs)) $((j0 * bs)) "$sec"
}

# set_compat_bits IMG MASK / clear_compat_bits IMG MASK: change
# s_feature_compat with stock debugfs (which recomputes the superblock
# checksum when it writes it back).
set_compat_bits() {
	local img=$1 mask=$2 cur
	cur=$(sb_field "$img" 0x5C)
	"$STOCK_DEBUGFS" -w -R "ssv feature_compat $((cur | mask))" "$img" \
		>/dev/null 2>&1
}
clear_compat_bits() {
	local img=$1 mask=$2 cur
	cur=$(sb_field "$img" 0x5C)
	"$STOCK_DEBUGFS" -w -R "ssv feature_compat $((cur & ~mask))" "$img" \
		>/dev/null 2>&1
}

# set_lazy IMG: set the lazy_journal COMPAT bit (0x2000) in the home sb
set_lazy() {
	set_compat_bits "$1" 0x2000
}

# sb_field IMG OFFSET: the le32 at OFFSET of the primary superblock
sb_field() {
	perl -e '
		my ($img, $off) = @ARGV;
		open(my $fh, "<", $img) or die; binmode $fh;
		seek($fh, 1024 + $off, 0); read($fh, my $b, 4);
		print unpack("V", $b), "\n";' "$1" "$(($2))"
}

# sb_csum_ok IMG: verify the crc32c (inverted, over the first 1020 bytes,
# little-endian) of the primary superblock and of every backup that stock
# dumpe2fs lists.  Prints "ok (primary + N backups)" only when every copy
# was checked and verifies; "bad (...)" naming the failing copies; "not
# checked (no metadata_csum)" when there is no checksum to check.
sb_csum_ok() {
	local backups
	backups=$("$STOCK_DUMPE2FS" "$1" 2>/dev/null \
		| sed -n 's/.*Backup superblock at \([0-9]*\),.*/\1/p' | paste -sd, -)
	perl -e "$PERL_JLIB"'
		my ($img, $list) = @ARGV;
		open(my $fh, "<", $img) or die; binmode $fh;
		my $sb = rd($fh, 1024, 1024);
		die "not ext2/3/4\n" if unpack("v", substr($sb, 0x38, 2)) != 0xEF53;
		my $ro = unpack("V", substr($sb, 0x64, 4));
		if (!($ro & 0x400)) { print "not checked (no metadata_csum)\n"; exit 0; }
		my $bs = 1024 << unpack("V", substr($sb, 0x18, 4));
		my @bad;
		my @copies = ([ "primary", 1024 ]);
		push @copies, [ "backup at $_", $_ * $bs ] for grep { length } split(/,/, $list);
		for my $c (@copies) {
			my $s = rd($fh, $c->[1], 1024);
			my $crc = crc32c(0xFFFFFFFF, substr($s, 0, 1020));
			push @bad, $c->[0] if unpack("v", substr($s, 0x38, 2)) != 0xEF53
				|| $crc != unpack("V", substr($s, 1020, 4));
		}
		if (@bad) { print "bad (", join(", ", @bad), ")\n"; exit 1; }
		printf("ok (primary + %d backups)\n", $#copies);' "$1" "$backups"
}

# ---------------------------------------------------------------------
# Oracles

# oracle_jmap IMG: expected jmap rows "home jblock tid" (sorted by home)
# from stock `logdump -a` and the jbd2 replay rule.
oracle_jmap() {
	"$STOCK_DEBUGFS" -R "logdump -a" "$1" 2>/dev/null \
		| awk -f "$ORACLE_AWK" | sort -n -k1,1
}

# oracle_end IMG: the oracle's view of where the log ends (one line)
oracle_end() {
	"$STOCK_DEBUGFS" -R "logdump -a" "$1" 2>/dev/null \
		| awk -v mode=end -f "$ORACLE_AWK"
}

# our_jmap IMG: the rows of our `debugfs -R jmap` (lines starting with a
# decimal number), columns 1-3
our_jmap() {
	"$OUR_DEBUGFS" -R "jmap" "$1" 2>&1 | awk '$1 ~ /^[0-9]+$/ {print $1, $2, $3}'
}

# check_jmap LABEL IMG [empty]: compare our jmap with the logdump oracle;
# prints one deterministic line (and the first differences on a mismatch).
# Both sides empty proves nothing (a broken oracle and a broken scanner
# agree on nothing): it fails unless the caller passes "empty", stating
# that this log maps no block; "empty" with entries fails too.
check_jmap() {
	local label=$1 img=$2 want_empty=${3:-} n
	local before after
	oracle_jmap "$img" >"$TMPD/.jmap.want"
	before=$(sha256sum <"$img")
	our_jmap "$img" >"$TMPD/.jmap.got"
	after=$(sha256sum <"$img")
	[ "$before" = "$after" ] || echo "$label: IMAGE MODIFIED by our debugfs jmap"
	n=$(wc -l <"$TMPD/.jmap.want")
	if ! cmp -s "$TMPD/.jmap.want" "$TMPD/.jmap.got"; then
		echo "$label: jmap MISMATCH (oracle $n entries, ours $(wc -l <"$TMPD/.jmap.got"))"
		diff "$TMPD/.jmap.want" "$TMPD/.jmap.got" | head -n 10
		return 1
	elif [ "$n" -eq 0 ] && [ "$want_empty" != empty ]; then
		echo "$label: jmap EMPTY on both sides (oracle and ours): nothing was compared"
		return 1
	elif [ "$n" -ne 0 ] && [ "$want_empty" = empty ]; then
		echo "$label: jmap matches logdump oracle ($n entries) but the test expects an empty map"
		return 1
	fi
	echo "$label: jmap matches logdump oracle ($n entries)"
}

# check_jmap_rows LABEL IMG EXPECTED_FILE: compare our jmap with rows
# derived by hand (scenarios logdump cannot judge: checksum failures)
check_jmap_rows() {
	local label=$1 img=$2 want=$3 n
	our_jmap "$img" >"$TMPD/.jmap.got"
	n=$(wc -l <"$want")
	if cmp -s "$want" "$TMPD/.jmap.got"; then
		echo "$label: jmap matches expected rows ($n entries)"
	else
		echo "$label: jmap MISMATCH (expected $n entries, ours $(wc -l <"$TMPD/.jmap.got"))"
		diff "$want" "$TMPD/.jmap.got" | head -n 10
	fi
}

# sb_norm IMG: hex of the primary superblock (1024 bytes) with the fields
# that replay bookkeeping legitimately changes masked:
#   s_mtime s_wtime s_mnt_count s_state s_lastcheck (+ their _hi bytes),
#   needs_recovery (INCOMPAT 0x4), lazy_journal (COMPAT 0x2000),
#   s_kbytes_written, s_checksum.
# Perl shared by the comparisons: norm(SB) masks the superblock fields that
# replay and e2fsck legitimately change (times, mount count, state,
# needs_recovery, lazy_journal, kbytes written, checksum); is_backup(BLOCK)
# says whether a block starts with a backup superblock.
# shellcheck disable=SC2016  # Perl source, not shell
LJ_SB_PERL='
	sub norm {
		my ($sb) = @_;
		substr($sb, 0x2C, 8) = "\0" x 8;	# s_mtime, s_wtime
		substr($sb, 0x34, 2) = "\0" x 2;	# s_mnt_count
		substr($sb, 0x3A, 2) = "\0" x 2;	# s_state
		substr($sb, 0x40, 4) = "\0" x 4;	# s_lastcheck
		my $c = unpack("V", substr($sb, 0x5C, 4)) & ~0x2000;
		substr($sb, 0x5C, 4) = pack("V", $c);
		my $i = unpack("V", substr($sb, 0x60, 4)) & ~0x4;
		substr($sb, 0x60, 4) = pack("V", $i);
		substr($sb, 0x178, 8) = "\0" x 8;	# s_kbytes_written
		substr($sb, 0x274, 4) = "\0" x 4;	# time _hi bytes
		substr($sb, 0x3FC, 4) = "\0" x 4;	# s_checksum
		return $sb;
	}
	sub is_backup {
		my ($x) = @_;
		return substr($x, 0x38, 2) eq "\x53\xef" &&
		       unpack("v", substr($x, 0x5A, 2)) > 0;
	}
'
sb_norm() {
	perl -e "$LJ_SB_PERL"'
		my ($img) = @ARGV;
		open(my $fh, "<", $img) or die; binmode $fh;
		seek($fh, 1024, 0); read($fh, my $sb, 1024);
		print unpack("H*", norm($sb)), "\n";' "$1"
}

# cmp_outside_journal A B: compare two images block by block, skipping the
# journal inode blocks; the block holding the primary superblock is
# compared raw outside the 1024-byte superblock and through sb_norm inside.
# Prints "identical outside the journal" or the differing blocks.
cmp_outside_journal() {
	local a=$1 b=$2 bs
	bs=$(img_bs "$a")
	journal_pblocks "$a" >"$TMPD/.jpblocks"
	if [ "$(sb_norm "$a")" != "$(sb_norm "$b")" ]; then
		echo "superblock differs (bookkeeping fields masked)"
		return 1
	fi
	# Backup superblocks (magic at 0x38, s_block_group_nr > 0) are
	# compared with the same bookkeeping fields masked as the primary.
	perl -e "$LJ_SB_PERL"'
		my ($a, $b, $bs, $listf) = @ARGV;
		open(my $lf, "<", $listf) or die; my %j = map { chomp; $_ => 1 } <$lf>;
		open(my $fa, "<", $a) or die; binmode $fa;
		open(my $fb, "<", $b) or die; binmode $fb;
		my $sbblk = ($bs == 1024) ? 1 : 0;
		my ($blk, @diff) = (0);
		while (1) {
			my $ra = read($fa, my $x, $bs); my $rb = read($fb, my $y, $bs);
			last if !$ra && !$rb;
			if (!$j{$blk}) {
				if ($blk == $sbblk) {
					my $o = ($bs == 1024) ? 0 : 1024;
					substr($x, $o, 1024) = ""; substr($y, $o, 1024) = "";
				} elsif (is_backup($x) && is_backup($y)) {
					substr($x, 0, 1024) = norm(substr($x, 0, 1024));
					substr($y, 0, 1024) = norm(substr($y, 0, 1024));
				}
				push @diff, $blk if $x ne $y;
			}
			$blk++;
		}
		if (@diff) {
			printf("%d blocks differ outside the journal: %s\n",
			       scalar(@diff), join(" ", @diff[0 .. ($#diff < 9 ? $#diff : 9)]));
			exit 1;
		}
		print "identical outside the journal\n";' "$a" "$b" "$bs" "$TMPD/.jpblocks"
}

# stock_replay IMG: replay the journal with stock e2fsck (journal only);
# prints nothing, returns e2fsck's exit status
stock_replay() {
	"$STOCK_E2FSCK" -E journal_only -y "$1" >"$TMPD/.e2fsck.out" 2>&1
}

# replay_verdict LABEL IMG REFEREE WHAT: copy A <- stock e2fsck replay of
# REFEREE (lazy flag cleared first: stock e2fsck refuses the unknown COMPAT
# bit), copy B <- lj_apply on IMG; compare outside the journal.
replay_verdict() {
	local label=$1 img=$2 ref=$3 what=$4 rc v
	cp --sparse=always "$ref" "$TMPD/.A.img"
	cp --sparse=always "$img" "$TMPD/.B.img"
	clear_compat_bits "$TMPD/.A.img" 0x2000
	stock_replay "$TMPD/.A.img"
	rc=$?
	if ! "$LJ_APPLY" "$TMPD/.B.img" >"$TMPD/.lj_apply.out" 2>&1; then
		echo "$label: replay: lj_apply failed: $(head -n 1 "$TMPD/.lj_apply.out")"
		return 1
	fi
	v=$(cmp_outside_journal "$TMPD/.A.img" "$TMPD/.B.img")
	echo "$label: replay: $what exit $rc, lj_apply vs stock: $v"
}

# check_replay LABEL IMG: oracle (b), stock replay of IMG itself.
check_replay() {
	replay_verdict "$1" "$2" "$2" "stock e2fsck"
}

# oracle_apply IMG: write the oracle's jmap home with dd (restoring the
# jbd2 magic of escaped blocks).  Used to validate the oracle itself
# against stock replay, independently of our library.
oracle_apply() {
	local img=$1 bs h j t f p
	bs=$(img_bs "$img")
	"$STOCK_DEBUGFS" -R "logdump -a" "$img" 2>/dev/null \
		| awk -v mode=flags -f "$ORACLE_AWK" | sort -n -k1,1 \
		>"$TMPD/.oracle.flags"
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	while read -r h j t f; do
		: "$t"
		p=$(sed -n "$((j + 1))p" "$TMPD/.jpblocks")
		read_blk "$img" "$p" "$bs" >"$TMPD/.blk"
		if [ $((f & 1)) -ne 0 ]; then
			poke "$TMPD/.blk" 0 c03b3998
		fi
		write_blk "$img" "$h" "$bs" <"$TMPD/.blk"
	done <"$TMPD/.oracle.flags"
}

# check_oracle_replay LABEL IMG: validate oracle (a) against stock replay
check_oracle_replay() {
	local label=$1 img=$2 rc v
	cp --sparse=always "$img" "$TMPD/.A.img"
	cp --sparse=always "$img" "$TMPD/.C.img"
	clear_compat_bits "$TMPD/.A.img" 0x2000
	stock_replay "$TMPD/.A.img"
	rc=$?
	oracle_apply "$TMPD/.C.img"
	v=$(cmp_outside_journal "$TMPD/.A.img" "$TMPD/.C.img")
	echo "$label: oracle self-check: stock e2fsck exit $rc, oracle vs stock: $v"
}

# check_log_end LABEL IMG: where our `jmap -s` says the log ends
check_log_end() {
	local label=$1 img=$2 l
	# accepted: "Log ends at journal block N: why" (the agreed wording),
	# "Log end: ... end of log at journal block N: why" and
	# "Log end: journal block N (why)"; only the block number is compared
	l=$("$OUR_DEBUGFS" -R "jmap -s" "$img" 2>&1 \
		| grep -oiE '(^Log ends at|end of log at|^Log end: *) ?journal block [0-9]+' \
		| head -n 1 | grep -oE '[0-9]+$')
	if [ -n "$l" ]; then
		echo "$label: jmap -s: Log ends at journal block $l"
	else
		echo "$label: jmap -s: no early end reported"
	fi
}

# check_jlookup LABEL IMG BLOCK...: our `jlookup` against the oracle:
#   "block B: journal block J (fs block P), transaction T" or "block B: home"
check_jlookup() {
	local label=$1 img=$2 b row j t p want got
	shift 2
	oracle_jmap "$img" >"$TMPD/.jmap.want"
	for b in "$@"; do
		row=$(awk -v b="$b" '$1 == b' "$TMPD/.jmap.want")
		if [ -n "$row" ]; then
			read -r _ j t <<<"$row"
			p=$(jblock_pblk "$img" "$j")
			want="block $b: journal block $j (fs block $p), transaction $t"
		else
			want="block $b: home"
		fi
		got=$("$OUR_DEBUGFS" -R "jlookup $b" "$img" 2>&1 | grep -E "^block $b:")
		if [ "$got" = "$want" ]; then
			echo "$label: jlookup $b ok (${want#block "$b": })"
		else
			echo "$label: jlookup $b MISMATCH: want '$want', got '$got'"
		fi
	done
}

# scenario_checks LABEL IMG: the standard set (oracle self-check against
# stock replay, our jmap against the oracle, lj_apply against stock replay)
scenario_checks() {
	check_oracle_replay "$1" "$2"
	check_jmap "$1" "$2"
	check_replay "$1" "$2"
}

# cut_log_copy IMG OUT JBLOCK: OUT = IMG with journal block JBLOCK zeroed,
# i.e. the log ends there.  Stock replay of OUT is the hand-made referee
# for scenarios where the lazy salvage rule keeps what precedes a bad block.
cut_log_copy() {
	local img=$1 out=$2 jb=$3 bs p
	cp --sparse=always "$img" "$out"
	bs=$(img_bs "$out")
	p=$(jblock_pblk "$out" "$jb")
	dd if=/dev/zero of="$out" bs="$bs" seek="$p" count=1 conv=notrunc status=none
}

# check_replay_vs LABEL IMG REFEREE: lj_apply on IMG against stock replay
# of the REFEREE image (see cut_log_copy)
check_replay_vs() {
	replay_verdict "$1" "$2" "$3" "stock e2fsck (cut log)"
}

# stock_replay_msg IMG: stock e2fsck's replay messages for a copy of IMG
# (the image name and version banner removed)
stock_replay_msg() {
	cp --sparse=always "$1" "$TMPD/.M.img"
	clear_compat_bits "$TMPD/.M.img" 0x2000
	stock_replay "$TMPD/.M.img"
	echo "stock e2fsck exit $?"
	grep -vE '^e2fsck [0-9]|recovering journal$' "$TMPD/.e2fsck.out" \
		| sed "s|$TMPD/.M.img|IMG|g"
}

# write_txns IMG "JO_ARGS" SPEC...: write one transaction per SPEC with
# stock debugfs.  SPEC is "BLOCKS/REVOKES" (comma lists, either may be
# empty), with a trailing "!" for a transaction left uncommitted.  Block
# contents: transaction i's data file from mkdata with tag "T<i>".
write_txns() {
	local img=$1 jo=$2 bs i=0 spec blocks revokes nc n
	shift 2
	bs=$(img_bs "$img")
	# a home block inside the journal would make the tests meaningless
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	if printf '%s\n' "$@" | tr ',/!' '\n' | grep -E '^[0-9]+$' \
		| grep -qxFf "$TMPD/.jpblocks"; then
		echo "write_txns: a home block lies inside the journal"
		return 1
	fi
	# shellcheck disable=SC2086  # JO_ARGS is a word list
	jlog_init "$TMPD/.cmd" $jo
	for spec in "$@"; do
		i=$((i + 1))
		nc=
		case $spec in *!) nc=1; spec=${spec%!} ;; esac
		blocks=${spec%%/*}
		revokes=${spec#*/}
		[ "$revokes" = "$spec" ] && revokes=
		if [ -n "$blocks" ]; then
			n=$(tr ',' '\n' <<<"$blocks" | grep -c .)
			mkdata "$TMPD/.d$i" "$n" "$bs" "T$i"
		fi
		jlog_txn "$TMPD/.cmd" "$blocks" "$revokes" "$TMPD/.d$i" $nc
	done
	jlog_run "$img" "$TMPD/.cmd"
	rm -f "$TMPD"/.d[0-9]*
}

# journal_features IMG: the "Journal features:" line of stock dumpe2fs
journal_features() {
	"$STOCK_DUMPE2FS" -h "$1" 2>/dev/null | grep '^Journal features:' \
		| sed 's/  */ /g'
}

# bad_input LABEL IMG [REQUEST]: run our debugfs -R REQUEST (default jmap)
# on a bad image; print its output (version banner dropped), whether the
# exit status was nonzero, and whether the image stayed byte-identical.
bad_input() {
	local label=$1 img=$2 req=${3:-jmap} before after rc
	before=$(sha256sum <"$img")
	"$OUR_DEBUGFS" -R "$req" "$img" >"$TMPD/.bad.out" 2>&1
	rc=$?
	after=$(sha256sum <"$img")
	grep -v '^debugfs [0-9]' "$TMPD/.bad.out"
	if [ "$rc" -ne 0 ]; then
		echo "$label: exit status nonzero"
	else
		echo "$label: exit status 0"
	fi
	if [ "$before" = "$after" ]; then
		echo "$label: image unchanged"
	else
		echo "$label: IMAGE MODIFIED"
	fi
}

# ---------------------------------------------------------------------
# e2fsck on lazy file systems (tests/f_*)

# shellcheck disable=SC2034  # used by the tests/f_* scripts
OUR_E2FSCK=$BUILDDIR/e2fsck/e2fsck

# lazy_status IMG: journal start, needs_recovery and lazy_journal, as
# stock dumpe2fs shows them ("Journal start: N", FEATURE_C13)
lazy_status() {
	local h s nr lz
	h=$("$STOCK_DUMPE2FS" -h "$1" 2>/dev/null)
	s=$(awk '/^Journal start:/ {print $3}' <<<"$h")
	nr=no
	lz=no
	grep '^Filesystem features:' <<<"$h" | grep -qw needs_recovery && nr=yes
	grep '^Filesystem features:' <<<"$h" | grep -qw FEATURE_C13 && lz=yes
	echo "journal start ${s:-?}, needs_recovery $nr, lazy_journal $lz"
}

# mask_save: the file system UUID in the name of e2fsck's raw journal
# save (e2fsck-lazy-DEV-UUID[-N].journal) shown as UUID
mask_save() {
	sed -E 's/-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}(-[0-9]+)?\.journal/-UUID\2.journal/g'
}

# run_fsck IMG OUTFILE CMD...: run an e2fsck command line with IMG as its
# last argument; OUTFILE gets stdout+stderr with the version banner
# dropped and IMG's path replaced by "IMG"; prints "exit N"
run_fsck() {
	local img=$1 out=$2 rc
	shift 2
	"$@" "$img" >"$out.raw" 2>&1
	rc=$?
	grep -vE '^e2fsck [0-9]+\.[0-9]+' "$out.raw" | sed "s|$img|IMG|g" \
		| mask_save >"$out"
	rm -f "$out.raw"
	echo "exit $rc"
}

# sbcopy_flags FILE OFFSET: in a file holding a copy of the primary
# superblock at byte OFFSET, set lazy_journal (COMPAT 0x2000) and
# needs_recovery (INCOMPAT 0x4), as in the superblock the kernel journals
# on a mounted lazy file system; s_checksum fixed under metadata_csum
sbcopy_flags() {
	perl -e "$PERL_JLIB"'
		my ($f, $off) = @ARGV;
		open(my $fh, "+<", $f) or die; binmode $fh;
		my $sb = rd($fh, $off, 1024);
		my $c = unpack("V", substr($sb, 0x5C, 4)) | 0x2000;
		my $i = unpack("V", substr($sb, 0x60, 4)) | 0x4;
		substr($sb, 0x5C, 4) = pack("V", $c);
		substr($sb, 0x60, 4) = pack("V", $i);
		if (unpack("V", substr($sb, 0x64, 4)) & 0x400) {
			substr($sb, 0x3FC, 4) = pack("V",
				crc32c(0xFFFFFFFF, substr($sb, 0, 0x3FC)));
		}
		wr($fh, $off, $sb);
		close($fh);' "$1" "$2"
}

# mk_lazy_meta IMG SIZE_MB BS FEATURES "JO_ARGS" CMDFILE [kernel]
#   A lazy image whose log holds real metadata changes.  A copy IMG.mod
#   is changed with stock debugfs (requests in CMDFILE); every block that
#   changed outside the journal is logged into IMG in three transactions:
#     T1: first half of the changed blocks, plus garbage for block X (an
#         unchanged inode-table block) and for Y (the last changed block)
#     T2: second half, revoking X and Y
#     T3: Y and the superblock block again (their final copies)
#   so stock replay of IMG gives IMG.mod back.  With "kernel", the logged
#   superblock copies carry lazy_journal and needs_recovery, as the kernel
#   logs them.  Prints one line: number of changed blocks, and the file
#   IMG.changed lists them.
mk_lazy_meta() {
	local img=$1 size=$2 bs=$3 feat=$4 jo=$5 cmds=$6 kern=${7:-}
	local half x y sbblk sboff b n
	mkimg "$img" "$size" "$bs" "$feat" 4 || return 1
	cp --sparse=always "$img" "$img.mod"
	"$STOCK_DEBUGFS" -w -f "$cmds" "$img.mod" >/dev/null 2>&1
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	cmp -l "$img" "$img.mod" | awk -v bs="$bs" '{print int(($1 - 1) / bs)}' \
		| uniq | grep -vxFf "$TMPD/.jpblocks" >"$img.changed"
	n=$(wc -l <"$img.changed")
	sbblk=0
	sboff=1024
	if [ "$bs" = 1024 ]; then
		sbblk=1
		sboff=0
	fi
	grep -qx "$sbblk" "$img.changed" \
		|| { echo "mk_lazy_meta: superblock block unchanged"; return 1; }
	half=$(((n + 1) / 2))
	head -n "$half" "$img.changed" >"$TMPD/.c1"
	tail -n +"$((half + 1))" "$img.changed" >"$TMPD/.c2"
	y=$(tail -n 1 "$TMPD/.c2")
	x=$("$STOCK_DUMPE2FS" "$img" 2>/dev/null \
		| awk '/Inode table at/ {split($4, a, "-"); print a[2]; exit}')
	x=$((x - 1))
	: >"$TMPD/.d1"
	: >"$TMPD/.d2"
	: >"$TMPD/.d3"
	while read -r b; do read_blk "$img.mod" "$b" "$bs" >>"$TMPD/.d1"; done <"$TMPD/.c1"
	mkdata "$TMPD/.g" 2 "$bs" GARBAGE
	cat "$TMPD/.g" >>"$TMPD/.d1"
	while read -r b; do read_blk "$img.mod" "$b" "$bs" >>"$TMPD/.d2"; done <"$TMPD/.c2"
	read_blk "$img.mod" "$sbblk" "$bs" >>"$TMPD/.d3"
	read_blk "$img.mod" "$y" "$bs" >>"$TMPD/.d3"
	if [ "$kern" = kernel ]; then
		# the superblock is the first block of T1 and of T3
		sbcopy_flags "$TMPD/.d1" "$sboff"
		sbcopy_flags "$TMPD/.d3" "$sboff"
	fi
	# shellcheck disable=SC2086  # JO_ARGS is a word list
	jlog_init "$TMPD/.cmd" $jo
	jlog_txn "$TMPD/.cmd" "$(paste -sd, "$TMPD/.c1"),$x,$y" "" "$TMPD/.d1"
	jlog_txn "$TMPD/.cmd" "$(paste -sd, "$TMPD/.c2")" "$x,$y" "$TMPD/.d2"
	jlog_txn "$TMPD/.cmd" "$sbblk,$y" "" "$TMPD/.d3"
	jlog_run "$img" "$TMPD/.cmd" || return 1
	set_lazy "$img"
	rm -f "$TMPD"/.d[123] "$TMPD/.g" "$TMPD"/.c[12]
	echo "$img: $n changed metadata blocks logged in 3 transactions (with revokes)"
}

# stock_copy IMG OUT: OUT = IMG with lazy_journal cleared (what stock
# e2fsck accepts)
stock_copy() {
	cp --sparse=always "$1" "$2"
	clear_compat_bits "$2" 0x2000
}

# fsck_clean_n LABEL IMG: stock `e2fsck -fn` on a copy with lazy_journal
# cleared; one line
fsck_clean_n() {
	local rc
	stock_copy "$2" "$TMPD/.N.img"
	"$STOCK_E2FSCK" -fn "$TMPD/.N.img" >"$TMPD/.fsckn.out" 2>&1
	rc=$?
	echo "$1: stock e2fsck -fn (flag hidden): exit $rc"
	[ "$rc" -eq 0 ] || grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.fsckn.out" | head -n 5
}

# ---------------------------------------------------------------------
# Hostile input (tests/h_*): every tool on a corrupted image

# shellcheck disable=SC2034  # used by the tests/h_* scripts
OUR_TUNE2FS=$BUILDDIR/misc/tune2fs

# jarea_perl IMG CODE: run perl CODE with the journal of IMG at hand:
#   $bs, @p (fs block of each journal block), $fh (IMG, read-write),
#   jrd($k) / jwr($k, $data) read / write journal block $k, and
#   jfix($k) recomputes the checksum of journal block $k after an edit
#   (journal sb, descriptor/revoke tail or commit block; v2/v3 only),
#   plus the PERL_JLIB helpers (crc32c, rd, wr).
jarea_perl() {
	local img=$1 code=$2 bs
	bs=$(img_bs "$img")
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	perl -e "$PERL_JLIB"'
		our ($img, $bs, $listf, $code) = @ARGV;
		open(my $lf, "<", $listf) or die; our @p = map { chomp; $_ } <$lf>;
		open(our $fh, "+<", $img) or die; binmode $fh;
		sub jrd { return rd($fh, $p[$_[0]] * $bs, $bs); }
		sub jwr { wr($fh, $p[$_[0]] * $bs, $_[1]); }
		sub jfix {
			my ($k) = @_;
			my $sb = jrd(0);
			my $inc = unpack("N", substr($sb, 0x28, 4));
			my $b = jrd($k);
			if ($k == 0) { jwr(0, jsb_fix_csum(substr($b, 0, 1024)) . substr($b, 1024)); return; }
			return unless $inc & 0x18;
			my $seed = crc32c(0xFFFFFFFF, substr($sb, 0x30, 16));
			my $t = unpack("N", substr($b, 4, 4));
			if ($t == 1 || $t == 5) {
				substr($b, $bs - 4, 4) = pack("N", 0);
				substr($b, $bs - 4, 4) = pack("N", crc32c($seed, $b));
			} elsif ($t == 2) {
				substr($b, 16, 4) = pack("N", 0);
				substr($b, 16, 4) = pack("N", crc32c($seed, $b));
			}
			jwr($k, $b);
		}
		eval $code; die $@ if $@;
		close($fh);' "$img" "$bs" "$TMPD/.jpblocks" "$code"
}

# jblock_poke IMG JBLOCK OFFSET HEX: overwrite bytes of journal block
# JBLOCK and recompute its checksum (so the edit is not a checksum error)
jblock_poke() {
	# shellcheck disable=SC2016  # perl code
	jarea_perl "$1" 'my $b = jrd('"$2"'); substr($b, '"$3"', length(pack("H*", "'"$4"'"))) = pack("H*", "'"$4"'"); jwr('"$2"', $b); jfix('"$2"');'
}

# hostile_run LABEL NAME IMG WRITES CMD...: run CMD... IMG under
# `timeout 20`; one line: exit status, and whether IMG changed (WRITES=1:
# the command may write when it succeeds, i.e. exits below 4); then,
# indented, the first line of its stderr ("2>") and of its stdout ("1>"),
# version banners and empty lines dropped, IMG's path shown as IMG.
# Hangs, deaths by signal and sanitizer reports are named loudly.
hostile_run() {
	local label=$1 name=$2 img=$3 writes=$4 before after rc state fd l
	shift 4
	before=$(sha256sum <"$img")
	timeout 20 "$@" "$img" >"$TMPD/.h.1" 2>"$TMPD/.h.2"
	rc=$?
	after=$(sha256sum <"$img")
	if [ "$before" = "$after" ]; then
		state="image unchanged"
	elif [ "$writes" = 1 ] && [ "$rc" -lt 4 ]; then
		state="image written"
	else
		state="IMAGE MODIFIED"
	fi
	if [ "$rc" -eq 124 ]; then
		state="$state, HANG (killed after 20 s)"
	elif [ "$rc" -ge 128 ]; then
		state="$state, CRASH (signal $((rc - 128)))"
	fi
	if cat "$TMPD/.h.1" "$TMPD/.h.2" | grep -qE 'Sanitizer|runtime error:'; then
		state="$state, SANITIZER REPORT"
	fi
	echo "$label: $name: exit $rc, $state"
	for fd in 2 1; do
		l=$(grep -vE '^(debugfs|e2fsck|tune2fs) [0-9]+\.[0-9]+' "$TMPD/.h.$fd" \
			| grep -v '^$' | head -n 1 | sed "s|$img|IMG|g" | mask_save \
			| sed -E 's|^[^ ]*/(e2fsck\|tune2fs\|debugfs): |\1: |')
		[ -n "$l" ] && echo "    $fd> $l"
	done
	return 0
}

# hostile_tools LABEL IMG [BLOCK]: every tool on a hostile image: our
# debugfs jmap / jlookup BLOCK / bd BLOCK, e2fsck -n, tune2fs -l, and last
# (each on a fresh copy, so later checks see the original) the writing
# ones: e2fsck -p, -E journal_only -y, -fy and tune2fs -O ^lazy_journal,
# which may write only when they succeed (exit below 4; README's policy
# for a log that cannot be read completely: -p never writes it, -y saves
# the raw journal first, tune2fs refuses).  BLOCK defaults to 3000.
hostile_tools() {
	local label=$1 img=$2 b=${3:-3000}
	hostile_run "$label" "debugfs jmap" "$img" 0 "$OUR_DEBUGFS" -R jmap
	hostile_run "$label" "debugfs jlookup $b" "$img" 0 "$OUR_DEBUGFS" -R "jlookup $b"
	hostile_run "$label" "debugfs jlookup -j 1" "$img" 0 "$OUR_DEBUGFS" -R "jlookup -j 1"
	hostile_run "$label" "debugfs bd $b" "$img" 0 "$OUR_DEBUGFS" -R "bd $b"
	hostile_run "$label" "e2fsck -n" "$img" 0 "$OUR_E2FSCK" -n
	hostile_run "$label" "tune2fs -l" "$img" 0 "$OUR_TUNE2FS" -l
	cp --sparse=always "$img" "$TMPD/.H.img"
	hostile_run "$label" "e2fsck -p" "$TMPD/.H.img" 1 "$OUR_E2FSCK" -p
	cp --sparse=always "$img" "$TMPD/.H.img"
	hostile_run "$label" "e2fsck -E journal_only -y" "$TMPD/.H.img" 1 \
		"$OUR_E2FSCK" -E journal_only -y
	cp --sparse=always "$img" "$TMPD/.H.img"
	hostile_run "$label" "e2fsck -fy" "$TMPD/.H.img" 1 "$OUR_E2FSCK" -fy
	cp --sparse=always "$img" "$TMPD/.H.img"
	hostile_run "$label" "tune2fs -O ^lazy_journal" "$TMPD/.H.img" 1 \
		"$OUR_TUNE2FS" -O ^lazy_journal
	rm -f "$TMPD"/e2fsck-lazy-.H.img-*.journal ./e2fsck-lazy-.H.img-*.journal
}

# ---------------------------------------------------------------------
# Workload generator (tests/w_workload_*, bench/workload)

WORKLOAD=$BUILDDIR/bench/workload
OUR_MKE2FS=$BUILDDIR/misc/mke2fs

# wl_mkimg IMG SIZE_MB JOURNAL_MB: a lazy image (4 KiB blocks) made by our
# mke2fs -O lazy_journal; a pristine copy is kept as IMG.fresh
wl_mkimg() {
	rm -f "$1"
	truncate -s "${2}M" "$1"
	"$OUR_MKE2FS" -q -F -t ext4 -b 4096 -O lazy_journal -J "size=$3" \
		-E lazy_itable_init=1,nodiscard "$1" >/dev/null 2>&1 \
		|| { echo "wl_mkimg: mke2fs failed"; return 1; }
	cp --sparse=always "$1" "$1.fresh"
}

# wl_run IMG ARGS...: bench/workload ARGS IMG, with the I/O record in
# IMG.rec and the paths made in IMG.paths; its key=value lines go to
# IMG.out.  Prints per phase the figures that depend only on the workload
# (operations, transactions, data blocks) and, for lazy mode, whether
# metadata went home and whether the cleaner ran.
wl_run() {
	local img=$1 rc
	shift
	"$WORKLOAD" "$@" -r "$img.rec" -l "$img.paths" "$img" >"$img.out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] || { echo "workload: exit $rc: $(tail -n 1 "$img.out")"; return 1; }
	awk '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf("%s %s: ops %s, transactions %s, data blocks %s", v["phase"],
		       v["mode"], v["ops"], v["txns"], v["data"])
		if (v["mode"] == "lazy")
			printf(", metadata home %s, cleaner %s", v["meta_home"],
			       (v["relogged"] + v["cleaner_home"] > 0) ? "ran" : "idle")
		else
			printf(", metadata home %s", v["meta_home"] > 0 ? "> 0" : "0")
		printf("\n")
	}' "$img.out"
}

# wl_field IMG PHASE KEY: one figure of a phase from IMG.out
wl_field() {
	awk -v p="$2" -v k="$3" '$1 == "phase=" p {
		for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == k) print kv[2] }
	}' "$1.out"
}

# wl_home_check LABEL IMG: every block outside the journal that differs
# between IMG.fresh and IMG must be a data block of the I/O record, a
# block the cleaner wrote home (meta_home in the record), or the primary
# superblock with only needs_recovery (and its checksum) changed: home
# copies of journaled metadata are never written behind the record's back.
wl_home_check() {
	local label=$1 img=$2 bs sb
	bs=$(img_bs "$img")
	journal_pblocks "$img" >"$TMPD/.jpblocks"
	sb=same
	[ "$(sb_norm "$img.fresh")" = "$(sb_norm "$img")" ] || sb=CHANGED
	perl -e '
		my ($a, $b, $bs, $listf, $recf, $sb) = @ARGV;
		open(my $lf, "<", $listf) or die; my %j = map { chomp; $_ => 1 } <$lf>;
		my (%data, %meta);
		open(my $rf, "<", $recf) or die;
		while (<$rf>) {
			my (undef, $k, $blk, $n) = split;
			for my $i (0 .. $n - 1) {
				$data{$blk + $i} = 1 if $k eq "data";
				$meta{$blk + $i} = 1 if $k eq "meta_home";
			}
		}
		open(my $fa, "<", $a) or die; binmode $fa;
		open(my $fb, "<", $b) or die; binmode $fb;
		my ($blk, $nd, $nm, $sbflag, @bad) = (0, 0, 0, "unchanged");
		while (1) {
			my $ra = read($fa, my $x, $bs); my $rb = read($fb, my $y, $bs);
			last if !$ra && !$rb;
			if (!$j{$blk} && $x ne $y) {
				if ($data{$blk}) { $nd++ }
				elsif ($meta{$blk}) { $nm++ }
				elsif ($blk == 0 && $bs > 1024 &&
				       substr($x, 0, 1024) eq substr($y, 0, 1024) &&
				       substr($x, 2048) eq substr($y, 2048)) {
					$sbflag = $sb eq "same" ? "needs_recovery only" :
						  "CHANGED BEYOND needs_recovery";
					push @bad, 0 if $sb ne "same";
				} else { push @bad, $blk }
			}
			$blk++;
		}
		printf("%d data (%d recorded), %d metadata written home by cleaner or checkpoint (%d recorded), superblock %s, unrecorded %d%s\n",
		       $nd, scalar(keys %data), $nm, scalar(keys %meta), $sbflag,
		       scalar(@bad), @bad ? ": " . join(" ", @bad[0 .. ($#bad < 9 ? $#bad : 9)]) : "");
	' "$img.fresh" "$img" "$bs" "$TMPD/.jpblocks" "$img.rec" "$sb" \
		| sed "s/^/$label: home blocks changed outside the journal: /"
}

# wl_stock_replayed IMG OUT: OUT = IMG replayed by stock e2fsck
# (-E journal_only -y with lazy_journal cleared before, and again after:
# the journaled superblock copies carry the flag); prints the exit status
wl_stock_replayed() {
	local rc
	stock_copy "$1" "$2"
	"$STOCK_E2FSCK" -E journal_only -y "$2" >"$TMPD/.wlreplay.out" 2>&1
	rc=$?
	clear_compat_bits "$2" 0x2000
	echo "stock e2fsck -E journal_only -y: exit $rc, log $(lazy_status "$2" | sed 's/, lazy.*//')"
}

# wl_requests IMG CMDFILE: debugfs requests for the tree in IMG.paths that
# still exists in IMG: `ls -l` of every directory, `stat` of every 5th
# file and directory, `cat` of every 3rd file; plus `ls -l /`
wl_requests() {
	awk '{ print ($1 == "d" ? "ls -l " : "stat ") $2 }
	     NR % 5 == 0 { print "stat " $2 }
	     $1 == "f" && NR % 3 == 0 { print "cat " $2 }
	     END { print "ls -l /" }' "$1.paths" >"$2"
}

# wl_trees_equal LABEL IMG: our debugfs reading IMG through the jmap and
# stock debugfs on a stock-replayed copy answer the same requests alike;
# stock e2fsck -fn on the replayed copy; our e2fsck -fn on IMG
wl_trees_equal() {
	local label=$1 img=$2 n rc
	echo "$label: $(wl_stock_replayed "$img" "$TMPD/.R.img")"
	wl_requests "$img" "$TMPD/.wlreq"
	n=$(wc -l <"$TMPD/.wlreq")
	"$OUR_DEBUGFS" -f "$TMPD/.wlreq" "$img" >"$TMPD/.wl.ours" 2>/dev/null
	"$STOCK_DEBUGFS" -f "$TMPD/.wlreq" "$TMPD/.R.img" >"$TMPD/.wl.stock" 2>/dev/null
	if cmp -s "$TMPD/.wl.ours" "$TMPD/.wl.stock"; then
		echo "$label: our debugfs (jmap) = stock debugfs after stock replay: $n requests, $(wc -l <"$TMPD/.wl.ours") lines alike"
	else
		echo "$label: our debugfs (jmap) DIFFERS from stock debugfs after stock replay ($n requests)"
		diff "$TMPD/.wl.stock" "$TMPD/.wl.ours" | head -n 10
	fi
	"$STOCK_E2FSCK" -fn "$TMPD/.R.img" >"$TMPD/.wlfsck.out" 2>&1
	rc=$?
	echo "$label: stock e2fsck -fn after replay: exit $rc"
	[ "$rc" -eq 0 ] || grep -vE '^e2fsck [0-9]|^Pass ' "$TMPD/.wlfsck.out" | head -n 5
	"$OUR_E2FSCK" -fn "$img" >"$TMPD/.wlfsck.out" 2>&1
	echo "$label: our e2fsck -fn (through the jmap): exit $?"
}

# wl_data_check LABEL IMG: `cat` (our debugfs, through the jmap) of every
# file of IMG.paths that exists: each must hold its own 4 KiB pattern
# ("workload file INO PATH" repeated), written home in data mode
wl_data_check() {
	awk '$1 == "f" { print "cat " $2 }' "$2.paths" >"$TMPD/.wlcat"
	"$OUR_DEBUGFS" -f "$TMPD/.wlcat" "$2" 2>/dev/null | perl -e '
		local $/; my $all = <STDIN>;
		my @p = split(/debugfs: cat (\S+)\n/, $all);
		shift @p;
		my ($n, $ok, @bad) = (0, 0);
		while (@p) {
			my ($path, $c) = (shift @p, shift @p);
			next if $c eq "";
			$n++;
			my ($line) = $c =~ /^(workload file \d+ \Q$path\E\n)/;
			my $want = $line ? substr($line x (int(4096 / length($line)) + 1), 0, 4096) : "";
			if ($line && $c eq $want) { $ok++ } else { push @bad, $path }
		}
		printf("%d files read, %d hold their own data%s\n", $n, $ok,
		       @bad ? "; WRONG: " . join(" ", @bad[0 .. ($#bad < 4 ? $#bad : 4)]) : "");
	' | sed "s/^/$1: data: /"
}

# ---------------------------------------------------------------------
# debugfs -w on a lazy file system (tests/w_debugfs_*)

# lazy_home_diff BEFORE AFTER: blocks outside the journal (of BEFORE)
# whose bytes differ between the two images, one per line, ascending.
# The block holding the primary superblock is listed as "sb:nr" when only
# needs_recovery (INCOMPAT 0x4) and the superblock checksum differ (what
# the writer sets at home before the first transaction, SPEC §2), else by
# its number like any other block.
lazy_home_diff() {
	local a=$1 b=$2 bs
	bs=$(img_bs "$a")
	journal_pblocks "$a" >"$TMPD/.jpblocks"
	perl -e '
		my ($a, $b, $bs, $listf) = @ARGV;
		open(my $lf, "<", $listf) or die; my %j = map { chomp; $_ => 1 } <$lf>;
		open(my $fa, "<", $a) or die; binmode $fa;
		open(my $fb, "<", $b) or die; binmode $fb;
		my $sbblk = ($bs == 1024) ? 1 : 0;
		my $sboff = ($bs == 1024) ? 0 : 1024;
		for (my $blk = 0; ; $blk++) {
			my $ra = read($fa, my $x, $bs); my $rb = read($fb, my $y, $bs);
			last if !$ra && !$rb;
			next if $j{$blk} || $x eq $y;
			if ($blk == $sbblk) {
				my ($p, $q) = ($x, $y);
				for my $s (\$p, \$q) {
					my $i = unpack("V", substr($$s, $sboff + 0x60, 4)) & ~0x4;
					substr($$s, $sboff + 0x60, 4) = pack("V", $i);
					substr($$s, $sboff + 0x3FC, 4) = "\0" x 4;
				}
				if ($p eq $q) { print "sb:nr\n"; next; }
			}
			print "$blk\n";
		}' "$a" "$b" "$bs" "$TMPD/.jpblocks"
}

# data_blocks IMG PATH...: the data blocks (not indirect or extent-tree
# blocks) of each file, one per line, from stock debugfs `stat` on IMG
# (a replayed copy: stock debugfs reads home copies).
data_blocks() {
	local img=$1 p
	shift
	for p in "$@"; do
		"$STOCK_DEBUGFS" -R "stat $p" "$img" 2>/dev/null \
			| sed -n '/^\(BLOCKS\|EXTENTS\):/,$p' | tr ', ' '\n\n' \
			| grep -E '^\([0-9]+(-[0-9]+)?\):[0-9]+(-[0-9]+)?$' \
			| sed 's/^.*://' | awk -F- '{
				e = ($2 == "") ? $1 : $2;
				for (b = $1; b <= e; b++) print b }'
	done | sort -n -u
}

# check_home_untouched LABEL BEFORE AFTER REPLAYED PATH...: the blocks
# that changed at home between BEFORE and AFTER (a lazy image changed by
# our debugfs -w) must be data blocks of the files PATH... (data goes
# home; REPLAYED is a stock-replayed copy to find them), plus the
# superblock's needs_recovery bit.  HOME_EXTRA_BLOCKS may name a file of
# more allowed data blocks (of files removed since).  One line verdict.
check_home_untouched() {
	local label=$1 before=$2 after=$3 rep=$4 n m bad
	shift 4
	lazy_home_diff "$before" "$after" >"$TMPD/.home.changed"
	{ data_blocks "$rep" "$@"; cat "${HOME_EXTRA_BLOCKS:-/dev/null}"; } \
		| sort -n -u >"$TMPD/.home.data"
	bad=$(grep -vx 'sb:nr' "$TMPD/.home.changed" | grep -vxFf "$TMPD/.home.data")
	n=$(grep -cvx 'sb:nr' "$TMPD/.home.changed")
	m=$(wc -l <"$TMPD/.home.data")
	if [ -z "$bad" ]; then
		echo "$label: home copies of metadata untouched ($n changed blocks at home, all among the $m data blocks written$(grep -qx 'sb:nr' "$TMPD/.home.changed" && echo '; superblock: needs_recovery only'))"
	else
		echo "$label: METADATA WRITTEN HOME: $(echo "$bad" | head -n 10 | paste -sd' ')"
	fi
}

# same_view LABEL LAZY_IMG REPLAYED_IMG REQUEST...: each request through
# our debugfs on the lazy image and through stock debugfs on the
# replayed copy; one line per request, "same" or the first differences.
same_view() {
	local label=$1 lazy=$2 rep=$3 r
	shift 3
	for r in "$@"; do
		"$OUR_DEBUGFS" -R "$r" "$lazy" >"$TMPD/.v1" 2>&1
		"$STOCK_DEBUGFS" -R "$r" "$rep" >"$TMPD/.v2" 2>&1
		if cmp -s "$TMPD/.v1" "$TMPD/.v2"; then
			echo "$label: $r: ours through the jmap = stock after replay"
		else
			echo "$label: $r: VIEWS DIFFER"
			diff "$TMPD/.v1" "$TMPD/.v2" | head -n 6
		fi
	done
}

# logdump_clean LABEL IMG: stock `logdump` reads our log to its ordinary
# end (no checksum or format complaints); one line
logdump_clean() {
	local out
	out=$("$STOCK_DEBUGFS" -R "logdump" "$2" 2>&1)
	if printf '%s\n' "$out" | grep -qiE 'error|bad|invalid|corrupt|unexpected|checksum'; then
		echo "$1: stock logdump COMPLAINS:"
		printf '%s\n' "$out" | grep -iE 'error|bad|invalid|corrupt|unexpected|checksum' | head -n 3
	else
		echo "$1: stock logdump: $(printf '%s\n' "$out" | grep -c 'commit block') commit blocks, $(printf '%s\n' "$out" | tail -n 1 | sed 's/ at block [0-9]*//')"
	fi
}

# ---------------------------------------------------------------------
# The lazy writer: cleaner and compaction (tests/w_cleaner_*, w_compact_*)

LJ_WRITE=$BUILDDIR/tests/progs/lj_write

# w_mkimg IMG SIZE_MB BS FEATURES JOURNAL_MB "JO_ARGS": a lazy image whose
# journal format is set by one stock transaction (`jo JO_ARGS`, logging
# the first free block of group 0 with mkdata content); the log then
# continues with whatever our writer appends
w_mkimg() {
	local img=$1 size=$2 bs=$3 feat=$4 jmb=$5 jo=$6 b
	mkimg "$img" "$size" "$bs" "$feat" "$jmb" || return 1
	b=$("$STOCK_DUMPE2FS" "$img" 2>/dev/null \
		| awk '/^  Free blocks: [0-9]/ {split($3, a, "-"); print a[1]; exit}')
	[ -n "$b" ] || { echo "w_mkimg: no free block"; return 1; }
	write_txns "$img" "$jo" "$b/" || return 1
	set_lazy "$img"
}

# w_stock_replayed IMG OUT: OUT = IMG with lazy_journal cleared, replayed
# by stock `e2fsck -E journal_only -y`; returns its exit status
w_stock_replayed() {
	stock_copy "$1" "$2"
	"$STOCK_E2FSCK" -E journal_only -y "$2" >/dev/null 2>&1
}

# w_migrated IMG OUT: OUT = IMG migrated by our `e2fsck -E journal_only
# -y`; returns its exit status
w_migrated() {
	cp --sparse=always "$1" "$2"
	"$OUR_E2FSCK" -E journal_only -y "$2" >/dev/null 2>&1
}

# w_match IMG NAME=REF...: compare IMG with each reference outside the
# journal (the journal blocks of IMG, block size from IMG; superblocks with
# the bookkeeping fields masked as cmp_outside_journal masks them) in one
# pass; prints the NAME of the first identical reference, or "NONE" and
# the first blocks differing from the first reference.  With W_CACHE set
# to a file name, the block size and journal block list of the first call
# are kept there and reused (for loops over copies of one image).
w_match() {
	local img=$1 bs jp=$TMPD/.w_jp
	shift
	if [ -n "${W_CACHE:-}" ] && [ -s "$W_CACHE" ]; then
		bs=$(head -n 1 "$W_CACHE")
		tail -n +2 "$W_CACHE" >"$jp"
	else
		bs=$(img_bs "$img")
		journal_pblocks "$img" >"$jp"
		[ -n "${W_CACHE:-}" ] && { echo "$bs"; cat "$jp"; } >"$W_CACHE"
	fi
	perl -e "$LJ_SB_PERL"'
		my ($bs, $listf, $img, @refs) = @ARGV;
		open(my $lf, "<", $listf) or die; my %j = map { chomp; $_ => 1 } <$lf>;
		open(my $fi, "<", $img) or die; binmode $fi;
		my (@names, @fh, @diff);
		for my $r (@refs) {
			my ($n, $p) = split(/=/, $r, 2);
			open(my $f, "<", $p) or die "$p"; binmode $f;
			push @names, $n; push @fh, $f; push @diff, [];
		}
		my $sbblk = ($bs == 1024) ? 1 : 0;
		my $o = ($bs == 1024) ? 0 : 1024;
		for (my $blk = 0; ; $blk++) {
			my $ri = read($fi, my $x, $bs);
			my @y;
			my $any = $ri;
			for my $k (0 .. $#fh) {
				my $rr = read($fh[$k], $y[$k], $bs);
				$any ||= $rr;
			}
			last if !$any;
			next if $j{$blk};
			for my $k (0 .. $#fh) {
				my ($a, $b) = ($x, $y[$k]);
				if ($blk == $sbblk) {
					substr($a, $o, 1024) = norm(substr($a, $o, 1024));
					substr($b, $o, 1024) = norm(substr($b, $o, 1024));
				} elsif (is_backup($a) && is_backup($b)) {	# backups
					substr($a, 0, 1024) = norm(substr($a, 0, 1024));
					substr($b, 0, 1024) = norm(substr($b, 0, 1024));
				}
				push @{$diff[$k]}, $blk if $a ne $b;
			}
		}
		for my $k (0 .. $#fh) {
			if (!@{$diff[$k]}) { print "$names[$k]\n"; exit 0; }
		}
		my @d = @{$diff[0]};
		printf("NONE (%d blocks differ from %s: %s)\n", scalar(@d), $names[0],
		       join(" ", @d[0 .. ($#d < 7 ? $#d : 7)]));
		exit 1;' "$bs" "$jp" "$img" "$@"
}

# w_replay_checks LABEL IMG: the log our writer left, judged by stock
# e2fsprogs: logdump reads it cleanly, our jmap equals the map derived
# from logdump, stock replay = lj_apply = our migration (outside the
# journal), and stock `e2fsck -fn` finds the replayed copy clean.  Leaves
# $TMPD/.w_stock.img (the stock replay).
w_replay_checks() {
	local l=$1 img=$2 rc
	logdump_clean "$l" "$img"
	check_jmap "$l" "$img"
	check_replay "$l" "$img"
	w_stock_replayed "$img" "$TMPD/.w_stock.img"
	rc=$?
	w_migrated "$img" "$TMPD/.w_ours.img"
	echo "$l: stock replay exit $rc; our migration vs stock replay: $(cmp_outside_journal "$TMPD/.w_ours.img" "$TMPD/.w_stock.img")"
	"$STOCK_E2FSCK" -fn "$TMPD/.w_stock.img" >"$TMPD/.w_fsck.out" 2>&1
	echo "$l: stock e2fsck -fn after stock replay: exit $?"
	rm -f "$TMPD/.w_ours.img"
}

# the crash model (tests/c_crash_*)
# shellcheck source=tests/lib/crash.sh
. "$TESTLIB_DIR/lib/crash.sh"
