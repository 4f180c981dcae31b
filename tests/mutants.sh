#!/bin/bash
#
# mutants.sh --- do the checks bite?  (make check-mutants)
#
# Each mutant is a copy of the built tree with one deliberate bug, rebuilt,
# and tests run on it until one fails ("killed").  Prints a table
# "mutant  where  killed by TEST: its first unexpected line" (or SURVIVED,
# NOT APPLIED, BUILD FAILED); exit 1 unless every mutant is killed.
#
# 0. First the unmutated copy must pass every test that is to kill a
#    mutant (else exit 1 before any mutant): a kill must be the mutant's.
# 1. Flush mutants: does the crash model bite?  For each io_channel_flush
#    call in lib/ext2fs/*.c in turn (but in the crash recorder and the
#    layered channel's pass-through flush, crash_io.c and base_io.c: they
#    are the model, not the library's ordering), that one call replaced
#    by 0 (sed); the crash tests (tests/c_crash_*) run until one fails.
#    MUTANT_TESTS names the tests; MUTANT_RUNNER the runner (default
#    tests/run_tests.sh; the kernel sample: MUTANT_RUNNER=tests/kernel/run.sh
#    MUTANT_TESTS=k_crash_sample).
# 2. Behaviour mutants (issue 24): a bug that a named scenario was added
#    to catch, each run against that scenario alone (the check must bite
#    by itself):
#      mke2fs_max_mount_7     misc/mke2fs wrapped: it also sets the
#                             maximum mount count to 7 whenever
#                             lazy_journal is asked for (m_lazy_options:
#                             ours against stock mke2fs)
#      migrate_drop_wrapped   lib/ext2fs/live_home.c: the first live block
#                             whose journal copy lies before s_start (the
#                             log has wrapped) is not written home
#                             (w_workload_wrap: our e2fsck -E journal_only
#                             against stock replay)
#      trace_journal_short    bench/workload_events.c: the first journal
#                             write is not recorded, so -T and -r both
#                             count one journal block less
#                             (w_workload_trace: the trace against strace)
#      mount_fsync_no_commit  fuse2fs/commit.c: a request that
#                             asked for a commit (fsync) does not get it
#                             (u_mount_kill: the fsynced file after kill -9)
#      mount_persist_no_commit  fuse2fs/file.c: an fsync through a
#                             read-only descriptor commits nothing (as
#                             before issue 30; c_crash_persist)
#      mount_fsyncdir_no_commit  fuse2fs/server.c: fsyncdir is no
#                             persistence point: not served, so the kernel
#                             answers it without asking (c_crash_persist:
#                             fsync of the directory)
#      mount_fsync_change_unseen  fuse2fs/commit.c: an inode's
#                             change after its first is not recorded, so
#                             an fsync after a commit finds it durable and
#                             commits nothing (c_crash_persist:
#                             creat,fsync,OP cases)
#      mount_fdatasync_no_flush  fuse2fs/commit.c: an fdatasync that
#                             commits nothing flushes nothing either (the
#                             data written in place since stays in the
#                             page cache; c_crash_persist:
#                             write,fsync,overwrite/fdatasync)
#      mount_fdatasync_times_all  fuse2fs/inode.c: every inode write
#                             taken for a change of times only (an
#                             fdatasync after a truncate commits nothing;
#                             c_crash_persist)
#      mount_commit_no_flush  fuse2fs/commit.c: a commit without
#                             ext2fs_flush2 first (bitmaps, descriptors and
#                             superblock left out of the transaction;
#                             u_mount_kill: stock e2fsck -fn after replay)
#      symlink_block_target   fuse2fs/dir.c: symlink lets a
#                             target of exactly one block through (> for
#                             >=; u_posix_block_edges: ext4 answers
#                             ENAMETOOLONG, stock EINVAL)
#      range_whole_blocks     fuse2fs/data.c: a zero range or
#                             punch hole covers the whole blocks its ends
#                             lie in (u_posix_block_edges: the bytes
#                             before the range, against the kernel's)
#      ind_no_alloc           fuse2fs/data.c: a block is mapped
#                             without BMAP_ALLOC (a block-mapped file gets
#                             no indirect block; u_mount_indirect: EIO,
#                             contents and e2fsck against the kernel's)
#      ind_punch_libext2fs    fuse2fs/data.c: a hole in a block-mapped
#                             file punched by the system ext2fs_punch
#                             (u_mount_indirect: blocks past the range
#                             freed, contents against the kernel's)
#      extent_run_after_first fuse2fs/data.c: a run of new blocks
#                             before a file's first extent is inserted
#                             after it (u_mount_extent_runs: stock
#                             e2fsck after replay, the files as written)
#      extent_run_any_pblk    fuse2fs/data.c: a run lengthens the
#                             extent before it even where the blocks do
#                             not follow it on disk (u_mount_extent_runs)
#      loop_never_sleeps      fuse2fs/loop.c: the request loop polls
#                             /dev/fuse for ever instead of sleeping
#                             (u_mount_idle: an idle mount's CPU time)
#      killpriv_not_taken     fuse2fs/killpriv.c: the INIT reply does
#                             not take FUSE_HANDLE_KILLPRIV_V2 (right but
#                             slow: u_mount_requests, a GETXATTR per write)
#      killpriv_not_done      fuse2fs/killpriv.c: the server takes it
#                             and then clears nothing (u_posix_calls)
#      killpriv_empty_setattr fuse2fs/attr.c: a SETATTR that sets
#                             nothing clears nothing (u_posix_calls:
#                             chown(-1, -1), fallocate, copy_file_range)
#      killpriv_append_allowed fuse2fs/killpriv.c: privileges cleared
#                             on an append-only file (ext4: EPERM;
#                             u_posix_calls)
#      bigalloc_iblocks_per_block  fuse2fs/data.c: a write counts
#                             each new block as a cluster in i_blocks
#                             (u_mount_bigalloc: st_blocks and e2fsck)
#      bigalloc_cluster_each_run  fuse2fs/data.c: a block written
#                             into a logical cluster the file already has
#                             takes a new physical cluster
#                             (u_mount_bigalloc: st_blocks, f_bfree,
#                             e2fsck)
#      bigalloc_statfs_overhead  fuse2fs/attr.c: statfs subtracts
#                             s_overhead_clusters as blocks from f_blocks
#                             (u_mount_bigalloc: statfs)
#      lazy_note_one_block    lib/ext2fs/lazy_io.c: the channel hears of
#                             the one block libext2fs names, not its whole
#                             cluster (u_mount_bigalloc: a committed
#                             file's cluster freed and rewritten, kill -9,
#                             the file damaged after stock replay)
#      xattr_empty_block_kept fuse2fs/xattr.c: an xattr block left
#                             empty by a removal stays the inode's
#                             (u_mount_bigalloc: st_blocks, f_bfree)
#      auto_inval_data        fuse2fs/server.c: libfuse's default
#                             auto_inval_data left on (u_mount_requests:
#                             pages just written read again)
#      cache_revoke_kept      lib/ext2fs/writer.c: a revoked block (written
#                             home as data next) keeps its cached bytes
#                             (u_mount_stress: a freed metadata block
#                             reused for data)
#      cache_add_stale        lib/ext2fs/writer.c: a block added to the
#                             running transaction keeps its old cached
#                             bytes (u_mount_tree)
#      data_home_over_freed   lib/ext2fs/lazy_io.c: file data over a block
#                             freed since the last commit goes home before
#                             that commit (c_crash_reuse: the unlinked,
#                             committed file damaged in a crash state)
#      options_read_late      fuse2fs/main.c: libfuse's options read after
#                             the device is made ready (u_mount_refuse: a
#                             typo after a recovery and the banner)
#      linear_find_first_block  fuse2fs/htree.c: a lookup in a linear
#                             directory reads only its first block
#                             (u_mount_formats: the ^dir_index row)
#      data_run_one_revoke    lib/ext2fs/lazy_io.c: a run of data blocks
#                             sent home revokes the journaled copy of its
#                             first block only (u_mount_stress)
#      fsname_as_given        fuse2fs/server.c: the mount table names
#                             the device as given, not absolutely
#                             (u_mount_refuse: from another folder, the
#                             same image mounted twice, another refused)
#      cleaner_home_over_revoked
#                             lib/ext2fs/cleaner.c: the cleaner writes an
#                             old journal copy home although the running
#                             transaction revokes it (new data there;
#                             c_crash_reuse: the fsynced data damaged)
#      skip_same_vs_home      lib/ext2fs/lazy_io.c: the unchanged-write
#                             skip compares with the home copy, not the
#                             live one (c_crash_reuse: block bitmap
#                             differences after mkdir, fsync, rmdir, fsync)
#      checkpoint_home_no_flush  lib/ext2fs/live_home.c: no flush between
#                             the home writes of a checkpoint (or of a
#                             migration) and the tail move that follows
#                             (c_crash_mount_plain: plain ext4's crash
#                             states, stock replay then e2fsck -fn)
#      seek_unwritten_data    fuse2fs/range.c: SEEK_DATA/SEEK_HOLE
#                             take an unwritten extent for data
#                             (u_posix_calls: the kernel's answers)
#      append_only_unlink     fuse2fs/dir.c: unlink and rmdir
#                             remove an append-only file (u_posix_calls:
#                             ext4's EPERM)
#      errors_csum_eio        fuse2fs/errors.c: a checksum error
#                             answered EIO (u_mount_errors: ext4's
#                             EBADMSG)
#      errors_behaviour_ignored  fuse2fs/errors.c: -o errors= and
#                             s_errors ignored, always continue
#                             (u_mount_errors: ext4's EROFS after
#                             remount-ro; panic)
#      errors_not_recorded    fuse2fs/errors.c: an error not recorded
#                             in the superblock (u_mount_errors: ext4's
#                             dumpe2fs fields, e2fsck's forced check)
#      errors_txn_kept        fuse2fs/errors.c: remount-ro and panic
#                             commit the running transaction instead of
#                             dropping it (u_mount_errors: the file
#                             created before the panic after replay)
#      inline_write_at_pos    fuse2fs/data.c: a write into an
#                             inline-data file through libext2fs at its
#                             offset (u_posix_inline: the daemon crashes)
#      quota_chown_not_moved  fuse2fs/quota.c: chown and chgrp give
#                             the new id only the difference, the old id
#                             keeps the usage (u_mount_quota)
#      quota_free_still_counted  fuse2fs/orphan.c: a freed inode
#                             stays counted (u_mount_quota)
#      quota_after_commit     fuse2fs/commit.c: the usage written
#                             after the commit, into the next transaction
#                             (u_mount_quota: the kill -9)
#      ro_reads_bitmaps       fuse2fs/server.c: a read-only mount reads
#                             every allocation bitmap at open
#                             (u_mount_ro_refuse: the bytes a 2 TiB -o ro
#                             mount reads)
#      quota_crash_after_commit  the same as quota_after_commit, for the
#                             crash matrix (c_crash_persist_formats: the
#                             quota rows' power-cut states, stock e2fsck
#                             -fn after replay finds the usage wrong)
#      quota_empty_entry_kept fuse2fs/quota.c: an id with nothing
#                             counted and no limit keeps its entry
#                             (u_mount_quota: list_quota, the kernel's)
#      quota_projid_not_inherited  fuse2fs/dir.c: a new inode in a
#                             PROJINHERIT directory keeps project 0
#                             (u_mount_quota: stock debugfs's project ids)
#      quota_projid_old       fuse2fs/quota.c: the project id always
#                             the old inode's, also when the server sets
#                             one (u_mount_quota: stock e2fsck -fn)
#      quota_refused_writes   fuse2fs/server.c: a mount refused for a
#                             damaged quota file still commits at close
#                             (u_mount_quota: the image changed)
#      quota_projid_exdev_missing  fuse2fs/dir.c: a link or rename
#                             into a PROJINHERIT directory of another
#                             project is made (k_quota: ext4's EXDEV, the
#                             kernel's project usage; a kernel test, run
#                             by tests/kernel/run.sh)
#      xattr_set_block_kept   fuse2fs/xattr.c: an xattr block left
#                             empty by a set (the value moved into the
#                             inode) stays the inode's (u_posix_calls:
#                             st_blocks against the kernel's)
#      rename_new_parent_mtime, rename_moved_ctime  fuse2fs/dir.c:
#                             a rename to another directory leaves the new
#                             parent's mtime; the moved inode's ctime
#                             (u_posix_times: the kernel's changes)
#      setxattr_no_ctime, setxattr_same_ctime, acl_equiv_ctime,
#      removexattr_absent_ctime  fuse2fs/xattr.c: setting an xattr
#                             leaves ctime; setting one to its value, an
#                             ACL the mode says all of, removing an absent
#                             ACL change it (u_posix_times, u_posix_calls)
#      setattr_times_apart, truncate_same_size_mtime  fuse2fs/attr.c:
#                             utimensat's "now" atime from its own clock
#                             reading; a truncate to the same size leaves
#                             mtime (u_posix_times)
#      fallocate_fail_stale   fuse2fs/file.c: the kernel's cache not
#                             told of a failed fallocate's times
#                             (u_posix_calls)
#      time_no_clamp_128, time_ns_at_end  fuse2fs/inode.c: a time past
#                             2038 wraps on a 128-byte inode; one at an end
#                             of the extra field's range keeps nanoseconds
#                             (u_posix_times: the kernel's values)
#      sync_flag_ignored      fuse2fs/flags.c: a file marked chattr
#                             +S is not synchronous (c_crash_sync: the
#                             write, truncate, chmod lost after kill -9)
#      sync_copy_flags_ignored  fuse2fs/range.c: copy_file_range
#                             into an O_SYNC descriptor does not commit
#                             (c_crash_sync)
#      sync_fallocate_no_commit  fuse2fs/file.c: fallocate through
#                             an O_SYNC descriptor or on a +S file does
#                             not commit (c_crash_sync)
#      sync_setattr_no_commit fuse2fs/attr.c: ftruncate through an
#                             O_SYNC descriptor, a +S file's truncate or
#                             chmod does not commit (c_crash_sync)
#      sync_xattr_no_commit   fuse2fs/xattr.c: a +S file's setxattr
#                             does not commit (c_crash_sync)
#      dirsync_flag_ignored   fuse2fs/flags.c: a directory marked
#                             chattr +D is not synchronous (c_crash_sync)
#      dirsync_mount_ignored  fuse2fs/args.c: -o dirsync passed to
#                             the kernel only (c_crash_sync)
#      sync_mount_ignored     fuse2fs/args.c: -o sync passed to
#                             the kernel only (c_crash_sync: ftruncate,
#                             creat)
#                             (u_posix_times: the kernel's values
#      htree_not_made         fuse2fs/htree.c: a full one-block
#                             directory grows linear, never indexed
#                             (u_mount_htree: stock e2fsck -fy optimizes
#                             it, htree_dump finds no index)
#      htree_hash_version     fuse2fs/htree.c: names hashed by TEA
#                             whatever hash the root records
#                             (u_mount_htree: stock e2fsck, the kernel)
#      htree_hash_signed      fuse2fs/htree.c: the superblock's
#                             unsigned-hash flag ignored (u_mount_htree:
#                             TEA on a file system hashing unsigned)
#      htree_split_hash       fuse2fs/htree.c: the index entry of a
#                             new directory's second leaf takes the hash of
#                             the last name of the first (u_mount_htree)
#      htree_unlink_unwritten fuse2fs/htree.c: a name removed through
#                             the index is not written back (u_mount_htree:
#                             the model, the kernel's listing)
#      htree_add_first_leaf   fuse2fs/htree.c: a name added where
#                             the first leaf has room, whatever its hash
#                             (u_mount_htree)
#      htree_split_by_libext2fs fuse2fs/htree.c: a full leaf split by
#                             libext2fs's ext2fs_link, as before 6 Dec 2026
#                             (u_mount_valgrind: the split leaf's
#                             uninitialised end written to the log)
#      htree_node_split_kept  fuse2fs/htree.c: a full index node split
#                             keeps its moved half too (u_mount_htree:
#                             stock e2fsck)
#      htree_level_uncounted  fuse2fs/htree.c: a level added without
#                             the root's indirect_levels (u_mount_htree,
#                             u_mount_htree_levels: stock e2fsck)
#      linear_add_into_index  fuse2fs/htree.c: a name whose leaf is full
#                             is added to the first block of the indexed
#                             directory with room (u_mount_htree: stock
#                             e2fsck, the kernel's listing)
#      dir_csum_no_generation lib/ext2fs/dir_csum.c: a leaf's checksum
#                             leaves the directory's generation out
#                             (u_mount_htree: stock e2fsck -fn)
#      bitmaps_read_at_open   lib/ext2fs/group_bitmaps.c: every
#                             initialised group's bitmaps read at open
#                             (u_mount_open_reads: the bitmap blocks a
#                             mount of 2 TiB reads, strace)
#      inode_block_read       fuse2fs/inode.c: a new inode alone in its
#                             inode-table block has the block read
#                             (u_mount_open_reads: the blocks 2,000
#                             mkdir read, strace)
#      bitmaps_free_unread    lib/ext2fs/group_bitmaps.c: a block freed
#                             in a group not read yet stays used once the
#                             group is read (u_mount_open_reads: our
#                             e2fsck -fn after the removal)
#      readdir_resnapshot     fuse2fs/dir.c: every READDIR lists a
#                             new snapshot, not the one of its opendir
#                             (u_mount_htree: a listing read while names
#                             are added, leaves splitting, repeats names)
#      casefold_served        fuse2fs/formats.c: casefold no longer
#                             refused read-write (u_mount_formats_refused:
#                             the mount is made, exit 0)
#      unserved_ro_refused    fuse2fs/main.c: a refused feature refused on
#                             -o ro too (u_mount_formats_refused: the file
#                             is not read)
#      fast_commit_recovered  fuse2fs/formats.c: a journal with fast
#                             commits to replay no longer refused (the
#                             migration home loses the fsynced file;
#                             u_mount_formats_refused)
#      falloc_blockmap_times  fuse2fs/data.c: a fallocate refused on a
#                             block-mapped file leaves its times (ext4
#                             marks it modified first; u_mount_indirect)
#      request_count_late     fuse2fs/loop.c: FUSE2FS_REQUESTS counts
#                             each request under the opcode of the one
#                             before it (u_mount_requests: the count
#                             against libfuse's -d log)
#      commit_write_locked    fuse2fs/commit.c: the request lock held
#                             while a commit writes the log (every other
#                             request waits for it; u_mount_commit_beside)
#      commit_wait_keeps_turn fuse2fs/loop.c: a thread waiting for a
#                             commit keeps its turn at reading requests
#                             (u_mount_commit_beside)
#      revoke_slot_after      lib/ext2fs/running_txn.c: the revoke
#                             records' search lands one past a match
#                             (revoked blocks unseen, a re-journaled block
#                             left revoked)
#      splice_ignores_log     lib/ext2fs/lazy_io.c: lj_lazy_home_extent
#                             takes every block of a run for home (data
#                             journaled over freed blocks spliced from
#                             the stale home copy; u_mount_read_splice)
#      splice_offset_ignored  lib/ext2fs/lazy_io.c: the spliced read's
#                             position without the offset= of a file
#                             system inside its image (u_mount_read_splice)
#      forget_freed_kept      lib/ext2fs/lazy_io.c: a block freed in the
#                             running transaction keeps its copy there
#                             and its logged copy unrevoked (a directory
#                             emptied and removed in one transaction is
#                             logged; u_mount_forget)
#      txn_cap_none           fuse2fs/commit.c: a running transaction
#                             is committed by the timer only at the
#                             interval, however large it grows
#                             (u_mount_txn_cap)
#      mount_uncounted        fuse2fs/server.c: a read-write mount leaves
#                             the mount count and time as they were
#                             (u_mount_count)
#      place_plain_goal       fuse2fs/data.c: new data searched from the
#                             file's own goal, no windows
#                             (u_mount_placement)
#      place_meta_among_data  fuse2fs/place.c: libext2fs's blocks out
#                             of the directories' group taken at the first
#                             free block, no window of their own
#                             (u_mount_placement: the dirs case)
#      journal_gaps_unpadded  lib/ext2fs/journal_create.c: with -E
#                             smr_band= the journal's extents after a gap
#                             (group metadata in its way) start where the
#                             free blocks do (m_lazy_options)
#      place_bands_ignored    fuse2fs/place.c: -o smr_band= read but a
#                             new window starts wherever a free run does
#                             (u_mount_bands)
#      place_stream_hole      fuse2fs/place.c: a window cut from the
#                             small files' one keeps its rest when given
#                             up, and their stream goes on past the hole
#                             (u_mount_bands)
#      punch_last_block       fuse2fs/punch.c: the file system's last
#                             block left to libext2fs's punch, which
#                             refuses it (u_mount_placement)
#      qos_kept               fuse2fs/latency.c: the PM QoS request is
#                             never withdrawn after a burst
#                             (u_mount_latency_qos)
#      nodes_lost_on_growth   fuse2fs/orphan.c: the inodes the kernel
#                             holds are dropped when the table grows
#                             (u_mount_nodes)
#      log_direct             lib/ext2fs/lazy_io.c: the log's own channel
#                             opened O_DIRECT, which leaves its blocks
#                             out of the page cache (u_mount_small_log:
#                             the daemon's reads from the disk)
#      waits_cleaner_unseen   fuse2fs/commit.c: the cleaner's runs never
#                             reach the daemon's waits (u_mount_small_log)
#      waits_commit_unseen    fuse2fs/waits.c: no request is taken for
#                             one a commit ran beside
#                             (u_mount_commit_beside)
#      committing_unseen      lib/ext2fs/writer.c: reads do not see the
#                             committing transaction's copies while it is
#                             written (u_mount_commit_beside: files lost,
#                             our e2fsck)
#      bench_requests_unset   bench/realwork.sh: our daemons run without
#                             FUSE2FS_REQUESTS, no requests table
#                             (u_realwork_smoke: the run must fail)
#
# A behaviour mutant whose test is a kernel test (k_*) runs it with
# tests/kernel/run.sh (the copy builds the static guest programs; the
# guest's kernel and initramfs are cached in BUILDDIR's
# tests/kernel/cache).
#
# Usage: tests/mutants.sh [BUILDDIR] (default: cwd, a configured and built
# tree).  MUTANT_SET=flush or behaviour runs one part (default: both);
# MUTANT_ONLY=REGEX runs only the behaviour mutants whose name matches
# (and checks only their tests on the unmutated copy).
# Temporary trees under $TMPDIR.
set -u
build=$(cd "${1:-.}" && pwd)
[ -x "$build/tests/progs/lj_crash" ] || { echo "mutants: build $build first (make)"; exit 2; }
set_=${MUTANT_SET:-all}
case $set_ in all|flush|behaviour) ;; *) echo "mutants: MUTANT_SET=all|flush|behaviour"; exit 2 ;; esac
tests=${MUTANT_TESTS:-"c_crash_flags c_crash_migrate c_crash_writer c_crash_compact c_crash_data c_crash_mount c_crash_persist c_crash_mount_plain"}
runner=${MUTANT_RUNNER:-tests/run_tests.sh}
SBIN=${E2FSPROGS_SBIN:-/usr/sbin}
work=$(mktemp -d "${TMPDIR:-/tmp}/lj_mutants.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
survived=0

row() {
	printf '%-34s %-22s %s\n' "$1" "$2" "$3"
}

# copy_tree: $work/tree <- the built tree.  stock.c and the launchers'
# launch.c are compiled with the build directory (LJ_VIEW_BUILD_DIR: where
# a binary run from the build tree finds lj_view.so and our helpers):
# touched, so the copy's build uses its own.
copy_tree() {
	rm -rf "$work/tree"
	mkdir "$work/tree"
	(cd "$build" && tar --exclude=./.git --exclude=./tests/out \
		--exclude=./build-asan --exclude=./tests/kernel/cache \
		--exclude=./fuzz/build --exclude=./fuzz/work \
		--exclude='./tests/tmp*' -cf - .) | (cd "$work/tree" && tar -xf -)
	touch "$work/tree/lib/ext2fs/stock.c" "$work/tree/misc/launch.c"
}

# kill_with RUNNER TEST...: run the tests on $work/tree in turn until one
# fails; prints "killed by TEST: first unexpected line" or SURVIVED
kill_with() {
	local run=$1 t
	shift
	for t in "$@"; do
		if ! (cd "$work/tree" && SRCDIR=$work/tree BUILDDIR=$work/tree \
			$run "$t" >"$work/out" 2>&1); then
			# the first line the test printed that its expect lacks
			echo "killed by $t: $(grep -m1 '^+[^+]' "$work/out" | cut -c2-170)"
			return 0
		fi
	done
	echo SURVIVED
	return 1
}

# ---------------------------------------------------------------------
# 1. flush mutants

flush_mutants() {
	local file line fn first order result
	while IFS=: read -r file line _; do
		copy_tree
		fn=$(awk -v n="$line" 'NR <= n && /^[a-z].*\(/ {f = $0} NR == n {
			sub(/\(.*/, "", f); sub(/.* \**/, "", f); print f; exit}' "$build/$file")
		sed -i "${line}s/io_channel_flush([^)]*)/0/" "$work/tree/$file"
		if ! grep -n "" "$work/tree/$file" | sed -n "${line}p" | grep -qv io_channel_flush; then
			row "$file:$line" "$fn" "NOT APPLIED"
			survived=1
			continue
		fi
		if ! (cd "$work/tree" && make -s >/dev/null 2>&1); then
			row "$file:$line" "$fn" "BUILD FAILED"
			survived=1
			continue
		fi
		# the test of the file's own operation first (only for speed)
		case $file in
		*migrate.c|*live_home.c) first=c_crash_migrate ;;
		*log_append.c|*cleaner.c|*writer.c) first=c_crash_writer ;;
		*checkpoint.c) first=c_crash_mount_plain ;;
		*) first=c_crash_flags ;;
		esac
		order=$(tr ' ' '\n' <<<"$tests" | grep -vx "$first" | tr '\n' ' ')
		grep -qw "$first" <<<"$tests" && order="$first $order"
		# shellcheck disable=SC2086  # order is a list of test names
		result=$(kill_with "$runner" $order) || survived=1
		row "$file:$line" "$fn" "$result"
	done < <(cd "$build" && grep -n 'io_channel_flush(' lib/ext2fs/*.c \
		| grep -v '^lib/ext2fs/\(crash_io\|base_io\).c:' \
		| grep -v '^[^:]*:[0-9]*:\s*\*')
}

# ---------------------------------------------------------------------
# 2. behaviour mutants: mut_NAME changes $work/tree (src: before the
# build, bin: after it) and fails when what it changes is not there

# runner_for TEST: the runner of a test (k_*: the kernel's)
runner_for() {
	case $1 in
	k_*) echo "env VM_CACHE=$build/tests/kernel/cache tests/kernel/run.sh" ;;
	*) echo tests/run_tests.sh ;;
	esac
}

# build_copy TEST: build $work/tree for TEST (a kernel test: also the
# static guest programs, as make check-kernel does)
build_copy() {
	(cd "$work/tree" && make -s >/dev/null 2>&1) || return 1
	case $1 in
	k_*) (cd "$work/tree" && make -s tests/progs/lj_getxattrs \
		tests/progs/lj_setattrs >/dev/null 2>&1) ;;
	esac
}

# subst FILE PERL-S///: one substitution in the tree's FILE, which must
# change it
subst() {
	local f=$work/tree/$1 before
	before=$(sha256sum <"$f")
	perl -0pi -e "$2" "$f" || return 1
	[ "$(sha256sum <"$f")" != "$before" ]
}

mut_mke2fs_max_mount_7() {	# bin
	local m=$work/tree/misc/mke2fs
	[ -x "$m" ] || return 1
	mv "$m" "$m.real"
	cat >"$m" <<EOF
#!/bin/bash
# mutant: our mke2fs, then max_mnt_count 7 whenever lazy_journal is asked
(exec -a "\$0" "\$0.real" "\$@")
rc=\$?
[ "\$rc" -eq 0 ] || exit "\$rc"
case " \$* " in *lazy_journal*) ;; *) exit 0 ;; esac
dev=
for a in "\$@"; do [ -f "\$a" ] || [ -b "\$a" ] && dev=\$a; done
[ -n "\$dev" ] && "$SBIN/debugfs" -w -R "ssv max_mnt_count 7" "\$dev" >/dev/null 2>&1
exit 0
EOF
	chmod +x "$m"
}

mut_migrate_drop_wrapped() {	# src
	subst lib/ext2fs/live_home.c 's/(== LJ_LIVE_HOME\) \{\n\t\t\ti\+\+;\n\t\t\tcontinue;\n\t\t\}\n)/$1\t\t{\n\t\t\tstatic int dropped;\n\n\t\t\tif (!dropped \&\& e[i].jblock < mg->st->journal->start) {\n\t\t\t\tdropped = 1;\n\t\t\t\ti++;\n\t\t\t\tcontinue;\n\t\t\t}\n\t\t}\n/'
}

mut_trace_journal_short() {	# src
	subst bench/workload_events.c 's/(\n\tadd_event\(\(unsigned char\)kind, 0, blk, count\);)/\n\t{\n\t\tstatic int skipped;\n\n\t\tif (kind == LJ_IO_JOURNAL \&\& !skipped++)\n\t\t\treturn;\n\t}$1/'
}

mut_mount_fsync_no_commit() {	# src
	subst fuse2fs/commit.c 's/if \(want_commit \|\|/if (0 ||/'
}

mut_mount_persist_no_commit() {	# src
	subst fuse2fs/file.c 's/-fs_end_fsync\(srv, FS_INO\(ino\), datasync\)/(fi->flags \& O_ACCMODE) != O_RDONLY ? -fs_end_fsync(srv, FS_INO(ino), datasync) : -fs_end(srv, 0)/'
}

mut_mount_fsyncdir_no_commit() {	# src
	subst fuse2fs/server.c 's/\.fsyncdir = fs_op_fsync,/.fsyncdir = NULL,/'
}

mut_mount_fdatasync_no_flush() {	# src
	subst fuse2fs/commit.c 's/flush = !durable\(srv, c->txn\);/flush = 0;/'
}

mut_mount_fdatasync_times_all() {	# src
	subst fuse2fs/inode.c 's/return !memcmp\(&old, &new, sizeof\(old\)\);/return 1;/'
}

mut_mount_fsync_change_unseen() {	# src
	subst fuse2fs/commit.c 's/(\tunsigned long running = srv->commit.started \+ 1;\n\n)(\tif \(c->ino != ino\))/$1\tif (c->ino == ino)\n\t\treturn;\n$2/'
}

mut_checkpoint_home_no_flush() {	# src
	subst lib/ext2fs/live_home.c 's/(\t\tif \(progress\)\n\t\t\tprogress\(arg, i, count\);\n\t\}\n\t)return io_channel_flush\(mg->rw\);/${1}return 0;/'
}

mut_mount_commit_no_flush() {	# src
	subst fuse2fs/commit.c 's/err = ext2fs_flush2\(fs, EXT2_FLAG_FLUSH_NO_SYNC\);/err = 0;/'
}

mut_symlink_block_target() {	# src
	subst fuse2fs/dir.c 's/strlen\(target\) >= srv->fs->blocksize/strlen(target) > srv->fs->blocksize/'
}

mut_range_whole_blocks() {	# src
	subst fuse2fs/data.c 's/first_full = \(off \+ bs - 1\) \/ bs;/first_full = off \/ bs;/'
}

mut_ind_no_alloc() {	# src
	subst fuse2fs/data.c 's/BMAP_SET \| BMAP_ALLOC \| flags/BMAP_SET | flags/'
}

mut_ind_punch_libext2fs() {	# src
	subst fuse2fs/data.c 's/first_full < end_full && !block_mapped\(&in\)\)/first_full < end_full)/'
}

mut_seek_unwritten_data() {	# src
	subst fuse2fs/range.c 's/if \(\(p && !un\) == data\)/if ((p != 0) == data)/'
}

mut_append_only_unlink() {	# src
	subst fuse2fs/dir.c 's/(may_delete\) \*\/\n\t\tret = fs_ino_fixed\(srv, dir, 1\);\n\tif \(!ret\)\n\t\tret = fs_fixed\(&in, )1\)/${1}0)/'
}

mut_quota_chown_not_moved() {	# src
	subst fuse2fs/quota.c 's/\tif \(from == to\) \{/\tif (1) {/'
}

mut_quota_free_still_counted() {	# src
	subst fuse2fs/orphan.c 's/\tfs_quota_freeing\(srv, ino\);\n//'
}

mut_quota_after_commit() {	# src
	subst fuse2fs/commit.c 's/\terr = fs_quota_flush\(srv\);\n\tif \(!err\)\n\t\terr = ext2fs_flush2\(fs, EXT2_FLAG_FLUSH_NO_SYNC\);\n\tif \(!err && srv->lazy\)\n\t\terr = lj_lazy_commit\(fs->io\);/\terr = ext2fs_flush2(fs, EXT2_FLAG_FLUSH_NO_SYNC);\n\tif (!err \&\& srv->lazy)\n\t\terr = lj_lazy_commit(fs->io);\n\tif (!err)\n\t\terr = fs_quota_flush(srv);/'
}

mut_ro_reads_bitmaps() {	# src
	subst fuse2fs/server.c 's/(if \(!err && !a->ro\)\n\t\terr = lj_bitmaps_open)/if (!err && a->ro)\n\t\terr = ext2fs_read_bitmaps(*ret);\n\t$1/'
}

mut_quota_crash_after_commit() {	# src
	mut_quota_after_commit
}

mut_quota_projid_not_inherited() {	# src
	subst fuse2fs/dir.c 's/\t\tin.i.i_projid = dir.i.i_projid;/\t\t;/'
}

mut_quota_projid_old() {	# src
	subst fuse2fs/quota.c 's/projid\(fs, in == srv->cur\.whole \?/projid(fs, 0 ?/'
}

mut_quota_refused_writes() {	# src
	subst fuse2fs/server.c 's/\t\tsrv->ro = 1;\t\/\* refused: nothing written at close \*\/\n//'
}

mut_quota_projid_exdev_missing() {	# src
	subst fuse2fs/dir.c 's/\t\treturn -EXDEV;/\t\treturn 0;/'
}

mut_xattr_set_block_kept() {	# src
	subst fuse2fs/xattr.c 's/\tif \(!err\)\n\t\terr = drop_empty_block\(srv, ino\);/\tif (!err \&\& !value)\n\t\terr = drop_empty_block(srv, ino);/'
}

mut_quota_empty_entry_kept() {	# src
	subst fuse2fs/quota.c 's/\t\treturn qf_remove\(q, &p\);/\t\t;/'
}

mut_inline_write_at_pos() {	# src
	subst fuse2fs/data.c 's/ret = inline_write\(srv, ino, in, buf, size, off, &done\);/ret = file_io(srv, ino, (char *)buf, size, (off_t)off, 1, &done);/'
}

mut_rename_new_parent_mtime() {	# src
	subst fuse2fs/dir.c 's/ret = fs_touch\(srv, ddir, FS_T_M \| FS_T_C\);/ret = fs_touch(srv, ddir, FS_T_C);/'
}

mut_rename_moved_ctime() {	# src
	subst fuse2fs/dir.c 's/(ret = reparent\(srv, src, sdir, ddir\);\n\t\tif \(!ret\)\n)\t\t\tret = fs_touch\(srv, src, FS_T_C\);/$1\t\t\tret = 0;/'
}

mut_setxattr_no_ctime() {	# src
	subst fuse2fs/xattr.c 's/(else if \(!\(ret = fs_xattr_set\(srv, ino, name, value, size\)\)\)\n)\t\tret = fs_touch\(srv, ino, FS_T_C\);/$1\t\tret = 0;/'
}

mut_setxattr_same_ctime() {	# src
	subst fuse2fs/xattr.c 's/else if \(exists >= 0 && same_value\(srv, ino, name, value, size\)\)/else if (0)/'
}

mut_acl_equiv_ctime() {	# src
	subst fuse2fs/xattr.c 's/if \(mode != in.i.i_mode\) \{/if (1) {/'
}

mut_removexattr_absent_ctime() {	# src
	subst fuse2fs/xattr.c 's/else if \(ret == -ENODATA && acl\)\n\t\tret = 0;/else if (ret == -ENODATA \&\& acl)\n\t\tret = fs_touch(srv, ino, FS_T_C);/'
}

mut_setattr_times_apart() {	# src
	subst fuse2fs/attr.c 's/FUSE_SET_ATTR_ATIME_NOW \?\n\t\t\t     &now :/FUSE_SET_ATTR_ATIME_NOW ?\n\t\t\t     NULL :/'
}

mut_truncate_same_size_mtime() {	# src
	subst fuse2fs/attr.c 's/\t\tif \(!ret\)\n\t\t\tfs_set_times\(srv, &in, FS_T_M, &now\);\n//'
}

mut_fallocate_fail_stale() {	# src
	subst fuse2fs/file.c 's/if \(ret && srv->se\)\n\t\tfuse_lowlevel_notify_inval_inode/if (0)\n\t\tfuse_lowlevel_notify_inval_inode/'
}

mut_time_no_clamp_128() {	# src
	subst fuse2fs/inode.c 's/\*lo = \(__u32\)\(s < INT32_MIN \? INT32_MIN :\n\t\t\t      s > INT32_MAX \? INT32_MAX : s\);/*lo = (__u32)s;/'
}

mut_time_ns_at_end() {	# src
	subst fuse2fs/inode.c 's/if \(s <= TIME_MIN \|\| s >= TIME_MAX\)/if (s < TIME_MIN || s > TIME_MAX)/'
}

mut_sync_flag_ignored() {	# src
	subst fuse2fs/flags.c 's/return srv->sync \|\| \(in->i\.i_flags & FL_SYNC\);/return srv->sync;/'
}

mut_sync_copy_flags_ignored() {	# src
	subst fuse2fs/range.c 's/sync = fs_write_is_sync\(srv, fl_out, &out\);/sync = fs_write_is_sync(srv, 0, \&out);/'
}

mut_sync_fallocate_no_commit() {	# src
	subst fuse2fs/file.c 's/(\(uint64_t\)length\);\n\tret = ret \? \(fs_end\(srv, 0\), ret\) : fs_end\(srv, )sync\)/${1}0)/'
}

mut_sync_setattr_no_commit() {	# src
	subst fuse2fs/attr.c 's/(fs_stat\(srv, ino, &in, &st\);\n\tret = ret \? \(fs_end\(srv, 0\), ret\) : fs_end\(srv, )sync\)/${1}0)/'
}

mut_sync_xattr_no_commit() {	# src
	subst fuse2fs/xattr.c 's/fs_end\(srv, ino_sync\(srv, ino\)\)/fs_end(srv, 0)/g'
}

mut_dirsync_flag_ignored() {	# src
	subst fuse2fs/flags.c 's/\(in\.i\.i_flags & \(FL_SYNC \| FL_DIRSYNC\)\)/(in.i.i_flags \& FL_SYNC)/'
}

mut_dirsync_mount_ignored() {	# src
	subst fuse2fs/args.c 's/\t\ta->dirsync = 1;/\t\t;/'
}

mut_sync_mount_ignored() {	# src
	subst fuse2fs/args.c 's/\t\ta->sync = 1;/\t\t;/'
}

mut_casefold_served() {	# src
	subst fuse2fs/formats.c 's/\t\{ "casefold", has_casefold,\n[^\n]*\n//'
}

mut_unserved_ro_refused() {	# src
	subst fuse2fs/main.c 's/if \(!a->ro\)\n\t\t\tunserved = /unserved = /'
}

mut_fast_commit_recovered() {	# src
	subst fuse2fs/formats.c 's/if \(ext2fs_has_feature_fast_commit\(sb\) &&/if (0 \&\&/'
}

mut_falloc_blockmap_times() {	# src
	subst fuse2fs/data.c 's/\t\tfs_set_times\(srv, &in, FS_T_M \| FS_T_C, NULL\);\n\t\tret = fs_write_inode\(srv, ino, &in\);\n/\t\tret = 0;\n/'
}

mut_data_home_over_freed() {	# src
	subst lib/ext2fs/lazy_io.c 's/return p->freed_all \|\| lj_bset_has\(&p->freed, blk\) \|\|\n\t       p->freed_committing_all \|\|\n\t       lj_bset_has\(&p->freed_committing, blk\);/return 0;/'
}

mut_cleaner_home_over_revoked() {	# src
	subst lib/ext2fs/cleaner.c 's/if \(!lj_run_revoked\(&w->run, live\[i\]\.home\)\)\n\t\t\tcontinue;/continue;/'
}

mut_extent_run_after_first() {	# src
	subst fuse2fs/data.c 's/if \(e\.e_lblk > lblk\)\t\/\* before the first extent \*\//if (0)/'
}

mut_extent_run_any_pblk() {	# src
	subst fuse2fs/data.c 's/e\.e_lblk \+ e\.e_len == lblk && e\.e_pblk \+ e\.e_len == p &&/e.e_lblk + e.e_len == lblk \&\&/'
}

mut_loop_never_sleeps() {	# src
	subst fuse2fs/loop.c 's/if \(now_ns\(\) < t0 \+ spin\) \{/if (1) {/'
}

mut_killpriv_not_taken() {	# src
	subst fuse2fs/killpriv.c 's/out->flags \|= FUSE_HANDLE_KILLPRIV_V2;/(void)out;/'
}

mut_killpriv_not_done() {	# src
	subst fuse2fs/killpriv.c 's/if \(!srv->kp\.taken \|\|/if (1 ||/'
}

mut_killpriv_empty_setattr() {	# src
	subst fuse2fs/attr.c 's/\(to_set & FUSE_SET_ATTR_KILL_SUID\) \|\| !to_set/to_set \& FUSE_SET_ATTR_KILL_SUID/'
}

mut_killpriv_append_allowed() {	# src
	subst fuse2fs/killpriv.c 's/\tif \(fs_fixed\(in, 1\)\)\t\/\* append-only: ext4 refuses the change \*\/\n\t\treturn -EPERM;\n//'
}

mut_bigalloc_iblocks_per_block() {	# src
	subst fuse2fs/data.c 's/err = ext2fs_iblk_add_blocks\(fs, FS_I\(in\), fresh\);\n\t\tif \(!err\)\n\t\t\terr = write_data/err = ext2fs_iblk_add_blocks(fs, FS_I(in), got);\n\t\tif (!err)\n\t\t\terr = write_data/'
}

mut_bigalloc_cluster_each_run() {	# src
	subst fuse2fs/data.c 's/if \(!err && home\) \{\n\t\t\*p = home;/if (0) {\n\t\t*p = home;/'
}

mut_bigalloc_statfs_overhead() {	# src
	subst fuse2fs/attr.c 's/overhead = EXT2FS_C2B\(fs, \(blk64_t\)sb->s_overhead_clusters\);/overhead = sb->s_overhead_clusters;/'
}

mut_lazy_note_one_block() {	# src
	subst lib/ext2fs/lazy_io.c 's/blk64_t mask = EXT2FS_CLUSTER_MASK\(fs\);/blk64_t mask = 0;/'
}

mut_xattr_empty_block_kept() {	# src
	subst fuse2fs/xattr.c 's/\tif \(!err\)\n\t\terr = drop_empty_block\(srv, ino\);\n//'
}

mut_auto_inval_data() {	# src
	subst fuse2fs/server.c 's/conn->want &= ~\(unsigned\)FUSE_CAP_AUTO_INVAL_DATA;//'
}

mut_errors_csum_eio() {	# src
	subst fuse2fs/errors.c 's/\tcase EXT2_ET_BAD_CRC:\n\t\treturn EBADMSG;/\tcase EXT2_ET_BAD_CRC:\n\t\treturn EIO;/'
}

mut_errors_behaviour_ignored() {	# src
	subst fuse2fs/errors.c 's/\tb = applied\(srv\);/\tb = EXT2_ERRORS_CONTINUE;/'
}

mut_errors_not_recorded() {	# src
	subst fuse2fs/errors.c 's/\tsb->s_state \|= EXT2_ERROR_FS;\n\tif/\treturn;\n\tif/'
}

mut_errors_txn_kept() {	# src
	subst fuse2fs/errors.c 's/err = lj_lazy_abort\(fs->io\);\n\tif \(!err\)\n\t\terr = ext2fs_get_mem/err = 0;\n\tif (!err)\n\t\terr = ext2fs_get_mem/'
}

mut_cache_revoke_kept() {	# src
	subst lib/ext2fs/writer.c 's/\tif \(w->cache\)\n\t\tlj_bcache_drop\(w->cache, home\);\n\tlj_run_drop/\tlj_run_drop/'
}

mut_cache_add_stale() {	# src
	subst lib/ext2fs/writer.c 's/\tif \(w->cache && !err\)\n.*\n\telse if \(w->cache\)\n.*\n//'
}

mut_options_read_late() {	# src
	subst fuse2fs/main.c 's/ret = fs_session_prepare\(srv, a\);\n\tif \(ret < 0\) \{([^\n]*)\n\t\tret = ready_device\(a, &probe\);\n\t\tif \(!ret\)\n/ret = ready_device(a, \&probe);\n\tif (!ret)\n\t\tret = fs_session_prepare(srv, a);\n\tif (ret < 0) {$1\n\t\tret = 0;\n\t\tif (!ret)\n/'
}

mut_request_count_late() {	# src
	subst fuse2fs/loop.c 's/(\t\tsrv->loop\.last = [^\n]*\n\t\tsrv->loop\.spin = [^\n]*\n)(\t\tsrv->loop\.counts\[[^\n]*\n[^\n]*\n)/$2$1/'
}

mut_commit_write_locked() {	# src
	subst fuse2fs/commit.c 's/\t\t\tpthread_mutex_unlock\(&srv->commit\.lock\);\n(\t\t\tfs_loop_hand_off\(srv\);\n\t\t\terr = lj_lazy_commit_write\(fs->io\);\n)\t\t\tpthread_mutex_lock\(&srv->commit\.lock\);\n/$1/'
}

mut_commit_wait_keeps_turn() {	# src
	subst fuse2fs/loop.c 's/(void fs_loop_hand_off\(struct fs_server \*srv\)\n\{\n\tstruct fs_thread \*t = fs_loop_self\(srv\);\n\n\tif \()!t\)/${1}1)/'
}

mut_revoke_slot_after() {	# src
	subst lib/ext2fs/running_txn.c 's/if \(r->rev\[mid\] < home\)/if (r->rev[mid] <= home)/'
}

mut_place_meta_among_data() {	# src
	subst fuse2fs/place.c 's/if \(!windows_on\(srv->fs\) \|\| in_dirs_group\(srv->fs, \*ret\)\)/if (1)/'
}

mut_splice_ignores_log() {	# src
	subst lib/ext2fs/lazy_io.c 's/run = lj_bcache_has\(&p->cache, blk\) \? 0 : home_run\(p, blk, n\);/run = n;/'
}

mut_splice_offset_ignored() {	# src
	subst lib/ext2fs/lazy_io.c 's/\*pos = p->offset_bytes \+ blk \* p->fsbs;/*pos = blk * p->fsbs;/'
}

mut_forget_freed_kept() {	# src
	subst lib/ext2fs/lazy_io.c 's/i < count && !err; i\+\+\)\n\t\terr = lj_writer_revoke\(p->writer, blk \+ i\);/i < count \&\& !err; i++)\n\t\t;/'
}

mut_txn_cap_none() {	# src
	subst fuse2fs/commit.c 's/interval_passed\(srv\) \|\| txn_full\(srv->fs\) \|\|/interval_passed(srv) ||/'
}

mut_mount_uncounted() {	# src
	subst fuse2fs/server.c 's/\tcount_mount\(srv->fs, a->device\);\n//'
}

mut_place_plain_goal() {	# src
	subst fuse2fs/data.c 's/goal = fs_place_goal\(srv, ino, lblk, want,\n\t\t\t     data_goal\(srv, ino, in, lblk\)\)/goal = data_goal(srv, ino, in, lblk)/'
}

mut_journal_gaps_unpadded() {	# src
	subst lib/ext2fs/journal_create.c 's/if \(!err && band && goal != ~0ULL\)\n\t\terr = pad_gaps/if (0)\n\t\terr = pad_gaps/'
}

mut_place_bands_ignored() {	# src
	subst fuse2fs/place.c 's/\} else if \(!banded \|\| stream_point\(srv, \*start, cont\)\) \{/} else if (1) {/'
}

mut_place_stream_hole() {	# src
	subst fuse2fs/place.c 's/if \(s->end && w->end == s->next\)\n\t\t\ts->next = w->next;\n\t\telse if/if/'
}

mut_punch_last_block() {	# src
	subst fuse2fs/punch.c 's/EXT2FS_CLUSTER_RATIO\(fs\) == 1 &&/EXT2FS_CLUSTER_RATIO(fs) == 0 \&\&/'
}

mut_qos_kept() {	# src
	subst fuse2fs/latency.c 's/if \(left <= 0\) \{\n\t\tset_hold\(srv, 0\);/if (left <= 0) {/'
}

mut_nodes_lost_on_growth() {	# src
	subst fuse2fs/orphan.c 's/\t\t\tn->next = nb\[b\];\n\t\t\tnb\[b\] = n;\n/\t\t\t(void)b; free(n);\n/'
}

mut_log_direct() {	# src
	subst lib/ext2fs/lazy_io.c 's/IO_FLAG_RW \| IO_FLAG_THREADS, ret\);/IO_FLAG_RW | IO_FLAG_THREADS | IO_FLAG_DIRECT_IO, ret);/'
}

mut_waits_cleaner_unseen() {	# src
	subst fuse2fs/commit.c 's/\tfs_waits_cleaner\(srv\);\n//'
}

mut_waits_commit_unseen() {	# src
	subst fuse2fs/waits.c 's/if \(srv->waits\.commits != t->commits_seen \|\| \(t->commits_seen & 1\)\)/if (0)/'
}

mut_committing_unseen() {	# src
	subst lib/ext2fs/writer.c 's/if \(!found && w->in_commit\)/if (0)/'
}

mut_bench_requests_unset() {	# src
	subst bench/realwork.sh 's/FUSE2FS_REQUESTS=1 //'
}

mut_linear_find_first_block() {	# src
	subst fuse2fs/htree.c 's/for \(lblk = 0; lblk < nblk && ret == -ENOENT; lblk\+\+\)/for (lblk = 0; lblk < 1 \&\& ret == -ENOENT; lblk++)/'
}

mut_data_run_one_revoke() {	# src
	subst lib/ext2fs/lazy_io.c 's/for \(i = 0; i < n && !err; i\+\+\)\n\t\terr = lj_writer_revoke/for (i = 0; i < 1 \&\& !err; i++)\n\t\terr = lj_writer_revoke/'
}

mut_fsname_as_given() {	# src
	subst fuse2fs/server.c 's/abs = realpath\(a->device, NULL\);/abs = NULL;/'
}

mut_skip_same_vs_home() {	# src
	subst lib/ext2fs/lazy_io.c 's/err = read_fs_block_raw\(p, blk, p->live\);/err = io_channel_read_blk64(p->home, blk, 1, p->live);/'
}

mut_htree_not_made() {	# src
	subst fuse2fs/htree.c 's/\t\tret = dx_make\(srv, dir, &in\);\n\t\tif \(ret != FS_DX_LINEAR\)\n\t\t\treturn ret;\n//'
}

mut_htree_hash_version() {	# src
	subst fuse2fs/htree.c 's/(\t\treturn -1;\n)(\tif \(fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH\))/${1}\tversion = EXT2_HASH_TEA;\n$2/'
}

mut_htree_hash_signed() {	# src
	subst fuse2fs/htree.c 's/\tif \(fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH\)\n\t\tversion \+= EXT2_HASH_LEGACY_UNSIGNED;\n//'
}

mut_htree_split_hash() {	# src
	subst fuse2fs/htree.c 's/split = names\[i\]\.hash \|/split = names[i - 1].hash |/'
}

mut_htree_unlink_unwritten() {	# src
	subst fuse2fs/htree.c 's/\t\td->inode = 0;\n\t\}\n\tif \(!ret\)\n\t\tret = fs_dir_write_block/\t\td->inode = 0;\n\t}\n\tif (0)\n\t\tret = fs_dir_write_block/'
}

mut_linear_add_into_index() {	# src
	subst fuse2fs/htree.c 's/if \(!nblk \|\| \(in\.i\.i_flags & EXT2_INDEX_FL\)\)/if (!nblk)/'
}

mut_dir_csum_no_generation() {	# src
	subst lib/ext2fs/dir_csum.c 's/crc = lj_crc32c\(crc, &le_gen, sizeof\(le_gen\)\);//'
}

mut_bitmaps_read_at_open() {	# src
	subst lib/ext2fs/group_bitmaps.c 's/if \(flagged_b && !\(bm->ready/if (!(bm->ready/'
}

mut_inode_block_read() {	# src
	subst fuse2fs/inode.c 's/if \(!srv->lazy \|\| !blk\)\n\t\treturn;/if (1)\n\t\treturn;/'
}

mut_bitmaps_free_unread() {	# src
	subst lib/ext2fs/group_bitmaps.c 's/else if \(!err && inuse < 0\)/else if (0)/'
}

mut_readdir_resnapshot() {	# src
	subst fuse2fs/dir.c 's/if \(!ret && off == 0\) \{(\t\/\* again)/if (!ret) {$1/'
}

mut_htree_split_by_libext2fs() {	# src
	subst fuse2fs/htree.c 's/return dx_split_leaf\(srv, p, leaf, leaf_pblk\);/return FS_DX_LINEAR;/'
}

mut_htree_node_split_kept() {	# src
	subst fuse2fs/htree.c 's/\t\tfull->count = keep;\n//'
}

mut_htree_level_uncounted() {	# src
	subst fuse2fs/htree.c 's/\t\tri->indirect_levels\+\+;\n//'
}

mut_htree_add_first_leaf() {	# src
	subst fuse2fs/htree.c 's/(lv = &p\.lv\[p\.levels - 1\];\n\t+ret = -fs_errno\(srv, read_lblk\(srv, dir, &p\.in,\s+DX_BLOCK\(&lv->e\[)lv->at(\]\),)/${1}0${2}/'
}

# NAME TEST WHEN WHERE
behaviour_specs=(
	"mke2fs_max_mount_7 m_lazy_options bin misc/mke2fs (wrapper)"
	"migrate_drop_wrapped w_workload_wrap src lib/ext2fs/live_home.c"
	"trace_journal_short w_workload_trace src bench/workload_events.c"
	"mount_fsync_no_commit u_mount_kill src fuse2fs/commit.c"
	"mount_commit_no_flush u_mount_kill src fuse2fs/commit.c"
	"symlink_block_target u_posix_block_edges src fuse2fs/dir.c"
	"range_whole_blocks u_posix_block_edges src fuse2fs/data.c"
	"ind_no_alloc u_mount_indirect src fuse2fs/data.c"
	"ind_punch_libext2fs u_mount_indirect src fuse2fs/data.c"
	"extent_run_after_first u_mount_extent_runs src fuse2fs/data.c"
	"extent_run_any_pblk u_mount_extent_runs src fuse2fs/data.c"
	"loop_never_sleeps u_mount_idle src fuse2fs/loop.c"
	"killpriv_not_taken u_mount_requests src fuse2fs/killpriv.c"
	"killpriv_not_done u_posix_calls src fuse2fs/killpriv.c"
	"killpriv_empty_setattr u_posix_calls src fuse2fs/attr.c"
	"killpriv_append_allowed u_posix_calls src fuse2fs/killpriv.c"
	"bigalloc_iblocks_per_block u_mount_bigalloc src fuse2fs/data.c"
	"bigalloc_cluster_each_run u_mount_bigalloc src fuse2fs/data.c"
	"bigalloc_statfs_overhead u_mount_bigalloc src fuse2fs/attr.c"
	"lazy_note_one_block u_mount_bigalloc src lib/ext2fs/lazy_io.c"
	"xattr_empty_block_kept u_mount_bigalloc src fuse2fs/xattr.c"
	"auto_inval_data u_mount_requests src fuse2fs/server.c"
	"cache_revoke_kept u_mount_stress src lib/ext2fs/writer.c"
	"cache_add_stale u_mount_tree src lib/ext2fs/writer.c"
	"data_home_over_freed c_crash_reuse src lib/ext2fs/lazy_io.c"
	"cleaner_home_over_revoked c_crash_reuse src lib/ext2fs/cleaner.c"
	"skip_same_vs_home c_crash_reuse src lib/ext2fs/lazy_io.c"
	"mount_persist_no_commit c_crash_persist src fuse2fs/file.c"
	"mount_fsyncdir_no_commit c_crash_persist src fuse2fs/server.c"
	"mount_fsync_change_unseen c_crash_persist src fuse2fs/commit.c"
	"mount_fdatasync_no_flush c_crash_persist src fuse2fs/commit.c"
	"mount_fdatasync_times_all c_crash_persist src fuse2fs/inode.c"
	"checkpoint_home_no_flush c_crash_mount_plain src lib/ext2fs/live_home.c"
	"seek_unwritten_data u_posix_calls src fuse2fs/range.c"
	"append_only_unlink u_posix_calls src fuse2fs/dir.c"
	"inline_write_at_pos u_posix_inline src fuse2fs/data.c"
	"quota_chown_not_moved u_mount_quota src fuse2fs/quota.c"
	"quota_free_still_counted u_mount_quota src fuse2fs/orphan.c"
	"quota_after_commit u_mount_quota src fuse2fs/commit.c"
	"quota_crash_after_commit c_crash_persist_formats src fuse2fs/commit.c"
	"ro_reads_bitmaps u_mount_ro_refuse src fuse2fs/server.c"
	"quota_empty_entry_kept u_mount_quota src fuse2fs/quota.c"
	"quota_projid_not_inherited u_mount_quota src fuse2fs/dir.c"
	"quota_projid_old u_mount_quota src fuse2fs/quota.c"
	"quota_refused_writes u_mount_quota src fuse2fs/server.c"
	"quota_projid_exdev_missing k_quota src fuse2fs/dir.c"
	"xattr_set_block_kept u_posix_calls src fuse2fs/xattr.c"
	"options_read_late u_mount_refuse src fuse2fs/main.c"
	"linear_find_first_block u_mount_formats src fuse2fs/htree.c"
	"data_run_one_revoke u_mount_stress src lib/ext2fs/lazy_io.c"
	"fsname_as_given u_mount_refuse src fuse2fs/server.c"
	"rename_new_parent_mtime u_posix_times src fuse2fs/dir.c"
	"rename_moved_ctime u_posix_times src fuse2fs/dir.c"
	"setxattr_no_ctime u_posix_times src fuse2fs/xattr.c"
	"setxattr_same_ctime u_posix_times src fuse2fs/xattr.c"
	"acl_equiv_ctime u_posix_calls src fuse2fs/xattr.c"
	"removexattr_absent_ctime u_posix_calls src fuse2fs/xattr.c"
	"setattr_times_apart u_posix_times src fuse2fs/attr.c"
	"truncate_same_size_mtime u_posix_times src fuse2fs/attr.c"
	"fallocate_fail_stale u_posix_calls src fuse2fs/file.c"
	"time_no_clamp_128 u_posix_times src fuse2fs/inode.c"
	"time_ns_at_end u_posix_times src fuse2fs/inode.c"
	"sync_flag_ignored c_crash_sync src fuse2fs/flags.c"
	"sync_copy_flags_ignored c_crash_sync src fuse2fs/range.c"
	"sync_fallocate_no_commit c_crash_sync src fuse2fs/file.c"
	"sync_setattr_no_commit c_crash_sync src fuse2fs/attr.c"
	"sync_xattr_no_commit c_crash_sync src fuse2fs/xattr.c"
	"dirsync_flag_ignored c_crash_sync src fuse2fs/flags.c"
	"dirsync_mount_ignored c_crash_sync src fuse2fs/args.c"
	"sync_mount_ignored c_crash_sync src fuse2fs/args.c"
	"htree_not_made u_mount_htree src fuse2fs/htree.c"
	"htree_hash_version u_mount_htree src fuse2fs/htree.c"
	"htree_hash_signed u_mount_htree src fuse2fs/htree.c"
	"htree_split_hash u_mount_htree src fuse2fs/htree.c"
	"htree_unlink_unwritten u_mount_htree src fuse2fs/htree.c"
	"htree_add_first_leaf u_mount_htree src fuse2fs/htree.c"
	"htree_split_by_libext2fs u_mount_valgrind src fuse2fs/htree.c"
	"htree_node_split_kept u_mount_htree src fuse2fs/htree.c"
	"htree_level_uncounted u_mount_htree_levels src fuse2fs/htree.c"
	"linear_add_into_index u_mount_htree src fuse2fs/htree.c"
	"dir_csum_no_generation u_mount_htree src lib/ext2fs/dir_csum.c"
	"bitmaps_read_at_open u_mount_open_reads src lib/ext2fs/group_bitmaps.c"
	"bitmaps_free_unread u_mount_open_reads src lib/ext2fs/group_bitmaps.c"
	"inode_block_read u_mount_open_reads src fuse2fs/inode.c"
	"readdir_resnapshot u_mount_htree src fuse2fs/dir.c"
	"casefold_served u_mount_formats_refused src fuse2fs/formats.c"
	"unserved_ro_refused u_mount_formats_refused src fuse2fs/main.c"
	"fast_commit_recovered u_mount_formats_refused src fuse2fs/formats.c"
	"falloc_blockmap_times u_mount_indirect src fuse2fs/data.c"
	"request_count_late u_mount_requests src fuse2fs/loop.c"
	"commit_write_locked u_mount_commit_beside src fuse2fs/commit.c"
	"commit_wait_keeps_turn u_mount_commit_beside src fuse2fs/loop.c"
	"qos_kept u_mount_latency_qos src fuse2fs/latency.c"
	"nodes_lost_on_growth u_mount_nodes src fuse2fs/orphan.c"
	"log_direct u_mount_small_log src lib/ext2fs/lazy_io.c"
	"waits_cleaner_unseen u_mount_small_log src fuse2fs/commit.c"
	"waits_commit_unseen u_mount_commit_beside src fuse2fs/waits.c"
	"splice_ignores_log u_mount_read_splice src lib/ext2fs/lazy_io.c"
	"splice_offset_ignored u_mount_read_splice src lib/ext2fs/lazy_io.c"
	"forget_freed_kept u_mount_forget src lib/ext2fs/lazy_io.c"
	"txn_cap_none u_mount_txn_cap src fuse2fs/commit.c"
	"mount_uncounted u_mount_count src fuse2fs/server.c"
	"place_plain_goal u_mount_placement src fuse2fs/data.c"
	"place_meta_among_data u_mount_placement src fuse2fs/place.c"
	"journal_gaps_unpadded m_lazy_options src lib/ext2fs/journal_create.c"
	"place_bands_ignored u_mount_bands src fuse2fs/place.c"
	"place_stream_hole u_mount_bands src fuse2fs/place.c"
	"punch_last_block u_mount_placement src fuse2fs/punch.c"
	"revoke_slot_after c_crash_reuse src lib/ext2fs/running_txn.c"
	"committing_unseen u_mount_commit_beside src lib/ext2fs/writer.c"
	"bench_requests_unset u_realwork_smoke src bench/realwork.sh"
	"errors_csum_eio u_mount_errors src fuse2fs/errors.c"
	"errors_behaviour_ignored u_mount_errors src fuse2fs/errors.c"
	"errors_not_recorded u_mount_errors src fuse2fs/errors.c"
	"errors_txn_kept u_mount_errors src fuse2fs/errors.c")

behaviour_mutants() {
	local spec name t when what result
	for spec in "${behaviour_specs[@]}"; do
		read -r name t when what <<<"$spec"
		[[ $name =~ ${MUTANT_ONLY:-.} ]] || continue
		copy_tree
		if [ "$when" = src ] && ! "mut_$name"; then
			row "$name" "$what" "NOT APPLIED"
			survived=1
			continue
		fi
		if ! build_copy "$t"; then
			row "$name" "$what" "BUILD FAILED"
			survived=1
			continue
		fi
		if [ "$when" = bin ] && ! "mut_$name"; then
			row "$name" "$what" "NOT APPLIED"
			survived=1
			continue
		fi
		result=$(kill_with "$(runner_for "$t")" "$t") || survived=1
		row "$name" "$what" "$result"
	done
}

# ---------------------------------------------------------------------
# 0. the unmutated copy passes every test that is to kill a mutant: else a
# "kill" could be the copy's own fault (one that cannot find its view
# object or helpers), not the mutant's

baseline_fails() {	# RUNNER TEST: 0 (and the row) if TEST fails on the copy
	if ! (cd "$work/tree" && SRCDIR=$work/tree BUILDDIR=$work/tree \
		$1 "$2" >"$work/out" 2>&1); then
		row "unmutated copy" "$2" "FAILS: $(grep -m1 '^+[^+]' "$work/out" | cut -c2-120)"
		return 0
	fi
	return 1
}

baseline() {
	local t spec
	copy_tree
	if ! (cd "$work/tree" && make -s >/dev/null 2>&1); then
		row "unmutated copy" "" "BUILD FAILED"
		exit 1
	fi
	if [ "$set_" != behaviour ]; then
		for t in $tests; do
			! baseline_fails "$runner" "$t" || exit 1
		done
	fi
	if [ "$set_" != flush ]; then
		local done_=" "
		for spec in "${behaviour_specs[@]}"; do
			[[ ${spec%% *} =~ ${MUTANT_ONLY:-.} ]] || continue
			t=$(cut -d' ' -f2 <<<"$spec")
			[[ $done_ == *" $t "* ]] && continue	# once each
			done_+="$t "
			case $t in
			k_*) build_copy "$t" ||
				{ row "unmutated copy" "$t" "BUILD FAILED"; exit 1; } ;;
			esac
			! baseline_fails "$(runner_for "$t")" "$t" || exit 1
		done
	fi
	row "unmutated copy" "its kill tests" "pass"
}

baseline
if [ "$set_" != behaviour ]; then
	row "mutant (flush removed)" "function" "result"
	flush_mutants
fi
if [ "$set_" != flush ]; then
	row "mutant (behaviour)" "where" "result"
	behaviour_mutants
fi
exit "$survived"
