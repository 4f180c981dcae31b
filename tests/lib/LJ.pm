# LJ.pm --- the Perl side of the scenario-test helpers (tests/lib/*.sh).
#
# Byte-level work on images that the shell cannot do: pack/unpack of the
# ext4 and jbd2 superblocks, crc32c, block-by-block image comparisons.
# Core Perl only (CI is a fresh Debian 12).  The shell calls one command
# per run through lj_perl (tests/lib/perl.sh):
#
#     perl -I tests/lib -MLJ -e 'LJ::main(@ARGV)' -- COMMAND ARGS...
#
# A command prints its answer on stdout and returns the exit status of
# the run.  Commands that walk the journal take BS JPBLOCKS first (block
# size, file of the journal's fs blocks: lj_perl_journal in perl.sh).
# Scripts with their own inline Perl get the shared subs with
#     perl -e "$PERL_JLIB"'...'      crc32c rd wr jsb_fix_csum
#     perl -e "$LJ_SB_PERL"'...'     norm is_backup
# (tests/lib/perl.sh sets both to a `use LJ` line).
package LJ;

use strict;
use Exporter qw(import);

our @EXPORT_OK = qw(crc32c rd wr jsb_fix_csum norm is_backup);
our %EXPORT_TAGS = (
	jlib => [qw(crc32c rd wr jsb_fix_csum)],
	sb   => [qw(norm is_backup)],
);

# ---------------------------------------------------------------------
# Shared subs

# crc32c in the raw form (no final inversion) that jbd2 uses
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

# checksum of a 1024-byte journal superblock, if v2/v3
sub jsb_fix_csum {
	my ($sb) = @_;
	my $inc = unpack("N", substr($sb, 0x28, 4));
	return $sb unless $inc & 0x18;
	substr($sb, 0xFC, 4) = pack("N", 0);
	substr($sb, 0xFC, 4) = pack("N", crc32c(0xFFFFFFFF, $sb));
	return $sb;
}

# norm(SB): the superblock with the fields that replay and e2fsck
# legitimately change masked (times, mount count, state, needs_recovery,
# lazy_journal, kbytes written, checksum)
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

# is_backup(BLOCK): the block starts with a backup superblock
sub is_backup {
	my ($x) = @_;
	return substr($x, 0x38, 2) eq "\x53\xef" &&
	       unpack("v", substr($x, 0x5A, 2)) > 0;
}

# the first N elements of a list, for "first differences" messages
sub first_n { my ($n, @l) = @_; return @l[0 .. ($#l < $n - 1 ? $#l : $n - 1)]; }

sub open_rw { open(my $fh, "+<", $_[0]) or die "$_[0]: $!\n"; binmode $fh; return $fh; }
sub open_ro { open(my $fh, "<", $_[0]) or die "$_[0]: $!\n"; binmode $fh; return $fh; }

# a file of numbers, one a line
sub read_list { my $lf = open_ro($_[0]); return map { chomp; $_ } <$lf>; }

# where the primary superblock lies: (its block, its byte offset there)
sub sb_place { my ($bs) = @_; return $bs == 1024 ? (1, 0) : (0, 1024); }

# each_pair BS JPBLOCKS A B FN: FN(BLOCK, X, Y) for every block outside the
# journal, X and Y its bytes in images A and B, up to the end of both
sub each_pair {
	my ($bs, $listf, $a, $b, $fn) = @_;
	my %j = map { $_ => 1 } read_list($listf);
	my $fa = open_ro($a);
	my $fb = open_ro($b);
	for (my $blk = 0; ; $blk++) {
		my $ra = read($fa, my $x, $bs); my $rb = read($fb, my $y, $bs);
		last if !$ra && !$rb;
		$fn->($blk, $x, $y) unless $j{$blk};
	}
}

my %JSB_FIELD = (maxlen => 0x10, first => 0x14, sequence => 0x18,
		 start => 0x1C, compat => 0x24, incompat => 0x28,
		 magic => 0x00, blocksize => 0x0C);

# ---------------------------------------------------------------------
# Commands (called by name from the shell helpers)

# journal_pblocks < `debugfs -R "stat <8>"`: every fs block of the journal
sub journal_pblocks {
	while (<STDIN>) {
		next unless /^\(/ .. /^TOTAL/;
		while (/\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?/g) {
			my ($l0, $l1, $p0) = ($1, defined $2 ? $2 : $1, $3);
			print $p0 + $_ - $l0, "\n" for $l0 .. $l1;
		}
	}
	return 0;
}

# mkdata N BS TAG: N blocks, block i filled with "TAG/i;" repeated
sub mkdata {
	my ($n, $bs, $tag) = @_;
	for my $i (0 .. $n - 1) {
		my $s = sprintf("%s/%d;", $tag, $i);
		my $b = $s x (int($bs / length($s)) + 1);
		print substr($b, 0, $bs);
	}
	return 0;
}

# mkdata_magic BS: one block starting with the jbd2 magic
sub mkdata_magic {
	my ($bs) = @_;
	my $b = pack("N", 0xC03B3998) . ("escaped-block;" x $bs);
	print substr($b, 0, $bs);
	return 0;
}

# poke IMG OFF HEX / flip_byte IMG OFF
sub poke {
	my ($img, $off, $hex) = @_;
	my $fh = open_rw($img);
	wr($fh, $off, pack("H*", $hex));
	close($fh);
	return 0;
}
sub flip_byte {
	my ($img, $off) = @_;
	my $fh = open_rw($img);
	my $c = rd($fh, $off, 1);
	wr($fh, $off, chr(ord($c) ^ 0xff));
	close($fh);
	return 0;
}

# copy_blocks IMG REF LIST BS: the blocks listed in LIST copied from REF
sub copy_blocks {
	my ($img, $ref, $list, $bs) = @_;
	my $r = open_ro($ref);
	my $i = open_rw($img);
	for my $b (read_list($list)) {
		seek($r, $b * $bs, 0); read($r, my $x, $bs);
		wr($i, $b * $bs, $x);
	}
	close($i);
	return 0;
}

# jsb_get IMG OFF FIELD / jsb_set IMG OFF FIELD=VALUE... / jsb_csum_ok IMG OFF
# (OFF: byte offset of the journal superblock)
sub jsb_get {
	my ($img, $off, $f) = @_;
	my $sb = rd(open_ro($img), $off, 1024);
	print unpack("N", substr($sb, $JSB_FIELD{$f}, 4)), "\n";
	return 0;
}
sub jsb_set {
	my ($img, $off, @kv) = @_;
	my $fh = open_rw($img);
	my $sb = rd($fh, $off, 1024);
	for my $kv (@kv) {
		my ($k, $v) = split(/=/, $kv);
		die "jsb_set: unknown field $k\n" unless exists $JSB_FIELD{$k};
		$v = oct($v) if $v =~ /^0/;
		substr($sb, $JSB_FIELD{$k}, 4) = pack("N", $v);
	}
	wr($fh, $off, jsb_fix_csum($sb));
	close($fh);
	return 0;
}
sub jsb_csum_ok {
	my ($img, $off) = @_;
	my $sb = rd(open_ro($img), $off, 1024);
	print((jsb_fix_csum($sb) eq $sb) ? "ok\n" : "bad\n");
	return 0;
}

# jrotate BS JPBLOCKS IMG SHIFT: rotate the log area by SHIFT blocks
sub jrotate {
	my ($bs, $listf, $img, $shift) = @_;
	my @p = read_list($listf);
	my $fh = open_rw($img);
	my $sb = rd($fh, $p[0] * $bs, 1024);
	my ($maxlen, $first, $seq, $start) = unpack("N4", substr($sb, 0x10, 16));
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
	close($fh);
	return 0;
}

# commit_set_time IMG BS OFF JSB_OFF SECONDS: commit time, then checksum
sub commit_set_time {
	my ($img, $bs, $off, $j0, $sec) = @_;
	my $fh = open_rw($img);
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
	close($fh);
	return 0;
}

# sb_field IMG OFF: the le32 at OFF of the primary superblock
sub sb_field {
	my ($img, $off) = @_;
	print unpack("V", rd(open_ro($img), 1024 + $off, 4)), "\n";
	return 0;
}

# sb_csum_ok IMG BACKUPS: primary and listed backup superblock checksums
sub sb_csum_ok {
	my ($img, $list) = @_;
	my $fh = open_ro($img);
	my $sb = rd($fh, 1024, 1024);
	die "not ext2/3/4\n" if unpack("v", substr($sb, 0x38, 2)) != 0xEF53;
	my $ro = unpack("V", substr($sb, 0x64, 4));
	if (!($ro & 0x400)) { print "not checked (no metadata_csum)\n"; return 0; }
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
	if (@bad) { print "bad (", join(", ", @bad), ")\n"; return 1; }
	printf("ok (primary + %d backups)\n", $#copies);
	return 0;
}

# sbcopy_flags FILE OFF: lazy_journal + needs_recovery in a superblock copy
sub sbcopy_flags {
	my ($f, $off) = @_;
	my $fh = open_rw($f);
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
	close($fh);
	return 0;
}

# The fields of the ext4 superblock in order, NAME:SIZE[:COUNT] (SIZE in
# bytes, COUNT for arrays), transcribed from struct ext2_super_block of
# e2fsprogs 1.47.0 (/usr/include/ext2fs/ext2_fs.h, libext2fs-dev); the
# offsets they give were checked against the compiler's offsetof, field
# by field, and they must add up to 1024 (sb_fields dies otherwise).
my $SB_LAYOUT = q(
	s_inodes_count:4 s_blocks_count:4 s_r_blocks_count:4
	s_free_blocks_count:4 s_free_inodes_count:4 s_first_data_block:4
	s_log_block_size:4 s_log_cluster_size:4 s_blocks_per_group:4
	s_clusters_per_group:4 s_inodes_per_group:4 s_mtime:4 s_wtime:4
	s_mnt_count:2 s_max_mnt_count:2 s_magic:2 s_state:2 s_errors:2
	s_minor_rev_level:2 s_lastcheck:4 s_checkinterval:4 s_creator_os:4
	s_rev_level:4 s_def_resuid:2 s_def_resgid:2 s_first_ino:4
	s_inode_size:2 s_block_group_nr:2 s_feature_compat:4
	s_feature_incompat:4 s_feature_ro_compat:4 s_uuid:1:16
	s_volume_name:1:16 s_last_mounted:1:64 s_algorithm_usage_bitmap:4
	s_prealloc_blocks:1 s_prealloc_dir_blocks:1 s_reserved_gdt_blocks:2
	s_journal_uuid:1:16 s_journal_inum:4 s_journal_dev:4 s_last_orphan:4
	s_hash_seed:4:4 s_def_hash_version:1 s_jnl_backup_type:1 s_desc_size:2
	s_default_mount_opts:4 s_first_meta_bg:4 s_mkfs_time:4
	s_jnl_blocks:4:17 s_blocks_count_hi:4 s_r_blocks_count_hi:4
	s_free_blocks_hi:4 s_min_extra_isize:2 s_want_extra_isize:2 s_flags:4
	s_raid_stride:2 s_mmp_update_interval:2 s_mmp_block:8
	s_raid_stripe_width:4 s_log_groups_per_flex:1 s_checksum_type:1
	s_encryption_level:1 s_reserved_pad:1 s_kbytes_written:8
	s_snapshot_inum:4 s_snapshot_id:4 s_snapshot_r_blocks_count:8
	s_snapshot_list:4 s_error_count:4 s_first_error_time:4
	s_first_error_ino:4 s_first_error_block:8 s_first_error_func:1:32
	s_first_error_line:4 s_last_error_time:4 s_last_error_ino:4
	s_last_error_line:4 s_last_error_block:8 s_last_error_func:1:32
	s_mount_opts:1:64 s_usr_quota_inum:4 s_grp_quota_inum:4
	s_overhead_clusters:4 s_backup_bgs:4:2 s_encrypt_algos:1:4
	s_encrypt_pw_salt:1:16 s_lpf_ino:4 s_prj_quota_inum:4
	s_checksum_seed:4 s_wtime_hi:1 s_mtime_hi:1 s_mkfs_time_hi:1
	s_lastcheck_hi:1 s_first_error_time_hi:1 s_last_error_time_hi:1
	s_first_error_errcode:1 s_last_error_errcode:1 s_encoding:2
	s_encoding_flags:2 s_orphan_file_inum:4 s_reserved:4:94 s_checksum:4
);

# sb_fields: ([NAME, OFFSET, SIZE], ...), one entry per scalar field and
# per array element (NAME[i]); a byte array (uuid, names) is one entry
sub sb_fields {
	my ($off, @f) = (0);
	for my $d (split(" ", $SB_LAYOUT)) {
		my ($n, $sz, $c) = split(/:/, $d);
		$c //= 1;
		if ($sz == 1 && $c > 1) {
			push @f, [ $n, $off, $c ];
			$off += $c;
			next;
		}
		for my $i (0 .. $c - 1) {
			push @f, [ $c > 1 ? "${n}[$i]" : $n, $off, $sz ];
			$off += $sz;
		}
	}
	die "LJ: the superblock layout adds up to $off bytes, not 1024\n"
		if $off != 1024;
	return @f;
}

# sb_diff A B: every field of the primary superblock that differs between
# images A and B, one a line: "NAME VALUE_A VALUE_B" (little-endian
# numbers in decimal, byte arrays in hex)
sub sb_diff {
	my ($ia, $ib) = @_;
	my ($x, $y) = (rd(open_ro($ia), 1024, 1024), rd(open_ro($ib), 1024, 1024));
	my %fmt = (1 => "C", 2 => "v", 4 => "V", 8 => "Q<");
	for my $f (sb_fields()) {
		my ($n, $off, $sz) = @$f;
		my ($u, $v) = (substr($x, $off, $sz), substr($y, $off, $sz));
		next if $u eq $v;
		my $p = $fmt{$sz} // "H*";
		print "$n ", unpack($p, $u), " ", unpack($p, $v), "\n";
	}
	return 0;
}

# data_ranges FH: the byte ranges [start, end) of a file that are not
# holes (lseek SEEK_DATA = 3 / SEEK_HOLE = 4); the whole file where the
# file system cannot tell
sub data_ranges {
	my ($fh) = @_;
	my $size = -s $fh;
	my ($pos, @r) = (0);
	while ($pos < $size) {
		my $d = sysseek($fh, $pos, 3);
		last unless defined $d;
		my $h = sysseek($fh, $d, 4);
		$h = $size unless defined $h;
		push @r, [ $d, $h ];
		$pos = $h;
	}
	return @r;
}

# diff_blocks BS A B: the numbers of the BS-byte blocks that differ between
# images A and B (a hole reads as zeros; holes in both are skipped), one a
# line
sub diff_blocks {
	my ($bs, $ia, $ib) = @_;
	my ($fa, $fb) = (open_ro($ia), open_ro($ib));
	my %blk;
	for my $r (data_ranges($fa), data_ranges($fb)) {
		$blk{$_} = 1 for int($r->[0] / $bs) .. int(($r->[1] - 1) / $bs);
	}
	my ($sa, $sb) = (-s $fa, -s $fb);
	for my $n (sort { $a <=> $b } keys %blk) {
		my ($x, $y) = ("", "");
		sysseek($fa, $n * $bs, 0); sysread($fa, $x, $bs);
		sysseek($fb, $n * $bs, 0); sysread($fb, $y, $bs);
		$x .= "\0" x ($bs - length $x);
		$y .= "\0" x ($bs - length $y);
		print "$n\n" if $x ne $y;
	}
	print "size\n" if $sa != $sb;
	return 0;
}

# sb_norm IMG: hex of the primary superblock, bookkeeping masked
sub sb_norm {
	my ($img) = @_;
	print unpack("H*", norm(rd(open_ro($img), 1024, 1024))), "\n";
	return 0;
}

# cmp_outside_journal BS JPBLOCKS A B: the primary superblock itself is
# compared by the caller (sb_norm); backups with bookkeeping masked
sub cmp_outside_journal {
	my ($bs, $listf, $a, $b) = @_;
	my ($sbblk, $o) = sb_place($bs);
	my @diff;
	each_pair($bs, $listf, $a, $b, sub {
		my ($blk, $x, $y) = @_;
		if ($blk == $sbblk) {
			substr($x, $o, 1024) = ""; substr($y, $o, 1024) = "";
		} elsif (is_backup($x) && is_backup($y)) {
			substr($x, 0, 1024) = norm(substr($x, 0, 1024));
			substr($y, 0, 1024) = norm(substr($y, 0, 1024));
		}
		push @diff, $blk if $x ne $y;
	});
	if (@diff) {
		printf("%d blocks differ outside the journal: %s\n",
		       scalar(@diff), join(" ", first_n(10, @diff)));
		return 1;
	}
	print "identical outside the journal\n";
	return 0;
}

# w_match BS JPBLOCKS IMG NAME=REF...: the first reference identical to
# IMG outside the journal (superblocks masked), or NONE
sub w_match {
	my ($bs, $listf, $img, @refs) = @_;
	my %j = map { $_ => 1 } read_list($listf);
	my $fi = open_ro($img);
	my (@names, @fh, @diff);
	for my $r (@refs) {
		my ($n, $p) = split(/=/, $r, 2);
		push @names, $n; push @fh, open_ro($p); push @diff, [];
	}
	my ($sbblk, $o) = sb_place($bs);
	# read a run of blocks at once: a run equal in every image costs one
	# comparison (this runs for every crash state of the c_ tests)
	my $run = 256;
	my $at = sub { my ($s, $i) = @_;
		return $i * $bs < length($s) ? substr($s, $i * $bs, $bs) : ""; };
	my ($xs, @ys, $len);	# reused: a new buffer each run costs page faults
	for (my $first = 0; ; $first += $run) {
		read($fi, $xs, $bs * $run);
		$len = length($xs);
		for my $k (0 .. $#fh) {
			read($fh[$k], $ys[$k], $bs * $run);
			$len = length($ys[$k]) if length($ys[$k]) > $len;
		}
		last if !$len;
		my $same = 1;
		for my $k (0 .. $#fh) { $same &&= $ys[$k] eq $xs; }
		next if $same;
		for (my $i = 0; $i * $bs < $len; $i++) {
			my $blk = $first + $i;
			next if $j{$blk};
			my $x = $at->($xs, $i);
			for my $k (0 .. $#fh) {
				my ($a, $b) = ($x, $at->($ys[$k], $i));
				next if $a eq $b;
				if ($blk == $sbblk) {
					substr($a, $o, 1024) = norm(substr($a, $o, 1024));
					substr($b, $o, 1024) = norm(substr($b, $o, 1024));
				} elsif (is_backup($a) && is_backup($b)) {
					substr($a, 0, 1024) = norm(substr($a, 0, 1024));
					substr($b, 0, 1024) = norm(substr($b, 0, 1024));
				}
				push @{$diff[$k]}, $blk if $a ne $b;
			}
		}
	}
	for my $k (0 .. $#fh) {
		if (!@{$diff[$k]}) { print "$names[$k]\n"; return 0; }
	}
	my @d = @{$diff[0]};
	printf("NONE (%d blocks differ from %s: %s)\n", scalar(@d), $names[0],
	       join(" ", first_n(8, @d)));
	return 1;
}

# lazy_home_diff BS JPBLOCKS A B: blocks outside the journal that differ;
# the superblock block as "sb:nr" when only needs_recovery and s_checksum do
sub lazy_home_diff {
	my ($bs, $listf, $a, $b) = @_;
	my ($sbblk, $sboff) = sb_place($bs);
	each_pair($bs, $listf, $a, $b, sub {
		my ($blk, $x, $y) = @_;
		return if $x eq $y;
		if ($blk == $sbblk) {
			for my $s (\$x, \$y) {
				my $i = unpack("V", substr($$s, $sboff + 0x60, 4)) & ~0x4;
				substr($$s, $sboff + 0x60, 4) = pack("V", $i);
				substr($$s, $sboff + 0x3FC, 4) = "\0" x 4;
			}
			if ($x eq $y) { print "sb:nr\n"; return; }
		}
		print "$blk\n";
	});
	return 0;
}

# wl_home_check BS JPBLOCKS FRESH IMG RECORD SB: blocks changed at home,
# sorted by what the I/O record says of them
sub wl_home_check {
	my ($bs, $listf, $a, $b, $recf, $sb) = @_;
	my (%data, %meta);
	open(my $rf, "<", $recf) or die "$recf: $!\n";
	while (<$rf>) {
		my (undef, $k, $blk, $n) = split;
		for my $i (0 .. $n - 1) {
			$data{$blk + $i} = 1 if $k eq "data";
			$meta{$blk + $i} = 1 if $k eq "meta_home";
		}
	}
	my ($nd, $nm, $sbflag, @bad) = (0, 0, "unchanged");
	each_pair($bs, $listf, $a, $b, sub {
		my ($blk, $x, $y) = @_;
		return if $x eq $y;
		if ($data{$blk}) { $nd++ }
		elsif ($meta{$blk}) { $nm++ }
		elsif ($blk == 0 && $bs > 1024 &&
		       substr($x, 0, 1024) eq substr($y, 0, 1024) &&
		       substr($x, 2048) eq substr($y, 2048)) {
			$sbflag = $sb eq "same" ? "needs_recovery only" :
				  "CHANGED BEYOND needs_recovery";
			push @bad, 0 if $sb ne "same";
		} else { push @bad, $blk }
	});
	printf("%d data (%d recorded), %d metadata written home by cleaner or checkpoint (%d recorded), superblock %s, unrecorded %d%s\n",
	       $nd, scalar(keys %data), $nm, scalar(keys %meta), $sbflag,
	       scalar(@bad), @bad ? ": " . join(" ", first_n(10, @bad)) : "");
	return 0;
}

# wl_data_check < `debugfs -f` output of `cat PATH` requests: each file
# holds its own 4 KiB pattern
sub wl_data_check {
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
	       @bad ? "; WRONG: " . join(" ", first_n(5, @bad)) : "");
	return 0;
}

# jarea BS JPBLOCKS IMG CODE: run CODE with the journal of IMG at hand
# ($bs, @p, $fh, jrd, jwr, jfix and the shared subs; see jarea_perl)
our ($bs, @p, $fh);
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
sub jarea {
	my ($listf, $img, $code);
	($bs, $listf, $img, $code) = @_;
	@p = read_list($listf);
	$fh = open_rw($img);
	{
		no strict;
		eval $code;
	}
	die $@ if $@;
	close($fh);
	return 0;
}

# main COMMAND ARGS...: run one command, exit with its status
sub main {
	my ($cmd, @args) = @_;
	my $fn = $cmd =~ /^[a-z_]+$/ && $cmd ne "main" && LJ->can($cmd);
	die "LJ: unknown command $cmd\n" unless $fn;
	exit($fn->(@args) || 0);
}

1;
