#!/usr/bin/env bash
# The interference guard on the H200 GPU machine, measured with a GPU-timed victim: an unmodified
# PyTorch ResNet-18 (fp16, batch 8) replayed from a CUDA graph every PERIOD_MS in a 16-SM claim
# (groups 0,1), each replay timed by CUDA events, beside an unmodified best-effort PyTorch job in
# the other 116 SMs (groups 2-15), both under the interposer and one MPS daemon, served by the real
# agent (FaultRecoveryCheck, as run-on-gpu.sh). The guard file is made by the agent's code
# (GuardFileTool) and turned off and on between phases of the same two processes, as the node turns
# it on while latency-critical and best-effort claims share a GPU. nvidia-smi (read only) records
# SM clock and power beside every phase.
# Run from the bundle prepare-gpu-run.sh made:  bash <bundle>/verify/run-guard-on-gpu.sh [parts]
#   parts, in the order given: any of alone neighbours bound shared overhead (default alone
#   neighbours overhead); bound: a train neighbour alone through the guard states, rounds in
#   alternating order (ALTERNATIONS of them); shared: the same victim and a train neighbour without green slices, alone
#   and beside each other, in each setup of SHARED (default "mps timesliced"): mps (MPS active-thread
#   percentages 12 / 88), mps-unlimited (MPS without limits), timesliced (no MPS)
# Environment: FRAMES (per phase, 1500), PERIOD_MS (5), KINDS (train copy gemm-long), PAIRS (guard
# off/on rounds of phases per neighbour, 2), DEPTH (best-effort launches in flight at most, 512),
# INFLIGHT_MS (their estimated GPU time in flight at most, 0.5; 0: the depth alone), SWEEP (in-flight
# bounds, ms, each a guarded phase of every round, default INFLIGHT_MS; MS@AHEAD also closes gates
# AHEAD ms before the periodic victim's next frame is due), MAX_HOLD_MS (10), SHARE
# (0.5), WINDOW_MS (100), HOLD_ON (how best-effort tenants hold: thread or stream, thread), AHEAD_MS
# (gates close this long before a periodic victim's frame is due, 0; a SWEEP entry's @AHEAD sets its own), SHARED (setups of part shared), SHARED_FRAMES (frames a phase of part shared, FRAMES), ALTERNATIONS
# (overhead pairs, 3), BUDGET_S (stop starting parts after this, 540), NALONE_S (seconds the neighbour
# runs alone in each guard state before the victim starts, 5),
# NODE_JAVA_OPTS (e.g. -Dsmslice.backend=simulated to try the wiring without a GPU).
# Writes $OUT/guard-verification.md, its logs and frames/ (every frame of every phase).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=$(dirname "$here")
parts=${1:-"alone neighbours overhead"}
out=${OUT:-/tmp/smslice-guard-out}
mkdir -p "$out"
work=/tmp/smslice-guard
rm -rf "$work" && mkdir -p "$work/mps"
lib=$bundle/lib/libsmslice-interposer.so
md=$out/guard-verification.md
log=$out/run.log
FRAMES=${FRAMES:-1500} PERIOD_MS=${PERIOD_MS:-5} KINDS=${KINDS:-"train copy gemm-long"}
PAIRS=${PAIRS:-2} DEPTH=${DEPTH:-512} INFLIGHT_MS=${INFLIGHT_MS:-0.5} MAX_HOLD_MS=${MAX_HOLD_MS:-10} SHARE=${SHARE:-0.5}
WINDOW_MS=${WINDOW_MS:-100} SWEEP=${SWEEP:-$INFLIGHT_MS} ALTERNATIONS=${ALTERNATIONS:-3} BUDGET_S=${BUDGET_S:-540}
NALONE_S=${NALONE_S:-5} HOLD_ON=${HOLD_ON:-thread} AHEAD_MS=${AHEAD_MS:-0} SHARED=${SHARED:-"mps timesliced"}
export LD_LIBRARY_PATH=/usr/local/nvidia/lib64:${LD_LIBRARY_PATH:-}
export PYTHONUNBUFFERED=1
note() { echo "$*" | tee -a "$md"; }
left() { echo $((BUDGET_S - SECONDS)); }

jre=/tmp/smslice-jre25
[ -x "$jre/bin/java" ] || { mkdir -p "$jre" && tar -xzf "$bundle/jre25.tgz" -C "$jre" --strip-components=1; }
export CUDA_MPS_PIPE_DIRECTORY=$work/mps/pipe CUDA_MPS_LOG_DIRECTORY=$work/mps/log
gtool() { "$jre/bin/java" -cp "$bundle/agent/*" io.smslice.agent.verify.GuardFileTool "$@"; }

{
  echo "# The interference guard on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  echo
  echo "Command: \`device-plugin/interposer/verify/run-guard-on-gpu.sh \"$parts\"\` (bundle from prepare-gpu-run.sh)  "
  echo "FRAMES=$FRAMES PERIOD_MS=$PERIOD_MS KINDS=\"$KINDS\" PAIRS=$PAIRS DEPTH=$DEPTH INFLIGHT_MS=$INFLIGHT_MS SWEEP=\"$SWEEP\" MAX_HOLD_MS=$MAX_HOLD_MS SHARE=$SHARE WINDOW_MS=$WINDOW_MS ALTERNATIONS=$ALTERNATIONS HOLD_ON=$HOLD_ON AHEAD_MS=$AHEAD_MS  "
  echo "Date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  "
  echo "Commit measured: $(cat "$bundle/COMMIT" 2>/dev/null || echo unknown)  "
  echo "GPU: $(nvidia-smi --query-gpu=name,driver_version,memory.total,mig.mode.current,compute_mode,power.limit --format=csv,noheader)  "
  echo "Host: $(nproc) CPUs; torch $(python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)"
  echo
} > "$md"

start_node() {
  rm -f "$work/agent/ready" "$work/agent/stop"
  env -u CUDA_MPS_PIPE_DIRECTORY -u CUDA_MPS_LOG_DIRECTORY timeout 1500 "$jre/bin/java" \
    --enable-native-access=ALL-UNNAMED ${NODE_JAVA_OPTS:-} -cp "$bundle/agent/*" io.smslice.node.tools.FaultRecoveryCheck \
    "$work/agent" "$work/mps" victim=0,1 neighbour=2-15 all=all >>"$out/node.log" 2>&1 &
  node_pid=$!
  for _ in $(seq 1 900); do
    [ -f "$work/agent/ready" ] && break
    kill -0 $node_pid 2>/dev/null || break
    sleep 0.1
  done
  [ -f "$work/agent/ready" ] || note "the node check did not start (see node.log)"
}
stop_node() { touch "$work/agent/stop"; wait $node_pid; }

guard=/dev/shm/smslice-guard-verify
gtool create "$guard" "$MAX_HOLD_MS" "$SHARE" "$WINDOW_MS" "$DEPTH" "$INFLIGHT_MS" "$HOLD_ON" "$AHEAD_MS" >>"$log" 2>&1 || note "GuardFileTool create failed"

# claim|none, priority|-, command...: an unmodified program as a tenant of the claim; with a
# priority it gets the guard's two variables, as the node's Allocate gives them.
tenant() {
  local claim=$1 priority=$2; shift 2
  if [ "$claim" = none ]; then
    env -u LD_PRELOAD "$@"
  elif [ "$claim" = mps ]; then # no slice: MPS without limits
    env -u LD_PRELOAD -u CUDA_MPS_ACTIVE_THREAD_PERCENTAGE "$@"
  elif [ "${claim#mps}" != "$claim" ]; then # no slice: MPS with an active-thread percentage
    env -u LD_PRELOAD CUDA_MPS_ACTIVE_THREAD_PERCENTAGE="${claim#mps}" "$@"
  elif [ "$claim" = timesliced ]; then # no slice, no MPS: the driver time-slices the processes
    env -u LD_PRELOAD CUDA_MPS_PIPE_DIRECTORY="$work/no-mps" "$@"
  elif [ "$priority" = - ]; then
    ( source "$work/agent/env/$claim.env" && LD_PRELOAD=$lib exec "$@" )
  else
    ( source "$work/agent/env/$claim.env" && SMSLICE_GUARD=$guard SMSLICE_PRIORITY=$priority \
        LD_PRELOAD=$lib exec "$@" )
  fi
}

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

wait_file() { # file, seconds
  local i
  for i in $(seq 1 $(($2 * 20))); do [ -e "$1" ] && return 0; sleep 0.05; done
  return 1
}

# A guard state: 0 off, 1 on, 1@MS on with an in-flight bound of MS (and AHEAD_MS), 1@MS@AHEAD the
# same with best-effort gates closing AHEAD ms before a periodic latency-critical tenant's next
# frame is due.
apply_state() {
  gtool enable "$guard" "${1%%@*}" >>"$log" 2>&1
  local rest=${1#*@}
  [ "$rest" = "$1" ] && return
  local ahead=$AHEAD_MS
  [ "${rest#*@}" = "$rest" ] || ahead=${rest#*@}
  gtool limits "$guard" "${rest%%@*}" "$ahead" >>"$log" 2>&1
}

# label, kind, neighbour log|-, claim, priority, period ms, guard states...: one victim process,
# one phase per state (0 guard off, 1 on, 1@MS[@AHEAD] as apply_state, - leave it; a
# state after a "+" first starts the neighbour given as NEIGHBOUR_CLAIM:KIND), each phase's line
# appended to phases.
victim_phases() {
  local label=$1 kind=$2 nlog=$3 claim=$4 priority=$5 period=$6; shift 6
  local ctl=$work/ctl-$label-$kind-$RANDOM k=0 state
  mkdir -p "$ctl"
  local phases=0
  for state in "$@"; do [ "$state" = + ] || phases=$((phases + 1)); done
  tenant "$claim" "$priority" timeout 400 python3 "$here/guard_workloads.py" victim "$FRAMES" $phases "$ctl" "$period" > "$ctl/out" 2>>"$log" &
  local vpid=$!
  for _ in $(seq 1 2400); do grep -q victim-ready "$ctl/out" 2>/dev/null && break; kill -0 $vpid 2>/dev/null || break; sleep 0.05; done
  grep -q victim-ready "$ctl/out" 2>/dev/null || echo "victim $label $kind did not start" >> "$log"
  local npid=
  for state in "$@"; do
    kill -0 $vpid 2>/dev/null || break
    if [ "$state" = + ]; then
      start_neighbour "${NEIGHBOUR_CLAIM%%:*}" - "${NEIGHBOUR_CLAIM#*:}" "$work/stop-$label" "$nlog" || break
      npid=$neighbour_pid
      continue
    fi
    [ "$state" = - ] || apply_state "$state"
    touch "$ctl/go-$k"
    while [ ! -e "$ctl/done-$k" ] && kill -0 $vpid 2>/dev/null; do sleep 0.05; done
    [ -e "$ctl/done-$k" ] || { echo "victim phase $k did not finish" >> "$log"; break; }
    echo "$label $kind $state $nlog $(grep "^phase=$k " "$ctl/out")" >> "$work/phases"
    mkdir -p "$out/frames" && cp "$ctl/frames-$k" "$out/frames/$label-$kind-$k-${state//@/_}" 2>/dev/null
    # Beside a neighbour: the slots' counts after each phase, so holds and cap cuts can be told apart.
    [ "$label" != pair ] || gtool report "$guard" | sed "s/^/$kind pair $k $state: /" >> "$work/guard-report"
    k=$((k + 1))
  done
  [ $k = $phases ] || kill $vpid 2>/dev/null # a phase that never began must not wait its timeout
  wait $vpid
  cat "$ctl/out" >> "$log"
  [ -z "$npid" ] || { touch "$work/stop-$label"; wait $npid; }
}

# claim, priority, kind, stop file, log: starts a neighbour and waits until it runs.
start_neighbour() {
  tenant "$1" "$2" timeout 600 python3 "$here/guard_workloads.py" neighbour "$3" "$4" "$5" >>"$log" 2>&1 &
  neighbour_pid=$!
  wait_file "$4.started" 120 || { note "neighbour $3 ($1) did not start"; kill $neighbour_pid; return 1; }
}

guarded_states() { local b; echo 0; for b in $SWEEP; do echo "1@$b"; done; }

part_alone() { # the report's part 1: guard off (nothing tracked) and on (tracked and published)
  victim_phases alone - - victim LatencyCritical "$PERIOD_MS" $(for _ in $(seq 1 $PAIRS); do echo 0 1; done)
}

# Seconds one neighbour's rounds take: its phases, its time alone in each guard state, and ~30 s
# to start it and the victim.
neighbour_seconds() {
  local states
  states=$(guarded_states | wc -l)
  echo $(((PAIRS * states * FRAMES * ${PERIOD_MS%.*} + 999) / 1000 + states * NALONE_S + 30))
}

part_neighbours() {
  local kind round=0 needs
  needs=$(neighbour_seconds)
  for kind in $KINDS; do
    [ "$(left)" -gt "$needs" ] || { note "neighbour $kind skipped: out of time (it needs ~$needs s)"; continue; }
    # Files of their own per neighbour, so that a kind named twice runs twice (run 9 did not).
    round=$((round + 1))
    local stop=$work/stop-$kind-$round nlog=$work/n-$kind-$round.log
    start_neighbour neighbour BestEffort "$kind" "$stop" "$nlog" || continue
    local npid=$neighbour_pid
    local state s e
    for state in $(guarded_states); do
      apply_state "$state"
      s=$(date +%s.%N); sleep "$NALONE_S"; e=$(date +%s.%N)
      echo "nalone $kind $state $nlog start=$s end=$e" >> "$work/phases"
      # Per state: the slot's launches so far and its estimate of GPU time per launch.
      gtool report "$guard" | sed "s/^/$kind alone $state: /" >> "$work/guard-report"
    done
    victim_phases pair "$kind" "$nlog" victim LatencyCritical "$PERIOD_MS" $(for _ in $(seq 1 $PAIRS); do guarded_states; done)
    gtool report "$guard" | sed "s/^/$kind: /" >> "$work/guard-report"
    touch "$stop"
    wait $npid
  done
}

part_bound() {
  # The in-flight bound's own cost: a train neighbour alone, no victim, through the guard states
  # (off and each SWEEP bound) ALTERNATIONS times, in reverse order every other round, so that
  # drift over the trainer's life is not read as the bound's cost.
  local stop=$work/stop-bound nlog=$work/n-bound.log i state s e
  start_neighbour neighbour BestEffort train "$stop" "$nlog" || return
  local npid=$neighbour_pid
  for i in $(seq 1 $ALTERNATIONS); do
    [ "$(left)" -gt 30 ] || { note "bound round $i skipped: out of time"; break; }
    for state in $(if [ $((i % 2)) = 1 ]; then guarded_states; else guarded_states | tac; fi); do
      apply_state "$state"
      s=$(date +%s.%N); sleep "$NALONE_S"; e=$(date +%s.%N)
      echo "nalone train-bound $state $nlog start=$s end=$e" >> "$work/phases"
    done
  done
  gtool report "$guard" | sed "s/^/bound: /" >> "$work/guard-report"
  touch "$stop"
  wait $npid
}

part_shared() {
  # No green slices: the victim alone, then beside a train neighbour, in one victim process each
  # (SHARED_FRAMES frames a phase: time-sliced frames can take many periods).
  local how FRAMES=${SHARED_FRAMES:-$FRAMES} vclaim nclaim
  for how in $SHARED; do
    [ "$(left)" -gt 60 ] || { note "shared $how skipped: out of time"; continue; }
    case $how in
      mps) vclaim=mps12 nclaim=mps88 ;;
      mps-unlimited) vclaim=mps nclaim=mps ;;
      timesliced) vclaim=timesliced nclaim=timesliced ;;
      *) note "unknown shared setup $how"; continue ;;
    esac
    NEIGHBOUR_CLAIM=$nclaim:train victim_phases "$how" train "$work/n-$how.log" "$vclaim" - "$PERIOD_MS" - + -
  done
}

part_overhead() {
  # The victim on all 132 SMs, back to back: with the interposer (claim 'all', no guard variables:
  # every launch goes through its wrappers) and without it, alternating, order flipped each time.
  local i
  for i in $(seq 1 $ALTERNATIONS); do
    [ "$(left)" -gt 40 ] || { note "overhead alternation $i skipped: out of time"; break; }
    if [ $((i % 2)) = 1 ]; then
      victim_phases with - - all - 0 -; victim_phases without - - none - 0 -
    else
      victim_phases without - - none - 0 -; victim_phases with - - all - 0 -
    fi
  done
}

start_node
telemetry_start
: > "$work/phases"
for part in $parts; do
  case $part in
    alone|neighbours|bound|shared|overhead) [ "$(left)" -gt 30 ] && "part_$part" || note "part $part skipped: out of time" ;;
    *) note "unknown part $part" ;;
  esac
done
telemetry_stop
stop_node
cp "$work/phases" "$work/guard-report" "$out/" 2>/dev/null
python3 "$here/guard_report.py" "$work/phases" "$work/telemetry.csv" "$here/telemetry.py" "$work/guard-report" | tee -a "$md"
rm -f "$guard"
