#!/usr/bin/env python3
"""Model tests: hand-made traces whose answers are worked out by hand (the
formulas below), independent of the workloads.  Run: python3
test_smr_model.py (tests/s_smr_model runs it under make check)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import smr_model  # noqa: E402

MiB = 1 << 20
BAND = MiB
# Round numbers: 1 MB/s, half a rotation 5 ms (6000 rpm), every seek 1 ms,
# so any positioning costs POS = 6 ms and a 4 KiB transfer 4.096 ms.
P = {"band": BAND, "cache": 1 << 40, "rate": 1e6, "rpm": 6000,
     "seek_min": 0.001, "seek_max": 0.001, "disk": 1e12, "rmw_io": 3,
     "idle_delay": 1.0}
POS = 0.006
T4K = 4096 / 1e6
RMW = 2 * POS + 3 * BAND / 1e6


def run(trace, **extra):
    params = dict(P)
    params.update(extra)
    m = smr_model.Model(params)
    return m.run(trace.splitlines())


class SmrModel(unittest.TestCase):
    def test_sequential_stream_no_cleaning(self):
        # 2 MiB from LBA 0 in 64 KiB writes: every piece continues the
        # band's stream; nothing cached, no band to clean.
        t = "phase seq\n" + "".join(
            "W journal %d 65536\n" % (i * 65536) for i in range(32))
        r, = run(t)
        self.assertEqual(r["direct"], 2 * MiB)
        self.assertEqual(r["cached"], 0)
        self.assertEqual(r["dirty_bands"], 0)
        self.assertEqual(r["rmw_forced"] + r["rmw_idle"], 0)
        self.assertEqual(r["clean_s"], 0)
        self.assertAlmostEqual(r["smr_io_s"], POS + 2 * MiB / 1e6)
        self.assertAlmostEqual(r["cmr_run_s"], POS + 2 * MiB / 1e6)

    def test_one_random_write_per_band_one_rmw_each(self):
        # 10 bands, one 4 KiB write inside each: 10 cached writes (the
        # cache is a log: one positioning, then appends), 10 RMWs at idle.
        t = "phase rnd\n" + "".join(
            "W meta_home %d 4096\n" % (n * BAND + 8192) for n in range(10))
        r, = run(t)
        self.assertEqual(r["cached"], 10 * 4096)
        self.assertEqual(r["dirty_bands"], 10)
        self.assertEqual(r["rmw_idle"], 10)
        self.assertEqual(r["rmw_forced"], 0)
        self.assertAlmostEqual(r["clean_s"], 10 * RMW)
        self.assertAlmostEqual(r["smr_io_s"], POS + 10 * T4K)
        self.assertAlmostEqual(r["smr_run_s"], r["smr_io_s"])
        self.assertAlmostEqual(r["cmr_run_s"], 10 * (POS + T4K))

    def test_two_writes_same_band_one_rmw(self):
        t = "phase two\nW meta_home 8192 4096\nW meta_home 65536 4096\n"
        r, = run(t)
        self.assertEqual((r["dirty_bands"], r["rmw_idle"]), (1, 1))

    def test_random_write_into_streamed_band(self):
        # A band streamed up to 64 KiB; a write elsewhere in it is random.
        t = "phase sr\nW journal 0 65536\nW meta_home 524288 4096\n"
        r, = run(t)
        self.assertEqual((r["direct"], r["cached"]), (65536, 4096))
        self.assertEqual(r["dirty_bands"], 1)

    def test_cache_overflow_forced_cleaning(self):
        # A cache of 8 pages; 20 random pages in 20 bands: the 12 writes
        # after the cache filled each force one RMW (the host waits), the
        # 8 bands left are cleaned at idle.
        t = "phase full\n" + "".join(
            "W meta_home %d 4096\n" % (n * BAND + 4096) for n in range(20))
        r, = run(t, cache=8 * 4096)
        self.assertEqual(r["rmw_forced"], 12)
        self.assertEqual(r["rmw_idle"], 8)
        io = POS + 8 * T4K + 12 * (POS + T4K)	# the RMW moves the head
        self.assertAlmostEqual(r["smr_io_s"], io)
        self.assertAlmostEqual(r["smr_run_s"], io + 12 * RMW)
        self.assertAlmostEqual(r["clean_s"], 20 * RMW)

    def test_idle_gap_cleans_what_fits(self):
        # 5 dirty bands; an idle gap of 1 s (delay) + 2.5 RMWs cleans 2;
        # the other 3 at the end of the phase.
        t = "phase idle\n" + "".join(
            "W meta_home %d 4096\n" % (n * BAND + 4096) for n in range(5))
        t += "idle %r\n" % (1.0 + 2.5 * RMW)
        r, = run(t)
        self.assertEqual((r["rmw_idle"], r["rmw_forced"]), (5, 0))
        m = smr_model.Model(dict(P, idle_clean=0))
        r, = m.run(t.splitlines())
        self.assertEqual((r["rmw_idle"], len(m.dirty)), (2, 3))

    def test_stream_not_at_band_start_is_cached(self):
        # A sequential run that starts inside a band (no stream there) goes
        # to the persistent cache; from the next band start it is direct.
        t = "phase mid\n" + "".join(
            "W data %d 65536\n" % (BAND // 2 + i * 65536) for i in range(16))
        r, = run(t)
        self.assertEqual(r["cached"], BAND // 2)
        self.assertEqual(r["direct"], BAND // 2)
        self.assertEqual(r["dirty_bands"], 1)

    def test_journal_alignment(self):
        # A circular 1.5-band log written twice in 64 KiB records.  Aligned
        # on a band: all direct, nothing to clean.  Starting half a band
        # in: the first half band goes to the cache on every pass, one RMW.
        def log(start):
            t = "phase log\n"
            for _ in range(2):
                for i in range(24):
                    t += "W journal %d 65536\n" % (start + i * 65536)
            return t
        r, = run(log(0))
        self.assertEqual((r["cached"], r["dirty_bands"]), (0, 0))
        r, = run(log(BAND // 2))
        self.assertEqual(r["cached"], 2 * BAND // 2)
        self.assertEqual((r["dirty_bands"], r["rmw_idle"]), (1, 1))

    def test_restarted_stream_needs_rescue(self):
        # A whole band streamed, then its first page rewritten (a journal
        # superblock) and later the start again: the second restart finds
        # the band's stream stopped short, the band needs one RMW.
        t = "phase jsb\n" + "".join(
            "W journal %d 65536\n" % (i * 65536) for i in range(16))
        t += "W journal 0 4096\n"
        r, = run(t)
        self.assertEqual(r["dirty_bands"], 0)
        r, = run(t + "W journal 0 4096\n")
        self.assertEqual(r["dirty_bands"], 1)

    def test_reads_cmr_seek_model(self):
        # seek(d) = 1 ms + 8 ms * sqrt(d / 1 GB), half a rotation 5 ms.
        p = dict(seek_min=0.001, seek_max=0.009, disk=1e9)
        t = ("phase rd\nR meta 0 4096\nR meta 250004096 4096\n"
             "R meta 250008192 4096\nR meta 0 4096\n")
        r, = run(t, **p)

        def seek(d):
            return 0.001 + 0.008 * (d / 1e9) ** 0.5
        want = (seek(1e9 / 3) + 0.005 + T4K		# first: unknown head
                + seek(250000000) + 0.005 + T4K	# from 4096 to 250004096
                + T4K)				# sequential; last: a hit
        self.assertAlmostEqual(r["cmr_run_s"], want)
        self.assertAlmostEqual(r["smr_io_s"], want)	# nothing cached
        self.assertEqual((r["r_bytes"], r["r_hits"]), (3 * 4096, 4096))

    def test_read_from_persistent_cache(self):
        # A cached page read back after a remount comes from the cache at
        # the outer diameter (position 0): seek(d) from the head's place.
        p = dict(seek_min=0.001, seek_max=0.009, disk=1e9, idle_clean=0)
        t = ("phase w\nW meta_home 500004096 4096\n"
             "phase r\nR meta 400000000 4096\nR meta 500004096 4096\n")
        w, r = run(t, **p)

        def seek(d):
            return 0.001 + 0.008 * (d / 1e9) ** 0.5
        # after the write the SMR head is in the cache log
        want = (seek(400000000) + 0.005 + T4K		# home copy
                + seek(400004096) + 0.005 + T4K)	# back to the cache
        self.assertAlmostEqual(r["smr_io_s"], want)
        # the CMR head stayed after its write, at 500008192
        self.assertAlmostEqual(r["cmr_run_s"],
                               seek(100008192) + 0.005 + T4K
                               + seek(100000000) + 0.005 + T4K)

    def test_timeline(self):
        # Two random writes in two bands, then a read after a remount: the
        # time line starts each request when the last one ended, puts the
        # end-of-phase cleaning (2 RMWs) between the phases, and leaves
        # out the page cache hit.
        t = ("phase a\nW meta_home 4096 4096\nW meta_home %d 4096\n"
             "phase b\nR meta 0 4096\nR meta 0 4096\n" % (BAND + 4096))
        m = smr_model.Model(P)
        m.timeline = []
        a, b = m.run(t.splitlines())
        tl = m.timeline
        self.assertEqual([r[0] for r in tl],
                         ["phase", "W", "W", "clean", "phase", "R"])
        self.assertEqual(tl[0], ("phase", "a", 0.0))
        self.assertEqual((tl[1][4], tl[2][4]), (0.0, POS + T4K))
        self.assertAlmostEqual(tl[3][1], a["smr_run_s"])
        self.assertAlmostEqual(tl[3][2], 2 * RMW)
        self.assertAlmostEqual(tl[4][2], a["smr_run_s"] + 2 * RMW)
        self.assertAlmostEqual(tl[5][4], tl[4][2])
        self.assertAlmostEqual(m.t, tl[4][2] + b["smr_run_s"])
        self.assertEqual(b["r_hits"], 4096)

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            run("W journal -1 4096\n")
        with self.assertRaises(ValueError):
            run("X journal 0 4096\n")
        with self.assertRaises(ValueError):
            smr_model.Model({"nosuch": 1})


if __name__ == "__main__":
    unittest.main()
