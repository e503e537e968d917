#!/usr/bin/env bash
# Several workers on one PostgreSQL night (issue 22). Not part of the test command.
#
#   bench/workers.sh [--students 5000] [--workers 1,2,4] [--concurrency N] [--seed S] [--bin PATH]
#
# Per worker count W: a fresh copy of the seeded population of bench/population.py (made with
# `replan copy-database`, as bench/postgres.sh does) in a throwaway PostgreSQL server on this
# machine (scripts/test-postgres: fsync off, pg_stat_statements loaded); W `replan run
# --no-model` processes start together on the same URL. Reports the wall time from the first
# start to the last exit, students per second, the server's CPU per student, and what the claim
# (NightClaims.claim, the one statement with `FOR UPDATE OF c SKIP LOCKED`) costs in the first
# and in the last tenth of the night: pg_stat_statements is reset when the night starts and read
# when 10 % of the claims are done, reset again at 90 % and read at the end; the claim's share is
# its execution time over the execution time of every statement in that window (the watcher's
# own polling left out), with its mean time per call. Execution time is what the server spends in
# statements; it leaves out parsing, the network and idle time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
students=5000 workers=1,2,4 concurrency="" seed=42 bin="" now=2025-01-14T04:00:00Z out=$root/bench/out
while [ $# -gt 0 ]; do
  case $1 in
    --students) students=$2; shift 2 ;;
    --workers) workers=$2; shift 2 ;;
    --concurrency) concurrency=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
mkdir -p "$out"
if [ -z "$bin" ]; then
  swift build -c release >/dev/null
  bin=$(swift build -c release --show-bin-path)/replan
fi
export TEST_POSTGRES_OPTIONS="-c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.track=top"
unset REPLAN_TEST_POSTGRES_URL
# shellcheck source=scripts/test-postgres
source "$root/scripts/test-postgres"
start_test_postgres
[ -n "${REPLAN_TEST_POSTGRES_URL:-}" ] || { echo "bench/workers.sh: no PostgreSQL server" >&2; exit 1; }
# The throwaway server's password goes in PGPASSWORD (libpq reads it), never on a command line.
PGPASSWORD=$(python3 -c "import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).password or '')" "$REPLAN_TEST_POSTGRES_URL")
export PGPASSWORD
server=$(python3 -c "import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(netloc=f'{p.username}@{p.hostname}:{p.port}')))" "$REPLAN_TEST_POSTGRES_URL")
conc_flag=()
[ -n "$concurrency" ] && conc_flag=(--concurrency "$concurrency")
gen_hash=$(python3 bench/population.py fingerprint)
pop=$out/pop-$students-s$seed-$gen_hash.db
if [ ! -s "$pop" ]; then
  python3 bench/population.py generate --db "$pop.tmp" --users "$students" --replan "$bin" --seed "$seed" --now "$now" >"$pop.gen.json"
  mv "$pop.tmp" "$pop"
fi
q() { psql -At -c "$2" "$1"; }
# The claim's share of the statement time since the last reset, and its mean ms per call.
claim_share() {
  q "$1" "/* bench watcher */ SELECT round((100 * coalesce(sum(total_exec_time) FILTER (WHERE query LIKE '%SKIP LOCKED%'), 0)
      / greatest(sum(total_exec_time), 1e-9))::numeric, 1) || ' % (' ||
      round((coalesce(sum(total_exec_time) FILTER (WHERE query LIKE '%SKIP LOCKED%'), 0)
      / greatest(sum(calls) FILTER (WHERE query LIKE '%SKIP LOCKED%'), 1))::numeric, 2) || ' ms/claim)'
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
      AND query NOT LIKE '%bench watcher%' AND query NOT LIKE '%pg_stat_statements%'"
}
done_claims() { q "$1" "/* bench watcher */ SELECT count(*) FROM night_claims WHERE state = 'done'"; }

echo "<!-- $students students, load before: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores -->"
echo "| workers | students | wall | students/s | server CPU/student | claim, first tenth | claim, last tenth |"
echo "|---|---|---|---|---|---|---|"
IFS=, read -r -a list <<<"$workers"
for w in "${list[@]}"; do
  name=bench_workers_$w
  psql -q -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" "$server" >/dev/null
  target=$(python3 -c "import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path='/$name')))" "$server")
  copy=$out/workers-$w.db
  rm -f "$copy" "$copy-wal" "$copy-shm"; cp "$pop" "$copy"
  "$bin" --db "$copy" copy-database --to "$target" >/dev/null
  rm -f "$copy" "$copy-wal" "$copy-shm"
  q "$target" "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
  q "$target" "SELECT pg_stat_statements_reset()" >/dev/null
  before_cpu=$(test_postgres_cpu)
  start=$(date +%s.%N)
  rm -f "$out/workers-$w.err"
  pids=()
  for _ in $(seq "$w"); do
    "$bin" --db "$target" --now "$now" run --no-model "${conc_flag[@]}" --quiet >/dev/null 2>>"$out/workers-$w.err" &
    pids+=($!)
  done
  first="" last="" phase=first
  while :; do
    alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    n=$(done_claims "$target" 2>/dev/null || echo 0)
    if [ $phase = first ] && [ "$n" -ge $((students / 10)) ]; then
      first=$(claim_share "$target"); phase=last
    fi
    if [ $phase = last ] && [ "$n" -ge $((students * 9 / 10)) ]; then
      q "$target" "SELECT pg_stat_statements_reset()" >/dev/null; phase=end
    fi
    sleep 0.2
  done
  for p in "${pids[@]}"; do wait "$p" || true; done
  wall=$(python3 -c "print($(date +%s.%N) - $start)")
  [ $phase = end ] && last=$(claim_share "$target")
  sleep 1
  server_cpu=$(python3 -c "print($(test_postgres_cpu) - $before_cpu)")
  done_n=$(q "$target" "SELECT count(*) FROM user_runs WHERE status IN ('changed', 'unchanged') AND run_id IN (SELECT run_id FROM night_workers)")
  python3 - "$w" "$done_n" "$wall" "$server_cpu" "${first:--}" "${last:--}" <<'PY'
import sys
w, n, wall, server, first, last = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5], sys.argv[6]
print(f"| {w} | {n:,} | {wall:.1f} s | {n / wall:,.0f} | {1e3 * server / n:.2f} ms | {first} | {last} |")
PY
  psql -q -c "DROP DATABASE $name" "$server" >/dev/null
done
echo "<!-- load after: $(cut -d' ' -f1-3 /proc/loadavg) -->"
