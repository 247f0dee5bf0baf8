#!/usr/bin/env bash
# `seer daemon` with its real consumers: it launches tests/programs/daemon_target
# (a contended lock `hot` and a lock-order inversion between `first` and
# `second`), records it in 1 s windows, and then
#   - /metrics passes `promtool check metrics`;
#   - a real Prometheus server scrapes it and its query API returns the
#     contention series of `hot` and the deadlock finding; every query of the
#     Grafana dashboard (tools/daemon/grafana-dashboard.json) is valid PromQL
#     on metrics the daemon serves, and its contention panel shows `hot`;
#   - /findings lists the deadlock once (merged across windows), /findings/ID
#     is its report;
#   - the dashboard in headless Chromium shows the finding and the lock (when
#     SEER_NPM_PREFIX names the report tests' npm folder);
#   - SIGTERM ends it with every window closed complete.
# Usage: daemon_live_test.sh SEER DAEMON_TARGET SCRATCH GRAFANA_JSON
set -euo pipefail
seer=$1 target=$2 tmp=$3 grafana=$4
here=$(cd "$(dirname "$0")" && pwd)
source "$here/daemon_lib.sh"
command -v promtool >/dev/null || fail "promtool is not installed (tools/install-deps.sh installs prometheus)"
command -v prometheus >/dev/null || fail "prometheus is not installed (tools/install-deps.sh installs it)"
rm -rf "$tmp" && mkdir -p "$tmp"
prom_pid=
cleanup() {
  [ -n "$prom_pid" ] && kill "$prom_pid" 2>/dev/null || true
  kill_daemon
  wait 2>/dev/null || true
}
trap cleanup EXIT

start_daemon "$tmp/daemon.log" --dir "$tmp/windows" --window 1s --duty continuous -- "$target"
echo "daemon on port $port"
[ "$(stat -c %a "$tmp/windows")" = 700 ] || fail "the window directory is not 0700"

wait_for 90 "a deadlock finding" bash -c "curl -sf http://127.0.0.1:$port/findings | grep -q '\"kind\": \"deadlock\"'"
wait_for 90 "contended acquisitions of hot" positive 'seer_lock_contended_acquisitions_total{lock="hot"'

curl -sf "http://127.0.0.1:$port/metrics" > "$tmp/metrics.txt"
promtool check metrics < "$tmp/metrics.txt" || fail "promtool check metrics rejected /metrics (saved in $tmp/metrics.txt)"
echo "promtool check metrics: ok"
for name in seer_events_recorded_total seer_events_lost_total seer_windows_written_total seer_windows_analysed_total \
            seer_windows_failed_total seer_recorder_cpu_seconds_total seer_findings seer_lock_acquisitions_total \
            seer_lock_contended_acquisitions_total seer_lock_wait_seconds_bucket seer_lock_hold_seconds_bucket; do
  grep -q "^$name" "$tmp/metrics.txt" || fail "/metrics has no $name"
done
grep -q 'seer_lock_wait_seconds_bucket{lock="hot",site="hammer [^"]*daemon_target.c:[0-9]*",le="+Inf"}' "$tmp/metrics.txt" ||
  fail "the wait histogram of hot does not name its call site in hammer"
# hammer holds hot for usleep(200) each time: at least 200 us, so no hold of
# its site falls in the buckets up to 100 us.
grep -q 'seer_lock_hold_seconds_bucket{lock="hot",site="hammer [^"]*daemon_target.c:[0-9]*",le="0.0001"} 0$' "$tmp/metrics.txt" ||
  fail "the hold histogram of hot at its site in hammer is missing, or has holds under 100 us: $(grep 'seer_lock_hold_seconds_bucket{lock="hot"' "$tmp/metrics.txt" | head -4)"
grep -q 'seer_lock_hold_seconds_count{lock="hot",site="hammer [^"]*"} [1-9]' "$tmp/metrics.txt" ||
  fail "no hold of hot was measured at its site in hammer"

# The finding: one, merged across windows, with its report.
curl -sf "http://127.0.0.1:$port/findings" > "$tmp/findings.json"
n=$(grep -c '"kind": "deadlock"' "$tmp/findings.json")
[ "$n" = 1 ] || fail "expected one deadlock finding merged across windows, got $n: $(cat "$tmp/findings.json")"
grep -q 'first_then_second' "$tmp/findings.json" || fail "the finding does not name first_then_second"
id=$(sed -n 's/.*"id": "\([0-9a-f]*\)".*/\1/p' "$tmp/findings.json" | head -1)
curl -sf "http://127.0.0.1:$port/findings/$id" > "$tmp/finding.txt" || fail "/findings/$id failed"
grep -q "deadlock" "$tmp/finding.txt" && grep -q "second_then_first" "$tmp/finding.txt" ||
  fail "/findings/$id is not the deadlock's report: $(head -20 "$tmp/finding.txt")"
# As HTML: asked for, or negotiated by a browser's Accept header (predictor/report's page).
curl -sf "http://127.0.0.1:$port/findings/$id?format=html" > "$tmp/finding.html" || fail "/findings/$id?format=html failed"
grep -qi "<html" "$tmp/finding.html" && grep -q "second_then_first" "$tmp/finding.html" ||
  fail "/findings/$id?format=html is not the deadlock's HTML report: $(head -c 300 "$tmp/finding.html")"
type=$(curl -sf -o /dev/null -w '%{content_type}' -H 'Accept: text/html,*/*;q=0.8' "http://127.0.0.1:$port/findings/$id")
[[ "$type" == text/html* ]] || fail "a browser's Accept header got $type, not text/html"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/findings/$id?format=pdf")
[ "$code" = 400 ] || fail "an unknown format answered $code, not 400"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/findings/0000000000000000")
[ "$code" = 404 ] || fail "an unknown finding id answered $code, not 404"

# A real Prometheus server scrapes the daemon. It listens on a port the
# kernel picks (no fixed port another program may hold) and logs which.
cat > "$tmp/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: seer
    static_configs:
      - targets: ['127.0.0.1:$port']
YML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="127.0.0.1:0" > "$tmp/prometheus.log" 2>&1 &
prom_pid=$!
prom_port=
prometheus_port() {
  prom_port=$(sed -n 's|.*msg="Listening on" address=127.0.0.1:\([0-9][0-9]*\).*|\1|p' "$tmp/prometheus.log" | head -1)
  [ -n "$prom_port" ]
}
wait_for 60 "Prometheus says where it listens ($tmp/prometheus.log)" prometheus_port
query() { curl -sf "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1"; }
has_result() { query "$1" | grep -q '"result":\[{'; }
wait_for 60 "Prometheus up" bash -c "curl -sf http://127.0.0.1:$prom_port/-/ready >/dev/null"
wait_for 60 "Prometheus has the contention of hot" has_result 'seer_lock_contended_acquisitions_total{lock="hot"} > 0'
wait_for 30 "Prometheus has the deadlock finding" has_result 'seer_findings{kind="deadlock",engine="deadlock"} == 1'
wait_for 30 "Prometheus computes a wait-time quantile for hot" \
  has_result 'histogram_quantile(0.9, sum by (le) (seer_lock_wait_seconds_bucket{lock="hot"})) > 0'
wait_for 30 "Prometheus computes a hold-time quantile for hot" \
  has_result 'histogram_quantile(0.5, sum by (le) (seer_lock_hold_seconds_bucket{lock="hot"})) >= 0.0001'
# The Grafana dashboard's queries, as Grafana would send them.
node -e 'const d = require(process.argv[1]);
         for (const p of d.panels) for (const t of p.targets || []) console.log(t.expr);' "$grafana" > "$tmp/grafana.exprs"
[ -s "$tmp/grafana.exprs" ] || fail "no query in $grafana"
while IFS= read -r expr; do
  expr=${expr//\$instance/.*}
  expr=${expr//\$__rate_interval/1m}
  answer=$(query "$expr") || fail "Prometheus refused the Grafana query: $expr"
  grep -q '"status":"success"' <<<"$answer" || fail "the Grafana query failed: $expr: $answer"
  for m in $(grep -o 'seer_[a-z_]*' <<<"$expr" | sed 's/_bucket$//'); do
    grep -q "^$m" "$tmp/metrics.txt" || fail "the Grafana query names $m, which /metrics does not have: $expr"
  done
done < "$tmp/grafana.exprs"
contention_panel=$(grep -F 'seer_lock_contended_acquisitions_total{instance=~' "$tmp/grafana.exprs" | head -1)
contention_panel=${contention_panel//\$instance/.*}
contention_panel=${contention_panel//\$__rate_interval/1m}
shows_hot() { query "$contention_panel" | grep -q '"lock":"hot"'; }
wait_for 30 "the Grafana contention panel shows hot" shows_hot
echo "Grafana dashboard: $(wc -l < "$tmp/grafana.exprs") queries valid"
query 'histogram_quantile(0.9, sum by (le) (seer_lock_wait_seconds_bucket{lock="hot"}))' > "$tmp/p90.json"
echo "Prometheus: p90 wait of hot: $(sed -n 's/.*"value":\[[0-9.]*,"\([^"]*\)"\].*/\1/p' "$tmp/p90.json") s"

# The dashboard, as a person sees it.
curl -sf "http://127.0.0.1:$port/" > "$tmp/dashboard.html"
grep -q "<canvas" "$tmp/dashboard.html" || fail "/ is not the dashboard"
if grep -qiE '(src|href)="https?://' "$tmp/dashboard.html"; then fail "the dashboard loads something from the network"; fi
if [ -n "${SEER_NPM_PREFIX:-}" ]; then
  node "$here/dashboard_check.mjs" "http://127.0.0.1:$port/" "$tmp/dashboard.png" || fail "the dashboard check failed"
else
  echo "SKIPPED: the dashboard in Chromium (SEER_NPM_PREFIX is not set)" >&2
fi

# SIGTERM: the open window is closed; every window is complete.
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "seer daemon exited $? after SIGTERM"
daemon_pid=
grep -q "stopped" "$tmp/daemon.log" || fail "no 'stopped' in the log after SIGTERM"
for w in "$tmp"/windows/window-*.seer; do
  info=$("$seer" info "$w") || fail "seer info $w failed"
  grep -q '^complete: *yes' <<<"$info" || fail "$w is not complete after SIGTERM"
done
echo "$(ls "$tmp"/windows | wc -l) windows, all complete"
echo "daemon live test: passed"
