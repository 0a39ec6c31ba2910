#!/usr/bin/env bash
# Random layouts against native MPI-IO (tools/mcio-layouts.c): for each rank count, N layouts
# written natively and through mcio (the drop-in layer, LD_PRELOAD), files compared byte for
# byte, then read back both ways; batches of layouts per mpiexec launch.
# Usage: tools/random-layouts.sh <MPI> <layouts per rank count> <ranks...>
#   MPI: a build directory, or an MPI named as scripts/build.sh takes it (built if needed);
#   the build's launcher and its flags are what CMake found (<build>/mcio-mpi.sh)
#   SEED=<first seed> (default 1; rank count r uses seeds SEED + r * 1000000 onwards)
#   BATCH=<layouts per launch> (default 250)
#   OMPI_IO=<component> Open MPI's io component for both sides (default: Open MPI's default, OMPIO;
#           romio: its ROMIO component, whatever this Open MPI names it)
# Prints a line per batch, every differing layout (with the seed that reproduces it) and a total;
# exits non-zero when any layout differed or a launch failed.
set -uo pipefail
per=${2:?usage: random-layouts.sh <MPI or build dir> <layouts> <ranks...>}
[ $# -gt 2 ] || { echo "random-layouts.sh: no rank counts" >&2; exit 2; }
. "$(dirname "$0")/../scripts/mpi-env.sh"
build=$(mpi_build "$1") || exit 2
shift 2
prog="$build/mcio-layouts" preload="$build/src/pmpi/libmcio_preload.so"
[ -x "$prog" ] && [ -f "$preload" ] || { echo "random-layouts.sh: $prog or $preload missing (build first)" >&2; exit 2; }
mpi_launch "$build" || exit 2
mpi=$MCIO_MPI_IMPL
launch=("$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}")
[ "${OMPI_IO:-}" = romio ] && OMPI_IO=$MCIO_MPI_ROMIO_IO
[ -n "${OMPI_IO:-}" ] && launch+=(--mca io "$OMPI_IO")
seed0=${SEED:-1} batch=${BATCH:-250}
dir=$(mktemp -d)
stats="$dir/stats"
total=0 diffs=0 calls=0 failed=0 wrong=0 start=$(date +%s)
for np in "$@"; do
  done_=0
  while [ "$done_" -lt "$per" ]; do
    n=$(( per - done_ < batch ? per - done_ : batch ))
    seed=$(( seed0 + np * 1000000 + done_ ))
    : > "$stats"
    out=$("${launch[@]}" -n "$np" env LD_PRELOAD="$preload" MCIO_STATS="$stats" \
          "$prog" --seed "$seed" --count "$n" --dir "$dir" --quiet 2>&1)
    rc=$?
    line=$(printf '%s\n' "$out" | grep '^mcio-layouts: [0-9]* ranks' | tail -1)
    printf '%s\n' "$out" | grep 'DIFFERS' | sort -u
    if [ -z "$line" ]; then
      echo "== $np ranks, seeds $seed..$((seed + n - 1)): the launch failed (exit $rc):"
      printf '%s\n' "$out" | tail -15
      failed=$((failed + 1))
    else
      d=$(sed -n 's/.* layouts, \([0-9]*\) differences.*/\1/p' <<<"$line")
      served=$(wc -l < "$stats")
      issued=$(sed -n 's/.* differences, \([0-9]*\) mcio calls.*/\1/p' <<<"$line")
      w=$(sed -n "s/.* calls, \([0-9]*\) where the MPI library's.*/\1/p" <<<"$line")
      diffs=$((diffs + d)); total=$((total + n)); calls=$((calls + served)); wrong=$((wrong + ${w:-0}))
      echo "== $np ranks, seeds $seed..$((seed + n - 1)): $n layouts, $d differences; mcio served $served of $issued collective calls; the MPI library's own I/O wrong in ${w:-?} ($(( $(date +%s) - start )) s)"
    fi
    done_=$((done_ + n))
  done
done
rm -rf "$dir"
echo "== random layouts ($mpi${OMPI_IO:+, io $OMPI_IO}): $total layouts, $diffs differences, $failed failed launches, $calls calls served by mcio, $wrong where the MPI library's own I/O was wrong ($(( $(date +%s) - start )) s)"
[ "$diffs" -eq 0 ] && [ "$failed" -eq 0 ]
