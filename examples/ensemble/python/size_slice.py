"""Size a model's slice from measurement: its latency against the number of SMs it may use,
and the smallest slice whose p99 meets the deadline. Run it alone on the GPU you will deploy on.

Each SM count is a green context made in this process with PyTorch's own green-context API
(torch.cuda.green_contexts), which confines the model's kernels to that many SMs, as a
smslice Compute claim of that size does from outside the program. Frames are served at the
period, as in the ensemble. SM counts are rounded by the driver to its partition size (8 on an
H200); ask for multiples of it.

  python3 size_slice.py --model resnet18 --deadline-ms 5 --sms 8,16,24,32,48,64,all
"""

import argparse
import json
import sys
import time

import schedule
import stats


def options(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True)
    p.add_argument("--deadline-ms", type=float, required=True)
    p.add_argument("--period-ms", type=float, default=5.0)
    p.add_argument("--sms", default="8,16,24,32,48,64,all",
                   help="SM counts to try; 'all' is the whole GPU without a green context")
    p.add_argument("--frames", type=int, default=1000, help="frames per SM count")
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--json", help="write the table here as well")
    return p.parse_args(argv)


def smallest_meeting(rows, deadline_us):
    """The smallest SM count whose p99 meets the deadline, or None."""
    fits = [r["sms"] for r in rows
            if r["sms"] != "all" and r["p99_us"] is not None and r["p99_us"] <= deadline_us]
    return min(fits) if fits else None


def main(argv):
    o = options(argv)
    counts = [c.strip() for c in o.sms.split(",") if c.strip()]
    for c in counts:
        if c != "all" and not c.isdigit():
            raise SystemExit("--sms takes numbers and 'all', got %r" % c)
    import torch
    from torch.cuda import green_contexts

    import frames
    import models
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    model = models.build(o.model, o.seed).to(device=device, dtype=torch.float16).eval()
    prototypes, pool = frames.pool()
    models.fit_head(model, prototypes.to(device))
    period_ns = int(o.period_ms * 1e6)
    sm_total = torch.cuda.get_device_properties(device).multi_processor_count

    @torch.inference_mode()
    def serve(n):
        latencies = []
        start = schedule.latest_released(time.time_ns(), period_ns) + 2
        for i in range(o.warmup + n):
            release = schedule.release_ns(start + i, period_ns)
            while time.time_ns() < release:
                pass
            x = pool[i % schedule.POOL:i % schedule.POOL + 1].to(device, non_blocking=True)
            model(x).argmax(1).item()
            if i >= o.warmup:
                latencies.append(time.time_ns() - release)
        return latencies

    rows = []
    for c in counts:
        if c == "all":
            latencies = serve(o.frames)
        else:
            ctx = green_contexts.GreenContext.create(int(c), 0)
            # The method names changed across PyTorch releases.
            enter = getattr(ctx, "set_context", None) or ctx.make_current
            leave = getattr(ctx, "pop_context", None) or ctx.pop_current
            enter()
            try:
                latencies = serve(o.frames)
            finally:
                leave()
        row = {"sms": c if c == "all" else int(c)}
        row.update(stats.summary_us(latencies))
        rows.append(row)
        print("%s: %s SMs p50 %.1f us, p99 %.1f us, max %.1f us"
              % (o.model, c, row["p50_us"], row["p99_us"], row["max_us"]), flush=True)
    best = smallest_meeting(rows, o.deadline_ms * 1000)
    result = {"model": o.model, "gpu": torch.cuda.get_device_name(device), "gpu_sms": sm_total,
              "deadline_ms": o.deadline_ms, "period_ms": o.period_ms, "frames": o.frames,
              "rows": rows, "smallest_meeting_deadline": best}
    print("%s: smallest slice with p99 within %.2f ms: %s"
          % (o.model, o.deadline_ms, "%d SMs" % best if best else "none of those tried"),
          flush=True)
    if o.json:
        with open(o.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
