#!/usr/bin/env bash
# Builds and runs baselines.cu on a GPU machine (made for the H200 GPU machine): the victim's
# latency beside a full-GPU aggressor with plain streams, stream priorities and green contexts.
# Needs nvcc and the driver's libcuda there; changes no GPU setting. Writes $OUT/baselines.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/smslice-baselines-out}
mkdir -p "$out"
lib=/usr/local/nvidia/lib64
nvcc -O2 -o /tmp/smslice-baselines "$here/baselines.cu" -L"$lib" -lcuda
{
  echo "Command: \`device-plugin/agent/verify/run-baselines-on-gpu.sh\`  "
  echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  "
  echo "GPU: $(nvidia-smi --query-gpu=name,uuid,driver_version,mig.mode.current,compute_mode --format=csv,noheader)"
  echo
  LD_LIBRARY_PATH="$lib:${LD_LIBRARY_PATH:-}" /tmp/smslice-baselines "$here/kernels.ptx" "${1:-2000}"
} | tee "$out/baselines.md"
