#!/bin/bash
# Checks node discovery and the MPS daemon manager on a real GPU machine, read-only towards the
# GPU (no MIG, clock, persistence or reset changes). Run from the repository root with the jlinked
# JRE in .gpu-run/jre25.tgz and the node-side jars in .gpu-run/node/ (see verify/README.md).
# Results go to $OUT (default /tmp/smslice-node-check).
set -u
out=${OUT:-/tmp/smslice-node-check}
mkdir -p "$out"
tar xzf .gpu-run/jre25.tgz -C /tmp
java=(/tmp/jre25/bin/java --enable-native-access=ALL-UNNAMED -cp ".gpu-run/node/*")
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
export PATH=/usr/local/cuda/bin:/usr/local/nvidia/bin:$PATH

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "host: $(uname -srm), $(nproc) CPUs"
  nvidia-smi --query-gpu=index,name,uuid,driver_version,memory.total,mig.mode.current,compute_mode \
    --format=csv
  echo
  timeout 120 "${java[@]}" io.smslice.node.tools.NodeCheck discovery
  echo "(exit $?)"
} > "$out/discovery.txt" 2>&1

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  nvcc --version | tail -2
  nvcc -arch=sm_90 -o /tmp/smid device-plugin/node/verify/smid.cu && echo "smid built"
  echo "without MPS:"
  /tmp/smid
  echo
  timeout 180 "${java[@]}" io.smslice.node.tools.NodeCheck mps /tmp/smslice-run /tmp/smid
  echo "(exit $?)"
  echo "MPS processes left: $(pgrep -fc 'nvidia-cuda-mps' || true)"
  # What MpsControlVersion parses into the SliceNode's mpsControlVersion.
  echo "nvidia-cuda-mps-control -v:"
  timeout 10 nvidia-cuda-mps-control -v
  echo "(exit $?)"
} > "$out/mps.txt" 2>&1
cat "$out/discovery.txt" "$out/mps.txt"
