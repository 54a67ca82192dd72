"""Choose a SliceClaim's size for your own model: its service time at several slice sizes, the
smallest slice whose p99 meets your deadline, and the p99 curve as a picture.

  sweep    on a cluster: for each size, a SliceClaim and a Job in your image that measures the
           model in that slice, one after another; then the report. Needs kubectl and a
           namespace where you may create SliceClaims, Jobs and a ConfigMap.
             python3 size_model.py sweep --image registry/you/model:1 --model /models/m.pt \\
               --input-shape 1x3x224x224 --deadline-ms 5 --sizes 8,16,24,32,48,64 --out sizing/
  measure  inside one slice (what each Job runs; or by hand in a pod of a Compute claim): runs
           the model --frames times, one release every --period-ms, and prints one JSON line
           with the slice's SMs and the service time's p50/p99/max (release to result on host)
  report   the table, the smallest slice whose p99 is within the deadline and the period, and
           with --svg the curve, from measure's lines (files or stdin)

Models (--model): TorchScript .pt, ExportedProgram .pt2, ONNX .onnx, torchvision:NAME, or
module:function returning (model, example_inputs); see load_model.py. Measure on the GPU model
you deploy on, with the GPU otherwise idle: neighbours change the curve (memory bandwidth and L2
are shared between slices).
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent / "ensemble" / "python"))  # a checkout; flat in the ConfigMap

import cluster_sweep  # noqa: E402
import curve_svg  # noqa: E402
import load_model  # noqa: E402
import schedule  # noqa: E402
import size_slice  # noqa: E402
import stats  # noqa: E402


def measure(o):
    run_once, how = load_model.step(o.model, load_model.parse_shapes(o.input_shape),
                                    o.precision, not o.no_graph)
    import torch
    period_ns = int(o.period_ms * 1e6)
    latencies = []
    first = schedule.latest_released(time.time_ns(), period_ns) + 2
    for i in range(o.warmup + o.frames):
        start = schedule.release_ns(first + i, period_ns)
        while time.time_ns() < start:
            pass
        start = max(start, time.time_ns())
        run_once()
        if i >= o.warmup:
            latencies.append(time.time_ns() - start)
    sms = o.sms or os.environ.get("SMSLICE_SMS", "all")
    row = {"model": o.label or o.model, "sms": int(sms) if str(sms).isdigit() else sms,
           "gpu": torch.cuda.get_device_name(0), "period_ms": o.period_ms, "how": how,
           "precision": o.precision}
    row.update(stats.summary_us(latencies))
    print(json.dumps(row), flush=True)
    return 0


def read_rows(names):
    rows = []
    for name in names or ["-"]:
        f = sys.stdin if name == "-" else open(name)
        rows += [json.loads(line) for line in f if line.strip().startswith("{")]
    return rows


def report(o):
    rows = read_rows(o.rows)
    if not rows:
        raise SystemExit("no measurements to report")
    text = report_text(rows, o.deadline_ms, o.period_ms)
    print(text)
    if o.svg:
        Path(o.svg).write_text(curve_svg.draw(rows, min(o.deadline_ms, o.period_ms)))
        print("curve: %s" % o.svg)
    return 0


def report_text(rows, deadline_ms, period_ms):
    """size_slice's table and choice per model, and a line a user can paste into a claim."""
    limit_ms = min(deadline_ms, period_ms)
    out = []
    for model in sorted({r["model"] for r in rows}):
        mine = [r for r in rows if r["model"] == model]
        best = size_slice.smallest_meeting(mine, limit_ms * 1000)
        out.append(size_slice.table(mine, limit_ms))
        if best is not None:
            out.append("claim: spec.sms: %d  (p99 within %.2f ms; rounded up to whole SM groups "
                       "of the GPU when bound)" % (best, limit_ms))
        else:
            out.append("claim: no measured size meets %.2f ms; measure larger slices or relax the "
                       "deadline" % limit_ms)
        out.append("")
    return "\n".join(out)


def sweep(o):
    sizes = cluster_sweep.parse_sizes(o.sizes)
    plan = cluster_sweep.Plan(namespace=o.namespace, image=o.image, model=o.model,
                              input_shape=o.input_shape, precision=o.precision,
                              memory=o.memory, period_ms=o.period_ms, frames=o.frames,
                              node=o.node, prefix=o.prefix)
    if o.dry_run:
        print(json.dumps(plan.configmap(cluster_sweep.tool_files(HERE)), indent=1))
        for n in sizes:
            print(json.dumps(plan.claim(n), indent=1))
            print(json.dumps(plan.job(n), indent=1))
        return 0
    out = Path(o.out)
    out.mkdir(parents=True, exist_ok=True)
    rows_file = out / "rows.jsonl"
    kubectl = cluster_sweep.Kubectl(o.namespace, o.kubectl)
    kubectl.apply(plan.configmap(cluster_sweep.tool_files(HERE)))
    with rows_file.open("a") as rows:
        for n in sizes:
            row = cluster_sweep.measure_one(kubectl, plan, n, o.timeout_s)
            print(json.dumps(row), file=rows, flush=True)
            print("%d SMs: p99 %s us" % (n, row["p99_us"]), flush=True)
    kubectl.delete("configmap", plan.configmap_name())
    rows = read_rows([str(rows_file)])
    text = report_text(rows, o.deadline_ms, o.period_ms)
    (out / "report.md").write_text(text + "\n")
    (out / "p99.svg").write_text(curve_svg.draw(rows, min(o.deadline_ms, o.period_ms)))
    print(text)
    print("rows: %s, curve: %s" % (rows_file, out / "p99.svg"))
    return 0


def options(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="step", required=True)

    def model_args(a):
        a.add_argument("--model", required=True, help="the model spec (see above)")
        a.add_argument("--input-shape", help="e.g. 1x3x224x224; several inputs: 1x128,1x128")
        a.add_argument("--precision", default="float16", choices=load_model.PRECISIONS)
        a.add_argument("--period-ms", type=float, default=5.0,
                       help="one request every this many ms (your traffic's rate)")
        a.add_argument("--frames", type=int, default=1000)

    m = sub.add_parser("measure", help="measure the model in this process's slice")
    model_args(m)
    m.add_argument("--warmup", type=int, default=50)
    m.add_argument("--no-graph", action="store_true", help="time eager runs, no CUDA graph")
    m.add_argument("--sms", help="the SMs of the claim this runs in (a label for the report)")
    m.add_argument("--label", help="the model's name in the report (default: the spec)")

    r = sub.add_parser("report", help="the table, the smallest slice that fits, the curve")
    r.add_argument("--deadline-ms", type=float, required=True)
    r.add_argument("--period-ms", type=float, default=5.0)
    r.add_argument("--svg", help="write the p99 curve here")
    r.add_argument("rows", nargs="*", help="files of measure's JSON lines (default: stdin)")

    s = sub.add_parser("sweep", help="measure each slice size on the cluster, then report")
    model_args(s)
    s.add_argument("--image", required=True, help="your model's image (python3 and torch in it)")
    s.add_argument("--deadline-ms", type=float, required=True)
    s.add_argument("--sizes", default="8,16,24,32,48,64")
    s.add_argument("--memory", default="8Gi", help="each claim's spec.memory")
    s.add_argument("--namespace", default="default")
    s.add_argument("--node", help="measure on this node (its GPU otherwise idle)")
    s.add_argument("--prefix", default="sizing", help="names of the claims and Jobs")
    s.add_argument("--timeout-s", type=int, default=900, help="per size")
    s.add_argument("--out", default="sizing")
    s.add_argument("--kubectl", default="kubectl", help="the kubectl to run")
    s.add_argument("--dry-run", action="store_true",
                   help="print the ConfigMap, claims and Jobs instead of creating them")
    return p.parse_args(argv)


def main(argv):
    o = options(argv)
    try:
        return {"measure": measure, "report": report, "sweep": sweep}[o.step](o)
    except (load_model.ModelSpecError, cluster_sweep.SweepError) as e:
        print("size_model: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
