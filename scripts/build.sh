#!/usr/bin/env bash
# Configures (once) and builds mcio against one MPI, incrementally.
# Usage: scripts/build.sh mpich|openmpi|smpi   -> build/<mpi>   (smpi: the simulation build, docs/simulation.md)
set -euo pipefail
mpi=${1:?usage: scripts/build.sh mpich|openmpi|smpi}
case "$mpi" in mpich|openmpi|smpi) ;; *) echo "scripts/build.sh: MPI must be mpich, openmpi or smpi, not '$mpi'" >&2; exit 2;; esac
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/build/$mpi"
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S "$root" -B "$dir" -G Ninja -DMCIO_MPI="$mpi" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
# Quiet when it builds; ninja prints compiler errors on stdout, so show them when it fails.
if ! log=$(ninja -C "$dir" 2>&1); then
  printf '%s\n' "$log" >&2
  echo "scripts/build.sh: the $mpi build failed (above)" >&2
  exit 1
fi
echo "$dir"
