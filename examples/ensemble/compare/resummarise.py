"""Recomputes every run's summary in results.json from the votes in latencies.csv.gz with the
current tally (python/tally.py), and rewrites table.md. The votes (frame, class, latency,
late) are the measurement; the summary is arithmetic on them, so it can be redone without the
GPU when the way frames are counted changes. Per-model latency statistics must come out as
measured; anything else is refused.

  python3 resummarise.py results/2026-12-01-h200
"""

import csv
import gzip
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

import table  # noqa: E402
from tally import Tally  # noqa: E402


def resummarise(results, rows):
    by_run = {(r["config"], r["run"]): r for r in results["runs"]}
    tallies = {}
    for key, r in by_run.items():
        s = r["summary"]
        tallies[key] = Tally(list(s["models"]), int(results["period_ms"] * 1e6),
                             int(results["deadline_ms"] * 1e6), s["first_frame"], s["frames"])
    for row in rows:
        key = (row["config"], int(row["run"]))
        if key in tallies:
            tallies[key].record(row["model"], int(row["frame"]), int(row["vote"]),
                                round(float(row["latency_us"]) * 1000), row["late"] == "1")
    for key, t in tallies.items():
        new, old = t.summary(), by_run[key]["summary"]
        for model, stats in new["models"].items():
            for k in ("count", "p50_us", "p99_us", "max_us", "late_votes", "missing_votes"):
                if stats[k] != old["models"][model][k]:
                    raise ValueError("%s %s %s: %s from the votes, %s measured"
                                     % (key, model, k, stats[k], old["models"][model][k]))
        by_run[key]["summary"] = new
    return results


def main(argv):
    d = Path(argv[0])
    results = json.loads((d / "results.json").read_text())
    with gzip.open(d / "latencies.csv.gz", "rt", newline="") as f:
        results = resummarise(results, csv.DictReader(f))
    (d / "results.json").write_text(json.dumps(results, indent=1))
    (d / "table.md").write_text(table.render(results))
    print((d / "table.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
