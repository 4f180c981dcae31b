# oracle_jmap.awk --- the expected jmap, from stock `debugfs -R "logdump -a"`.
#
# logdump walks the log exactly as jbd2's scan does as far as block types
# and sequence numbers go (it does NOT verify checksums), printing:
#   Found expected sequence S, type T (...) at block B
#     FS block H logged at journal block J (flags 0xF)    (descriptor tags)
#     Revoke FS block H                                    (revoke records)
#   No magic number at block B: end of journal.
#   Found sequence X (not S) at block B: end of journal.
#   Unexpected block type T at block B.
#
# Only transactions whose commit block was seen count (the tags and revokes
# of a trailing transaction without a commit are dropped).  Replay rule:
# for each home block H the newest committed transaction T logging H wins
# (within T the later tag wins), unless a committed revoke record of a
# transaction T' >= T names H; then H is not mapped.  Transactions are
# compared by their position in the log (the log's tids are consecutive,
# so this is jbd2's wrap-safe tid comparison).
#
# Output (default): "home jblock tid" per mapped block (unsorted; the
# caller sorts by home).  With -v mode=flags a fourth column gives the
# tag flags (0x1 = escaped).  With -v mode=end: one line describing the end of
# the log and the number of committed transactions.

function flush_pending(    i) {
	for (i = 1; i <= npt; i++) {
		# later tags overwrite earlier ones: newest wins
		map_j[pt_h[i]] = pt_j[i]
		map_t[pt_h[i]] = cur_tid
		map_ord[pt_h[i]] = ord
		map_f[pt_h[i]] = pt_f[i]
	}
	for (i = 1; i <= npr; i++)
		if (!(pr_h[i] in rev_ord) || rev_ord[pr_h[i]] < ord)
			rev_ord[pr_h[i]] = ord
	npt = 0
	npr = 0
}

BEGIN { npt = 0; npr = 0; ord = 0; ncommit = 0; endmsg = "no end line" }

/^Journal starts at block / {
	sub(/,/, "", $5)
	start_block = $5
	start_tid = $7
	next
}

/^Found expected sequence / {
	seq = $4
	sub(/,/, "", seq)
	type = $6
	if (seq != cur_tid) {	# first block of a new transaction
		cur_tid = seq
		npt = 0
		npr = 0
	}
	if (type == 2) {
		ord++
		ncommit++
		flush_pending()
		last_commit_block = $NF
	}
	next
}

/^  FS block [0-9]+ logged at journal block / {
	npt++
	pt_h[npt] = $3
	pt_j[npt] = $8
	pt_f[npt] = $10
	sub(/\)$/, "", pt_f[npt])
	next
}

/^  Revoke FS block [0-9]+/ {
	npr++
	pr_h[npr] = $4
	next
}

/end of journal\.$/ || /^Unexpected block type/ {
	endmsg = $0
	next
}

END {
	if (mode == "end") {
		printf("log: %d committed transactions; %s\n", ncommit, endmsg)
		exit 0
	}
	for (h in map_j) {
		if ((h in rev_ord) && rev_ord[h] >= map_ord[h])
			continue
		if (mode == "flags")
			printf("%s %s %s %s\n", h, map_j[h], map_t[h], map_f[h])
		else
			printf("%s %s %s\n", h, map_j[h], map_t[h])
	}
}
