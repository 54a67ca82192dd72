"""Tables of run-guard-on-gpu.sh's phases (markdown on stdout).
Usage: guard_report.py PHASES TELEMETRY_CSV TELEMETRY_PY GUARD_REPORT"""
import os
import statistics
import subprocess
import sys

phases_file, telemetry_csv, telemetry_py, guard_report = sys.argv[1:5]


def kv(words):
    return dict(w.split("=", 1) for w in words if "=" in w)


rows = []
for line in open(phases_file):
    words = line.split()
    if len(words) < 4:
        continue
    label, kind, state, nlog = words[:4]
    rows.append({"label": label, "kind": kind, "guard": state, "nlog": nlog, **kv(words[4:])})


def telemetry(r):
    if not os.path.exists(telemetry_csv) or "start" not in r:
        return "- | - | - | - | not recorded"
    return subprocess.run([sys.executable, telemetry_py, telemetry_csv, r["start"], r["end"]],
                          capture_output=True, text=True).stdout.strip()


def per_second(r, column):
    """A column of the neighbour's log (steps, CPU seconds) per wall second inside the row's
    window."""
    if r["nlog"] == "-" or not os.path.exists(r["nlog"]):
        return None
    start, end = float(r["start"]), float(r["end"])
    points = []
    for line in open(r["nlog"]):
        w = line.split()
        if len(w) > column and start <= float(w[1]) <= end:
            points.append((float(w[1]), float(w[column])))
    if len(points) < 2:
        return None
    return (points[-1][1] - points[0][1]) / (points[-1][0] - points[0][0])


def rate(r):
    """The neighbour's steps per second inside the row's window, from its log."""
    return per_second(r, 2)


def f(v, fmt="{:.3f}"):
    return "-" if v is None else fmt.format(v)


def guard_name(s):
    if s == "1@0":
        return "on, the depth alone"
    if s.startswith("1@"):
        inflight, _, ahead = s[2:].partition("@")
        closing = f", closing {ahead} ms ahead" if ahead and float(ahead) > 0 else ""
        return f"on, {inflight} ms in flight{closing}"
    return {"0": "off", "1": "on", "-": "-"}[s]


alone = [r for r in rows if r["label"] == "alone"]
alone_off_p99 = [float(r["p99_ms"]) for r in alone if r["guard"] == "0"]
base_p99 = statistics.median(alone_off_p99) if alone_off_p99 else None

if alone:
    print("## 1. The victim alone (16-SM claim, one frame every PERIOD_MS), guard off and on")
    print()
    print("| phase | guard | p50 ms | p99 ms | p99.9 ms | max ms | host wall p50 ms | SM MHz | mem MHz | power W mean (max) | temp C | clock-event reasons |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in alone:
        print(f"| {r['phase']} | {guard_name(r['guard'])} | {r['p50_ms']} | {r['p99_ms']} | {r['p999_ms']} | "
              f"{r['max_ms']} | {r['wall_p50_ms']} | {telemetry(r)} |")
    pairs = list(zip([r for r in alone if r["guard"] == "0"], [r for r in alone if r["guard"] == "1"]))
    if pairs:
        ratios = [float(on["p50_ms"]) / float(off["p50_ms"]) for off, on in pairs]
        print()
        print(f"Guard's cost on the latency-critical p50 with no best-effort tenant: on/off per pair "
              f"{', '.join(f'{x:.3f}' for x in ratios)} (target <= 1.02).")
    print()

kinds = []
for r in rows:
    if r["label"] in ("pair", "nalone") and r["kind"] not in kinds:
        kinds.append(r["kind"])
summary = []
for kind in kinds:
    print(f"## 2. Beside a best-effort `{kind}` neighbour (116-SM claim)")
    print()
    alone_rows = [r for r in rows if r["label"] == "nalone" and r["kind"] == kind]
    nalone = {r["guard"]: rate(r) for r in alone_rows}
    print("Neighbour alone (no victim), its in-flight bound alone; CPU seconds per wall second of the"
          " process and of its launching (main) thread:")
    print()
    print("| guard | steps/s | / guard off | process CPU | main thread CPU |")
    print("|---|---|---|---|---|")
    off = None
    for r in alone_rows:
        n = rate(r)
        if r["guard"] == "0":
            off = n  # each round (a neighbour process) starts with the guard off
        print(f"| {guard_name(r['guard'])} | {f(n, '{:.1f}')} | "
              f"{f(n / off if n and off else None, '{:.2f}')} | "
              f"{f(per_second(r, 3), '{:.2f}')} | {f(per_second(r, 4), '{:.2f}')} |")
    print()
    means = {}
    for r in alone_rows:
        if rate(r):
            means.setdefault(r["guard"], []).append(rate(r))
    if "0" in means and any(len(v) > 1 for v in means.values()):
        off_mean = statistics.mean(means["0"])
        print("Mean over rounds: " + ", ".join(
            f"{guard_name(k)} {statistics.mean(v):.1f} steps/s ({statistics.mean(v) / off_mean:.2f} of off; "
            f"rounds {min(v):.1f}-{max(v):.1f})" for k, v in means.items()) + ".")
        print()
    if not any(r["label"] == "pair" and r["kind"] == kind for r in rows):
        continue
    print("| phase | guard | victim p50 ms | p99 ms | p99.9 ms | p99 / alone p99 | neighbour steps/s | / neighbour alone | SM MHz | mem MHz | power W mean (max) | temp C | clock-event reasons |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    by = {}
    for r in rows:
        if r["label"] != "pair" or r["kind"] != kind:
            continue
        n = rate(r)
        ratio = float(r["p99_ms"]) / base_p99 if base_p99 else None
        by.setdefault(r["guard"], []).append((ratio, n))
        print(f"| {r['phase']} | {guard_name(r['guard'])} | {r['p50_ms']} | {r['p99_ms']} | {r['p999_ms']} | "
              f"{f(ratio, '{:.2f}')} | {f(n, '{:.1f}')} | "
              f"{f(n / nalone['0'] if n and nalone.get('0') else None, '{:.2f}')} | {telemetry(r)} |")
    print()
    off_n = [n for _, n in by.get("0", []) if n]
    off_r = [x for x, _ in by.get("0", []) if x]
    parts = [f"unguarded p99 / alone {f(min(off_r) if off_r else None, '{:.2f}')}-"
             f"{f(max(off_r) if off_r else None, '{:.2f}')}"]
    for state, got in by.items():
        if state == "0":
            continue
        on_n = [n for _, n in got if n]
        on_r = [x for x, _ in got if x]
        keep = statistics.mean(on_n) / statistics.mean(off_n) if off_n and on_n else None
        parts.append(f"{guard_name(state)}: p99 / alone {f(min(on_r) if on_r else None, '{:.2f}')}-"
                     f"{f(max(on_r) if on_r else None, '{:.2f}')} at {f(keep, '{:.2f}')} of the unguarded "
                     f"neighbour's throughput")
    line = f"`{kind}`: " + "; ".join(parts)
    summary.append(line)
    print(line + ".")
    print()

if summary:
    print("## Summary")
    print()
    print(f"Alone p99 (median of the guard-off phases of part 1): {f(base_p99)} ms. Targets: guarded p99 <= 1.10x "
          "of alone with the neighbour at >= 85% of its unguarded throughput.")
    print()
    for line in summary:
        print(f"- {line}")
    print()

SHARED_SETUPS = ("mps", "mps-unlimited", "timesliced")
shared = [r for r in rows if r["label"] in SHARED_SETUPS]
if shared:
    print("## 4. Without green slices: MPS active-thread percentages (victim 12%, neighbour 88%), MPS "
          "without limits and time-slicing (no MPS), the same victim alone and beside a `train` neighbour")
    print()
    print("| setup | victim | p50 ms | p99 ms | p99.9 ms | p99 / own alone | p99 / green alone | neighbour steps/s | SM MHz | mem MHz | power W mean (max) | temp C | clock-event reasons |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for how in SHARED_SETUPS:
        got = [r for r in shared if r["label"] == how]
        own = float(got[0]["p99_ms"]) if got else None
        for i, r in enumerate(got):
            p99 = float(r["p99_ms"])
            print(f"| {how} | {'alone' if i == 0 else 'beside'} | {r['p50_ms']} | {r['p99_ms']} | {r['p999_ms']} | "
                  f"{f(p99 / own if own else None, '{:.2f}')} | {f(p99 / base_p99 if base_p99 else None, '{:.2f}')} | "
                  f"{f(rate(r), '{:.1f}')} | {telemetry(r)} |")
    print()

w = [r for r in rows if r["label"] == "with"]
n = [r for r in rows if r["label"] == "without"]
if w and n:
    print("## 3. The interposer's own overhead, GPU-timed: the victim on all 132 SMs, back to back")
    print()
    print("| alternation | with interposer p50 / p99 ms | without p50 / p99 ms | p50 ratio |")
    print("|---|---|---|---|")
    ratios = []
    for i, (a, b) in enumerate(zip(w, n), 1):
        ratio = float(a["p50_ms"]) / float(b["p50_ms"])
        ratios.append(ratio)
        print(f"| {i} | {a['p50_ms']} / {a['p99_ms']} | {b['p50_ms']} / {b['p99_ms']} | {ratio:.3f} |")
    print()
    print(f"p50 ratio with / without over {len(ratios)} alternations: {min(ratios):.3f}-{max(ratios):.3f} "
          f"(median {statistics.median(ratios):.3f}).")
    print()

if os.path.exists(guard_report):
    print("## The guard file's slots after each neighbour (GuardFileTool report)")
    print()
    for line in open(guard_report):
        print(f"    {line.rstrip()}")
    print()
