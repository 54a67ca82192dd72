#!/usr/bin/env bash
# The ensemble comparison on a GPU machine (made for the H200 GPU machine: torch in python3,
# nvidia-cuda-mps-control on the PATH, MIG off). Stages:
#   size        latency against SM count for each model alone (size_slice.py), $SIZE_FRAMES each
#   smoke       one short run of each of $CONFIGS, to catch mistakes cheaply
#   compare     $RUNS runs of $FRAMES frames for each of $CONFIGS (run_compare.py)
# Usage: run-on-gpu.sh OUT_DIR STAGE...   (configurations: configs.py)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
out=$1; shift
mkdir -p "$out"
: "${PERIOD_MS:=5}" "${DEADLINE_MS:=5}" "${FRAMES:=5000}" "${RUNS:=3}" "${SIZE_FRAMES:=400}"
: "${CONFIGS:=timeslice,mps,mps-pct}" "${SMS:=resnet18=24,mobilenet=24,vit=24,cotenant=60}"
{ date -u '+%Y-%m-%d %H:%M UTC'; nvidia-smi --query-gpu=name,driver_version,mig.mode.current \
    --format=csv,noheader; } > "$out/machine.txt"
for stage in "$@"; do
  case $stage in
    size)
      for m in resnet18 mobilenet vit; do
        PYTHONUNBUFFERED=1 "$py" "$here/../python/size_slice.py" --model "$m" \
          --deadline-ms "$DEADLINE_MS" --period-ms "$PERIOD_MS" --frames "$SIZE_FRAMES" \
          --sms "${SIZE_SMS:-8,16,24,32,48,64,all}" --json "$out/size-$m.json"
      done ;;
    smoke)
      PYTHONUNBUFFERED=1 "$py" "$here/run_compare.py" --out "$out/smoke" --configs "${CONFIGS%%,*}" \
        --runs 1 --frames 300 --period-ms "$PERIOD_MS" --deadline-ms "$DEADLINE_MS" --sms "$SMS" ;;
    compare)
      PYTHONUNBUFFERED=1 "$py" "$here/run_compare.py" --out "$out" --configs "$CONFIGS" \
        --runs "$RUNS" --frames "$FRAMES" --period-ms "$PERIOD_MS" --deadline-ms "$DEADLINE_MS" \
        --sms "$SMS" ${CLAIM_ENV:+--claim-env "$CLAIM_ENV"} ;;
    *) echo "unknown stage $stage (size, smoke, compare)" >&2; exit 2 ;;
  esac
done
