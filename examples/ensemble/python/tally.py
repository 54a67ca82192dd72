"""The voter's bookkeeping for a block of consecutive frames: votes in, decisions and misses out.

A vote counts for a frame's decision only when it reaches the voter by the frame's release time
plus the deadline; a later vote is recorded as late (its latency still counts in the model's
percentiles). A frame is decided on time when a strict majority of the models voted on time (the
deadline behaviour the comparison measures); its decision is the class a strict majority of the
models gave on time, and a frame whose on-time votes name no such class counts as a
disagreement. This module needs no GPU and no torch, so it is tested on its own.
"""

import schedule
import stats


class Tally:
    def __init__(self, models, period_ns, deadline_ns, first_frame, frames):
        if not models:
            raise ValueError("the ensemble needs at least one model")
        if period_ns <= 0 or deadline_ns <= 0 or frames <= 0:
            raise ValueError("period, deadline and frame count must be positive")
        self.models = list(models)
        self.period_ns = period_ns
        self.deadline_ns = deadline_ns
        self.first = first_frame
        self.frames = frames
        self.votes = {}  # frame -> {model: (vote, latency_ns, late)}
        self.ignored = 0  # votes for frames outside the block or from unknown models
        self.duplicates = 0

    @property
    def last(self):
        return self.first + self.frames - 1

    def closes_at_ns(self, grace_ns):
        """When the last frame's deadline plus a grace period has passed: later votes are lost."""
        return schedule.release_ns(self.last, self.period_ns) + self.deadline_ns + grace_ns

    def vote(self, model, frame, vote, latency_ns, arrival_ns):
        if model not in self.models or not self.first <= frame <= self.last:
            self.ignored += 1
            return
        per_frame = self.votes.setdefault(frame, {})
        if model in per_frame:
            self.duplicates += 1
            return
        late = arrival_ns > schedule.release_ns(frame, self.period_ns) + self.deadline_ns
        per_frame[model] = (vote, latency_ns, late)

    def record(self, model, frame, vote, latency_ns, late):
        """A vote whose lateness was judged already (votes read back from a CSV)."""
        arrival = schedule.release_ns(frame, self.period_ns) + (
            self.deadline_ns + 1 if late else 0)
        self.vote(model, frame, vote, latency_ns, arrival)

    def on_time(self, frame):
        return sum(not late for _, _, late in self.votes.get(frame, {}).values())

    def decision(self, frame):
        """The class a strict majority voted for on time, or None."""
        counts = {}
        for vote, _, late in self.votes.get(frame, {}).values():
            if not late:
                counts[vote] = counts.get(vote, 0) + 1
        needed = len(self.models) // 2 + 1
        for vote, n in counts.items():
            if n >= needed:
                return vote
        return None

    def summary(self):
        per_model = {}
        for model in self.models:
            latencies, late = [], 0
            for frame_votes in self.votes.values():
                if model in frame_votes:
                    _, latency_ns, was_late = frame_votes[model]
                    latencies.append(latency_ns)
                    late += was_late
            missing = self.frames - len(latencies)
            entry = stats.summary_us(latencies)
            entry.update(
                late_votes=late,
                missing_votes=missing,
                misses=late + missing,
                miss_rate=round((late + missing) / self.frames, 6),
            )
            per_model[model] = entry
        needed = len(self.models) // 2 + 1
        decided = disagreed = correct = 0
        for frame in range(self.first, self.last + 1):
            if self.on_time(frame) < needed:
                continue
            decided += 1
            d = self.decision(frame)
            if d is None:
                disagreed += 1
            else:
                correct += d == schedule.true_class(frame)
        return {
            "frames": self.frames,
            "first_frame": self.first,
            "models": per_model,
            "ensemble": {
                "decided_on_time": decided,
                "undecided": self.frames - decided,
                "miss_rate": round((self.frames - decided) / self.frames, 6),
                "decided_correctly": correct,
                "on_time_but_disagreeing": disagreed,
            },
            "ignored_votes": self.ignored,
            "duplicate_votes": self.duplicates,
        }

    def rows(self):
        """Per-frame rows (frame, model, vote, latency_us, late) in frame order, for a CSV."""
        for frame in sorted(self.votes):
            for model in self.models:
                if model in self.votes[frame]:
                    vote, latency_ns, late = self.votes[frame][model]
                    yield frame, model, vote, round(latency_ns / 1000.0, 1), int(late)
