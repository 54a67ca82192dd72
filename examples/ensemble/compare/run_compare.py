"""Runs the ensemble comparison on a GPU machine: for each configuration, a co-tenant is started
and kept busy, then the three model processes and the voter run --runs times, each time from
fresh processes, --frames frames per model. Writes results.json (every run's voter summary and
the co-tenant's throughput in that run's window) and latencies.csv.gz (every vote), then the
markdown table (table.py). configs.py says what the configurations are.

  python3 run_compare.py --out DIR --configs timeslice,mps,mps-pct --runs 3 --frames 5000
"""

import argparse
import csv
import datetime
import gzip
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PYTHON_DIR = HERE.parent / "python"
sys.path.insert(0, str(PYTHON_DIR))

import configs  # noqa: E402
import progress  # noqa: E402
import schedule  # noqa: E402
import table  # noqa: E402


def options(argv):
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True)
    p.add_argument("--configs", default="timeslice,mps,mps-pct")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--frames", type=int, default=5000)
    p.add_argument("--period-ms", type=float, default=5.0)
    p.add_argument("--deadline-ms", type=float, default=5.0)
    p.add_argument("--sms", default="resnet18=24,mobilenet=24,vit=24,cotenant=60",
                   help="each process's claim size in SMs (MPS percentages and the table)")
    p.add_argument("--claim-env", help="JSON: role -> environment, for the green configurations")
    p.add_argument("--guard-file", help="the GPU's guard file, for the guarded configurations")
    p.add_argument("--mps-dir", default="/tmp/smslice-compare-mps")
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--warmup", type=int, default=50)
    p.add_argument("--cotenant-alone-s", type=float, default=5.0,
                   help="how long the co-tenant's throughput is measured before the ensemble starts")
    return p.parse_args(argv)


def gpu_description():
    q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,mig.mode.current",
                        "--format=csv,noheader"], capture_output=True, text=True)
    return q.stdout.strip() or q.stderr.strip()


class Mps:
    """One MPS control daemon for the configurations that use MPS."""

    def __init__(self, root):
        self.env = {"CUDA_MPS_PIPE_DIRECTORY": root + "/pipe",
                    "CUDA_MPS_LOG_DIRECTORY": root + "/log"}
        for d in self.env.values():
            os.makedirs(d, exist_ok=True)

    def start(self):
        subprocess.run(["nvidia-cuda-mps-control", "-d"], env={**os.environ, **self.env},
                       check=True)

    def stop(self):
        subprocess.run(["nvidia-cuda-mps-control"], input="quit\n", text=True,
                       env={**os.environ, **self.env})
        time.sleep(1.0)


def start(cmd, log, env):
    f = open(log, "w")
    return subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)


def stop(proc, timeout=15):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def tail(path, n=15):
    try:
        return "".join(Path(path).read_text(errors="replace").splitlines(True)[-n:])
    except OSError:
        return ""


def wait_for(condition, timeout_s, what):
    end = time.time() + timeout_s
    while time.time() < end:
        if condition():
            return
        time.sleep(0.05)
    raise RuntimeError("timed out after %ds waiting for %s" % (timeout_s, what))


def run_once(o, config, run, env_of, work, rows_out):
    d = work / ("%s-run%d" % (config, run))
    d.mkdir(parents=True, exist_ok=True)
    start_file = d / "first-frame"
    models = list(configs.MODELS)
    voter = start([o.python, str(PYTHON_DIR / "voter.py"), "--listen", "unix:%s" % (d / "voter.sock"),
                   "--models", ",".join(models), "--period-ms", str(o.period_ms),
                   "--deadline-ms", str(o.deadline_ms), "--frames", str(o.frames),
                   "--start-file", str(start_file), "--summary", str(d / "summary.json"),
                   "--csv", str(d / "votes.csv")], d / "voter.log", env_of("voter"))
    wait_for(lambda: (d / "voter.sock").exists() or voter.poll() is not None, 30, "the voter")
    procs = {}
    for m in models:
        procs[m] = start([o.python, str(PYTHON_DIR / "serve_model.py"), "--model", m,
                          "--voter", "unix:%s" % (d / "voter.sock"),
                          "--period-ms", str(o.period_ms), "--frames", str(o.frames),
                          "--warmup", str(o.warmup), "--ready-file", str(d / (m + ".ready")),
                          "--start-file", str(start_file)], d / (m + ".log"), env_of(m))
    try:
        def ready():
            dead = [m for m, p in procs.items() if p.poll() is not None]
            if dead:
                raise RuntimeError("%s exited early:\n%s" % (dead[0], tail(d / (dead[0] + ".log"))))
            return all((d / (m + ".ready")).exists() for m in models)
        wait_for(ready, 240, "the models to warm up")
        period_ns = int(o.period_ms * 1e6)
        first = schedule.latest_released(time.time_ns(), period_ns) + math.ceil(300 / o.period_ms)
        tmp = d / "first-frame.tmp"
        tmp.write_text(str(first))
        tmp.rename(start_file)
        budget = o.frames * o.period_ms / 1000 + 60
        for m, p in procs.items():
            if p.wait(budget) != 0:
                raise RuntimeError("%s failed:\n%s" % (m, tail(d / (m + ".log"))))
        if voter.wait(30) != 0:
            raise RuntimeError("the voter failed:\n" + tail(d / "voter.log"))
    finally:
        for p in list(procs.values()) + [voter]:
            stop(p)
    summary = json.loads((d / "summary.json").read_text())
    with open(d / "votes.csv") as f:
        r = csv.reader(f)
        next(r)
        for row in r:
            rows_out.writerow([config, run] + row)
    window = (schedule.release_ns(first, period_ns),
              schedule.release_ns(first + o.frames, period_ns))
    return summary, window


def main(argv):
    o = options(argv)
    out = Path(o.out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path("/tmp/smslice-compare-work")
    work.mkdir(parents=True, exist_ok=True)
    sms = {k: int(v) for k, v in (kv.split("=") for kv in o.sms.split(","))}
    claim_env = json.loads(Path(o.claim_env).read_text()) if o.claim_env else None
    # Asked in a child process: a CUDA context here would sit beside the MPS server all along.
    probe = subprocess.run([o.python, "-c", "import torch; print(torch.cuda.get_device_properties"
                            "(0).multi_processor_count, torch.__version__)"],
                           capture_output=True, text=True, check=True).stdout.split()
    gpu_sms, torch_version = int(probe[0]), probe[1]
    results = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gpu": gpu_description(), "gpu_sms": gpu_sms, "torch": torch_version,
        "frames": o.frames, "period_ms": o.period_ms, "deadline_ms": o.deadline_ms,
        "sms": sms, "runs": [],
    }
    results_path = out / "results.json"
    if results_path.exists():  # runs of other configurations made earlier, by another call
        old = json.loads(results_path.read_text())
        results["runs"] = [r for r in old["runs"] if r["config"] not in o.configs.split(",")]
        results["cotenant_alone"] = old.get("cotenant_alone", {})
    mps = Mps(o.mps_dir)
    csv_path = out / "latencies.csv.gz"
    mode = "at" if csv_path.exists() else "wt"
    with gzip.open(csv_path, mode, newline="") as gz:
        rows = csv.writer(gz)
        if mode == "wt":
            rows.writerow(["config", "run", "frame", "model", "vote", "latency_us", "late"])
        for config in o.configs.split(","):
            title, uses_mps, cotenant, _ = configs.CONFIGS[config]
            print("== %s" % title, flush=True)
            base = {**os.environ, "PYTHONUNBUFFERED": "1"}
            if uses_mps and not configs.served_by_agent(config):
                mps.start()
                base.update(mps.env)

            def env_of(role, config=config, base=base):
                if role == "voter":
                    return base
                return {**base, **configs.process_env(config, role, sms, gpu_sms, claim_env,
                                                      o.guard_file)}

            co, log = None, work / ("%s-cotenant.progress" % config)
            try:
                if cotenant:
                    log.unlink(missing_ok=True)
                    script = "train_cotenant.py" if cotenant == "train" else "copy_cotenant.py"
                    co = start([o.python, str(PYTHON_DIR / script), "--progress-log", str(log)],
                               work / ("%s-cotenant.log" % config), env_of("cotenant"))
                    wait_for(lambda: log.exists() and len(log.read_text().splitlines()) >= 20
                             or co.poll() is not None, 240, "the co-tenant to warm up")
                    if co.poll() is not None:
                        raise RuntimeError("co-tenant exited:\n" + tail(work / ("%s-cotenant.log" % config)))
                    t0 = time.time_ns()
                    time.sleep(o.cotenant_alone_s)
                    results.setdefault("cotenant_alone", {})[config] = progress.rate_in_window(
                        log.read_text().splitlines(), t0, time.time_ns())
                for run in range(1, o.runs + 1):
                    summary, window = run_once(o, config, run, env_of, work, rows)
                    rate = (progress.rate_in_window(log.read_text().splitlines(), *window)
                            if cotenant else None)
                    results["runs"].append({"config": config, "run": run, "summary": summary,
                                            "cotenant": cotenant, "cotenant_rate": rate})
                    e = summary["ensemble"]
                    print("%s run %d: ensemble misses %d/%d, %s, co-tenant %s" % (
                        config, run, e["undecided"], summary["frames"],
                        ", ".join("%s p50 %s p99 %s max %s" % (m, s["p50_us"], s["p99_us"],
                                                               s["max_us"])
                                  for m, s in summary["models"].items()),
                        "-" if rate is None else "%.2f" % rate), flush=True)
                    results_path.write_text(json.dumps(results, indent=1))
            finally:
                if co:
                    stop(co)
                if uses_mps and not configs.served_by_agent(config):
                    mps.stop()
    (out / "table.md").write_text(table.render(results))
    print((out / "table.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
