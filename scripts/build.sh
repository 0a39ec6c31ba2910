#!/usr/bin/env bash
# Configures (once) and builds mcio against one MPI, incrementally.
# Usage: scripts/build.sh mpich|openmpi|smpi [asan|asan-mpi|fuzz]
#   -> build/<mpi>   (smpi: the simulation build, docs/simulation.md)
#   asan: build/<mpi>-asan, with AddressSanitizer and UBSan (MCIO_ENABLE_SANITIZERS), at -O1
#         (ASan's advice, and the C++ tests compile several times faster than at -O2)
#   asan-mpi: build/<mpi>-asan-mpi, the same without the unit tests (MCIO_ENABLE_UNIT_TESTS=OFF):
#         the multi-rank tests of a second MPI (scripts/sanitize.sh); the unit tests are MPI-free
#         and their compilation is most of an asan build's time
#   fuzz: build/<mpi>-fuzz, with Debian's clang and libFuzzer: the fuzz_* targets only
#         (MCIO_ENABLE_FUZZING; scripts/fuzz.sh runs them)
set -euo pipefail
mpi=${1:?usage: scripts/build.sh mpich|openmpi|smpi [asan|fuzz]}
variant=${2:-}
case "$mpi" in mpich|openmpi|smpi) ;; *) echo "scripts/build.sh: MPI must be mpich, openmpi or smpi, not '$mpi'" >&2; exit 2;; esac
case "$variant" in ''|asan|asan-mpi|fuzz) ;; *) echo "scripts/build.sh: variant must be asan, asan-mpi or fuzz, not '$variant'" >&2; exit 2;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/build/$mpi${variant:+-$variant}"
if [ ! -f "$dir/build.ninja" ]; then
  opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  case "$variant" in
    asan|asan-mpi)
          opts=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-O1 -g" "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g"
                -DMCIO_ENABLE_SANITIZERS=ON)
          [ "$variant" = asan-mpi ] && opts+=(-DMCIO_ENABLE_UNIT_TESTS=OFF) ;;
    fuzz) opts=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
                -DMCIO_ENABLE_FUZZING=ON -DMCIO_ENABLE_TESTS=OFF) ;;
  esac
  cmake -S "$root" -B "$dir" -G Ninja -DMCIO_MPI="$mpi" "${opts[@]}" >/dev/null
fi
# Quiet when it builds; ninja prints compiler errors on stdout, so show them when it fails.
target=()
[ "$variant" = fuzz ] && target=(fuzz)
if ! log=$(ninja -C "$dir" "${target[@]}" 2>&1); then
  printf '%s\n' "$log" >&2
  echo "scripts/build.sh: the $mpi${variant:+ $variant} build failed (above)" >&2
  exit 1
fi
echo "$dir"
