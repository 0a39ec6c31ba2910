#!/usr/bin/env bash
# The demo: mcio against the MPI library's own collective I/O (Open MPI's OMPIO and its ROMIO),
# 8 ranks, on the IOR, coll_perf and HACC-IO (array of structures) patterns, every byte verified.
# Installs what is missing, builds incrementally, and ends with the comparison tables; the
# same figures go to out/demo-*.json (machines) and out/demo.png (people).
# Files go to ${MCIO_DEMO_DIR:-/tmp}: under /tmp they live in the page cache, so the figures
# compare the two implementations' own costs more than the disk.
# MCIO_DEMO_MPI: an Open MPI build's name or mpicc for scripts/build.sh (default openmpi, Debian's).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
echo "demo: building mcio with Open MPI" >&2
dir=$("$root/scripts/build.sh" "${MCIO_DEMO_MPI:-openmpi}")
. "$root/scripts/mpi-env.sh"
mpi_launch "$dir"
[ "$MCIO_MPI" = openmpi ] || { echo "demo: MCIO_DEMO_MPI must be an Open MPI (OMPIO and ROMIO)" >&2; exit 2; }
out="$root/out"
mkdir -p "$out"
ranks=${MCIO_DEMO_RANKS:-8}
common=(--pattern ior,coll_perf,hacc-aos --engine all --size "${MCIO_DEMO_SIZE:-16m}" --reps "${MCIO_DEMO_REPS:-5}"
        --hint cb_buffer_size=16777216 --dir "${MCIO_DEMO_DIR:-/tmp}")
romio=$MCIO_MPI_ROMIO_IO
for io in ompio "$romio"; do
  echo "demo: $ranks ranks, Open MPI with native = $io" >&2
  "$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" -n "$ranks" --mca io "$io" "$dir/mcio-bench" "${common[@]}" \
    --json "$out/demo-$io.json" > "$out/demo-$io.txt"
done
/usr/bin/python3 "$root/tools/mcio-plot.py" "$out/demo.png" "$out/demo-ompio.json" \
  "$out/demo-$romio.json" >&2
echo "demo: JSON in $out/demo-ompio.json and $out/demo-$romio.json, figure in $out/demo.png" >&2
echo "demo: w/native and r/native are mcio's bandwidth over native's, w/limit and r/limit each" >&2
echo "demo: engine's fraction of the file system's bound (limit: one pwrite/pread per rank)" >&2
cat "$out/demo-ompio.txt" "$out/demo-$romio.txt"
