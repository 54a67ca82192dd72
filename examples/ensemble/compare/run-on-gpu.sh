#!/usr/bin/env bash
# The ensemble comparison on a GPU machine (made for the H200 GPU machine: torch in python3,
# nvidia-cuda-mps-control on the PATH, MIG off). Stages:
#   compare     $RUNS runs of $FRAMES frames for each of $CONFIGS (run_compare.py)
#   green       the same for the green configurations ($GREEN_CONFIGS, default green,green-copy):
#               starts an MPS daemon and the real node agent (worker mode) serving one claim per
#               process, with the groups in $GROUPS_OF, and runs every process with the interposer
#               and its claim's environment. The guarded ones (green-guard, green-copy-guard) also
#               get a guard file made by the agent's code, turned on, with the node config's
#               transparent.guard defaults unless GUARD_LIMITS says "hold-ms share window-ms depth
#               in-flight-ms thread|stream [ahead-ms]".
#   size        each model alone in slices of $SIZE_GROUPS (claims the agent serves, the model
#               under the interposer) and on the whole GPU; then size_slice.py's report.
#               SIZE_TOOL=examples/sizing/size_model.py SIZE_MODELS=<specs> sizes other models
#               (TorchScript, ONNX, torchvision:NAME, module:function) and draws the p99 curve.
#   smoke       one short run of the first of $CONFIGS, to catch mistakes cheaply
# green and size need $BUNDLE: the folder device-plugin/interposer/verify/prepare-gpu-run.sh made
# (interposer library, agent jars, a Java runtime).
# Usage: run-on-gpu.sh OUT_DIR STAGE...   (configurations: configs.py)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
out=$1; shift
mkdir -p "$out"
: "${PERIOD_MS:=5}" "${DEADLINE_MS:=5}" "${FRAMES:=5000}" "${RUNS:=3}" "${SIZE_FRAMES:=1000}"
: "${CONFIGS:=timeslice,mps,mps-pct}" "${SMS:=resnet18=24,mobilenet=24,vit=24,cotenant=60}"
# groups of the H200's one split (15 x 8 SMs + 12): 24, 24, 24 and 60 SMs, as in $SMS
: "${GROUPS_OF:=resnet18=0-2 mobilenet=3-5 vit=6-8 cotenant=9-15}"
: "${SIZE_GROUPS:=s8=0 s16=0-1 s24=0-2 s32=0-3 s48=0-5 s64=0-7}"
{ date -u '+%Y-%m-%d %H:%M UTC'; nvidia-smi --query-gpu=name,driver_version,mig.mode.current \
    --format=csv,noheader; } > "$out/machine.txt"
work=/tmp/smslice-compare-agent
agent=

start_agent() { # claims as name=groups...: MPS daemon + the real agent serving them
  : "${BUNDLE:?this stage needs BUNDLE, the folder prepare-gpu-run.sh made}"
  rm -rf "$work" && mkdir -p "$work/mps/pipe" "$work/mps/log" "$work/jre"
  tar -xzf "$BUNDLE/jre25.tgz" -C "$work/jre" --strip-components=1
  export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
  export CUDA_MPS_PIPE_DIRECTORY=$work/mps/pipe CUDA_MPS_LOG_DIRECTORY=$work/mps/log
  nvidia-cuda-mps-control -d
  "$work/jre/bin/java" --enable-native-access=ALL-UNNAMED -cp "$BUNDLE/agent/*" \
    io.smslice.agent.verify.TransparentVerification "$work/agent" "$work/mps/pipe" \
    "$work/mps/log" "$@" >> "$out/agent.log" 2>&1 &
  agent=$!
  for _ in $(seq 1 600); do [ -f "$work/agent/ready" ] && break; sleep 0.1; done
  [ -f "$work/agent/ready" ] || { echo "the agent did not start:"; cat "$out/agent.log"; exit 1; }
  "$py" "$here/claim_env.py" "$work/agent/env" "$BUNDLE/lib/libsmslice-interposer.so" \
    > "$work/claim-env.json"
}

stop_agent() {
  touch "$work/agent/stop"; wait "$agent" || true
  echo quit | nvidia-cuda-mps-control || true
  cat "$work/agent/attached.log" >> "$out/attached.log" 2>/dev/null || true
  unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
}

for stage in "$@"; do
  case $stage in
    compare)
      PYTHONUNBUFFERED=1 "$py" "$here/run_compare.py" --out "$out" --configs "$CONFIGS" \
        --runs "$RUNS" --frames "$FRAMES" --period-ms "$PERIOD_MS" --deadline-ms "$DEADLINE_MS" \
        --sms "$SMS" ;;
    green)
      start_agent $GROUPS_OF
      guard=/dev/shm/smslice-compare-guard
      # shellcheck disable=SC2086 # the limits are five words
      "$work/jre/bin/java" -cp "$BUNDLE/agent/*" io.smslice.agent.verify.GuardFileTool create \
        "$guard" ${GUARD_LIMITS:-10 0.5 100 16 0.25 stream} >> "$out/agent.log" 2>&1
      "$work/jre/bin/java" -cp "$BUNDLE/agent/*" io.smslice.agent.verify.GuardFileTool enable \
        "$guard" 1 >> "$out/agent.log" 2>&1
      rc=0
      PYTHONUNBUFFERED=1 "$py" "$here/run_compare.py" --out "$out" \
        --configs "${GREEN_CONFIGS:-green,green-copy}" --runs "$RUNS" --frames "$FRAMES" \
        --period-ms "$PERIOD_MS" --deadline-ms "$DEADLINE_MS" --sms "$SMS" \
        --claim-env "$work/claim-env.json" --guard-file "$guard" || rc=$?
      "$work/jre/bin/java" -cp "$BUNDLE/agent/*" io.smslice.agent.verify.GuardFileTool report \
        "$guard" > "$out/guard-report.txt" 2>&1 || true
      stop_agent
      [ $rc = 0 ] || exit $rc ;;
    size)
      start_agent $SIZE_GROUPS
      rows=$out/size-rows.jsonl
      tool=${SIZE_TOOL:-$here/../python/size_slice.py}
      report_args=()
      [[ $tool == *size_model.py ]] && report_args=(--svg "$out/p99.svg")
      for m in ${SIZE_MODELS:-resnet18 mobilenet vit}; do
        for claim in $SIZE_GROUPS; do
          claim=${claim%%=*}
          "$py" -c "import json,shlex,sys; print('\n'.join('export %s=%s' % (k, shlex.quote(v))
                    for k, v in json.load(open(sys.argv[1]))[sys.argv[2]].items()))" \
            "$work/claim-env.json" "$claim" > "$work/$claim.sh"
          ( source "$work/$claim.sh" && PYTHONUNBUFFERED=1 "$py" "$tool" \
              measure --model "$m" --period-ms "$PERIOD_MS" --frames "$SIZE_FRAMES" ) >> "$rows"
        done
        # the whole GPU, no slice (run under the same MPS daemon as the slices)
        PYTHONUNBUFFERED=1 "$py" "$tool" measure --model "$m" \
          --period-ms "$PERIOD_MS" --frames "$SIZE_FRAMES" >> "$rows"
      done
      stop_agent
      "$py" "$tool" report --deadline-ms "$DEADLINE_MS" --period-ms "$PERIOD_MS" \
        "${report_args[@]}" "$rows" | tee "$out/size.md" ;;
    smoke)
      PYTHONUNBUFFERED=1 "$py" "$here/run_compare.py" --out "$out/smoke" --configs "${CONFIGS%%,*}" \
        --runs 1 --frames 300 --period-ms "$PERIOD_MS" --deadline-ms "$DEADLINE_MS" --sms "$SMS" ;;
    *) echo "unknown stage $stage (compare, green, size, smoke)" >&2; exit 2 ;;
  esac
done
