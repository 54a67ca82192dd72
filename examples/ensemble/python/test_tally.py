"""Tests of the pipeline logic that needs no GPU: the frame clock, the vote tally, the channel,
the voter process end to end over a Unix socket, and the co-tenant's throughput window."""

import json
import os
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

import channel
import progress
import schedule
import size_slice
import stats
from tally import Tally

MS = 1_000_000
HERE = Path(__file__).resolve().parent


class ScheduleTest(unittest.TestCase):
    def test_frames_are_released_on_the_period(self):
        self.assertEqual(schedule.release_ns(10, 5 * MS), 50 * MS)
        self.assertEqual(schedule.latest_released(54 * MS, 5 * MS), 10)
        self.assertEqual(schedule.first_frame_at_or_after(50 * MS, 5 * MS), 10)
        self.assertEqual(schedule.first_frame_at_or_after(50 * MS + 1, 5 * MS), 11)

    def test_a_model_behind_takes_the_newest_frame(self):
        self.assertEqual(schedule.next_to_serve(10, 49 * MS, 5 * MS), (10, 0))
        self.assertEqual(schedule.next_to_serve(10, 51 * MS, 5 * MS), (10, 0))
        self.assertEqual(schedule.next_to_serve(10, 66 * MS, 5 * MS), (13, 3))

    def test_frame_content_cycles_through_the_classes(self):
        self.assertEqual(schedule.true_class(0), 0)
        self.assertEqual(schedule.true_class(schedule.VARIANTS), 1)
        self.assertEqual(schedule.true_class(schedule.POOL + schedule.VARIANTS * 3 + 1), 3)


class StatsTest(unittest.TestCase):
    def test_nearest_rank_percentiles(self):
        values = list(range(1, 101))
        self.assertEqual(stats.percentile(values, 50), 50)
        self.assertEqual(stats.percentile(values, 99), 99)
        self.assertEqual(stats.percentile([7], 99), 7)
        self.assertIsNone(stats.percentile([], 50))
        s = stats.summary_us([3000, 1000, 2000])
        self.assertEqual((s["p50_us"], s["p99_us"], s["max_us"], s["count"]), (2.0, 3.0, 3.0, 3))


class TallyTest(unittest.TestCase):
    def tally(self):
        return Tally(["a", "b", "c"], 5 * MS, 4 * MS, first_frame=100, frames=4)

    def test_majority_on_time_decides_and_late_votes_do_not_count(self):
        t = self.tally()
        r = schedule.release_ns
        cls = schedule.true_class
        # frame 100: all three on time and agreeing
        for m in "abc":
            t.vote(m, 100, cls(100), 1 * MS, r(100, 5 * MS) + 1 * MS)
        # frame 101: a on time, b late, c missing -> no majority on time
        t.vote("a", 101, cls(101), 1 * MS, r(101, 5 * MS) + 1 * MS)
        t.vote("b", 101, cls(101), 6 * MS, r(101, 5 * MS) + 6 * MS)
        # frame 102: two on time but disagreeing, third on time with one of them
        t.vote("a", 102, 5, 1 * MS, r(102, 5 * MS) + 1 * MS)
        t.vote("b", 102, 6, 1 * MS, r(102, 5 * MS) + 1 * MS)
        t.vote("c", 102, 6, 1 * MS, r(102, 5 * MS) + 4 * MS)  # exactly at the deadline: on time
        self.assertEqual(t.decision(100), cls(100))
        self.assertIsNone(t.decision(101))
        self.assertEqual(t.decision(102), 6)
        self.assertIsNone(t.decision(103))
        s = t.summary()
        self.assertEqual(s["ensemble"]["decided_on_time"], 2)
        self.assertEqual(s["ensemble"]["undecided"], 2)
        self.assertEqual(s["ensemble"]["decided_correctly"], 1 + (cls(102) == 6))
        self.assertEqual(s["ensemble"]["on_time_but_disagreeing"], 0)
        self.assertEqual(s["models"]["b"]["late_votes"], 1)
        self.assertEqual(s["models"]["b"]["missing_votes"], 1)
        self.assertEqual(s["models"]["b"]["misses"], 2)
        self.assertEqual(s["models"]["c"]["missing_votes"], 2)
        self.assertEqual(s["models"]["a"]["miss_rate"], 0.25)
        self.assertEqual(s["models"]["b"]["max_us"], 6000.0)

    def test_on_time_votes_that_disagree_decide_in_time_but_name_no_class(self):
        t = self.tally()
        for m, vote in zip("abc", (1, 2, 3)):
            t.vote(m, 100, vote, MS, schedule.release_ns(100, 5 * MS))
        t.record("a", 101, 1, MS, late=False)
        t.record("b", 101, 1, 5 * MS, late=True)
        self.assertIsNone(t.decision(100))
        e = t.summary()["ensemble"]
        self.assertEqual((e["decided_on_time"], e["on_time_but_disagreeing"]), (1, 1))
        self.assertEqual(t.summary()["models"]["b"]["late_votes"], 1)

    def test_votes_outside_the_block_or_repeated_are_not_counted(self):
        t = self.tally()
        t.vote("a", 99, 0, MS, 0)
        t.vote("a", 104, 0, MS, 0)
        t.vote("z", 100, 0, MS, 0)
        t.vote("a", 100, 0, MS, 0)
        t.vote("a", 100, 1, MS, 0)
        s = t.summary()
        self.assertEqual((s["ignored_votes"], s["duplicate_votes"]), (3, 1))
        self.assertEqual(list(t.rows()), [(100, "a", 0, 1000.0, 0)])

    def test_bad_blocks_are_refused(self):
        with self.assertRaises(ValueError):
            Tally([], MS, MS, 0, 1)
        with self.assertRaises(ValueError):
            Tally(["a"], MS, MS, 0, 0)


class ChannelTest(unittest.TestCase):
    def test_messages_round_trip(self):
        self.assertEqual(channel.decode(channel.vote_line("vit", 12, 3, 4567).encode()),
                         ("vote", "vit", 12, 3, 4567))
        self.assertEqual(channel.decode(channel.end_line("vit", 10, 2).encode()),
                         ("end", "vit", 10, 2))
        with self.assertRaises(ValueError):
            channel.decode(b"vote vit twelve 3 4")
        with self.assertRaises(ValueError):
            channel.decode(b"hello")

    def test_addresses(self):
        self.assertEqual(channel.parse("udp:voter:8080")[1], ("voter", 8080))
        self.assertEqual(channel.parse("unix:/run/v.sock")[1], "/run/v.sock")
        for bad in ("voter:8080", "udp:voter", "unix:", "tcp:x:1"):
            with self.assertRaises(ValueError):
                channel.parse(bad)


class VoterProcessTest(unittest.TestCase):
    def test_the_voter_tallies_votes_sent_over_a_unix_socket(self):
        with tempfile.TemporaryDirectory() as d:
            sock, start = os.path.join(d, "v.sock"), os.path.join(d, "first")
            summary, votes = os.path.join(d, "s.json"), os.path.join(d, "v.csv")
            period = 100 * MS  # deadline 50 ms: a slow test machine does not make votes late
            voter = subprocess.Popen(
                [sys.executable, str(HERE / "voter.py"), "--listen", "unix:" + sock,
                 "--models", "a,b,c", "--period-ms", "100", "--deadline-ms", "50",
                 "--frames", "3", "--start-file", start, "--summary", summary, "--csv", votes],
                stdout=subprocess.DEVNULL)
            try:
                for _ in range(200):
                    if os.path.exists(sock):
                        break
                    time.sleep(0.01)
                first = schedule.latest_released(time.time_ns(), period) + 2
                with open(start, "w") as f:
                    f.write(str(first))
                sender = channel.Sender("unix:" + sock)
                while time.time_ns() < schedule.release_ns(first + 2, period):
                    time.sleep(0.001)
                for frame in range(first, first + 3):
                    for m in "ab":  # c never votes
                        sender.send(channel.vote_line(m, frame, schedule.true_class(frame), MS))
                for m in "abc":
                    sender.send(channel.end_line(m, 3, 0))
                sender.close()
                self.assertEqual(voter.wait(10), 0)
            finally:
                voter.kill()
            s = json.loads(Path(summary).read_text())
            # Frames first and first+1 had passed their deadline when the votes were sent.
            self.assertEqual(s["models"]["a"]["late_votes"], 2)
            self.assertEqual(s["models"]["c"]["missing_votes"], 3)
            self.assertEqual(s["ensemble"]["decided_on_time"], 1)
            self.assertEqual(s["ensemble"]["decided_correctly"], 1)
            self.assertEqual(len(Path(votes).read_text().splitlines()), 1 + 6)


class ProgressTest(unittest.TestCase):
    def test_rate_counts_only_steps_inside_the_window(self):
        lines = ["%d 1" % t for t in (0, 5 * 10**8, 10**9, 15 * 10**8, 3 * 10**9)] + ["junk"]
        self.assertAlmostEqual(progress.rate_in_window(lines, 4 * 10**8, 24 * 10**8), 1.5)


class SizeSliceTest(unittest.TestCase):
    def test_the_smallest_slice_whose_p99_fits_is_chosen_and_the_whole_gpu_is_not_a_slice(self):
        rows = [{"sms": 8, "p99_us": 5200.0}, {"sms": 24, "p99_us": 1500.0},
                {"sms": 16, "p99_us": 4900.0}, {"sms": "all", "p99_us": 900.0}]
        self.assertEqual(size_slice.smallest_meeting(rows, 5000), 16)
        self.assertEqual(size_slice.smallest_meeting(rows, 2000), 24)
        self.assertIsNone(size_slice.smallest_meeting(rows, 800))


if __name__ == "__main__":
    unittest.main()
