#!/usr/bin/env bash
# The agent's verification on a GPU machine (made for the H200 GPU machine): protocol,
# confinement, isolation, proxy cost against in-process JCuda, resize, cross-claim reads and
# fault recovery, in both run modes; one table per mode. Starts and stops its own MPS daemon for
# the worker mode. Needs .gpu-run/ from prepare-gpu-run.sh, or the bundle of
# device-plugin/interposer/verify/prepare-gpu-run.sh (.gpu-run/interposer), which holds the same
# jars. Writes $OUT/agent-verification.md.
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${OUT:-/tmp/smslice-verify-out}
mkdir -p "$out"
bundle=$root/.gpu-run
[ -d "$bundle/agent" ] || bundle=$root/.gpu-run/interposer
jre=/tmp/smslice-jre25
if [ ! -x "$jre/bin/java" ]; then
  mkdir -p "$jre" && tar -xzf "$bundle/jre25.tgz" -C "$jre" --strip-components=1
fi
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
# Session files are pinned with cuMemHostRegister; prefer tmpfs when it has room.
if [ "$(df --output=avail -k /dev/shm 2>/dev/null | tail -1)" -gt 2000000 ] 2>/dev/null; then
  work=/dev/shm/smslice-verify
else
  work=/tmp/smslice-verify
fi
verify() { # mode, extra args
  local mode=$1; shift
  rm -rf "$work" && mkdir -p "$work"
  timeout 240 "$jre/bin/java" --enable-native-access=ALL-UNNAMED -Djava.io.tmpdir="$work" \
    -cp "$bundle/agent/*" io.smslice.agent.verify.GpuVerification cuda "$mode" \
    "$root/device-plugin/agent/verify/kernels.ptx" "$work/$mode" "$out/$mode.md" "$@" \
    > "$out/$mode.log" 2>&1
  echo "$mode: exit $?"
  cp "$work"/hs_err* "$out/" 2>/dev/null
  grep -E '^\[verify\]|SEVERE|recovered|restarted|moved' "$out/$mode.log" | grep -v 'protocol .*: ok'
}

{
  echo "# smslice agent verification on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo
  echo "Command: \`device-plugin/agent/verify/run-on-gpu.sh\` (after prepare-gpu-run.sh)  "
  echo "Host: $(nproc) CPUs visible, cgroup cpu.max $(cat /sys/fs/cgroup/cpu.max 2>/dev/null || echo n/a)  "
  echo "GPU: $(nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,mig.mode.current,compute_mode --format=csv,noheader)"
  echo
} > "$out/agent-verification.md"
cat "$out/agent-verification.md"

mps=/tmp/smslice-verify-mps
mkdir -p "$mps/pipe" "$mps/log"
# In-agent runs without MPS; after an unrecoverable fault the agent starts the daemon itself and
# moves the GPU's claims to worker processes.
verify in-agent "$mps/pipe" "$mps/log"
echo quit | CUDA_MPS_PIPE_DIRECTORY=$mps/pipe nvidia-cuda-mps-control 2>/dev/null

CUDA_MPS_PIPE_DIRECTORY=$mps/pipe CUDA_MPS_LOG_DIRECTORY=$mps/log nvidia-cuda-mps-control -d
verify worker "$mps/pipe" "$mps/log"
echo quit | CUDA_MPS_PIPE_DIRECTORY=$mps/pipe nvidia-cuda-mps-control
tail -5 "$mps/log/control.log" > "$out/mps-control-tail.log" 2>/dev/null

for mode in in-agent worker; do
  cat "$out/$mode.md" >> "$out/agent-verification.md" 2>/dev/null
  echo >> "$out/agent-verification.md"
done
rm -rf "$work"
