#!/usr/bin/env bash
# Configures (once) and builds mcio against one MPI, incrementally.
# Usage: scripts/build.sh <mpi> [mpi|asan|asan-mpi|fuzz]   -> build/<name>
#   <mpi> is one of
#     mpich, openmpi   Debian's MPICH and Open MPI (mpicc.mpich, mpicc.openmpi)
#     smpi             SimGrid's simulated MPI: the simulation build, docs/simulation.md
#     mpich5, openmpi5, impi   an MPI from PyPI in .venv-<name> (scripts/setup.sh <name> installs it)
#     /path/to/mpicc   any other MPI's compiler wrapper; build/<name> is named after its
#                      installation (/opt/mpich-4.3/bin/mpicc: build/mpich-4.3), or MCIO_BUILD_NAME
#   The launcher is the one beside the compiler (cmake/mcioMPI.cmake); the MPI's family and
#   version are read from its mpi.h.
#   mpi: build/<name>-mpi, without the unit tests (MCIO_ENABLE_UNIT_TESTS=OFF): the multi-rank
#         and drop-in tests of a further MPI (scripts/test.sh); the unit tests are MPI-free
#   asan: build/<name>-asan, with AddressSanitizer and UBSan (MCIO_ENABLE_SANITIZERS), at -O1
#         (ASan's advice, and the C++ tests compile several times faster than at -O2)
#   asan-mpi: build/<name>-asan-mpi, the same without the unit tests (MCIO_ENABLE_UNIT_TESTS=OFF):
#         the multi-rank tests of a second MPI (scripts/sanitize.sh); the unit tests are MPI-free
#         and their compilation is most of an asan build's time
#   fuzz: build/<name>-fuzz, with Debian's clang and libFuzzer: the fuzz_* targets only
#         (MCIO_ENABLE_FUZZING; scripts/fuzz.sh runs them)
set -euo pipefail
mpi=${1:?usage: scripts/build.sh mpich|openmpi|smpi|mpich5|openmpi5|impi|/path/to/mpicc [mpi|asan|asan-mpi|fuzz]}
variant=${2:-}
case "$variant" in ''|mpi|asan|asan-mpi|fuzz) ;; *) echo "scripts/build.sh: variant must be mpi, asan, asan-mpi or fuzz, not '$variant'" >&2; exit 2;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/mpi-env.sh"
mpi_config "$mpi" || exit 2
dir="$root/build/$mpi_name${variant:+-$variant}"
if [ ! -f "$dir/build.ninja" ]; then
  opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  case "$variant" in
    mpi)  opts+=(-DMCIO_ENABLE_UNIT_TESTS=OFF) ;;
    asan|asan-mpi)
          opts=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-O1 -g" "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g"
                -DMCIO_ENABLE_SANITIZERS=ON)
          [ "$variant" = asan-mpi ] && opts+=(-DMCIO_ENABLE_UNIT_TESTS=OFF) ;;
    fuzz) opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
                -DMCIO_ENABLE_FUZZING=ON -DMCIO_ENABLE_TESTS=OFF) ;;
  esac
  cmake -S "$root" -B "$dir" -G Ninja "${mpi_cmake[@]}" "${opts[@]}" >/dev/null
fi
# Quiet when it builds; ninja prints compiler errors on stdout, so show them when it fails.
target=()
[ "$variant" = fuzz ] && target=(fuzz)
if ! log=$(ninja -C "$dir" "${target[@]}" 2>&1); then
  printf '%s\n' "$log" >&2
  echo "scripts/build.sh: the $mpi_name${variant:+ $variant} build failed (above)" >&2
  exit 1
fi
echo "$dir"
