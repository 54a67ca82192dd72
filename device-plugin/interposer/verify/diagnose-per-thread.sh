#!/usr/bin/env bash
# Why the per-thread default stream fails in the slice (see results/README.md): the stream tried
# by hand in a green context without the interposer, then the %smid program under the interposer
# with debug lines (which wrapped calls fail). Run like run-on-gpu.sh, from the bundle.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/smslice-interposer-out}
mkdir -p "$out"
nvcc -O2 -arch=sm_90 -o /tmp/per_thread_probe "$here/per_thread_probe.cu" -L/usr/local/nvidia/lib64 -lcuda
echo "## without MPS, without the interposer" > "$out/per-thread.txt"
/tmp/per_thread_probe >> "$out/per-thread.txt" 2>&1
echo "## under the interposer (debug), claim of groups 0,1" >> "$out/per-thread.txt"
SMSLICE_INTERPOSER_LOG=debug bash "$here/run-on-gpu.sh" smid >> "$out/per-thread.txt" 2>&1
grep -h "cuStreamGetCtx(" "$out/smid-debug.log" | sed 's/\[pid [0-9]*\]//' | sort | uniq -c >> "$out/per-thread.txt"
cat "$out/per-thread.txt"
