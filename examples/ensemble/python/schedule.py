"""The frame clock every ensemble process agrees on without talking to the others.

Frame n is released at n * period on the wall clock (nanoseconds since the epoch), like a camera
that fires on a fixed beat. Processes on one node read the same clock, so a model and the voter
agree on a frame's number and release time. The frame's content (and so its true class) follows
from its number, which lets the voter check the majority it decides.
"""

import time

CLASSES = 8  # prototype images a frame can show
VARIANTS = 8  # noisy versions of each prototype in the frame pool
POOL = CLASSES * VARIANTS


def release_ns(frame, period_ns):
    return frame * period_ns


def latest_released(now_ns, period_ns):
    """The newest frame already released at now_ns."""
    return now_ns // period_ns


def first_frame_at_or_after(t_ns, period_ns):
    return -(-t_ns // period_ns)


def pool_index(frame):
    """Which image of the frame pool frame n shows."""
    return frame % POOL


def true_class(frame):
    return pool_index(frame) // VARIANTS


def next_to_serve(expected, now_ns, period_ns):
    """The frame a model serves next, and how many it skips to get there.

    A model that has fallen behind takes the newest released frame, as a camera pipeline does,
    rather than working through stale ones; the skipped frames get no vote from it.
    """
    latest = latest_released(now_ns, period_ns)
    if latest > expected:
        return latest, latest - expected
    return expected, 0


def wait_for_frame_number(path):
    """The first frame of a run, from a file the run's starter writes once every model is warm."""
    while True:
        try:
            with open(path) as f:
                text = f.read().strip()
            if text:
                return int(text)
        except FileNotFoundError:
            pass
        time.sleep(0.01)
