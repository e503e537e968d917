#!/usr/bin/env bash
# Verifies the units and rates the service's hardening (must be 2.0 or lower).
# Usage: systemd/check.sh PATH-TO-BUILT-REPLAN
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
binary="${1:?path to the built replan binary}"
# The shipped configuration must parse and hold valid values (config show checks them).
"$binary" config show --config "$here/replan.conf" >/dev/null
echo "replan.conf: ok"
if ! command -v systemd-analyze >/dev/null; then
  echo "systemd-analyze not found: skipping the unit checks"
  exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
# Verify the units as shipped, with ExecStart pointing at the binary just built (the shipped
# path /usr/local/bin/replan only exists once installed).
sed "s#^ExecStart=/usr/local/bin/replan#ExecStart=$binary#" "$here/replan.service" > "$tmp/replan.service"
cp "$here/replan.timer" "$here/replan-failure@.service" "$tmp/"
systemd-analyze verify "$tmp/replan.service" "$tmp/replan.timer" "$tmp/replan-failure@.service"
echo "systemd-analyze verify: ok"
score="$(systemd-analyze security --offline=yes "$tmp/replan.service" 2>/dev/null | sed -n 's/.*Overall exposure level for replan.service: \([0-9.]*\).*/\1/p')"
echo "systemd-analyze security: exposure $score"
awk -v s="$score" 'BEGIN { exit !(s != "" && s <= 2.0) }' || { echo "exposure $score is above 2.0"; exit 1; }
