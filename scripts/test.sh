#!/usr/bin/env bash
# The whole test suite: unit tests of the planner and multi-rank tests, on MPICH and Open MPI,
# then the simulation build's test when SimGrid's smpicc is installed.
# Installs what is missing (scripts/setup.sh), configures and builds incrementally.
# Usage: scripts/test.sh [mpich|openmpi ...]   (default: both)
set -uo pipefail
. "$(dirname "$0")/suite-common.sh"
for mpi in "${mpis[@]}"; do
  echo "== $mpi: building"
  dir=$("$root/scripts/build.sh" "$mpi") || { echo "== $mpi: build FAILED"; failed=$((failed + 1)); continue; }
  echo "== $mpi: testing"
  suite_ctest "$mpi" "$dir" -j2
done
# The simulation build (SimGrid's SMPI) and its test, which compares a simulated job with the
# same job on the real build above (docs/simulation.md).
if command -v smpicc >/dev/null 2>&1; then
  echo "== smpi (simulation): building"
  if dir=$("$root/scripts/build.sh" smpi); then
    echo "== smpi (simulation): testing"
    suite_ctest smpi "$dir"
  else
    echo "== smpi: build FAILED"; failed=$((failed + 1))
  fi
fi
echo "== whole suite ($(( $(date +%s) - start )) s, ${mpis[*]})"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
