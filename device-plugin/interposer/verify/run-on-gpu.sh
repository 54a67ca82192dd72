#!/usr/bin/env bash
# The interposer's verification on the H200 GPU machine: unmodified CUDA and PyTorch programs,
# confined by libsmslice-interposer.so to groups a real agent (worker mode, under one MPS daemon)
# hands out over ATTACH. Run from the bundle prepare-gpu-run.sh made:
#   bash <bundle>/verify/run-on-gpu.sh [parts]     parts: any of smid torch isolation overhead fault
# Writes $OUT/transparent-verification.md and logs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
parts=${1:-"smid torch isolation overhead fault"}
out=${OUT:-/tmp/smslice-interposer-out}
mkdir -p "$out"
work=/tmp/smslice-transparent
build=$work/build
rm -rf "$work" && mkdir -p "$build" "$work/mps/pipe" "$work/mps/log"
lib=$bundle/lib/libsmslice-interposer.so
md=$out/transparent-verification.md
log=$out/run.log
note() { echo "$*" | tee -a "$md"; }
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1 SMSLICE_VERIFY_BUILD=$build

nvcc -O2 -arch=sm_90 -o "$build/smid_streams" "$here/smid_streams.cu" >>"$log" 2>&1 || echo "nvcc smid_streams failed" | tee -a "$log"
nvcc -O2 -arch=sm_90 -shared -Xcompiler -fPIC -o "$build/libsmid_probe.so" "$here/smid_probe.cu" >>"$log" 2>&1 || echo "nvcc probe failed" | tee -a "$log"

jre=/tmp/smslice-jre25
[ -x "$jre/bin/java" ] || { mkdir -p "$jre" && tar -xzf "$bundle/jre25.tgz" -C "$jre" --strip-components=1; }
export CUDA_MPS_PIPE_DIRECTORY=$work/mps/pipe CUDA_MPS_LOG_DIRECTORY=$work/mps/log
nvidia-cuda-mps-control -d

{
  echo "# Transparent slices on the H200 GPU machine"
  echo
  echo "Command: \`device-plugin/interposer/verify/run-on-gpu.sh\` (bundle from prepare-gpu-run.sh)  "
  echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  "
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total,mig.mode.current --format=csv,noheader)  "
  echo "Host: $(nproc) CPUs; torch $(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)  "
  echo "Every tenant below is an unmodified program; 'sliced' means run with the interposer preloaded"
  echo "and the env of a claim served by the real agent (worker mode) under one MPS daemon."
  echo
} > "$md"

# The real agent, serving the claims the checks use (groups of the node's one split; 15 = remainder).
start_agent() {
  rm -f "$work/agent/ready" "$work/agent/stop"
  timeout 900 "$jre/bin/java" --enable-native-access=ALL-UNNAMED -cp "$bundle/agent/*" \
    io.smslice.agent.verify.TransparentVerification "$work/agent" "$work/mps/pipe" "$work/mps/log" \
    victim=0,1 aggressor=2-15 g64=0-7 all=all >>"$out/agent.log" 2>&1 &
  agent_pid=$!
  for _ in $(seq 1 600); do [ -f "$work/agent/ready" ] && break; sleep 0.1; done
  [ -f "$work/agent/ready" ] || note "agent did not start (see agent.log)"
}
start_agent
grep '^claim ' "$out/agent.log" | sed 's/^/    /' >> "$md"
echo >> "$md"

tenant() { # claim|none, command...: runs an unmodified program as a tenant of the claim
  local claim=$1; shift
  if [ "$claim" = none ]; then
    env -u LD_PRELOAD "$@"
  else
    ( source "$work/agent/env/$claim.env" && LD_PRELOAD=$lib exec "$@" )
  fi
}

if [[ $parts == *smid* ]]; then
  note "## 1. Distinct SMs (%smid) of an unmodified CUDA runtime program, per stream kind"
  note ""
  for claim in victim g64 none; do
    tenant $claim timeout 60 "$build/smid_streams" > "$work/smid-$claim.txt" 2>>"$log"
    echo "smid $claim rc=$?" >> "$log"
  done
  # Which wrapped entry points the runtime fetched (for the record).
  SMSLICE_INTERPOSER_LOG=debug tenant victim timeout 60 "$build/smid_streams" >/dev/null 2>"$out/smid-debug.log"
  note "| stream | claim victim (groups 0,1) | claim g64 (groups 0-7) | no interposer |"
  note "|---|---|---|---|"
  while read -r kind n; do
    note "| $kind | $n | $(awk -v k=$kind '$1==k{print $2}' "$work/smid-g64.txt") | $(awk -v k=$kind '$1==k{print $2}' "$work/smid-none.txt") |"
  done < "$work/smid-victim.txt"
  note ""
fi

if [[ $parts == *torch* ]]; then
  note "## 2. Unmodified PyTorch: bf16 GEMM 8192^3 and ResNet-18 fp16 batch 8 (cuDNN), by slice"
  note ""
  note "| tenant | GEMM TFLOP/s | ResNet-18 p50 ms | images/s | distinct SMs (probe kernel in the same process) |"
  note "|---|---|---|---|---|"
  for claim in victim g64 all none; do
    r=$(tenant $claim timeout 120 python3 "$here/torch_checks.py" gemm-conv 2>>"$log" | tail -1)
    echo "torch $claim: $r" >> "$log"
    v() { echo "$r" | tr ' ' '\n' | awk -F= -v k=$1 '$1==k{print $2}'; }
    note "| $claim | $(v gemm_tflops) | $(v resnet18_b8_p50_ms) | $(v resnet18_img_s) | $(v distinct_sms) |"
  done
  note ""
fi

victim_run() { # label, victim claim, aggressor claim|-, victim env, aggressor env, [gemm-only]
  local label=$1 vc=$2 ac=$3 venv=$4 aenv=$5 amode=${6:-} stop=$work/stop-$RANDOM
  local apid=
  if [ "$ac" != - ]; then
    env $aenv bash -c "$(declare -f tenant); lib=$lib work=$work; tenant $ac timeout 300 python3 $here/torch_checks.py aggressor $stop $amode" >>"$log" 2>&1 &
    apid=$!
    for _ in $(seq 1 300); do [ -f "$stop.started" ] && break; sleep 0.1; done
    sleep 1
  fi
  local r
  r=$(env $venv bash -c "$(declare -f tenant); lib=$lib work=$work; tenant $vc timeout 120 python3 $here/torch_checks.py victim ${SAMPLES:-3000}" 2>>"$log" | tail -1)
  touch "$stop"
  [ -n "$apid" ] && wait "$apid"
  echo "victim $label: $r" >> "$log"
  echo "$r"
}
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k=$2 '$1==k{print $2}'; }

if [[ $parts == *isolation* ]]; then
  note "## 3. Isolation: two unmodified PyTorch processes under one MPS daemon"
  note ""
  note "Victim: conv3x3-relu-conv3x3, 1x64x56x56 fp16, ${SAMPLES:-3000} timed inferences (host wall time incl. synchronize)."
  note "Aggressor: bf16 GEMM 16384^2 + 2 GiB device copy, in a loop."
  note ""
  note "| setup | victim p50 us | victim p99 us | p99 / alone p99 | victim distinct SMs |"
  note "|---|---|---|---|---|"
  declare -A p99
  row() { # label, result, alone-key
    local r=$2 a=${p99[$3]:-}
    p99[$1]=$(field "$r" p99_us)
    local ratio=-
    [ -n "$a" ] && [ -n "${p99[$1]}" ] && ratio=$(python3 -c "print(f'{${p99[$1]}/$a:.2f}')")
    note "| $1 | $(field "$r" p50_us) | ${p99[$1]} | $ratio | $(field "$r" distinct_sms) |"
  }
  for i in $(seq 1 ${REPEATS:-3}); do
    row "run $i: sliced victim (16 SMs) alone" "$(victim_run s-alone victim - '' '')" x
    row "run $i: sliced victim + sliced aggressor (116 SMs)" "$(victim_run s-pair victim aggressor '' '')" "run $i: sliced victim (16 SMs) alone"
  done
  row "sliced victim + sliced aggressor, GEMMs only (no copies)" "$(victim_run s-gemm victim aggressor '' '' gemm-only)" "run 1: sliced victim (16 SMs) alone"
  row "unsliced victim alone" "$(victim_run u-alone none - '' '')" x
  row "unsliced victim + unsliced aggressor" "$(victim_run u-pair none none '' '')" "unsliced victim alone"
  row "MPS 12% victim alone" "$(victim_run m-alone none - CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=12 '')" x
  row "MPS 12% victim + 88% aggressor" "$(victim_run m-pair none none CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=12 CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=88)" "MPS 12% victim alone"
  note ""
fi

if [[ $parts == *overhead* ]]; then
  note "## 5. Overhead: the same victim on all 132 SMs, with the interposer (claim 'all') and without"
  note ""
  note "Without the interposer nothing can be confined, so the comparison is on the whole GPU; runs alternate."
  note ""
  note "| run | with interposer p50 / p99 us | without p50 / p99 us | p50 ratio |"
  note "|---|---|---|---|"
  for i in 1 2 3; do
    w=$(victim_run o-with all - '' '')
    n=$(victim_run o-without none - '' '')
    note "| $i | $(field "$w" p50_us) / $(field "$w" p99_us) | $(field "$n" p50_us) / $(field "$n" p99_us) | $(python3 -c "print(f'{$(field "$w" p50_us)/$(field "$n" p50_us):.3f}')" 2>/dev/null) |"
  done
  note ""
fi

if [[ $parts == *fault* ]]; then
  note "## 6. One tenant's illegal-address fault: time until the other tenant serves again"
  note ""
  serve_log=$work/serve.log
  : > "$serve_log"
  # The victim is restarted whenever it exits, as a pod's container would be.
  ( end=$((SECONDS + 150)); while [ $SECONDS -lt $end ] && [ ! -f "$work/stop-serving" ]; do
      tenant victim timeout 60 python3 "$here/torch_checks.py" serve "$serve_log" >>"$log" 2>&1
      sleep 0.2
    done ) &
  sup=$!
  for _ in $(seq 1 300); do grep -q first-serve "$serve_log" && break; sleep 0.1; done
  sleep 2
  f=$(tenant aggressor timeout 60 python3 "$here/torch_checks.py" fault 2>>"$log" | tail -1)
  echo "fault: $f" >> "$log"
  served_again() { [ "$(grep -c first-serve "$serve_log")" -ge 2 ]; }
  for _ in $(seq 1 ${NO_RECOVERY_WAIT:-150}); do served_again && break; sleep 0.1; done
  recovery_at=-
  if ! served_again; then
    # MPS admits no new client until every affected client has gone, the agent's idle workers
    # included. What the node side has to do, done here by hand: stop the agent (and its
    # workers), restart the MPS daemon, start the agent again.
    recovery_at=$(date +%s.%N)
    touch "$work/agent/stop"; wait $agent_pid
    echo quit | nvidia-cuda-mps-control; sleep 0.5
    nvidia-cuda-mps-control -d
    start_agent
    for _ in $(seq 1 600); do served_again && break; sleep 0.1; done
  fi
  touch "$work/stop-serving" "$serve_log.stop"
  wait $sup 2>/dev/null
  cp "$serve_log" "$out/serve.log"
  note "- victim start attempts refused with 'MPS server is not ready' (807): $(grep -c 'Error 807' "$log")"
  python3 - "$serve_log" "$(field "$f" fault_at)" "$(field "$f" fault_error)" "$recovery_at" "${NO_RECOVERY_WAIT:-150}" <<'PY' | tee -a "$md"
import sys
lines = [l.split() for l in open(sys.argv[1])]
fault_at = float(sys.argv[2]) if sys.argv[2] else None
errors = [float(l[1]) for l in lines if l[0] == "error"]
firsts = [(float(l[1]), float(l[3])) for l in lines if l[0] == "first-serve"]
print(f"- fault kernel's own error code: {sys.argv[3]} (700 = illegal address)")
if fault_at is None:
    print("- the fault did not run")
    sys.exit()
after = [e for e in errors if e >= fault_at - 1]
print(f"- victim saw an error {after[0] - fault_at:.3f} s after the fault" if after else "- victim saw no error")
again = [f for f in firsts if f[0] > fault_at]
if sys.argv[4] != "-":
    recovery = float(sys.argv[4])
    print(f"- no restarted victim process served within {float(sys.argv[5]) / 10:.0f} s of the fault")
    print(f"- recovery by hand (stop agent and workers, restart the MPS daemon, start the agent) "
          f"began {recovery - fault_at:.3f} s after the fault")
if again:
    serve, start = again[0]
    print(f"- victim served again {serve - fault_at:.3f} s after the fault "
          f"(its restarted process, PyTorch imported, began serving {start - fault_at:.3f} s "
          f"after the fault and took {serve - start:.3f} s to its first inference)")
else:
    print("- victim did not serve again within the wait")
PY
  note ""
fi

note "## Processes the agent registered (ATTACH)"
note ""
note "$(sort -u "$work/agent/attached.log" 2>/dev/null | awk '{print $1}' | sort | uniq -c | awk '{print "- "$2": "$1" processes"}')"
touch "$work/agent/stop"
wait $agent_pid
echo quit | nvidia-cuda-mps-control
cp "$work/agent/attached.log" "$out/" 2>/dev/null
tail -3 "$work/mps/log/control.log" > "$out/mps-control-tail.log" 2>/dev/null
cat "$md"
