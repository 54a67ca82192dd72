"""Size a model's slice from measurement: its latency against the number of SMs it may use,
and the smallest slice whose p99 meets the deadline. Run it alone on the GPU you will deploy on.

Each SM count is a green context made in this process with PyTorch's own green-context API
(torch.cuda.green_contexts), which confines the model's kernels to that many SMs, as a
smslice Compute claim of that size does from outside the program. The model is served as in the
ensemble (serve_model.py: calibrated, a CUDA graph per SM count), one frame per period; the
latency is the service time, from the moment a frame can start (its release, or the previous
frame's end if that was later) to its class on the host. A slice fits when that p99 is within
the deadline and the period (else frames queue up). SM counts are rounded by the driver to its
partition size (8 on an H200); ask for multiples of it.

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


def smallest_meeting(rows, limit_us):
    """The smallest SM count whose p99 is within limit_us, or None."""
    fits = [r["sms"] for r in rows
            if r["sms"] != "all" and r["p99_us"] is not None and r["p99_us"] <= limit_us]
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
    import serve_model
    device = torch.device("cuda")
    torch.backends.cudnn.benchmark = True
    prototypes, pool = frames.pool()
    model = models.build(o.model, o.seed).to(device)
    models.calibrate(model, prototypes.to(device, torch.float32))
    model = model.to(torch.float16)
    period_ns = int(o.period_ms * 1e6)
    sm_total = torch.cuda.get_device_properties(device).multi_processor_count

    def serve(n, stream=None):
        # Captured on a stream of the green context, so the graph's kernels run there.
        classify = serve_model.graph_classifier(torch, model, pool, device, stream)
        latencies = []
        first = schedule.latest_released(time.time_ns(), period_ns) + 2
        for i in range(o.warmup + n):
            start = schedule.release_ns(first + i, period_ns)
            while time.time_ns() < start:
                pass
            start = max(start, time.time_ns())
            classify(i % schedule.POOL)
            if i >= o.warmup:
                latencies.append(time.time_ns() - start)
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
                latencies = serve(o.frames, ctx.Stream())
            finally:
                leave()
        row = {"sms": c if c == "all" else int(c)}
        row.update(stats.summary_us(latencies))
        rows.append(row)
        print("%s: %s SMs p50 %.1f us, p99 %.1f us, max %.1f us"
              % (o.model, c, row["p50_us"], row["p99_us"], row["max_us"]), flush=True)
    best = smallest_meeting(rows, min(o.deadline_ms, o.period_ms) * 1000)
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
