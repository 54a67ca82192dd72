#!/usr/bin/env bash
# What NVML shows of power and bandwidth pressure, per workload, on the H200 GPU machine: the
# numbers the interference guard's pressure gate (transparent.guard.onlyUnderPressure) decides on.
# Each phase runs unmodified PyTorch workloads on the whole GPU, no slices, no interposer (NVML's
# readings are the GPU's, whoever runs), for DURATION_S seconds while nvidia-smi (read only)
# samples utilization.memory (nvmlDeviceGetUtilizationRates), utilization.gpu, SM clock, power and
# clock-event reasons every 200 ms, after WARMUP_S seconds of warm-up (models built, cuDNN's
# benchmark done); then it prints the spread of each per phase. PHASES picks phases (default all).
# Run from the repository:  bash device-plugin/interposer/verify/nvml-pressure-probe.sh OUT_DIR
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=${1:?usage: nvml-pressure-probe.sh OUT_DIR}
DURATION_S=${DURATION_S:-20} WARMUP_S=${WARMUP_S:-25}
PHASES=${PHASES:-"idle victim train copy victim+train victim+copy ensemble-train-cotenant ensemble-copy-cotenant"}
mkdir -p "$out"
work=$(mktemp -d)
py=${PYTHON:-python3}
export PYTHONUNBUFFERED=1
ens=$root/examples/ensemble/python

victim() { # ResNet-18 fp16 b8 graph replays every 5 ms (the guard measurement's victim)
  mkdir -p "$work/v" && touch "$work/v/go-0"
  "$py" "$here/guard_workloads.py" victim $((DURATION_S * 400)) 1 "$work/v" 5 > "$work/victim.log" 2>&1 &
}
neighbour() { "$py" "$here/guard_workloads.py" neighbour "$1" "$work/stop" "$work/$1.log" > "$work/$1.out" 2>&1 & }
ensemble_cotenant() { "$py" "$ens/$1_cotenant.py" > "$work/ens-$1.out" 2>&1 & }

phase() { # name, then the commands that start its workloads
  local name=$1; shift
  [[ " $PHASES " == *" $name "* ]] || return 0
  rm -f "$work/stop"
  for start in "$@"; do $start; done
  sleep "$WARMUP_S"
  nvidia-smi --query-gpu=timestamp,utilization.memory,utilization.gpu,clocks.sm,power.draw,clocks_event_reasons.active \
    --format=csv,noheader,nounits -lms 200 > "$out/$name.csv" &
  local smi=$!
  sleep "$DURATION_S"
  kill $smi
  touch "$work/stop"
  pkill -f guard_workloads.py; pkill -f _cotenant.py
  wait 2>/dev/null
  sleep 2
}

{ date -u '+%Y-%m-%d %H:%M UTC'; nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader; } > "$out/machine.txt"
phase idle true
phase victim victim
phase train "neighbour train"
phase copy "neighbour copy"
phase victim+train victim "neighbour train"
phase victim+copy victim "neighbour copy"
phase ensemble-train-cotenant "ensemble_cotenant train"
phase ensemble-copy-cotenant "ensemble_cotenant copy"

"$py" - "$out" $PHASES <<'PY' | tee "$out/summary.md"
import csv, pathlib, statistics, sys
out = pathlib.Path(sys.argv[1])
order = sys.argv[2:]
def spread(xs):
    xs = sorted(xs)
    q = lambda p: xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]
    return "%g / %g / %g" % (q(0.1), q(0.5), q(0.9))
print("| phase | samples | memory busy % (p10 / p50 / p90) | GPU busy % | SM clock MHz | power W | samples with power or thermal reasons |")
print("|---|---|---|---|---|---|---|")
for name in order:
    rows = [r for r in csv.reader(open(out / (name + ".csv"))) if len(r) == 6]
    mem = [float(r[1]) for r in rows]; gpu = [float(r[2]) for r in rows]
    clk = [float(r[3]) for r in rows]; pw = [float(r[4]) for r in rows]
    limited = sum(1 for r in rows if int(r[5].strip(), 16) & (0x4 | 0x8 | 0x20 | 0x40 | 0x80))
    print("| %s | %d | %s | %s | %s | %s | %d |" % (name, len(rows), spread(mem), spread(gpu),
          spread(clk), spread(pw), limited))
PY
cp "$work"/*.log "$out/" 2>/dev/null
rm -rf "$work"
