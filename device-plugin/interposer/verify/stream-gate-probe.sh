#!/usr/bin/env bash
# Runs stream_gate_probe.cu and the two-process gate_neighbour_probe.cu on the H200 GPU machine
# without and under an MPS daemon (the node's transparent tenants run under one) and writes
# $OUT/stream-gate-probe.md.
#   bash device-plugin/interposer/verify/stream-gate-probe.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/smslice-stream-gate}
work=/tmp/smslice-stream-gate-work
rm -rf "$work" && mkdir -p "$out" "$work/mps/pipe" "$work/mps/log"
md=$out/stream-gate-probe.md
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
{
  echo "# Stream-gate probe on the H200 GPU machine"
  echo
  echo "Command: \`bash device-plugin/interposer/verify/stream-gate-probe.sh\`  "
  echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  "
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,compute_mode --format=csv,noheader)"
  echo
  echo '```'
} > "$md"
cd "$work"
nvcc -O2 -arch=sm_90 -cubin -o stream_gate_probe.cubin "$here/stream_gate_probe.cu" >>"$md" 2>&1
nvcc -O2 -arch=sm_90 -o stream_gate_probe "$here/stream_gate_probe.cu" -lcuda >>"$md" 2>&1
nvcc -O2 -arch=sm_90 -cubin -o gate_neighbour_probe.cubin "$here/gate_neighbour_probe.cu" >>"$md" 2>&1
nvcc -O2 -arch=sm_90 -o gate_neighbour_probe "$here/gate_neighbour_probe.cu" -lcuda >>"$md" 2>&1

pair() { # the victim and the blocker of gate_neighbour_probe, each in its own process
  local meet=$work/meet-$1
  rm -rf "$meet" && mkdir -p "$meet"
  echo "$1:"
  timeout 120 ./gate_neighbour_probe blocker "$meet" > "$meet/blocker.txt" 2>&1 &
  local blocker=$!
  timeout 120 ./gate_neighbour_probe victim "$meet" || echo "victim exit $?"
  wait "$blocker" || echo "blocker exit $?"
  cat "$meet/blocker.txt"
}

timeout 120 ./stream_gate_probe "no MPS:" >>"$md" 2>&1 || echo "exit $? without MPS" >>"$md"
pair "no MPS" >>"$md" 2>&1
export CUDA_MPS_PIPE_DIRECTORY=$work/mps/pipe CUDA_MPS_LOG_DIRECTORY=$work/mps/log
nvidia-cuda-mps-control -d && sleep 1
timeout 120 ./stream_gate_probe "MPS:" >>"$md" 2>&1 || echo "exit $? under MPS" >>"$md"
pair "MPS" >>"$md" 2>&1
echo quit | nvidia-cuda-mps-control
echo '```' >>"$md"
cat "$md"
