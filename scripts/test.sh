#!/usr/bin/env bash
# The whole test suite: unit tests of the planner and multi-rank tests on Debian's MPICH and Open
# MPI; the multi-rank and drop-in tests (tests/mpi, tests/pmpi) on the newest releases, MPICH 5
# and Open MPI 5 from PyPI (scripts/setup.sh installs them into .venv-mpich5, .venv-openmpi5);
# then the simulation build's test when SimGrid's smpicc is installed.
# Installs what is missing (scripts/setup.sh), configures and builds incrementally.
# Usage: scripts/test.sh [mpi ...]   (default: mpich openmpi mpich5 openmpi5)
#   mpich, openmpi (Debian's): everything, in build/<mpi>. Any other MPI, named as
#   scripts/build.sh takes it (mpich5, openmpi5, impi, /path/to/mpicc), in build/<name>-mpi
#   (no unit tests: they are MPI-free and run above): named, all its multi-rank and drop-in
#   tests; by default, their share that fits CI's time: the tests labelled sanitize (the
#   multi-rank tests at 3 ranks, placement at 5, two pipeline variants, the drop-in programs)
#   and mpis (mcio-run, darray).
set -uo pipefail
further=(-R '^(mpi_|pmpi_|py_)')
[ $# -eq 0 ] && set -- mpich openmpi mpich5 openmpi5 && further=(-L '^(sanitize|mpis)$')
. "$(dirname "$0")/suite-common.sh"
for mpi in "${mpis[@]}"; do
  variant=() tests=()
  case "$mpi" in
    mpich|openmpi) ;;
    *) variant=(mpi) tests=("${further[@]}") ;;
  esac
  echo "== $mpi: building"
  dir=$("$root/scripts/build.sh" "$mpi" "${variant[@]}") || { echo "== $mpi: build FAILED"; failed=$((failed + 1)); continue; }
  echo "== $mpi: testing"
  suite_ctest "$mpi" "$dir" -j2 "${tests[@]}"
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
