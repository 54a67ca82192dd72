"""Latency statistics shared by the voter, the sizing tool and the comparison."""

import math


def percentile(sorted_values, q):
    """Nearest-rank percentile (q in 0..100) of an already sorted list; None when empty."""
    if not sorted_values:
        return None
    rank = max(1, math.ceil(q / 100.0 * len(sorted_values)))
    return sorted_values[rank - 1]


def summary_us(latencies_ns):
    """p50, p99 and max in microseconds (rounded to 0.1), and the count."""
    values = sorted(latencies_ns)
    def us(v):
        return None if v is None else round(v / 1000.0, 1)
    return {
        "count": len(values),
        "p50_us": us(percentile(values, 50)),
        "p99_us": us(percentile(values, 99)),
        "max_us": us(values[-1] if values else None),
    }
