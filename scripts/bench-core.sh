#!/usr/bin/env bash
# The core benchmark bar (docs/performance.md): mcio against the MPI library's own collective
# I/O on the ior, coll_perf and hacc-aos patterns at the same collective buffer size (16 MiB):
# Open MPI at 8 ranks with OMPIO and with its ROMIO (romio321 in 4.x), and MPICH at 2 ranks (ROMIO;
# MPICH busy-polls when ranks outnumber cores, so it is timed only where they do not).
# Engines alternate repetition by repetition within each run, so the ratios compare figures
# taken under the same load. Every byte is verified after every write and read.
# Writes out/core-*.json and out/core.png, and prints the tables.
# MCIO_BENCH_REPS (default 11), MCIO_BENCH_DIR (default /tmp: the page cache), MCIO_BENCH_OMPI and
# MCIO_BENCH_MPICH (the MPIs, as scripts/build.sh takes them: default openmpi, mpich).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
. "$root/scripts/mpi-env.sh"
ompi=$("$root/scripts/build.sh" "${MCIO_BENCH_OMPI:-openmpi}")
mpich=$("$root/scripts/build.sh" "${MCIO_BENCH_MPICH:-mpich}")
out="$root/out"
mkdir -p "$out"
reps=${MCIO_BENCH_REPS:-11}
common=(--pattern ior,coll_perf,hacc-aos --engine all --reps "$reps" --hint cb_buffer_size=16777216
        --dir "${MCIO_BENCH_DIR:-/tmp}")
mpi_launch "$ompi"
romio=$MCIO_MPI_ROMIO_IO
for io in ompio "$romio"; do
  echo "bench-core: Open MPI, 8 ranks, native = $io" >&2
  "$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" -n 8 --mca io "$io" "$ompi/mcio-bench" "${common[@]}" --size 16m \
    --json "$out/core-ompi-$io.json" > "$out/core-ompi-$io.txt"
done
echo "bench-core: MPICH, 2 ranks, native = romio" >&2
mpi_launch "$mpich"
"$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" -n 2 "$mpich/mcio-bench" "${common[@]}" --size 64m --json "$out/core-mpich.json" \
  > "$out/core-mpich.txt"
/usr/bin/python3 "$root/tools/mcio-plot.py" "$out/core.png" "$out/core-ompi-ompio.json" \
  "$out/core-ompi-$romio.json" "$out/core-mpich.json" >&2
cat "$out/core-ompi-ompio.txt" "$out/core-ompi-$romio.txt" "$out/core-mpich.txt"
