#!/bin/sh
# Planning benchmark: compiles bench/PlanningBenchmark/main.swift together with the Planning
# sources into one optimised binary (Planning has no dependencies, so Package.swift needs no
# benchmark target) and prints the CPU time per plan. Usage: bench/planning.sh [runs] [heavy|typical]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/planning-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
swiftc -O -module-name PlanningBenchmark -o "$work/planning-bench" \
    "$root"/Sources/Planning/*.swift "$root/bench/PlanningBenchmark/main.swift"
"$work/planning-bench" "$@"
