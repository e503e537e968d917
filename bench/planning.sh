#!/bin/sh
# Planning benchmark: compiles the JSON module (Planning's only dependency), then
# bench/PlanningBenchmark/main.swift together with the Planning sources into one optimised
# binary (so Package.swift needs no benchmark target), and prints the CPU time per plan. Usage: bench/planning.sh [runs] [heavy|typical]
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/planning-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
swiftc -O -package-name replan -parse-as-library -module-name JSON -emit-module -emit-module-path "$work/JSON.swiftmodule" \
    -emit-library -static -o "$work/libJSON.a" "$root"/Sources/JSON/*.swift
swiftc -O -package-name replan -module-name PlanningBenchmark -I "$work" -L "$work" -lJSON -o "$work/planning-bench" \
    $(find "$root"/Sources/Planning -name "*.swift" | sort) "$root/bench/PlanningBenchmark/main.swift"
"$work/planning-bench" "$@"
