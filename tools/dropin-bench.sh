#!/usr/bin/env bash
# Benchmark of the drop-in layer (docs/performance.md, "Drop-in layer"); not a test.
#   1. mcio-bench --engine native under LD_PRELOAD (MPI_File_write_all/read_all with file views,
#      served by the layer) against --engine mcio (mcio's API) and plain --engine native;
#   2. the HDF5 program tests/pmpi/h5_io.c (collective H5Dwrite of a contiguous and a chunked
#      dataset) natively and under the layer.
# Runs alternate, ROUNDS times each; prints every run's figures, then medians.
# Usage: tools/dropin-bench.sh [build dir (build/openmpi)] [ranks (8)] [rounds (3)]
set -euo pipefail
b=${1:-build/openmpi} np=${2:-8} rounds=${3:-3}
. "$(dirname "$0")/../scripts/mpi-env.sh"
mpi_launch "$b"
mpiexec=("$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" -n "$np")
lib=$(realpath "$b/src/pmpi/libmcio_preload.so")
out=$(mktemp -d /tmp/dropin-bench.XXXXXX)
args=(--pattern ior,coll_perf,hacc-aos --size 4m --reps 5)
for r in $(seq "$rounds"); do
  "${mpiexec[@]}" env LD_PRELOAD="$lib" "$b/mcio-bench" "${args[@]}" --engine native | grep -E '^(ior|coll_perf|hacc-aos) ' | sed 's/ native / layer  /' >> "$out/bench"
  "${mpiexec[@]}" "$b/mcio-bench" "${args[@]}" --engine mcio | grep -E '^(ior|coll_perf|hacc-aos) ' >> "$out/bench"
  "${mpiexec[@]}" "$b/mcio-bench" "${args[@]}" --engine native | grep -E '^(ior|coll_perf|hacc-aos) ' >> "$out/bench"
  for mode in native layer; do
    pre=(); [ "$mode" = layer ] && pre=(LD_PRELOAD="$lib")
    "${mpiexec[@]}" env H5_IO_ROWS=1750 "${pre[@]}" "$b/tests/pmpi/pmpi_h5_io" "$out/f.h5" "$out/d" "$out/c" |
      awk -v m="$mode" '/write/ {print m, $2, $7}' >> "$out/h5"
  done
done
echo "# every run (pattern engine ranks bytes write read ...)"; cat "$out/bench"
echo "# medians: pattern engine write_MiB/s read_MiB/s"
awk '{k=$1" "$2; w[k]=w[k]" "$6; r[k]=r[k]" "$7} END {for (k in w) print k, w[k], "|", r[k]}' "$out/bench" |
  while read -r p e rest; do
    wl=${rest%%|*}; rl=${rest#*|}
    med() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
    echo "$p $e $(echo "$wl" | med) $(echo "$rl" | med)"
  done | sort
echo "# HDF5 every run: mode dataset seconds"; cat "$out/h5"
echo "# HDF5 medians: mode dataset seconds"
for m in native layer; do for d in contiguous chunked; do
  echo "$m $d $(awk -v m=$m -v d=$d '$1==m && $2==d {print $3}' "$out/h5" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')"
done; done
rm -rf "$out"
