#!/usr/bin/env bash
# The Grafana dashboard's queries answered by a real Prometheus scraping the node side's real
# /metrics endpoint, with transparent claims on the simulated GPU (no GPU needed):
#
#   examples/observability/prometheus-run.sh [--seconds=150]
#
# 1. installs Debian's prometheus package if prometheus is missing (apt-get; root or sudo),
# 2. builds the examples jar if it is missing (./mvnw),
# 3. starts ObservedNode: the agent in worker mode with its interference guard, a latency-critical
#    and a best-effort claim on one simulated H200, stand-in tenant processes attached to them, the
#    node's client-fault recovery (an Xid is injected halfway), /metrics on 127.0.0.1:9464,
# 4. has Prometheus scrape it every 5 s for the run,
# 5. runs every dashboard query through Prometheus' HTTP API (query_range), checks them with
#    promtool, and writes results/<date>-transparent-claims.md and .png.
#
# Grafana itself is not run: it is in no package registry these machines reach. The SM clock and
# power are the simulated NVML's constants, not measurements.
set -euo pipefail
cd "$(dirname "$0")/../.."

seconds=150
for arg in "$@"; do
  case $arg in
    --seconds=*) seconds=${arg#--seconds=} ;;
    *) echo "prometheus-run: unknown option $arg; options: --seconds=N (at least 60)" >&2; exit 2 ;;
  esac
done
if (( seconds < 60 )); then
  echo "prometheus-run: --seconds must be at least 60 (a rate needs several scrapes)" >&2
  exit 2
fi

if ! command -v prometheus > /dev/null || ! command -v promtool > /dev/null; then
  echo "[setup] installing Debian's prometheus package"
  sudo=$([[ $(id -u) == 0 ]] && echo "" || echo sudo)
  $sudo apt-get install -y --no-install-recommends prometheus > /dev/null
fi

export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
java="$JAVA_HOME/bin/java"
jar=examples/target/smslice-examples-0.1.0-SNAPSHOT.jar
if [[ ! -f $jar ]]; then
  echo "[build] ./mvnw -DskipTests package -pl examples -am"
  ./mvnw -B -ntp -q -DskipTests package -pl examples -am
fi
classpath="$jar:examples/target/lib/*"

node_port=9464
prom_port=9491
step=5
work=$(mktemp -d)
node_pid=""
prom_pid=""
cleanup() {
  [[ -n $prom_pid ]] && kill "$prom_pid" 2> /dev/null || true
  [[ -n $node_pid ]] && kill "$node_pid" 2> /dev/null || true
  wait 2> /dev/null || true
}
trap cleanup EXIT

cat > "$work/prometheus.yml" <<YAML
global:
  scrape_interval: ${step}s
scrape_configs:
  - job_name: smslice-node
    # As the chart's ServiceMonitor: the claims' own namespace label is kept, the node is named.
    honor_labels: true
    static_configs:
      - targets: ["127.0.0.1:${node_port}"]
        labels: {node: observed-node}
YAML

echo "[run] ObservedNode for ${seconds} s (log: $work/node.log)"
"$java" --enable-native-access=ALL-UNNAMED -cp "$classpath" \
  io.smslice.examples.observability.ObservedNode --port=$node_port --seconds="$seconds" \
  --xid-at=$(( seconds / 2 )) --work="$work/node" > "$work/node.log" 2>&1 &
node_pid=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$node_port/metrics" > /dev/null && break
  sleep 0.2
done
curl -sf "http://127.0.0.1:$node_port/metrics" > /dev/null || {
  echo "prometheus-run: the node's /metrics did not come up; its log:" >&2
  cat "$work/node.log" >&2
  exit 1
}
start=$(date +%s)
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/tsdb" \
  --web.listen-address=127.0.0.1:$prom_port > "$work/prometheus.log" 2>&1 &
prom_pid=$!
wait "$node_pid" || { echo "prometheus-run: ObservedNode failed; its log:" >&2; cat "$work/node.log" >&2; exit 1; }
node_pid=""
end=$(date +%s)
url="http://127.0.0.1:$prom_port"
scrapes=$(curl -s "$url/api/v1/query" --data-urlencode "query=sum_over_time(up{job=\"smslice-node\"}[$(( end - start + step ))s])" \
  --data-urlencode "time=$end" | grep -o '"value":\[[^]]*\]' | grep -o '"[0-9.]*"]' | tr -d '"]')
samples=$(curl -s "$url/api/v1/query" --data-urlencode "query=sum_over_time(scrape_samples_scraped{job=\"smslice-node\"}[$(( end - start + step ))s])" \
  --data-urlencode "time=$end" | grep -o '"value":\[[^]]*\]' | grep -o '"[0-9.]*"]' | tr -d '"]')

day=$(date -u +%F)
out=examples/observability/results
mkdir -p "$out"
base="$out/$day-transparent-claims"
status=0
"$java" -Djava.awt.headless=true -cp "$classpath" \
  io.smslice.examples.observability.DashboardOverPrometheus \
  charts/smslice/dashboards/smslice-claims.json "$url" "$start" "$end" "$step" \
  "$work/queries.md" "$work/queries.rules.yml" "$base.png" | tee "$work/queries.log" || status=1
promtool_out=$(promtool check rules "$work/queries.rules.yml" 2>&1) || status=1

{
  echo "# Dashboard queries over a real Prometheus: transparent claims on the simulated GPU, $day"
  echo
  echo "Made by \`examples/observability/prometheus-run.sh --seconds=$seconds\` ($(date -u +%FT%TZ))."
  echo "$(prometheus --version 2>&1 | head -1) (Debian's package) scraped the node side's real"
  echo "\`/metrics\` ($(basename "$(command -v java)") process \`ObservedNode\`) every ${step} s for $(( end - start )) s:"
  echo "${scrapes:-?} successful scrapes, ${samples:-?} samples in all."
  echo
  echo "What ran: the agent in worker mode with its interference guard on; claims \`ml/detector\`"
  echo "(LatencyCritical, 16 SMs) and \`ml/trainer\` (BestEffort, 104 SMs) on one simulated H200;"
  echo "stand-in tenant processes attached to them (ATTACH on the claim socket and a guard slot, as"
  echo "the interposer does for an unmodified program, then spin kernels on a simulated GPU): one"
  echo "detector process (a frame every 5 ms), one trainer process and a second from a third of the"
  echo "way in. Halfway, Xid 31 was injected into the simulated NVML; the tenants do not exit on it,"
  echo "so the node's client-fault recovery restarted the GPU's MPS server after 10 s (here: the"
  echo "stand-in tenants, which start again with new pids)."
  echo
  echo "What is not real here: no GPU was used; the SM clock (1980 MHz), power (100 W) and"
  echo "clock-event reasons (none) are the simulated NVML's constants; the memory per process is what"
  echo "each stand-in allocated on its simulated GPU, listed by the simulated NVML. Grafana itself"
  echo "could not be run (it is in no package registry these machines reach): the queries below are"
  echo "the dashboard's, sent to Prometheus as Grafana would send them with All claims selected."
  echo "The client-library panels (launch latency, sessions, GPU wait) read 0 or NaN and the"
  echo "operator's and kubelet-facing panels (claims by phase, SMs per GPU, GPU health, allocations)"
  echo "have no series: this run has no client-library session, no operator and no device plugin."
  echo
  echo "![The transparent-claims row of the dashboard, as Prometheus answered its queries](./$(basename "$base.png"))"
  echo
  echo "\`$(tail -1 "$work/queries.log")\`; \`promtool check rules\` on the same queries:"
  echo
  echo '```'
  echo "$promtool_out"
  echo '```'
  echo
  cat "$work/queries.md"
  echo
  echo "The node's log, the lines that tell the run's story:"
  echo
  echo '```'
  grep -E "stand-in tenant pid|second trainer|Xid|restarted|mps-restarted|worker\(s\)" "$work/node.log" \
    | sed -E 's/^[0-9T:.-]+Z //' | grep -v "^\s*at " | head -30
  echo '```'
} > "$base.md"
echo "[done] $base.md and $base.png (work files in $work)"
exit $status
