#!/usr/bin/env bash
# Load test on loopback against the production-style stack (docs/benchmarks.md, "Load").
#
# Starts gunicorn (the Procfile's web command, production settings) and a Celery worker on
# the machine's PostgreSQL (database planner_load, recreated) and Redis (broker db 12, cache
# db 13, flushed), loads the catalog, computes the default rankings, then runs with wrk:
#   a) cached GET /api/rankings (the default training ranking);
#   b) POST /api/simulate of one catalog build (a new token target each time);
#   c) a flood of the costliest rankings POST /api/simulate accepts, while (a) runs again.
# Prints one RESULT line per scenario and the ranking queue's largest length during (c),
# then stops everything it started. Needs wrk (apt-get install wrk), PostgreSQL on
# 127.0.0.1:5432 and Redis on 127.0.0.1:6379.
#
#   benchmarks/load/run.sh            # LOAD_DURATION=20s per scenario
# Knobs (environment): LOAD_DURATION, LOAD_WARMUP (5s of (a) before measuring; 0s: none), LOAD_GET_CONNECTIONS (16), LOAD_POST_CONNECTIONS (8),
# LOAD_FLOOD_CONNECTIONS (8), LOAD_WEB_COMMAND (default: the Procfile's web line),
# LOAD_ONLY_A=1 (stop after scenario a), LOAD_KEEP_DB=1, LOAD_LOG_DIR (keep the logs there).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
LOAD_DIR="$ROOT/benchmarks/load"
export LOAD_DIR PATH="${PLANNER_VENV:-$ROOT/.venv}/bin:$PATH" PYTHONPATH="$ROOT"

DB=${LOAD_DB:-planner_load}
PORT=${LOAD_PORT:-8765}
DURATION=${LOAD_DURATION:-20s}
WARMUP=${LOAD_WARMUP:-5s}
GET_CONNECTIONS=${LOAD_GET_CONNECTIONS:-16}
POST_CONNECTIONS=${LOAD_POST_CONNECTIONS:-8}
FLOOD_CONNECTIONS=${LOAD_FLOOD_CONNECTIONS:-8}
BASE="http://127.0.0.1:$PORT"
RANKINGS="$BASE/api/rankings?model=glm-4.7&quant=NF4d%2BNF2e&seq_len=1024&tokens=50000000&budget=8000&sort=usd_per_tokens_per_s"
WORK=$(mktemp -d)

export DJANGO_SETTINGS_MODULE=planner_site.settings.production
SECRET_KEY=$(python -c 'import secrets; print(secrets.token_urlsafe(50))')
export SECRET_KEY
export DATABASE_URL="postgres://postgres@127.0.0.1:5432/$DB"
export CELERY_BROKER_URL=redis://127.0.0.1:6379/12 CACHE_URL=redis://127.0.0.1:6379/13
export ALLOWED_HOSTS=127.0.0.1,localhost SECURE_SSL_REDIRECT=false DEBUG=false
# As behind one reverse proxy: the scripts send each request from another client address.
export TRUSTED_PROXY_COUNT=1
export SIMULATE_ANON_RATE=${SIMULATE_ANON_RATE:-30/min} RANKING_QUEUE_MAX=${RANKING_QUEUE_MAX:-20}
export STATIC_ROOT="$WORK/static" PLANNER_VAR_DIR="$WORK/var" LOG_LEVEL=WARNING
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
export WEB_HOST=127.0.0.1 WEB_PORT=$PORT

pids=()
stop() {
  [ -z "${LOAD_LOG_DIR:-}" ] || cp "$WORK"/*.log "$WORK"/*.txt "$LOAD_LOG_DIR"/ 2>/dev/null || true
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  redis-cli -n 12 flushdb >/dev/null || true
  redis-cli -n 13 flushdb >/dev/null || true
  [ -n "${LOAD_KEEP_DB:-}" ] || dropdb -h 127.0.0.1 -U postgres --if-exists "$DB" || true
  rm -rf "$WORK"
}
trap stop EXIT

started() {  # run "$@" in its own process group, logging to $WORK/<name>.log
  local name=$1
  shift
  setsid "$@" >"$WORK/$name.log" 2>&1 &
  pids+=($!)
}

echo "==> machine: $(getconf _NPROCESSORS_ONLN) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)," \
  "$(free -g | awk '/Mem:/ {print $2}') GiB RAM; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "==> stack: database $DB, Redis db 12/13, gunicorn on $BASE"
dropdb -h 127.0.0.1 -U postgres --if-exists "$DB"
createdb -h 127.0.0.1 -U postgres "$DB"
redis-cli -n 12 flushdb >/dev/null
redis-cli -n 13 flushdb >/dev/null
python manage.py migrate --noinput -v 0
# shellcheck disable=SC2046  # one argument per fixture file
python manage.py loaddata -v 0 $(ls -1 ./*/fixtures/*.json | sort)
python manage.py measurements_load >/dev/null
sql() { psql -h 127.0.0.1 -U postgres -d "$DB" -tAc "$1"; }
sql "ANALYZE" >/dev/null  # as autovacuum would have done on a database in service
python manage.py collectstatic --noinput -v 0

web=${LOAD_WEB_COMMAND:-$(sed -n 's/^web: //p' Procfile)}
# Each request's time inside gunicorn (%(M)s, ms) in the access log: the server's share of a
# latency, apart from the time wrk's own process waited for one of the same two cores.
# The process id (%(p)s) shows how the keep-alive connections fell across the processes.
web="$web --access-logformat '%(t)s \"%(r)s\" %(s)s %(M)s %(p)s'"
worker=$(sed -n 's/^worker: //p' Procfile)
# The worker first, and the web once it answers a ping: /healthz then answers 200 from its
# first request, and every 5xx line in the access log is one the load caused.
started worker bash -c "exec $worker --without-gossip --without-mingle"
for _ in $(seq 60); do
  celery -A planner_site inspect ping --timeout 1 >/dev/null 2>&1 && break
  sleep 1
done
started web bash -c "exec $web"
for _ in $(seq 60); do
  curl -fs "$BASE/api/parts" >/dev/null 2>&1 && break
  sleep 1
done
curl -fs "$BASE/healthz" >/dev/null || { cat "$WORK/web.log" "$WORK/worker.log"; exit 1; }

echo "==> warming the default rankings"
python manage.py rankings_refresh >/dev/null
for _ in $(seq 300); do
  [ "$(curl -s -o /dev/null -w '%{http_code}' "$RANKINGS")" = 200 ] && break
  sleep 2
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$RANKINGS")" = 200 ] || { echo "rankings never done"; exit 1; }
while [ "$(sql "select count(*) from simulator_simulationrun where status in ('queued','running')")" != 0 ]; do
  sleep 2
done
# The rankings just wrote megabytes of JSON: vacuum and analyse now, as autovacuum would on a
# database in service, rather than in the middle of a measurement (its next round is due
# within autovacuum_naptime, a minute).
sql "VACUUM ANALYZE" >/dev/null
BUILD_ID=$(sql "select id from catalog_build order by id limit 1")
export LOAD_BUILD_ID=$BUILD_ID

server_side() {  # name, path, first and last second: gunicorn's own times from its log
  python3 - "$WORK/web.log" "$@" <<'PY'
import json, re, sys
from datetime import datetime
log, name, path, first, last = sys.argv[1:6]
ms, per_process = [], {}
for line in open(log, errors="replace"):
    m = re.match(r'\[([^\]]+)\] "\w+ (\S+) [^"]*" (\d+) (\d+) <(\d+)>$', line.strip())
    if not m or not m.group(2).startswith(path):
        continue
    at = datetime.strptime(m.group(1), "%d/%b/%Y:%H:%M:%S %z").timestamp()
    if int(first) <= at <= int(last):
        ms.append(int(m.group(4)))
        per_process[m.group(5)] = per_process.get(m.group(5), 0) + 1
ms.sort()
def pct(q): return ms[min(len(ms) - 1, int(len(ms) * q))] if ms else None
print("RESULT " + name + "-server " + json.dumps(
    {"requests": len(ms), "p50_ms": pct(0.5), "p99_ms": pct(0.99), "max_ms": ms[-1] if ms else None,
     "per_process": sorted(per_process.values(), reverse=True)}))
PY
}

scenario() {  # name, then wrk arguments (the URL last)
  local name=$1
  shift
  echo "==> $name: load average $(cut -d' ' -f1-3 /proc/loadavg)"
  local first last
  first=$(date +%s)
  wrk --latency --timeout 10s -d "$DURATION" "$@" | tee "$WORK/$name.txt" | grep '^RESULT' | sed "s/^RESULT/RESULT $name/"
  last=$(date +%s)
  case "$name" in
    b-*) server_side "$name" /api/simulate "$first" "$last" ;;
    *) server_side "$name" /api/rankings "$first" "$last" ;;
  esac
}

# Warm-up, not measured: the web processes' first seconds (connections to PostgreSQL and
# Redis opened per thread, first answers computed) are not the steady state (a) measures.
if [ "$WARMUP" != 0s ]; then
  echo "==> warm-up of (a) for $WARMUP (not measured)"
  wrk --timeout 10s -d "$WARMUP" -t1 -c "$GET_CONNECTIONS" -s "$LOAD_DIR/report.lua" "$RANKINGS" | grep '^RESULT' | sed 's/^RESULT/warm-up/'
fi
scenario a-cached-rankings -t1 -c "$GET_CONNECTIONS" -s "$LOAD_DIR/report.lua" "$RANKINGS"
[ -z "${LOAD_ONLY_A:-}" ] || exit 0
scenario b-simulate-build -t1 -c "$POST_CONNECTIONS" -s "$LOAD_DIR/simulate_build.lua" "$BASE"
sleep 2

# (c): the flood and the cached reads at once; the ranking queue sampled every 0.5 s.
( while :; do
    sql "select count(*) from simulator_simulationrun where kind = 'ranking' and status in ('queued','running')"
    sleep 0.5
  done ) >"$WORK/queue.txt" &
sampler=$!
wrk --latency --timeout 10s -d "$DURATION" -t1 -c "$FLOOD_CONNECTIONS" -s "$LOAD_DIR/flood_rankings.lua" "$BASE" \
  >"$WORK/c-flood.txt" &
flood=$!
scenario c-cached-rankings-under-flood -t1 -c "$GET_CONNECTIONS" -s "$LOAD_DIR/report.lua" "$RANKINGS"
wait "$flood"
kill "$sampler" 2>/dev/null || true
grep '^RESULT' "$WORK/c-flood.txt" | sed 's/^RESULT/RESULT c-flood/'
echo "RESULT c-queue {\"max_waiting_rankings\": $(sort -n "$WORK/queue.txt" | tail -1), \"RANKING_QUEUE_MAX\": $RANKING_QUEUE_MAX}"
# /healthz answers 503 while no worker answers its ping (should the worker stop answering):
# counted apart, with the lines.
server_errors=$(grep -c '" [5][0-9][0-9] ' "$WORK/web.log" || true)
healthz_errors=$(grep '" [5][0-9][0-9] ' "$WORK/web.log" | grep -c '"GET /healthz ' || true)
grep '" [5][0-9][0-9] ' "$WORK/web.log" | head -5 || true
echo "RESULT server {\"5xx_in_access_log\": $server_errors, \"of_them_healthz_before_the_worker\": $healthz_errors}"
