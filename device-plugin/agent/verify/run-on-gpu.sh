#!/usr/bin/env bash
# The agent's verification on a GPU machine (measured on the H200 GPU machine): confinement,
# isolation, proxy cost against in-process JCuda, resize, fault recovery; one table.
# Needs .gpu-run/ from prepare-gpu-run.sh. Writes $OUT/agent-verification.md (+ .log).
set -uo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${OUT:-/tmp/smslice-verify-out}
mkdir -p "$out"
jre=/tmp/smslice-jre25
if [ ! -x "$jre/bin/java" ]; then
  mkdir -p "$jre" && tar -xzf "$root/.gpu-run/jre25.tgz" -C "$jre" --strip-components=1
fi
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,mig.mode.current --format=csv \
  > "$out/gpu.csv" 2>&1
cat "$out/gpu.csv"
# Session files are pinned with cuMemHostRegister; prefer tmpfs when it has room.
if [ "$(df --output=avail -k /dev/shm 2>/dev/null | tail -1)" -gt 2000000 ] 2>/dev/null; then
  work=/dev/shm/smslice-verify
else
  work=/tmp/smslice-verify
fi
rm -rf "$work" && mkdir -p "$work"
echo "work dir: $work"
"$jre/bin/java" --enable-native-access=ALL-UNNAMED -Djava.io.tmpdir="$work" \
  -cp "$root/.gpu-run/agent/*" io.smslice.agent.verify.GpuVerification cuda \
  "$root/device-plugin/agent/verify/kernels.ptx" "$work" "$out/agent-verification.md" \
  > "$out/agent-verification.log" 2>&1
status=$?
tail -40 "$out/agent-verification.log"
rm -rf "$work"
exit $status
