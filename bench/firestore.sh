#!/usr/bin/env bash
# The Firestore import benchmark (issue 14). Not part of the test command.
#
#   bench/firestore.sh [--users 10000] [--seed S] [--bin PATH] [--out DIR]
#
# 1. builds the release binary (swift build -c release) unless --bin is given,
# 2. generates (or reuses, cached by size, seed and generator hash) an export of the original
#    app with bench/firestore_export.py,
#    as one collection-tree file, and the same students as a directory of per-user files,
# 3. times, under /usr/bin/time -v, on a fresh database each:
#    - `import --from firestore --check` (read, convert, report; no database),
#    - the import itself (every user one changeset, one transaction),
#    - the same import again (must change nothing: every user "already up to date"),
#    - the per-user directory: --check, and the import into another fresh database,
# 4. prints one markdown table (also written to $out/firestore-results.md).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
users=10000 seed=42 bin="" out=$root/bench/out
usage() { sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
  case "$1" in
    --users) users=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "unknown option $1" >&2; usage 64 >&2 ;;
  esac
done
mkdir -p "$out"
if [ -z "$bin" ]; then
  (cd "$root" && swift build -c release 2>&1 | tail -n 1)
  bin=$(cd "$root" && swift build -c release --show-bin-path)/replan
fi

hash=$(sha256sum "$root/bench/firestore_export.py" | cut -c1-8)
export_file=$out/firestore-$users-$seed-$hash.json
if [ ! -f "$export_file" ]; then
  echo "generating $users students → $export_file" >&2
  python3 "$root/bench/firestore_export.py" --users "$users" --seed "$seed" --out "$export_file.tmp"
  mv "$export_file.tmp" "$export_file"
fi
bytes=$(stat -c %s "$export_file")
export_dir=$out/firestore-per-user-$users-$seed-$hash
if [ ! -d "$export_dir" ]; then
  echo "generating $users per-user files → $export_dir" >&2
  python3 "$root/bench/firestore_export.py" --users "$users" --seed "$seed" --layout per-user --out "$export_dir.tmp"
  mv "$export_dir.tmp" "$export_dir"
fi

# /usr/bin/time -v FILE KEY → value
metric() {
  case "$2" in
    wall) awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$1" ;;
    cpu) awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {print u+s}' "$1" ;;
    rss) awk -F': ' '/Maximum resident set size/ {printf "%d", $2/1024}' "$1" ;;
  esac
}

db=$out/firestore-bench.db
rm -f "$db" "$db-wal" "$db-shm"
run() { # NAME ARGS… : times `replan ARGS…`, stdout to $out/NAME.out
  local name=$1; shift
  /usr/bin/time -v "$bin" --db "$db" --now 2025-01-14T04:00:00Z "$@" >"$out/$name.out" 2>"$out/$name.time" \
    || { echo "$name failed:" >&2; tail -n 30 "$out/$name.time" >&2; exit 1; }
}
run check import --from firestore "$export_file" --time-zone Asia/Taipei --check
[ ! -e "$db" ] || { echo "--check created the database" >&2; exit 1; }
run first import --from firestore "$export_file" --time-zone Asia/Taipei
dbsize=$(( $(stat -c %s "$db") + $(stat -c %s "$db-wal" 2>/dev/null || echo 0) ))
run second import --from firestore "$export_file" --time-zone Asia/Taipei
db_tree=$db
db=$out/firestore-bench-per-user.db
rm -f "$db" "$db-wal" "$db-shm"
run dircheck import --from firestore "$export_dir" --time-zone Asia/Taipei --check
run dirfirst import --from firestore "$export_dir" --time-zone Asia/Taipei
dir_tasks=$(sqlite3 "$db" 'SELECT count(*) FROM tasks')
db=$db_tree
imported=$(grep -c '^imported .*(changeset ' "$out/first.out" || true)
unchanged=$(grep -c 'already up to date$' "$out/second.out" || true)
[ "$unchanged" = "$users" ] || { echo "the second import changed $((users - unchanged)) users" >&2; exit 1; }
tasks=$(sqlite3 "$db" 'SELECT count(*) FROM tasks')
overrides=$(sqlite3 "$db" 'SELECT count(*) FROM occurrence_overrides')
corrections=$(sed -n 's/^corrections (\([0-9]*\)):$/\1/p' "$out/first.out")
omitted=$(sed -n 's/^not imported (\([0-9]*\)):$/\1/p' "$out/first.out")

{
  echo "| $users students, $(( bytes / 1048576 )) MiB export | wall s | CPU s | peak RSS MiB | students/s |"
  echo "|---|---:|---:|---:|---:|"
  for step in check first second dircheck dirfirst; do
    f=$out/$step.time
    label=$(case $step in check) echo "--check (read, convert, report)";; first) echo "import into an empty database";; second) echo "the same import again (no change)";;
      dircheck) echo "per-user directory: --check";; dirfirst) echo "per-user directory: import into an empty database";; esac)
    w=$(metric "$f" wall)
    echo "| $label | $w | $(metric "$f" cpu) | $(metric "$f" rss) | $(awk -v u="$users" -v w="$w" 'BEGIN {printf "%.0f", (w > 0 ? u / w : 0)}') |"
  done
  echo
  echo "Imported $imported students: $tasks tasks, $overrides completed occurrences, ${corrections:-0} corrections," \
       "${omitted:-0} records not imported; database $(( dbsize / 1048576 )) MiB. Second import: $unchanged of $users students already up to date." \
       "The per-user directory imported $dir_tasks tasks."
} | tee "$out/firestore-results.md"
