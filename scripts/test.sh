#!/usr/bin/env bash
# The whole test suite: unit tests of the planner and multi-rank tests, on MPICH and Open MPI,
# then the simulation build's test when SimGrid's smpicc is installed.
# Installs what is missing (scripts/setup.sh), configures and builds incrementally.
# Usage: scripts/test.sh [mpich|openmpi ...]   (default: both)
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" || exit 1
mpis=("$@")
[ ${#mpis[@]} -eq 0 ] && mpis=(mpich openmpi)
# Open MPI refuses root without these; the tests' mpiexec lines carry the flags too.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
passed=0 failed=0 start=$(date +%s)
for mpi in "${mpis[@]}"; do
  echo "== $mpi: building"
  dir=$("$root/scripts/build.sh" "$mpi") || { echo "== $mpi: build FAILED"; failed=$((failed + 1)); continue; }
  echo "== $mpi: testing"
  log="$dir/ctest.log"
  (cd "$dir" && ctest -j2 --output-on-failure --timeout 300) 2>&1 | tee "$log"
  p=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 \1/p' "$log" | tail -1)
  if [ -z "$p" ]; then
    echo "== $mpi: ctest did not finish"; failed=$((failed + 1)); continue
  fi
  set -- $p
  passed=$((passed + $1 - $2)); failed=$((failed + $2))
done
# The simulation build (SimGrid's SMPI) and its test, which compares a simulated job with the
# same job on the real build above (docs/simulation.md).
if command -v smpicc >/dev/null 2>&1; then
  echo "== smpi (simulation): building"
  if dir=$("$root/scripts/build.sh" smpi); then
    echo "== smpi (simulation): testing"
    log="$dir/ctest.log"
    (cd "$dir" && ctest --output-on-failure --timeout 300) 2>&1 | tee "$log"
    p=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 \1/p' "$log" | tail -1)
    if [ -z "$p" ]; then
      echo "== smpi: ctest did not finish"; failed=$((failed + 1))
    else
      set -- $p
      passed=$((passed + $1 - $2)); failed=$((failed + $2))
    fi
  else
    echo "== smpi: build FAILED"; failed=$((failed + 1))
  fi
fi
echo "== whole suite ($(( $(date +%s) - start )) s, ${mpis[*]})"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
