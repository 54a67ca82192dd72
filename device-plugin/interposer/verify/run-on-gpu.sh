#!/usr/bin/env bash
# The interposer's verification on the H200 GPU machine: unmodified CUDA and PyTorch programs,
# confined by libsmslice-interposer.so to groups a real agent (worker mode, under the node's MPS
# daemon) hands out over ATTACH. The agent runs inside the node's FaultRecoveryCheck: the node's
# MPS daemon manager owns the daemon and NVML's Xid events drive the node's client-fault recovery.
# Run from the bundle prepare-gpu-run.sh made:
#   bash <bundle>/verify/run-on-gpu.sh [parts]
#   parts, run in the order given: any of smid torch fault beside isolation overhead escapes numba
# Environment: SAMPLES (victim inferences, 3000), REPEATS (isolation pairs, 4), ALTERNATIONS
# (overhead pairs, 8), FAULT_RECOVERY_TIMEOUT (s the faulted clients may take before the node
# restarts the MPS daemon; the node's default 30), ISOLATION_EXTRAS=0 (only the sliced pairs in
# part 3), VICTIM_CUDNN_BENCHMARK=0 (see torch_checks.py). Writes $OUT/transparent-verification.md and logs.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
parts=${1:-"smid torch fault beside isolation overhead"}
out=${OUT:-/tmp/smslice-interposer-out}
mkdir -p "$out"
work=/tmp/smslice-transparent
build=$work/build
rm -rf "$work" && mkdir -p "$build" "$work/mps"
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
# The tenants' MPS pipe: the daemon the node's manager runs on $work/mps.
export CUDA_MPS_PIPE_DIRECTORY=$work/mps/pipe CUDA_MPS_LOG_DIRECTORY=$work/mps/log

{
  echo "# Transparent slices on the H200 GPU machine"
  echo
  echo "Command: \`device-plugin/interposer/verify/run-on-gpu.sh \"$parts\"\` (bundle from prepare-gpu-run.sh;"
  echo "SAMPLES=${SAMPLES:-3000} REPEATS=${REPEATS:-4} ALTERNATIONS=${ALTERNATIONS:-8} FAULT_RECOVERY_TIMEOUT=${FAULT_RECOVERY_TIMEOUT:-30}"
  echo "ISOLATION_EXTRAS=${ISOLATION_EXTRAS:-1} VICTIM_CUDNN_BENCHMARK=${VICTIM_CUDNN_BENCHMARK:-1})  "
  echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  "
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total,mig.mode.current,compute_mode --format=csv,noheader)  "
  echo "Host: $(nproc) CPUs; torch $(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)  "
  echo "Every transparent tenant below is an unmodified program; 'sliced' means run with the interposer"
  echo "preloaded and the env of a claim served by the real agent (worker mode) under the node's MPS daemon."
  echo
} > "$md"

# The node's pieces with the real agent, serving the claims the checks use (groups of the node's
# one split; 15 = remainder). Like the node process it is no MPS client itself.
start_node() {
  rm -f "$work/agent/ready" "$work/agent/stop"
  env -u CUDA_MPS_PIPE_DIRECTORY -u CUDA_MPS_LOG_DIRECTORY timeout 1500 "$jre/bin/java" \
    --enable-native-access=ALL-UNNAMED -Dsmslice.faultRecoveryTimeout=${FAULT_RECOVERY_TIMEOUT:-30} \
    -cp "$bundle/agent/*" io.smslice.node.tools.FaultRecoveryCheck "$work/agent" "$work/mps" \
    victim=0,1 aggressor=2-15 g64=0-7 all=all >>"$out/node.log" 2>&1 &
  node_pid=$!
  for _ in $(seq 1 900); do
    [ -f "$work/agent/ready" ] && break
    kill -0 $node_pid 2>/dev/null || break
    sleep 0.1
  done
  [ -f "$work/agent/ready" ] || note "the node check did not start (see node.log)"
}
stop_node() { touch "$work/agent/stop"; wait $node_pid; }
start_node
grep '^claim ' "$out/node.log" | sed 's/^/    /' >> "$md"
echo >> "$md"

tenant() { # claim|none, command...: runs an unmodified program as a tenant of the claim
  local claim=$1; shift
  if [ "$claim" = none ]; then
    env -u LD_PRELOAD "$@"
  else
    ( source "$work/agent/env/$claim.env" && LD_PRELOAD=$lib exec "$@" )
  fi
}
client() { # claim, ClientTenant args...: a tenant written against the client library
  local claim=$1; shift
  ( source "$work/agent/env/$claim.env" && exec env -u LD_PRELOAD "$jre/bin/java" \
      --enable-native-access=ALL-UNNAMED -cp "$bundle/agent/*" io.smslice.agent.verify.ClientTenant \
      "$bundle/verify/kernels.ptx" "$@" )
}
field() { echo "$1" | tr ' ' '\n' | awk -F= -v k=$2 '$1==k{print $2}'; }
ratio() { python3 -c "print(f'{$1/$2:.2f}')" 2>/dev/null || echo -; }

# label, victim claim|none, aggressor claim|none|-, victim env, aggressor env, [aggressor mode],
# [victim kind torch|client], [aggressor kind torch|client]. Prints the victim's result line with
# the aggressor's distinct SMs added (co_sms); appends the victim's time window to $work/windows.
victim_run() {
  local label=$1 vc=$2 ac=$3 venv=$4 aenv=$5 amode=${6:-} vkind=${7:-torch} akind=${8:-torch}
  local stop=$work/stop-$RANDOM apid=
  if [ "$ac" != - ]; then
    if [ "$akind" = client ]; then
      client "$ac" load "$stop" > "$stop.out" 2>>"$log" &
    else
      env $aenv bash -c "$(declare -f tenant); lib=$lib work=$work; tenant $ac timeout 300 python3 $here/torch_checks.py aggressor $stop $amode" > "$stop.out" 2>>"$log" &
    fi
    apid=$!
    for _ in $(seq 1 300); do [ -f "$stop.started" ] && break; sleep 0.1; done
    sleep 1
  fi
  local r start end
  start=$(date +%s.%N)
  if [ "$vkind" = client ]; then
    r=$(client "$vc" latency 2>>"$log" | tail -1)
  else
    r=$(env $venv bash -c "$(declare -f tenant); lib=$lib work=$work; tenant $vc timeout 120 python3 $here/torch_checks.py victim ${SAMPLES:-3000}" 2>>"$log" | tail -1)
  fi
  end=$(date +%s.%N)
  touch "$stop"
  [ -n "$apid" ] && wait "$apid"
  [ -f "$stop.out" ] && r="$r co_sms=$(field "$(tail -1 "$stop.out")" distinct_sms)"
  echo "$label $start $end" >> "$work/windows"
  echo "victim $label: $r" >> "$log"
  echo "$r"
}
window_telemetry() { # the last victim window's GPU telemetry, as table cells
  [ -f "$work/telemetry.csv" ] || { echo "- | - | - | - | not recorded"; return; }
  python3 "$here/telemetry.py" "$work/telemetry.csv" $(tail -1 "$work/windows" | awk '{print $2, $3}')
}
# Read-only GPU telemetry every 200 ms (the throttle-reasons field has two names across drivers).
telemetry_start() {
  local q=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu r
  for r in ,clocks_throttle_reasons.active ,clocks_event_reasons.active ""; do
    nvidia-smi --query-gpu=$q$r --format=csv,noheader,nounits -lms 200 >> "$work/telemetry.csv" 2>>"$log" &
    tel_pid=$!
    sleep 0.6
    kill -0 $tel_pid 2>/dev/null && { echo "telemetry fields: $q$r" >> "$log"; return; }
  done
}
telemetry_stop() { kill $tel_pid 2>/dev/null; wait $tel_pid 2>/dev/null; cp "$work/telemetry.csv" "$out/" 2>/dev/null; }

part_smid() {
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
}

part_torch() {
  note "## 2. Unmodified PyTorch: bf16 GEMM 8192^3 and ResNet-18 fp16 batch 8 (cuDNN), by slice"
  note ""
  note "| tenant | GEMM TFLOP/s | ResNet-18 p50 ms | images/s | distinct SMs (probe kernel in the same process) |"
  note "|---|---|---|---|---|"
  for claim in victim g64 all none; do
    r=$(tenant $claim timeout 120 python3 "$here/torch_checks.py" gemm-conv 2>>"$log" | tail -1)
    echo "torch $claim: $r" >> "$log"
    note "| $claim | $(field "$r" gemm_tflops) | $(field "$r" resnet18_b8_p50_ms) | $(field "$r" resnet18_img_s) | $(field "$r" distinct_sms) |"
  done
  note ""
}

part_fault() {
  note "## 6. One tenant's illegal-address fault, recovered by the node (ClientFaultRecovery)"
  note ""
  local serve_log=$work/serve.log mark
  : > "$serve_log"
  rm -f "$work/stop-serving" "$serve_log.stop"
  # The victim is restarted whenever it exits, as a pod's container would be.
  ( end=$((SECONDS + 200)); while [ $SECONDS -lt $end ] && [ ! -f "$work/stop-serving" ]; do
      tenant victim timeout 60 python3 "$here/torch_checks.py" serve "$serve_log" >>"$log" 2>&1
      sleep 0.2
    done ) &
  local sup=$!
  for _ in $(seq 1 300); do grep -q first-serve "$serve_log" && break; sleep 0.1; done
  sleep 2
  mark=$(wc -l < "$work/agent/faults.log")
  f=$(tenant aggressor timeout 60 python3 "$here/torch_checks.py" fault 2>>"$log" | tail -1)
  echo "fault: $f" >> "$log"
  node_log() { tail -n +$((mark + 1)) "$work/agent/faults.log"; }
  served_again() { [ "$(grep -c first-serve "$serve_log")" -ge 2 ]; }
  local by_hand=-
  local deadline=$((SECONDS + 20))
  while [ $SECONDS -lt $deadline ]; do node_log | grep -q '^fault ' && break; sleep 0.1; done
  if ! node_log | grep -q '^fault '; then
    # The node saw no application Xid: it cannot recover. Restart its pieces by hand so that the
    # other parts can run (stop the agent, its workers and the daemon; start them again).
    by_hand=$(date +%s.%N)
    stop_node
    start_node
  fi
  if [ "$by_hand" = - ]; then
    deadline=$((SECONDS + ${FAULT_RECOVERY_TIMEOUT:-30} * 2 + 30))
    while [ $SECONDS -lt $deadline ]; do node_log | grep -q '^recovery ' && break; sleep 0.1; done
  fi
  deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do served_again && break; sleep 0.1; done
  touch "$work/stop-serving" "$serve_log.stop"
  wait $sup 2>/dev/null
  cp "$serve_log" "$out/serve.log"
  node_log > "$work/faults-after.log"
  cp "$work/agent/faults.log" "$out/faults.log"
  note "- victim start attempts refused with 'MPS server is not ready' (807): $(grep -c 'Error 807' "$log")"
  python3 - "$serve_log" "$(field "$f" fault_at)" "$(field "$f" fault_error)" "$work/faults-after.log" "$by_hand" <<'PY' | tee -a "$md"
import sys
lines = [l.split() for l in open(sys.argv[1])]
fault_at = float(sys.argv[2]) if sys.argv[2] else None
print(f"- fault kernel's own error code: {sys.argv[3]} (700 = illegal address)")
if fault_at is None:
    print("- the fault did not run")
    sys.exit()
errors = [float(l[1]) for l in lines if l[0] == "error"]
firsts = [(float(l[1]), float(l[3])) for l in lines if l[0] == "first-serve"]
after = [e for e in errors if e >= fault_at - 1]
print(f"- victim saw an error {after[0] - fault_at:.3f} s after the fault" if after else "- victim saw no error")
def kv(line):
    return dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
node = [l.strip() for l in open(sys.argv[4]) if l.strip()]
xids = [kv(l) for l in node if l.startswith("nvml-xid ")]
if xids:
    print("- NVML Xid events: " + ", ".join(f"{x['xid']} at +{float(x['at']) - fault_at:.3f} s" for x in xids))
else:
    print("- NVML reported no Xid event")
faults = [kv(l) for l in node if l.startswith("fault ")]
if faults:
    print(f"- the node's recovery began {float(faults[0]['at']) - fault_at:.3f} s after the fault (Xid {faults[0]['xid']})")
for r in (kv(l) for l in node if l.startswith("recovery ")):
    print(f"- ClientFaultRecovery: result {r['result']}, its recorded seconds {r['seconds']} "
          f"(affected client pids {r['affected']}; MPS daemon pid now {r['mps-pid']}); "
          f"record written {float(r['logged-at']) - fault_at:.3f} s after the fault")
if sys.argv[5] != "-":
    print(f"- no application Xid reached the node's recovery within 20 s: its pieces were restarted by hand "
          f"{float(sys.argv[5]) - fault_at:.3f} s after the fault")
again = [f for f in firsts if f[0] > fault_at]
if again:
    serve, start = again[0]
    print(f"- victim served again {serve - fault_at:.3f} s after the fault (its restarted process, "
          f"PyTorch imported, started {start - fault_at:.3f} s after the fault and took "
          f"{serve - start:.3f} s to its first inference)")
else:
    print("- victim did not serve again within the wait")
PY
  note ""
}

part_beside() {
  note "## 4. A transparent tenant beside an agent-served claim (client library, worker mode)"
  note ""
  note "Transparent (T): the PyTorch victim or aggressor of part 3 under the interposer. Agent-served (A):"
  note "ClientTenant, a Java client-library tenant served by the claim's worker: its victim is the agent"
  note "verification's spin kernel (16 blocks, launch+sync), its aggressor a spin load on every SM of its claim."
  note "Claims: victim = groups 0,1 (16 SMs), aggressor = groups 2-15 (116 SMs), one split, one MPS daemon."
  note "Under MPS %smid reads client-relative ids, so disjointness is judged by the counts (16 + 116 = 132) and by the timing."
  note ""
  note "| run: victim + co-tenant | victim p50 us | victim p99 us | p99 / alone p99 | victim distinct SMs | co-tenant distinct SMs | SM MHz | mem MHz | power W mean (max) | temp C max | clock-event reasons |"
  note "|---|---|---|---|---|---|---|---|---|---|---|"
  telemetry_start
  local i ra rp ta tp
  for i in 1 2; do
    ra=$(victim_run b-t-alone victim - '' ''); ta=$(window_telemetry)
    rp=$(victim_run b-t-pair victim aggressor '' '' '' torch client); tp=$(window_telemetry)
    note "| $i: T victim alone | $(field "$ra" p50_us) | $(field "$ra" p99_us) | - | $(field "$ra" distinct_sms) | - | $ta |"
    note "| $i: T victim + A aggressor | $(field "$rp" p50_us) | $(field "$rp" p99_us) | $(ratio "$(field "$rp" p99_us)" "$(field "$ra" p99_us)") | $(field "$rp" distinct_sms) | $(field "$rp" co_sms) | $tp |"
    ra=$(victim_run b-c-alone victim - '' '' '' client); ta=$(window_telemetry)
    rp=$(victim_run b-c-pair victim aggressor '' '' '' client torch); tp=$(window_telemetry)
    note "| $i: A victim alone | $(field "$ra" p50_us) | $(field "$ra" p99_us) | - | $(field "$ra" distinct_sms) | - | $ta |"
    note "| $i: A victim + T aggressor | $(field "$rp" p50_us) | $(field "$rp" p99_us) | $(ratio "$(field "$rp" p99_us)" "$(field "$ra" p99_us)") | $(field "$rp" distinct_sms) | $(field "$rp" co_sms) | $tp |"
  done
  telemetry_stop
  note ""
}

isolation_extras() {
  local ra rp ta tp
  ra=$(victim_run s-alone victim - '' ''); ta=$(window_telemetry)
  rp=$(victim_run s-gemm victim aggressor '' '' gemm-only); tp=$(window_telemetry)
  iso_row "sliced victim alone (before the GEMM-only pair)" "$ra" - "$ta"
  iso_row "sliced victim + sliced aggressor, GEMMs only (no copies)" "$rp" "$(ratio "$(field "$rp" p99_us)" "$(field "$ra" p99_us)")" "$tp"
  ra=$(victim_run u-alone none - '' ''); ta=$(window_telemetry)
  rp=$(victim_run u-pair none none '' ''); tp=$(window_telemetry)
  iso_row "unsliced victim alone" "$ra" - "$ta"
  iso_row "unsliced victim + unsliced aggressor" "$rp" "$(ratio "$(field "$rp" p99_us)" "$(field "$ra" p99_us)")" "$tp"
  ra=$(victim_run m-alone none - CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=12 ''); ta=$(window_telemetry)
  rp=$(victim_run m-pair none none CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=12 CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=88); tp=$(window_telemetry)
  iso_row "MPS 12% victim alone" "$ra" - "$ta"
  iso_row "MPS 12% victim + 88% aggressor" "$rp" "$(ratio "$(field "$rp" p99_us)" "$(field "$ra" p99_us)")" "$tp"
}

part_isolation() {
  note "## 3. Isolation: two unmodified PyTorch processes under one MPS daemon"
  note ""
  note "Victim: conv3x3-relu-conv3x3, 1x64x56x56 fp16, ${SAMPLES:-3000} timed inferences (host wall time incl. synchronize)."
  note "Aggressor: bf16 GEMM 16384^2 + 2 GiB device copy, in a loop. Alone and paired runs alternate, the"
  note "order flips each run; GPU telemetry (nvidia-smi, read-only, every 200 ms) over each victim's window."
  note ""
  note "| setup | victim p50 us | victim p99 us | p99 / alone p99 | victim distinct SMs | SM MHz | mem MHz | power W mean (max) | temp C max | clock-event reasons |"
  note "|---|---|---|---|---|---|---|---|---|---|"
  telemetry_start
  local i ra rp ta tp
  iso_row() { # label, result, ratio, telemetry
    note "| $1 | $(field "$2" p50_us) | $(field "$2" p99_us) | $3 | $(field "$2" distinct_sms) | $4 |"
  }
  : > "$work/iso-pairs"
  for i in $(seq 1 ${REPEATS:-4}); do
    if [ $((i % 2)) = 1 ]; then
      ra=$(victim_run s-alone victim - '' ''); ta=$(window_telemetry)
      rp=$(victim_run s-pair victim aggressor '' ''); tp=$(window_telemetry)
    else
      rp=$(victim_run s-pair victim aggressor '' ''); tp=$(window_telemetry)
      ra=$(victim_run s-alone victim - '' ''); ta=$(window_telemetry)
    fi
    echo "$(field "$ra" p99_us) $(field "$rp" p99_us) $(field "$ra" p50_us) $(field "$rp" p50_us)" >> "$work/iso-pairs"
    iso_row "run $i: sliced victim (16 SMs) alone" "$ra" - "$ta"
    iso_row "run $i: sliced victim + sliced aggressor (116 SMs)" "$rp" "$(ratio "$(field "$rp" p99_us)" "$(field "$ra" p99_us)")" "$tp"
  done
  # The unsliced and MPS-percentage pairs (and the GEMM-only one) unless ISOLATION_EXTRAS=0.
  [ "${ISOLATION_EXTRAS:-1}" = 0 ] || isolation_extras
  telemetry_stop
  note ""
  python3 - "$work/iso-pairs" <<'PY' | tee -a "$md"
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 4]
if not rows:
    sys.exit()
alone, pair = [r[0] for r in rows], [r[1] for r in rows]
ratios = [p / a for a, p in zip(alone, pair)]
print(f"Sliced pairs, {len(rows)} runs: alone p99 {min(alone):.1f}-{max(alone):.1f} us (median "
      f"{statistics.median(alone):.1f}), paired p99 {min(pair):.1f}-{max(pair):.1f} us (median "
      f"{statistics.median(pair):.1f}); per-run p99 ratio {min(ratios):.2f}-{max(ratios):.2f} (median "
      f"{statistics.median(ratios):.2f}); ratio of the medians {statistics.median(pair) / statistics.median(alone):.2f}; "
      f"runs with ratio <= 1.10: {sum(r <= 1.10 for r in ratios)} of {len(ratios)}.")
PY
  note ""
}

part_overhead() {
  note "## 5. Overhead: the same victim on all 132 SMs, with the interposer (claim 'all') and without"
  note ""
  note "Without the interposer nothing can be confined, so the comparison is on the whole GPU; runs alternate"
  note "and the order flips each run."
  note ""
  note "| run | with interposer p50 / p99 us | without p50 / p99 us | p50 ratio |"
  note "|---|---|---|---|"
  local i w n
  : > "$work/overhead"
  for i in $(seq 1 ${ALTERNATIONS:-8}); do
    if [ $((i % 2)) = 1 ]; then
      w=$(victim_run o-with all - '' ''); n=$(victim_run o-without none - '' '')
    else
      n=$(victim_run o-without none - '' ''); w=$(victim_run o-with all - '' '')
    fi
    echo "$(field "$w" p50_us) $(field "$n" p50_us)" >> "$work/overhead"
    note "| $i | $(field "$w" p50_us) / $(field "$w" p99_us) | $(field "$n" p50_us) / $(field "$n" p99_us) | $(python3 -c "print(f'{$(field "$w" p50_us)/$(field "$n" p50_us):.3f}')" 2>/dev/null) |"
  done
  note ""
  python3 - "$work/overhead" <<'PY' | tee -a "$md"
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1]) if len(l.split()) == 2]
if not rows:
    sys.exit()
w, n = [r[0] for r in rows], [r[1] for r in rows]
ratios = sorted(a / b for a, b in zip(w, n))
print(f"{len(rows)} alternations: p50 with {min(w):.1f}-{max(w):.1f} us (median {statistics.median(w):.1f}), "
      f"without {min(n):.1f}-{max(n):.1f} us (median {statistics.median(n):.1f}); per-run ratio "
      f"{ratios[0]:.3f}-{ratios[-1]:.3f}, median {statistics.median(ratios):.3f}; ratio of the medians "
      f"{statistics.median(w) / statistics.median(n):.3f}; runs <= 1.02: {sum(r <= 1.02 for r in ratios)} of {len(ratios)}.")
PY
  note ""
}

source "$here/framework_parts.sh"
for part in $parts; do
  case $part in
    smid|torch|fault|beside|isolation|overhead|escapes|numba) "part_$part" ;;
    *) note "unknown part $part" ;;
  esac
done

note "## Processes the agent registered (ATTACH)"
note ""
note "$(sort -u "$work/agent/attached.log" 2>/dev/null | awk '{print $1}' | sort | uniq -c | awk '{print "- "$2": "$1" processes"}')"
stop_node
cp "$work/agent/attached.log" "$work/agent/faults.log" "$out/" 2>/dev/null
cat "$md"
