"""Size a model's slice from measurement: its latency against the number of SMs it may use, and
the smallest slice that meets the deadline. Two steps:

  measure   run inside a slice (a pod of a Compute claim, or any process with the interposer and a
            claim's environment): serves --frames frames alone, one per period, exactly as
            serve_model.py does (calibrated, CUDA graph), and prints one JSON line with the SMs of
            its slice (--sms, else SMSLICE_SMS, else "all") and the service time's p50/p99/max:
            from the moment a frame can start (its release, or the previous frame's end if that
            was later) to its class on the host.
  report    reads those lines (files or stdin) and prints the table and the smallest slice whose
            p99 is within both the deadline and the period (a slower model queues up frames).

  python3 size_slice.py measure --model resnet18 --sms 16 >> rows.jsonl   # once per slice size
  python3 size_slice.py report --deadline-ms 5 --period-ms 5 rows.jsonl

Measure on the GPU model you deploy on, with nothing else running on it; slice sizes are
multiples of the GPU's minimum partition (8 SMs on an H200).
"""

import argparse
import json
import os
import sys
import time

import schedule
import stats


def measure(o):
    import torch

    import frames
    import models
    import serve_model
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    prototypes, pool = frames.pool()
    model = models.build(o.model, o.seed).to(device)
    models.calibrate(model, prototypes.to(device, torch.float32))
    model = model.to(torch.float16)
    classify = serve_model.graph_classifier(torch, model, pool, device)
    period_ns = int(o.period_ms * 1e6)
    latencies = []
    first = schedule.latest_released(time.time_ns(), period_ns) + 2
    for i in range(o.warmup + o.frames):
        start = schedule.release_ns(first + i, period_ns)
        while time.time_ns() < start:
            pass
        start = max(start, time.time_ns())
        classify(i % schedule.POOL)
        if i >= o.warmup:
            latencies.append(time.time_ns() - start)
    sms = o.sms or os.environ.get("SMSLICE_SMS", "all")
    row = {"model": o.model, "sms": int(sms) if sms.isdigit() else sms,
           "gpu": torch.cuda.get_device_name(device), "period_ms": o.period_ms}
    row.update(stats.summary_us(latencies))
    print(json.dumps(row), flush=True)
    return 0


def smallest_meeting(rows, limit_us):
    """The smallest SM count whose p99 is within limit_us, or None."""
    fits = [r["sms"] for r in rows
            if isinstance(r["sms"], int) and r["p99_us"] is not None and r["p99_us"] <= limit_us]
    return min(fits) if fits else None


def table(rows, limit_ms):
    """One model's rows as a markdown table, smallest slice first, and the smallest that fits."""
    mine = sorted(rows, key=lambda r: (not isinstance(r["sms"], int),
                                       r["sms"] if isinstance(r["sms"], int) else 0))
    out = ["%s on %s, service time per frame (us):" % (mine[0]["model"], mine[0]["gpu"]),
           "| SMs | p50 | p99 | max | frames |",
           "|---|---|---|---|---|"]
    for r in mine:
        out.append("| %s | %s | %s | %s | %s |"
                   % (r["sms"], r["p50_us"], r["p99_us"], r["max_us"], r["count"]))
    best = smallest_meeting(mine, limit_ms * 1000)
    out.append("smallest slice with p99 within %.2f ms: %s" % (
        limit_ms, "%d SMs" % best if best else "none of those measured"))
    return "\n".join(out)


def report(o):
    rows = []
    for name in o.rows or ["-"]:
        f = sys.stdin if name == "-" else open(name)
        rows += [json.loads(line) for line in f if line.strip().startswith("{")]
    if not rows:
        raise SystemExit("no measurements to report")
    limit_ms = min(o.deadline_ms, o.period_ms)
    out = []
    for model in sorted({r["model"] for r in rows}):
        out.append(table([r for r in rows if r["model"] == model], limit_ms))
        out.append("")
    print("\n".join(out))
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="step", required=True)
    m = sub.add_parser("measure", help="measure this process's slice")
    m.add_argument("--model", required=True)
    m.add_argument("--period-ms", type=float, default=5.0)
    m.add_argument("--frames", type=int, default=1000)
    m.add_argument("--warmup", type=int, default=50)
    m.add_argument("--seed", type=int, default=7)
    m.add_argument("--sms", help="the SMs of the claim this runs in (a label for the report)")
    r = sub.add_parser("report", help="the table and the smallest slice that fits")
    r.add_argument("--deadline-ms", type=float, required=True)
    r.add_argument("--period-ms", type=float, default=5.0)
    r.add_argument("rows", nargs="*", help="files of measure's JSON lines (default: stdin)")
    o = p.parse_args(argv)
    return measure(o) if o.step == "measure" else report(o)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
