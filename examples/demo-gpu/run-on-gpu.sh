#!/usr/bin/env bash
# On the GPU machine (made for the H200 GPU machine: torch in python3, nvidia-cuda-mps-control on
# the PATH, libcuda in /usr/local/nvidia/lib64, no Java): unpacks the bundle prepare-gpu-run.sh
# made, next to this script, and runs `./demo --gpu --headless` from it. It writes to $OUT: the
# machine (machine.txt), the demo's output (demo-output.txt), nvidia-smi while the ensemble runs
# (nvidia-smi-during.txt), what was left after it (after.txt) and the demo's work directory
# (logs of the demo, operator, pods and MPS daemon: work-logs.tgz).
# Usage: run-on-gpu.sh [SECONDS]   (default 120)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
seconds=${1:-120}
out=${OUT:-/tmp/smslice-demo-gpu-out}
dest=/tmp/smslice-gpu-bundle
mkdir -p "$out"
rm -rf "$dest" && mkdir -p "$dest"
started=$SECONDS
xz -dc "$here/demo-gpu.tar.xz" | tar -xf - -C "$dest" || { echo "unpacking failed" >&2; exit 1; }
echo "unpacked in $((SECONDS - started)) s: $(du -sh "$dest" | cut -f1)"
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/nvidia/bin:/usr/local/cuda/bin:$PATH
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "host: $(uname -srm), $(nproc) CPUs"
  nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total,mig.mode.current,compute_mode \
    --format=csv
  python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__)'
  echo "command: cd $dest && JAVA_HOME=$dest/jre ./demo --gpu --headless --seconds=$seconds"
} > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
before=$(ls -d /tmp/smslice-demo-* 2>/dev/null)
( sleep $((seconds / 2 + 15)); nvidia-smi > "$out/nvidia-smi-during.txt" 2>&1 ) &
snapshot=$!
(cd "$dest" && JAVA_HOME="$dest/jre" timeout $((seconds + 180)) ./demo --gpu --headless \
  --seconds="$seconds") > "$out/demo-output.txt" 2>&1
rc=$?
echo "(exit $rc)" >> "$out/demo-output.txt"
kill "$snapshot" 2>/dev/null
work=$(ls -d /tmp/smslice-demo-* 2>/dev/null | grep -vxF "$before" | head -1)
[ -n "$work" ] && tar -czhf "$out/work-logs.tgz" -C "$work" --exclude='*.so' \
  --exclude=webhook-tls . 2>/dev/null
{
  echo "after the demo (exit $rc):"
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
  echo "MPS and ensemble processes left: $(pgrep -fc 'nvidia-cuda-mps|serve_model.py|voter.py|train_cotenant.py' || true)"
} > "$out/after.txt" 2>&1
tail -60 "$out/demo-output.txt"
exit $rc
