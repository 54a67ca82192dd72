"""The ensemble's voter: takes every model's vote per frame, decides by majority within the
deadline, and reports per-model p50/p99/max latency, late and missing votes, and the frames the
ensemble failed to decide in time.

Two modes. With --first-frame (the comparison runs): one block of --frames frames, then the
summary (JSON) and the per-frame votes (CSV) are written and the voter exits. Without it (a
Deployment): consecutive blocks of --frames frames from the next frame on, one summary line per
block on stdout, until stopped.
"""

import argparse
import csv
import json
import socket
import sys
import time

import channel
import schedule
from tally import Tally


def options(argv):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--listen", required=True, help="unix:/path or udp:host:port")
    p.add_argument("--models", required=True, help="comma-separated model names")
    p.add_argument("--period-ms", type=float, default=5.0)
    p.add_argument("--deadline-ms", type=float, default=5.0)
    p.add_argument("--frames", type=int, default=2000, help="frames per block")
    p.add_argument("--first-frame", type=int, help="one block from this frame, then exit")
    p.add_argument("--start-file",
                   help="like --first-frame, with the frame read from this file once it appears")
    p.add_argument("--grace-ms", type=float, default=1000.0,
                   help="how long after a block's last deadline late votes are still recorded")
    p.add_argument("--csv", help="per-frame votes (one block mode)")
    p.add_argument("--summary", help="summary JSON (one block mode)")
    return p.parse_args(argv)


class Blocks:
    """Open blocks of frames keyed by their index; a block closes once its grace has passed."""

    def __init__(self, models, period_ns, deadline_ns, origin, frames, single):
        self.models, self.period_ns, self.deadline_ns = models, period_ns, deadline_ns
        self.origin, self.frames, self.single = origin, frames, single
        self.open = {}
        self.next_to_close = 0
        self.lost = 0  # votes for blocks already closed

    def tally_for(self, frame):
        index = 0 if self.single else (frame - self.origin) // self.frames
        if index < self.next_to_close or frame < self.origin:
            return None
        if index not in self.open:
            first = self.origin + index * self.frames
            self.open[index] = Tally(self.models, self.period_ns, self.deadline_ns, first,
                                     self.frames)
        return self.open[index]

    def due(self, now_ns, grace_ns):
        """Blocks whose grace has passed, oldest first, removed from the open set."""
        closed = []
        while True:
            index = self.next_to_close
            first = self.origin + index * self.frames
            t = self.open.get(index) or Tally(self.models, self.period_ns, self.deadline_ns,
                                              first, self.frames)
            if now_ns < t.closes_at_ns(grace_ns):
                return closed
            self.open.pop(index, None)
            self.next_to_close += 1
            closed.append(t)


def main(argv):
    o = options(argv)
    models = [m for m in o.models.split(",") if m]
    period_ns = int(o.period_ms * 1e6)
    deadline_ns = int(o.deadline_ms * 1e6)
    grace_ns = int(o.grace_ms * 1e6)
    sock = channel.listen(o.listen)  # before waiting, so no model finds it missing
    if o.start_file:
        o.first_frame = schedule.wait_for_frame_number(o.start_file)
    single = o.first_frame is not None
    origin = (o.first_frame if single
              else schedule.first_frame_at_or_after(time.time_ns(), period_ns) + 1)
    blocks = Blocks(models, period_ns, deadline_ns, origin, o.frames, single)
    sock.settimeout(0.05)
    ended = set()
    print("voter: listening on %s for %s, period %.3f ms, deadline %.3f ms, from frame %d"
          % (o.listen, ",".join(models), o.period_ms, o.deadline_ms, origin), flush=True)
    while True:
        try:
            data = sock.recv(256)
            arrival = time.time_ns()
            msg = channel.decode(data)
            if msg[0] == "vote":
                _, model, frame, vote, latency_ns = msg
                t = blocks.tally_for(frame)
                if t is None:
                    blocks.lost += 1
                else:
                    t.vote(model, frame, vote, latency_ns, arrival)
            else:
                ended.add(msg[1])
                print("voter: %s stopped after %d frames served, %d skipped"
                      % (msg[1], msg[2], msg[3]), flush=True)
        except socket.timeout:
            pass
        except ValueError as e:
            print("voter: dropped a malformed message: %s" % e, file=sys.stderr, flush=True)
        now = time.time_ns()
        if single and ended >= set(models) and 0 in blocks.open:
            return finish(blocks.open.pop(0), o)
        for t in blocks.due(now, grace_ns):
            if single:
                return finish(t, o)
            print("voter: " + json.dumps(t.summary(), sort_keys=True), flush=True)


def finish(t, o):
    summary = t.summary()
    text = json.dumps(summary, indent=2, sort_keys=True)
    print(text, flush=True)
    if o.summary:
        with open(o.summary, "w") as f:
            f.write(text + "\n")
    if o.csv:
        with open(o.csv, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["frame", "model", "vote", "latency_us", "late"])
            w.writerows(t.rows())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
