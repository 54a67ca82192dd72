#!/usr/bin/env bash
# Builds and runs bandwidth.cu on a GPU machine (made for the H200 GPU machine): what green
# contexts do not isolate (memory bandwidth, L2). Needs nvcc and the driver's libcuda there;
# changes no GPU setting. Writes $OUT/bandwidth.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/smslice-bandwidth-out}
mkdir -p "$out"
lib=/usr/local/nvidia/lib64
nvcc -O2 -arch=sm_90 -o /tmp/smslice-bandwidth "$here/bandwidth.cu" -L"$lib" -lcuda
{
  echo "Command: \`device-plugin/agent/verify/run-bandwidth-on-gpu.sh\`  "
  echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  "
  echo "GPU: $(nvidia-smi --query-gpu=name,uuid,driver_version,mig.mode.current,compute_mode --format=csv,noheader)  "
  echo "Clocks before (SM, memory MHz), power, temperature: $(nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader)"
  echo
  LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" /tmp/smslice-bandwidth "${1:-500}"
} | tee "$out/bandwidth.md"
