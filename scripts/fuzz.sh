#!/usr/bin/env bash
# The libFuzzer targets (tests/fuzz): builds them (scripts/build.sh mpich fuzz, Debian's clang)
# and runs each from its committed corpus (tests/fuzz/corpus/<what>) for a fixed number of
# inputs, new inputs going to a scratch directory (the committed corpus stays as it is).
# The targets: fuzz_hints, fuzz_topology_slurm/grid/matrix, fuzz_memory, fuzz_cgroup, fuzz_plan,
# fuzz_listcode and fuzz_flatten (every fuzz_* that the build makes).
# Usage: scripts/fuzz.sh [runs per target]   (default 4000: the CI run, ~2-3 min on 2 cores)
#        FUZZ_TIME=<seconds> scripts/fuzz.sh   (each target for that long instead: -max_total_time)
# A crash leaves its input in the scratch directory, printed; make it a unit test.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-4000}
"$root/scripts/setup.sh" || exit 1
dir=$("$root/scripts/build.sh" mpich fuzz) || { echo "== fuzz: build FAILED"; exit 1; }
scratch=$(mktemp -d)
# The MPI library's own leaks (fuzz_flatten runs MPI), explained in the file.
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
limit=(-runs="$runs")
[ -n "${FUZZ_TIME:-}" ] && limit=(-max_total_time="$FUZZ_TIME")
failed=0 start=$(date +%s)
for exe in "$dir"/tests/fuzz/fuzz_*; do
  what=${exe##*/fuzz_}
  mkdir -p "$scratch/$what"
  # fuzz_flatten runs MPI as a singleton: MPI keeps allocations across inputs (communicators,
  # attribute tables, the datatypes' own caches), which LeakSanitizer would report as leaks of
  # each input; the pure targets keep leak detection on.
  leaks=1
  [ "$what" = flatten ] && leaks=0
  t0=$(date +%s)
  if (cd "$scratch" && "$exe" "${limit[@]}" -seed=1 -max_len=4096 -timeout=20 -detect_leaks=$leaks \
        -print_final_stats=1 "$scratch/$what" "$root/tests/fuzz/corpus/$what") >"$scratch/$what.log" 2>&1; then
    echo "== fuzz_$what: $(sed -n 's/.*stat::number_of_executed_units: *//p' "$scratch/$what.log") inputs, clean ($(( $(date +%s) - t0 )) s)"
  else
    failed=$((failed + 1))
    echo "== fuzz_$what: FAILED; the input that failed is in $scratch (crash-*, leak-*, timeout-*):"
    grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written|^[a-z].*: " "$scratch/$what.log" | head -30
  fi
done
echo "== fuzz: $(ls "$dir"/tests/fuzz/fuzz_* | wc -l) targets, $failed failed ($(( $(date +%s) - start )) s)"
[ "$failed" -eq 0 ] && rm -rf "$scratch"
[ "$failed" -eq 0 ]
