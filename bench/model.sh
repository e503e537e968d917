#!/usr/bin/env bash
# The model-stage benchmark (issue 16): the four targets, on the seeded bench population.
#
#   bench/model.sh [--users 1000] [--seed 42] [--bin PATH] [--scale 10] [--latency 8]
#                  [--tpm 2000000] [--rpm 10000] [--headers-at answer|admission] [--skip-rate]
#                  [--skip-nights] [--done 0.9] [--cap 1500] [--rate-args "ARGS"] [--out DIR]
#
# 1. who is asked: a catch-up night (`replan run` against the recording mock, every answer
#    at once: a deleteTask with no items, then end_conversation), then between the nights
#    --done (90 %) of the day's sessions done and 2 % of the instructions changed (plus as many new ones,
#    bench/steady.py), then the steady night: the share of students asked, and a check that
#    every student whose instruction changed or is new was asked;
# 2. first request, median tokens: the steady night's first requests (o200k, bench/tokens.py);
# 3. the estimated cost of a steady 100,000-student night (bench/tokens.py: 4-request
#    conversations, 1,000 output tokens per request, gpt-5.1 prices, prefix caching), and the
#    same priced from the requests the mock recorded (the scripted model's two a student, its
#    1,000 output tokens each); and the time that night needs under --tpm: every recorded
#    request's reservation (bytes / 4 + --cap, the output cap the sized pacing settles at,
#    docs/model.md §8) x 100,000 / N / the limit, for the steady and the catch-up night;
# 4. the rate limit: a population whose students all have an instruction (everyone asked,
#    2 requests each) against the mock enforcing --tpm tokens and --rpm requests per minute
#    and answering after --latency seconds, all of it --scale times faster (a 6 s window and
#    0.8 s answers at --scale 10: the same shape, a tenth of the wait), replan with default
#    settings: share of the limit used, share of requests answered 429, students failed, the
#    time to finish (scaled back to real time), the most requests in flight and the output cap
#    sent last. --headers-at admission makes the mock write its rate-limit headers when it admits
#    a request (as a provider may), not when it answers. --skip-nights runs item 4 alone;
#    --rate-args adds `run` flags to it (e.g. "--concurrency 128").
# Prints one markdown table (also written to $out/results.md). Not part of the tests.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
users=1000 seed=42 bin="" scale=10 latency=8 tpm=2000000 rpm=10000 skip_rate=0 skip_nights=0 headers_at=answer
done_share=0.9 cap=1500 rate_args=""
out=$root/bench/out/model
now=2025-01-14T04:00:00Z next=2025-01-15T04:00:00Z day=2025-01-14
while [ $# -gt 0 ]; do
  case $1 in
    --users) users=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --scale) scale=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    --tpm) tpm=$2; shift 2 ;;
    --rpm) rpm=$2; shift 2 ;;
    --skip-rate) skip_rate=1; shift ;;
    --skip-nights) skip_nights=1; shift ;;
    --headers-at) headers_at=$2; shift 2 ;;
    --done) done_share=$2; shift 2 ;;
    --cap) cap=$2; shift 2 ;;
    --rate-args) rate_args=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
log() { printf 'bench/model: %s\n' "$*" >&2; }
mkdir -p "$out"
cd "$root"
python3 -c 'import bpe_openai' 2>/dev/null || python3 -m pip install --quiet bpe-openai \
  || python3 -m pip install --quiet --break-system-packages bpe-openai
if [ -z "$bin" ]; then
  log "release build"
  swift build -c release 2>&1 | tail -n 1 >&2
  bin=$(swift build -c release --show-bin-path)/replan
fi
printf 'bench-key-not-secret\n' > "$out/api-key"; chmod 600 "$out/api-key"
gen_hash=$(python3 bench/population.py fingerprint)

population() { # N [flags…] → cached path
  local n=$1; shift
  local tag; tag=$(printf '%s' "$*" | tr -c 'a-z0-9' '_')
  local db=$out/pop-$n-s$seed-$gen_hash$tag.db
  if [ ! -s "$db" ]; then
    log "generating $n students $*"
    python3 bench/population.py generate --db "$db.tmp" --users "$n" --replan "$bin" --seed "$seed" --now "$now" "$@" > /dev/null
    mv "$db.tmp" "$db"
  fi
  echo "$db"
}
copy() { rm -f "$2" "$2-wal" "$2-shm" "$2.lock"; cp "$1" "$2"; }

mock_pid="" mock_port=""
start_mock() { # SCRIPT RECORD
  rm -f "$out/mock.stdin" "$out/mock.port" "$2"; mkfifo "$out/mock.stdin"
  exec 7<>"$out/mock.stdin"
  python3 bench/mock_server.py "$1" --record "$2" < "$out/mock.stdin" 7>&- > "$out/mock.port" 2> "$out/mock.stderr" &
  mock_pid=$!
  for _ in $(seq 1 100); do grep -q '^PORT' "$out/mock.port" 2>/dev/null && break; sleep 0.05; done
  mock_port=$(awk '/^PORT/ {print $2}' "$out/mock.port")
  [ -n "$mock_port" ] || { log "mock did not start: $(cat "$out/mock.stderr")"; exit 70; }
}
stop_mock() { exec 7>&-; kill "$mock_pid" 2>/dev/null || true; wait "$mock_pid" 2>/dev/null || true; rm -f "$out/mock.stdin"; }
trap 'stop_mock 2>/dev/null || true' EXIT

answer() { # ID NAME ARGUMENTS DELAY
  printf '{"status":200,"delay":%s,"body":{"id":"chatcmpl-%s","object":"chat.completion","created":1736827200,"model":"mock","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_%s","type":"function","function":{"name":"%s","arguments":%s}}]}}],"usage":{"prompt_tokens":3000,"completion_tokens":1000,"total_tokens":4000,"prompt_tokens_details":{"cached_tokens":1024},"completion_tokens_details":{"reasoning_tokens":800}}}}' \
    "$4" "$1" "$1" "$2" "$3"
}
rules() { # DELAY
  printf '[{"match":"tool_call_id","repeat":true,"responses":[%s]},{"match":null,"repeat":true,"responses":[%s]}]' \
    "$(answer end end_conversation '"{\"summary\":\"Your plan is in order.\",\"status\":\"nothing-needed\",\"question\":null}"' "$1")" \
    "$(answer del deleteTask '"{\"tasks\":[]}"' "$1")"
}
rules 0 > "$out/script-fast.json"

json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# --- 1-3: two nights on the bench population ------------------------------------------------------
if [ "$skip_nights" = 0 ]; then
pop=$(population "$users")
db=$out/nights.db
copy "$pop" "$db"
log "catch-up night ($users students)"
start_mock "$out/script-fast.json" "$out/catchup.jsonl"
OPENAI_BASE_URL=http://127.0.0.1:$mock_port/v1 "$bin" --db "$db" --now "$now" run --api-key-file "$out/api-key" --json \
  > "$out/catchup.json" 2> "$out/catchup.stderr" || true
stop_mock
python3 bench/steady.py "$db" --date "$day" --seed "$seed" --done "$done_share" > "$out/between.json"
log "steady night"
start_mock "$out/script-fast.json" "$out/steady.jsonl"
OPENAI_BASE_URL=http://127.0.0.1:$mock_port/v1 "$bin" --db "$db" --now "$next" run --api-key-file "$out/api-key" --json \
  > "$out/steady.json" 2> "$out/steady.stderr" || true
stop_mock
# The bench students are the first N of the 100,000: the cost scales by 100,000 / N.
python3 bench/tokens.py "$out/steady.jsonl" --scale "$(python3 -c "print(100000 / $users)")" > "$out/steady-tokens.json"
python3 bench/tokens.py "$out/catchup.jsonl" --scale "$(python3 -c "print(100000 / $users)")" > "$out/catchup-tokens.json"
# Every changed or new instruction and every flag was handled that same night. (A binary
# from before the call policy has no model_decision column: the students asked are then the
# ones whose requests carried their instruction, which the recording shows.)
missed=$(python3 - "$db" "$out/between.json" "$out/steady.jsonl" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); between = json.load(open(sys.argv[2]))
try:
    rows = dict(db.execute("SELECT user_id, model_decision FROM user_runs WHERE run_id = (SELECT max(id) FROM runs)"))
except sqlite3.OperationalError:
    text = open(sys.argv[3], encoding="utf-8").read()
    rows = {u: "asked" for u in between["changed"] + between["new"] if u in text}
need = between["changed"] + between["new"]
unhandled = [u for u in need if not (rows.get(u) or "").startswith("asked")]
flagged = [u for u, d in rows.items() if d == "asked: flags"]
print(json.dumps({"instructionChanges": len(need), "unhandled": unhandled, "flagged": len(flagged)}))
PY
)

c1() { json "$out/catchup.json" "$1"; }
c2() { json "$out/steady.json" "$1"; }
# Students asked: from run --json, or (a binary without `modelAsked`) the first requests recorded.
firsts() { python3 bench/tokens.py "$1" | python3 -c "import json,sys; print(json.load(sys.stdin)['students'])"; }
asked1=$(c1 "d.get('modelAsked', -1)"); [ "$asked1" != -1 ] || asked1=$(firsts "$out/catchup.jsonl")
asked2=$(c2 "d.get('modelAsked', -1)"); [ "$asked2" != -1 ] || asked2=$(firsts "$out/steady.jsonl")
due1=$(c1 "d['counts']['due']") due2=$(c2 "d['counts']['due']")
reasons2=$(c2 "', '.join('%s %d' % kv for kv in sorted(d.get('modelReasons', {}).items(), key=lambda kv: -kv[1])) or 'n/a'")
t() { json "$out/steady-tokens.json" "$1"; }
# The steady night's reservations, scaled to 100,000 students, against the limit.
minutes() { # RECORDING → minutes of the limit that night's reservations need, at 100,000 students
python3 - "$1" "$users" "$cap" "$tpm" <<'PY'
import json, sys
reserved = sum((len(json.dumps(json.loads(l)["body"], separators=(",", ":")).encode()) + 3) // 4 + int(sys.argv[3])
               for l in open(sys.argv[1], encoding="utf-8"))
print(round(reserved * 100000 / int(sys.argv[2]) / int(sys.argv[4]), 1))
PY
}
night_minutes=$(minutes "$out/steady.jsonl")
catchup_minutes=$(minutes "$out/catchup.jsonl")
fi

# --- 4: the rate limit ---------------------------------------------------------------------------------
if [ "$skip_rate" = 0 ]; then
  rpop=$(population "$users" --instruction-all)
  rdb=$out/rate.db
  copy "$rpop" "$rdb"
  window=$(python3 -c "print(60 / $scale)")
  delay=$(python3 -c "print($latency / $scale)")
  printf '{"bucket":{"tokens":%s,"requests":%s,"window":%s,"headersAt":"%s"},"rules":%s}' "$tpm" "$rpm" "$window" \
    "$headers_at" "$(rules "$delay")" > "$out/script-rate.json"
  log "rate limit: $tpm tokens and $rpm requests per ${window}s, ${delay}s per answer, headers at $headers_at, default settings"
  start_mock "$out/script-rate.json" "$out/rate.jsonl"
  started=$(date +%s.%N)
  # shellcheck disable=SC2086 # --rate-args are extra `run` flags, meant to split
  OPENAI_BASE_URL=http://127.0.0.1:$mock_port/v1 "$bin" --db "$rdb" --now "$now" run --api-key-file "$out/api-key" --json \
    $rate_args > "$out/rate.json" 2> "$out/rate.stderr" || true
  wall=$(python3 -c "import time; print(round(time.time() - $started, 1))")
  curl -s "http://127.0.0.1:$mock_port/_stats" > "$out/rate-stats.json"
  stop_mock
  r() { json "$out/rate-stats.json" "$1"; }
  used=$(r "round(100 * d['charged'] / (d['tokens_limit'] + d['tokens_limit'] / d['window'] * (d['last'] - d['first'])), 1)")
  limited=$(r "round(100 * d['rate_limited'] / max(1, d['requests']), 1)")
  rfailed=$(json "$out/rate.json" "sum(1 for u in d['users'] if u['model']['error'])")
  rdue=$(json "$out/rate.json" "d['counts']['due']")
  rasked=$(json "$out/rate.json" "d.get('modelAsked', d['counts']['due'])")
  rrequests=$(r "d['requests']")
  p() { json "$out/rate.json" "(d.get('pacing') or {}).get('$1', '?')"; }
  rpeak=$(p peakInFlight) rceiling=$(p peakCeiling) rcap=$(p outputCap) rnotreached=$(p notReached)
  rreal=$(python3 -c "print(round($wall * $scale / 60, 1))")
fi

{
  echo "## replan model-stage benchmark — $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) cores"
  echo
  echo "$users students, seed $seed; nights at $now and $next, $done_share of the day's sessions done between them; o200k tokens (bpe-openai); gpt-5.1 prices; load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| figure | target | measured |"
  echo "|---|---:|---:|"
  if [ "$skip_nights" = 0 ]; then
    echo "| students asked on the catch-up night | | $asked1 of $due1 ($(python3 -c "print(round(100 * $asked1 / max(1, $due1), 1))") %) |"
    echo "| **students asked on the steady night** | ≤ 15 % | **$asked2 of $due2 ($(python3 -c "print(round(100 * $asked2 / max(1, $due2), 1))") %)** |"
    echo "| steady night: why (asked or not) | | $reasons2 |"
    echo "| steady night: changed or new instructions handled that night | all | $(python3 -c "import json; d=json.loads('$missed'); print('%d of %d' % (d['instructionChanges'] - len(d['unhandled']), d['instructionChanges']))") |"
    echo "| **first request, median tokens** (p90, max) | ≤ 3,000 | **$(t "d['firstRequestMedian']")** ($(t "d['firstRequestP90']"), $(t "d['firstRequestMax']")) |"
    echo "| of which the shared prefix (tools + system message), identical for every student | | $(t "d['toolsTokens'] + d['systemTokens']") ($(t "d['distinctSystemMessages']") distinct system message) |"
    echo "| a 4-request conversation, median input tokens | | $(t "d['conversationInputMedian']") |"
    echo "| estimated cost of a steady 100,000-student night, 4-request formula | | \$$(t "d['scaledNightCostUSD']") |"
    echo "| **estimated cost of a steady 100,000-student night, the recorded requests** ($(t "d['measuredRequests']") requests, $(t "d['measuredInputTokens']") input tokens, × 100,000 / $users) | ≤ \$300 | **\$$(t "d['measuredNightCostUSD']")** |"
    echo "| that night under $tpm tokens a minute: minutes of the limit its reservations need (output cap $cap) | ≤ 120 | $night_minutes |"
    echo "| the catch-up night the same way (× 100,000 / $users): minutes of the limit | ≤ 120, or the urgent first | $catchup_minutes ($(python3 -c "print(min(100, round(100 * 120 / max(0.1, $catchup_minutes))))") % of its requests fit 120 min) |"
  fi
  if [ "$skip_rate" = 0 ]; then
    echo "| rate limit: ${latency} s answers, headers written at $headers_at | | |"
    echo "| rate limit: students asked / requests made | | $rasked of $rdue / $rrequests (wall ${wall} s at 1/$scale time: ${rreal} min) |"
    echo "| rate limit: most requests in flight / highest ceiling / output cap sent last | | $rpeak / $rceiling / $rcap |"
    echo "| rate limit: students not reached (urgent first) | | $rnotreached |"
    echo "| **rate limit: share of the limit used** | ≥ 85 % | **$used %** |"
    echo "| **rate limit: requests answered 429** | ≤ 5 % | **$limited %** |"
    echo "| **rate limit: students failed** | 0 | **$rfailed** |"
  fi
} | tee "$out/results.md"
