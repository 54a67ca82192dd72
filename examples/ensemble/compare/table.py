"""The comparison's markdown table, from results.json: per configuration and model, p50, p99 and
max latency, the deadline-miss rate, the ensemble's undecided frames and the co-tenant's
throughput, each as the range (min-max) over the runs, so a reader sees the spread and does not
read a difference into numbers whose ranges overlap."""

import configs

UNITS = {"train": "training steps/s", "copy": "GB/s copied"}


def span(values, fmt):
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    lo, hi = min(values), max(values)
    return fmt(lo) if fmt(lo) == fmt(hi) else "%s-%s" % (fmt(lo), fmt(hi))


def ms(us):
    return "%.2f" % (us / 1000.0)


def pct(x):
    return "%.2f%%" % (100.0 * x)


def cotenant_cell(results, config, runs, cotenant):
    if not cotenant:
        return "none"
    text = "%s %s" % (span([r["cotenant_rate"] for r in runs], lambda v: "%.1f" % v),
                      UNITS[cotenant])
    alone = results.get("cotenant_alone", {}).get(config)
    return text if alone is None else "%s (%.1f before the ensemble started)" % (text, alone)


def render(results):
    runs = results["runs"]
    lines = [
        "Measured %s on %s (%d SMs), PyTorch %s. %d frames per model per run, one every %.1f ms, "
        "deadline %.1f ms; ranges are min-max over %s runs per configuration. Claims: %s."
        % (results["date"], results["gpu"], results["gpu_sms"], results["torch"],
           results["frames"], results["period_ms"], results["deadline_ms"],
           "/".join(sorted({str(sum(1 for r in runs if r["config"] == c))
                            for c in {r["config"] for r in runs}})) or "0",
           ", ".join("%s %d SMs" % kv for kv in results["sms"].items())),
        "",
        "| configuration | model | p50 ms | p99 ms | max ms | deadline misses "
        "| frames undecided (ensemble) | co-tenant |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for config, (title, _, cotenant, _) in configs.CONFIGS.items():
        mine = [r for r in runs if r["config"] == config]
        if not mine:
            continue
        models = list(mine[0]["summary"]["models"])
        for i, model in enumerate(models):
            per = [r["summary"]["models"][model] for r in mine]
            first = i == 0
            lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
                title if first else "",
                model,
                span([p["p50_us"] for p in per], ms),
                span([p["p99_us"] for p in per], ms),
                span([p["max_us"] for p in per], ms),
                span([p["miss_rate"] for p in per], pct),
                span([r["summary"]["ensemble"]["miss_rate"] for r in mine], pct) if first else "",
                cotenant_cell(results, config, mine, cotenant) if first else "",
            ))
    lines.append("| %s | - | - | - | - | - | - | %s |" % configs.MIG_ROW)
    return "\n".join(lines) + "\n"
