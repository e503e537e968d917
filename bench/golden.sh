#!/bin/sh
# Golden check: two replan binaries must write byte-identical nightly output for a population.
#
# Usage: bench/golden.sh OLD_BINARY NEW_BINARY POPULATION_DB [NOW]
#
# Each binary runs the nightly job (no model, one worker, so the order of work is fixed) on its
# own copy of the population; the original database is never written. Then the changesets
# (edits, summaries, reports) and the calendar rows they leave behind are dumped in a fixed
# order and compared. Only the changeset id is masked: it is random, and the rows that carry
# it are matched by user instead. Prints "identical", or the first differences and exits 1.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY POPULATION_DB [NOW]" >&2; exit 2; }
old=$1 new=$2 population=$3 now=${4:-2025-01-14T04:00:00Z}
for f in "$old" "$new"; do [ -x "$f" ] || { echo "$0: not an executable: $f" >&2; exit 2; }; done
[ -f "$population" ] || { echo "$0: no such database: $population" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/golden.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

dump() { # dump DB OUT
    sqlite3 "$1" >"$2" <<'SQL'
.mode list
.separator |
SELECT 'edit', c.user_id, e.seq, e.entity, e.entity_key, e.before, e.after, e.reason
  FROM changeset_edits e JOIN changesets c ON c.id = e.changeset_id ORDER BY c.user_id, e.seq;
SELECT 'changeset', user_id, origin, plan_date, state, summary, replace(report, id, '<changeset>')
  FROM changesets ORDER BY user_id, created_at;
SELECT 'task', * FROM tasks ORDER BY id;
SELECT 'override', * FROM occurrence_overrides ORDER BY task_id, original_date;
SELECT 'slide', * FROM series_slides ORDER BY task_id, from_date;
SELECT 'outbox', o.user_id, o.occurrence_id, o.fire_at, o.action, o.created_at
  FROM notification_outbox o ORDER BY o.user_id, o.id;
SELECT 'statistic', * FROM statistics ORDER BY user_id, category;
SELECT 'statistics base', user_id, through, counts FROM statistics_base ORDER BY user_id;
SQL
}

for side in old new; do
    eval binary=\$$side
    cp "$population" "$work/$side.db"
    if ! "$binary" --db "$work/$side.db" --now "$now" run --no-model --concurrency 1 >"$work/$side.out" 2>"$work/$side.err"; then
        echo "$side binary failed ($binary):" >&2; tail -5 "$work/$side.err" >&2; exit 1
    fi
    dump "$work/$side.db" "$work/$side.dump"
done

if cmp -s "$work/old.dump" "$work/new.dump"; then
    echo "identical ($(grep -c '^edit|' "$work/old.dump") edit rows, $(grep -c '^changeset|' "$work/old.dump") changesets)"
else
    echo "different:"
    diff "$work/old.dump" "$work/new.dump" | head -40
    exit 1
fi
