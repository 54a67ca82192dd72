"""Co-tenant progress: one line `<wall-clock ns> <units>` per finished step in a log file (the
comparison counts the steps inside its measuring window), and a rate on stdout every few
seconds (what a Deployment's logs show)."""

import time


class Progress:
    def __init__(self, log_path, unit, every_s=5.0):
        self.log = open(log_path, "a", buffering=1) if log_path else None
        self.unit, self.every_ns = unit, int(every_s * 1e9)
        self.since, self.count = time.time_ns(), 0.0

    def step(self, units=1.0):
        now = time.time_ns()
        if self.log:
            self.log.write("%d %g\n" % (now, units))
        self.count += units
        if now - self.since >= self.every_ns:
            print("%.1f %s/s" % (self.count * 1e9 / (now - self.since), self.unit), flush=True)
            self.since, self.count = now, 0.0


def rate_in_window(lines, start_ns, end_ns):
    """Units per second finished inside [start_ns, end_ns], from a progress log's lines."""
    total = 0.0
    for line in lines:
        parts = line.split()
        if len(parts) == 2 and start_ns <= int(parts[0]) <= end_ns:
            total += float(parts[1])
    return total * 1e9 / (end_ns - start_ns)
