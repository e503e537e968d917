#!/usr/bin/env bash
# The replan nightly-job benchmark (issue 6). Not part of the test command.
#
#   bench/run.sh [--sizes 1000,10000,100000] [--repeat R] [--concurrency N]
#                [--model-users 40,200,800] [--model-concurrency 1,8,32] [--latency 0.2]
#                [--skip-local] [--skip-floor] [--skip-model] [--skip-prompt] [--skip-planning]
#                [--seed S] [--out DIR] [--keep] [--bin PATH]
#
# 1. builds the release binary (swift build -c release),
# 2. per size: generates (or reuses, cached by size, seed and generator hash) a seeded
#    population with bench/population.py, times `replan run --no-model` on a copy with
#    /usr/bin/time -v (the catch-up night), then the night after it on the result (a steady
#    night), then replays the same night's reads and writes with the sqlite3 shell
#    alone (the floor, see docs/benchmark.md) on another copy,
# 3. times `replan run` against Tests/Support/mock_openai.py (through bench/mock_server.py,
#    which only widens its listen backlog) answering every request after --latency seconds,
#    2 turns per user, at each --model-concurrency, next to the mock alone (bench/mock_probe.py),
# 4. measures the first request body for students with 1 month, 1 year and 10 years of
#    history,
# 5. prints one markdown table (also written to $out/results.md).
# --bin PATH measures that replan binary instead of building this tree (e.g. another branch's
# release build); the harness scripts are still this tree's.
# Populations, logs and copies live in bench/out/ (git-ignored). Populations are kept (cached);
# the run databases and floor scripts (2.4 GB and 1.6 GB at 100,000) are removed unless --keep.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
sizes=1000,10000,100000
repeat=1
concurrency=""
model_users=40,200,800
model_conc=1,8,32
latency=0.2
seed=42
now=2025-01-14T04:00:00Z
out=$root/bench/out
skip_local=0 skip_floor=0 skip_model=0 skip_prompt=0 skip_planning=0 keep=0 bin=""

usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --concurrency) concurrency=$2; shift 2 ;;
    --model-users) model_users=$2; shift 2 ;;
    --model-concurrency) model_conc=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --skip-local) skip_local=1; shift ;;
    --skip-floor) skip_floor=1; shift ;;
    --skip-model) skip_model=1; shift ;;
    --skip-prompt) skip_prompt=1; shift ;;
    --skip-planning) skip_planning=1; shift ;;
    --keep) keep=1; shift ;;
    --bin) bin=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "unknown option $1" >&2; usage 64 ;;
  esac
done
IFS=, read -r -a size_list <<<"$sizes"
IFS=, read -r -a muser_list <<<"$model_users"
IFS=, read -r -a mconc_list <<<"$model_conc"
if [ "${#muser_list[@]}" -ne "${#mconc_list[@]}" ]; then
  echo "--model-users and --model-concurrency need the same number of entries" >&2; exit 64
fi

log() { printf '%s\n' "bench: $*" >&2; }

# --- tools ------------------------------------------------------------------------------------
need_apt=()
[ -x /usr/bin/time ] || need_apt+=(time)
command -v sqlite3 >/dev/null || need_apt+=(sqlite3)
if [ "${#need_apt[@]}" -gt 0 ]; then
  log "installing ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
mkdir -p "$out"
cd "$root"
if [ -z "$bin" ]; then
  log "release build"
  swift build -c release 2>&1 | tail -n 1 >&2
  bin=$(swift build -c release --show-bin-path)/replan
fi
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
[ -x "$bin" ] || { echo "no replan binary at $bin" >&2; exit 66; }
gen_hash=$(python3 bench/population.py fingerprint)
mock=$root/bench/mock_server.py  # Tests/Support/mock_openai.py with a listen backlog that fits N = 32

# /usr/bin/time -v FILE KEY → value
tv() {
  case $2 in
    wall) awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$1" ;;
    user) awk -F': ' '/User time/ {print $2}' "$1" ;;
    sys) awk -F': ' '/System time/ {print $2}' "$1" ;;
    rss) awk -F': ' '/Maximum resident set size/ {print $2}' "$1" ;;
  esac
}
calc() { python3 -c "import sys; print($1)"; }
fsize() { local t=0 f; for f in "$@"; do [ -e "$f" ] && t=$((t + $(stat -c %s "$f"))); done; echo $t; }
mb() { calc "'%.1f' % ($1 / 1048576)"; }
fresh_copy() { rm -f "$2" "$2-wal" "$2-shm" "$2.lock"; cp "$1" "$2"; }

population() { # N [extra generator flags…] → path of the cached population
  local n=$1; shift
  local tag; tag=$(printf '%s' "$*" | tr -c 'a-z0-9' '_')
  local db=$out/pop-$n-s$seed-$gen_hash$tag.db
  if [ ! -s "$db" ]; then
    log "generating $n students $*"
    rm -f "$db"
    python3 bench/population.py generate --db "$db.tmp" --users "$n" --replan "$bin" --seed "$seed" --now "$now" "$@" \
      > "$db.gen.json"
    mv "$db.tmp" "$db"
  fi
  echo "$db"
}

declare -A R  # results: R[key,size]
declare -A D  # table cells: D[label|size]
labels=()
cell() { # LABEL SIZE VALUE
  local l
  for l in "${labels[@]}"; do [ "$l" = "$1" ] && { D[$1|$2]=$3; return; }; done
  labels+=("$1"); D[$1|$2]=$3
}
conc_flag=()
[ -n "$concurrency" ] && conc_flag=(--concurrency "$concurrency")

# --- local-only runs and the floor ---------------------------------------------------------------
if [ "$skip_local" = 0 ]; then
  for n in "${size_list[@]}"; do
    pop=$(population "$n")
    R[gen,$n]=$(python3 -c "import json; print(json.load(open('$pop.gen.json'))['seconds'])")
    R[rows,$n]=$(python3 -c "import json; d=json.load(open('$pop.gen.json')); print(d['tasks'] + d['overrides'] + d['slides'])")
    R[size_before,$n]=$(fsize "$pop")
    best=""
    walls=()
    for r in $(seq 1 "$repeat"); do
      db=$out/run-$n.db
      fresh_copy "$pop" "$db"
      sync
      log "replan run --no-model, $n students (try $r/$repeat)"
      set +e
      /usr/bin/time -v -o "$out/run-$n.time" "$bin" --db "$db" --now "$now" run --no-model "${conc_flag[@]}" \
        > "$out/run-$n.stdout" 2> "$out/run-$n.stderr"
      rc=$?
      set -e
      summary=$(grep -E '^run [0-9]+:' "$out/run-$n.stderr" | tail -1 || true)
      if [ "$rc" != 0 ]; then log "replan exited $rc: $(tail -3 "$out/run-$n.stderr")"; fi
      wall=$(tv "$out/run-$n.time" wall)
      walls+=("$wall")
      if [ -z "$best" ] || [ "$(calc "$wall < $best")" = True ]; then
        best=$wall
        R[wall,$n]=$wall
        R[cpu,$n]=$(calc "$(tv "$out/run-$n.time" user) + $(tv "$out/run-$n.time" sys)")
        R[rss,$n]=$(tv "$out/run-$n.time" rss)
        R[summary,$n]=$summary
        R[size_after,$n]=$(fsize "$db" "$db-wal")
        R[due,$n]=$(sed -E 's/^run [0-9]+: ([0-9]+) due.*/\1/' <<<"$summary")
        R[rc,$n]=$rc
        cp "$db" "$out/run-$n.best.db"; rm -f "$out/run-$n.best.db-wal"
        [ -e "$db-wal" ] && cp "$db-wal" "$out/run-$n.best.db-wal"
      fi
    done
    R[walls,$n]=${walls[*]}
    R[edits,$n]=$(sqlite3 "$out/run-$n.best.db" "SELECT count(*) FROM changeset_edits e JOIN user_runs r ON r.changeset_id = e.changeset_id WHERE r.run_id = (SELECT max(id) FROM runs)")
    log "  ${R[summary,$n]} — wall ${walls[*]} s"

    # The night after, on the database the catch-up night left: what an operator sees every
    # night once replan runs (statistics bases exist, stale sessions are gone).
    db2=$out/run-$n.next.db
    fresh_copy "$out/run-$n.best.db" "$db2"
    [ -e "$out/run-$n.best.db-wal" ] && cp "$out/run-$n.best.db-wal" "$db2-wal"
    next_now=$(python3 -c "import datetime as d; t=d.datetime.strptime('$now','%Y-%m-%dT%H:%M:%SZ')+d.timedelta(days=1); print(t.strftime('%Y-%m-%dT%H:%M:%SZ'))")
    log "replan run --no-model, $n students, the next night ($next_now)"
    set +e
    /usr/bin/time -v -o "$out/run-$n.next.time" "$bin" --db "$db2" --now "$next_now" run --no-model "${conc_flag[@]}" \
      > /dev/null 2> "$out/run-$n.next.stderr"
    set -e
    R[summary2,$n]=$(grep -E '^run [0-9]+:' "$out/run-$n.next.stderr" | tail -1 || true)
    R[wall2,$n]=$(tv "$out/run-$n.next.time" wall)
    R[cpu2,$n]=$(calc "$(tv "$out/run-$n.next.time" user) + $(tv "$out/run-$n.next.time" sys)")
    R[rss2,$n]=$(tv "$out/run-$n.next.time" rss)
    R[due2,$n]=$(sed -E 's/^run [0-9]+: ([0-9]+) due.*/\1/' <<<"${R[summary2,$n]}")
    log "  ${R[summary2,$n]} — wall ${R[wall2,$n]} s"
    rm -f "$db2" "$db2-wal" "$db2-shm" "$db2.lock"

    if [ "$skip_floor" = 0 ]; then
      log "floor: sqlite3 shell, $n students"
      python3 bench/population.py floor --before "$pop" --after "$out/run-$n.best.db" --now "$now" --out "$out/floor-$n.sql" \
        > "$out/floor-$n.json"
      R[floor_stmts,$n]=$(python3 -c "import json; print(json.load(open('$out/floor-$n.json'))['statements'])")
      fdb=$out/floor-$n.db
      fwalls=()
      for r in $(seq 1 "$repeat"); do
        fresh_copy "$pop" "$fdb"
        # The schema as replan's run had it (its migrations), outside the timing.
        "$bin" --db "$fdb" user list > /dev/null
        sync
        /usr/bin/time -v -o "$out/floor-$n.time" sqlite3 -bail "$fdb" < "$out/floor-$n.sql" > /dev/null 2> "$out/floor-$n.stderr" \
          || { log "floor failed: $(tail -3 "$out/floor-$n.stderr")"; }
        w=$(tv "$out/floor-$n.time" wall)
        fwalls+=("$w")
        if [ "$r" = 1 ] || [ "$(calc "$w < ${R[fwall,$n]}")" = True ]; then
          R[fwall,$n]=$w
          R[fcpu,$n]=$(calc "$(tv "$out/floor-$n.time" user) + $(tv "$out/floor-$n.time" sys)")
        fi
      done
      R[fwalls,$n]=${fwalls[*]}
      log "  floor wall ${fwalls[*]} s"
      fedits=$(sqlite3 "$fdb" "SELECT count(*) FROM changeset_edits e JOIN user_runs r ON r.changeset_id = e.changeset_id WHERE r.run_id = (SELECT max(id) FROM runs)")
      [ "$fedits" = "${R[edits,$n]}" ] || log "floor wrote $fedits edit rows, replan ${R[edits,$n]}"
      rm -f "$fdb" "$fdb-wal" "$fdb-shm"
    fi
    rm -f "$out/run-$n.db" "$out/run-$n.db-wal" "$out/run-$n.db-shm" "$out/run-$n.db.lock"
    if [ "$keep" = 0 ]; then
      rm -f "$out/run-$n.best.db" "$out/run-$n.best.db-wal" "$out/run-$n.best.db-shm" "$out/floor-$n.sql"
    fi

    changed=$(sed -E 's/^run [0-9]+: [0-9]+ due, ([0-9]+) changed.*/\1/' <<<"${R[summary,$n]}")
    cell "generate population (s)" "$n" "${R[gen,$n]}"
    cell "plan rows (tasks + overrides + slides)" "$n" "$(printf "%'d" "${R[rows,$n]}")"
    cell "outcome" "$n" "$(sed -E 's/^run [0-9]+: ([0-9]+) due, ([0-9]+) changed, ([0-9]+) unchanged.*, ([0-9]+) failed.*/\1 due, \2 changed, \3 unchanged, \4 failed/' <<<"${R[summary,$n]}")"
    cell "edit rows written (per changed user)" "$n" "$(printf "%'d" "${R[edits,$n]}") ($(calc "round(${R[edits,$n]} / max(1, $changed), 1)"))"
    cell "**replan wall (s)**" "$n" "${R[wall,$n]}$([ "$repeat" -gt 1 ] && echo " (${R[walls,$n]// /, })")"
    cell "**users / s**" "$n" "$(calc "round(${R[due,$n]} / ${R[wall,$n]})")"
    cell "CPU user+sys per user (ms)" "$n" "$(calc "'%.2f' % (${R[cpu,$n]} * 1000 / ${R[due,$n]})")"
    cell "cores busy (CPU ÷ wall)" "$n" "$(calc "'%.2f' % (${R[cpu,$n]} / ${R[wall,$n]})")"
    cell "wall if CPU-bound on $(nproc) free cores (CPU ÷ $(nproc), s)" "$n" "$(calc "'%.1f' % (${R[cpu,$n]} / $(nproc))")"
    cell "**peak RSS (MB)**" "$n" "$(calc "'%.0f' % (${R[rss,$n]} / 1024)")"
    cell "DB before → after (MB, with WAL)" "$n" "$(mb "${R[size_before,$n]}") → $(mb "${R[size_after,$n]}")"
    cell "next night: outcome" "$n" "$(sed -E 's/^run [0-9]+: ([0-9]+) due, ([0-9]+) changed, ([0-9]+) unchanged.*, ([0-9]+) failed.*/\1 due, \2 changed, \3 unchanged, \4 failed/' <<<"${R[summary2,$n]}")"
    cell "**next night: wall (s)**" "$n" "${R[wall2,$n]}"
    cell "**next night: users / s**" "$n" "$(calc "round(${R[due2,$n]} / ${R[wall2,$n]})")"
    cell "next night: CPU per user (ms)" "$n" "$(calc "'%.2f' % (${R[cpu2,$n]} * 1000 / ${R[due2,$n]})")"
    cell "next night: peak RSS (MB)" "$n" "$(calc "'%.0f' % (${R[rss2,$n]} / 1024)")"
    if [ "$skip_floor" = 0 ]; then
      cell "floor: sqlite3 shell statements" "$n" "$(printf "%'d" "${R[floor_stmts,$n]}")"
      cell "floor: wall (s)" "$n" "${R[fwall,$n]}$([ "$repeat" -gt 1 ] && echo " (${R[fwalls,$n]// /, })")"
      cell "floor: CPU per user (ms)" "$n" "$(calc "'%.2f' % (${R[fcpu,$n]} * 1000 / ${R[due,$n]})")"
      cell "**replan wall ÷ floor wall**" "$n" "$(calc "'%.1f×' % (${R[wall,$n]} / ${R[fwall,$n]})")"
      cell "replan CPU ÷ floor CPU" "$n" "$(calc "'%.1f×' % (${R[cpu,$n]} / ${R[fcpu,$n]})")"
    fi
  done
fi

# --- the model-bound runs ---------------------------------------------------------------------------
start_mock() { # SCRIPT [RECORD] → sets mock_pid, mock_port
  local fifo=$out/mock.stdin
  local record=()
  [ -n "${2:-}" ] && record=(--record "$2")
  rm -f "$fifo" "$out/mock.port"; mkfifo "$fifo"
  exec 7<>"$fifo"  # held open: the mock exits when its stdin closes
  python3 "$mock" "$1" "${record[@]}" < "$fifo" 7>&- > "$out/mock.port" 2> "$out/mock.stderr" &
  mock_pid=$!
  for _ in $(seq 1 100); do grep -q '^PORT' "$out/mock.port" 2>/dev/null && break; sleep 0.05; done
  mock_port=$(awk '/^PORT/ {print $2}' "$out/mock.port")
  [ -n "$mock_port" ] || { log "mock server did not start: $(cat "$out/mock.stderr")"; exit 70; }
}
mock_cpu() { # CPU seconds the mock has used so far (utime + stime from /proc)
  awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$mock_pid/stat" 2>/dev/null || echo 0
}
stop_mock() { exec 7>&-; kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; rm -f "$out/mock.stdin"; }

printf 'bench-key-not-secret\n' > "$out/api-key"
chmod 600 "$out/api-key"
tool_call() { # ID NAME ARGUMENTS-JSON-STRING
  printf '{"id":"chatcmpl-%s","object":"chat.completion","created":1736827200,"model":"mock","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%s","type":"function","function":{"name":"%s","arguments":%s}}]}}],"usage":{"prompt_tokens":1000,"completion_tokens":20,"total_tokens":1020,"completion_tokens_details":{"reasoning_tokens":0}}}' \
    "$1" "$1" "$2" "$3"
}
# Turn 1 (no tool result in the request yet): a harmless deleteTask with no ids; turn 2 (the
# request carries the tool result): end_conversation.
cat > "$out/mock-2turns.json" <<EOF
[
  {"match": "tool_call_id", "repeat": true, "responses": [{"status": 200, "delay": $latency, "body": $(tool_call end end_conversation '"{\"summary\":\"nothing to change\"}"')}]},
  {"match": null, "repeat": true, "responses": [{"status": 200, "delay": $latency, "body": $(tool_call del deleteTask '"{\"taskIds\":[]}"')}]}
]
EOF
cat > "$out/mock-1turn.json" <<EOF
[{"match": null, "repeat": true, "responses": [{"status": 200, "body": $(tool_call end end_conversation '"{\"summary\":\"nothing\"}"')}]}]
EOF

model_state=unknown  # built | missing
if [ "$skip_model" = 0 ]; then
  for i in "${!muser_list[@]}"; do
    m=${muser_list[$i]} c=${mconc_list[$i]}
    pop=$(population "$m" --instruction-all)
    db=$out/model-$c.db
    fresh_copy "$pop" "$db"
    start_mock "$out/mock-2turns.json"
    # The harness's own ceiling: the mock alone, N clients, as many requests as the run makes.
    R[mprobe,$c]=$(python3 bench/mock_probe.py "$mock_port" "$c" $((2 * m)) "$latency" 20000 \
      | python3 -c "import json,sys; d=json.load(sys.stdin); print('%.0f %%' % (100 * d['rps'] / d['ideal_rps']) + ('' if not d['errors'] else ', %d errors' % d['errors']))")
    log "replan run against the mock, $m students, --concurrency $c, ${latency}s per response (mock alone: ${R[mprobe,$c]} of ideal)"
    mock_cpu_before=$(mock_cpu)
    set +e
    OPENAI_BASE_URL=http://127.0.0.1:$mock_port/v1 /usr/bin/time -v -o "$out/model-$c.time" \
      "$bin" --db "$db" --now "$now" run --concurrency "$c" --api-key-file "$out/api-key" \
      > "$out/model-$c.stdout" 2> "$out/model-$c.stderr"
    rc=$?
    set -e
    R[mockcpu,$c]=$(calc "$(mock_cpu) - $mock_cpu_before")
    stop_mock
    R[mcpu,$c]=$(calc "$(tv "$out/model-$c.time" user) + $(tv "$out/model-$c.time" sys)")
    requests=$(sqlite3 "$db" "SELECT coalesce(sum(model_calls), 0) FROM user_runs WHERE run_id = (SELECT max(id) FROM runs)")
    summary=$(grep -E '^run [0-9]+:' "$out/model-$c.stderr" | tail -1 || true)
    R[msummary,$c]=$summary
    R[mrequests,$c]=$requests
    R[mwall,$c]=$(tv "$out/model-$c.time" wall)
    R[mdue,$c]=$(sed -E 's/^run [0-9]+: ([0-9]+) due.*/\1/' <<<"$summary")
    R[musers,$c]=$m
    if [ "$requests" = 0 ] && grep -q 'model off' <<<"$summary"; then
      model_state=missing
      R[mstate,$c]="n/a (model stage not built)"
    else
      model_state=built
      R[mstate,$c]=ok
      [ "$rc" = 0 ] || R[mstate,$c]="exit $rc"
    fi
    log "  $summary — $requests requests, wall ${R[mwall,$c]} s"
    rm -f "$db" "$db-wal" "$db-shm" "$db.lock"
  done
fi

# --- prompt bytes by history length -------------------------------------------------------------
if [ "$skip_prompt" = 0 ]; then
  pop=$(population 0 --history)
  hpop=$out/hist-preview.db  # a copy: the cached population is never opened by replan
  fresh_copy "$pop" "$hpop"
  R[preview_field]=$("$bin" --db "$hpop" --now "$now" preview --user hist-1m --no-model --json 2>/dev/null \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print(','.join(k for k in d if 'prompt' in k.lower()) or '-')")
  for h in hist-1m hist-1y hist-10y; do
    R[hrows,$h]=$(sqlite3 "$hpop" "SELECT (SELECT count(*) FROM tasks WHERE user_id = '$h') || ' tasks, ' || (SELECT count(*) FROM occurrence_overrides o JOIN tasks t ON t.id = o.task_id WHERE t.user_id = '$h') || ' overrides'")
    # One night of this student alone (`run --user H --force --no-model`, on a fresh copy each
    # time): best of 5 wall, and (with valgrind) the instructions above a process that only
    # opens the database, so history that leaks into the nightly work shows.
    best=""
    for _ in 1 2 3 4 5; do
      fresh_copy "$pop" "$out/hist-run.db"
      /usr/bin/time -v -o "$out/hist-run.time" "$bin" --db "$out/hist-run.db" --now "$now" run --user "$h" --force --no-model \
        > /dev/null 2>&1 || true
      w=$(tv "$out/hist-run.time" wall)
      if [ -z "$best" ] || [ "$(calc "$w < $best")" = True ]; then best=$w; fi
    done
    R[hpreview,$h]=$(calc "'%.0f' % ($best * 1000)")
    R[hinstr,$h]=n/a
    R[hinstr2,$h]=n/a
    if command -v valgrind >/dev/null; then
      ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/refs:/ {gsub(",", "", $4); print $4}'; }
      [ -n "${R[base_ir]:-}" ] || R[base_ir]=$(ir "$bin" --db "$hpop" --now "$now" settings show --user hist-1m)
      fresh_copy "$pop" "$out/hist-run.db"
      R[hinstr,$h]=$(calc "'%.1f' % (($(ir "$bin" --db "$out/hist-run.db" --now "$now" run --user "$h" --force --no-model) - ${R[base_ir]}) / 1e6)")
      # The night after: the statistics base settled by the first night is in place.
      hnext=$(python3 -c "import datetime as d; t=d.datetime.strptime('$now','%Y-%m-%dT%H:%M:%SZ')+d.timedelta(days=1); print(t.strftime('%Y-%m-%dT%H:%M:%SZ'))")
      R[hinstr2,$h]=$(calc "'%.1f' % (($(ir "$bin" --db "$out/hist-run.db" --now "$hnext" run --user "$h" --no-model) - ${R[base_ir]}) / 1e6)")
    fi
    rm -f "$out/hist-run.db" "$out/hist-run.db-wal" "$out/hist-run.db-shm" "$out/hist-run.db.lock"
    db=$out/hist.db
    fresh_copy "$pop" "$db"
    rec=$out/prompt-$h.requests.jsonl; rm -f "$rec"
    start_mock "$out/mock-1turn.json" "$rec"
    OPENAI_BASE_URL=http://127.0.0.1:$mock_port/v1 "$bin" --db "$db" --now "$now" run --user "$h" --force \
      --api-key-file "$out/api-key" > /dev/null 2> "$out/prompt-$h.stderr" || true
    stop_mock
    if [ -s "$rec" ]; then
      R[hbytes,$h]=$(head -1 "$rec" | python3 -c "import json,sys; print(len(json.loads(sys.stdin.readline())['raw'].encode()))")
    else
      R[hbytes,$h]="n/a (model stage not built)"
    fi
    rm -f "$db" "$db-wal" "$db-shm" "$db.lock"
  done
  rm -f "$hpop" "$hpop-wal" "$hpop-shm" "$hpop.lock"
fi

# --- the planning micro-benchmark (bench/planning.sh, another engineer's) -------------------------
if [ "$skip_planning" = 0 ]; then
  log "bench/planning.sh"
  R[planning]=$(sh bench/planning.sh 2>/dev/null | sed -n 's/^CPU time per plan: //p' || true)
fi

# --- the table -----------------------------------------------------------------------------------------
{
  rev=$(git rev-parse --short HEAD 2>/dev/null || echo '?')
  echo "## replan benchmark — $(date -u +%Y-%m-%dT%H:%MZ), commit $rev, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "binary: $bin"
  echo
  echo "now = $now, seed = $seed, concurrency = ${concurrency:-default (8)}, best of $repeat"
  echo
  if [ "$skip_local" = 0 ]; then
    printf '| local only (`run --no-model`) |'; for n in "${size_list[@]}"; do printf " %'d students |" "$n"; done; echo
    printf '|---|'; for _ in "${size_list[@]}"; do printf -- '---:|'; done; echo
    for l in "${labels[@]}"; do
      printf '| %s |' "$l"; for n in "${size_list[@]}"; do printf ' %s |' "${D[$l|$n]:-}"; done; echo
    done
    echo
  fi
  if [ "$skip_model" = 0 ]; then
    echo "| model-bound (\`run\`, mock at ${latency}s/response, 2 turns) | students | model requests | wall (s) | users / s | ideal N/(2×${latency}) | % of ideal | replan CPU per student (ms) | cores busy: replan + mock | mock alone, % of ideal |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for c in "${mconc_list[@]}"; do
      ideal=$(calc "round($c / (2 * $latency), 1)")
      if [ "${R[mstate,$c]}" = ok ]; then
        ups=$(calc "round(${R[mdue,$c]} / ${R[mwall,$c]}, 1)")
        echo "| --concurrency $c | ${R[musers,$c]} | ${R[mrequests,$c]} | ${R[mwall,$c]} | $ups | $ideal | $(calc "'%.0f %%' % (100 * ${R[mdue,$c]} / ${R[mwall,$c]} / $ideal)") | $(calc "'%.1f' % (${R[mcpu,$c]} * 1000 / max(1, ${R[mdue,$c]}))") | $(calc "'%.2f + %.2f' % (${R[mcpu,$c]} / ${R[mwall,$c]}, ${R[mockcpu,$c]} / ${R[mwall,$c]})") | ${R[mprobe,$c]} |"
      else
        echo "| --concurrency $c | ${R[musers,$c]} | ${R[mrequests,$c]} | ${R[mwall,$c]} | ${R[mstate,$c]} | $ideal | n/a | | | ${R[mprobe,$c]} |"
      fi
    done
    echo
  fi
  if [ "$skip_prompt" = 0 ]; then
    echo "| history | rows of the student | first request body (bytes) | \`run --user --no-model\` wall (ms, best of 5) | first night: instructions above process start (M, callgrind) | the next night (statistics base in place) |"
    echo "|---|---|---:|---:|---:|---:|"
    for h in hist-1m hist-1y hist-10y; do
      echo "| ${h#hist-} | ${R[hrows,$h]} | ${R[hbytes,$h]} | ${R[hpreview,$h]} | ${R[hinstr,$h]} | ${R[hinstr2,$h]} |"
    done
    echo
    echo "preview --json prompt-size field: ${R[preview_field]}"
    echo
  fi
  if [ "$skip_planning" = 0 ]; then
    echo "bench/planning.sh (Planning only, 300-occurrence user): ${R[planning]:-failed}"
    echo
  fi
} | tee "$out/results.md"
