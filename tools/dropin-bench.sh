#!/usr/bin/env bash
# Benchmark of the drop-in layer (docs/performance.md, "Drop-in layer"); not a test.
#   1. mcio-bench --engine native under LD_PRELOAD (MPI_File_write_all/read_all with file views,
#      served by the layer) against --engine mcio (mcio's API) and plain --engine native;
#   2. the HDF5 program tests/pmpi/h5_io.c (collective H5Dwrite of a contiguous and a chunked
#      dataset) natively and under the layer.
# Runs alternate, ROUNDS times each; prints every run's figures, then medians.
# Usage: tools/dropin-bench.sh [MPI (openmpi)] [ranks (8)] [rounds (3)]
#   MPI: a build directory, or an MPI named as scripts/build.sh takes it (built if needed)
#
# --calls: an unmodified MPI-IO program's calls, timed (tools/dropin-calls.c: IOR's pattern and
# MPIIO backend, per rank open, one collective call per transfer, close, then reads of the next
# rank's data), in four shapes per rank: one 16 MiB block in 1 MiB calls; 4 segments of 4 MiB
# in 256 KiB calls; 256 strided blocks of 64 KiB, one call each; 168 segments of 100,000 bytes
# in 20,000-byte calls. Run natively (Open MPI's ROMIO and OMPIO) and under the
# drop-in layer (over OMPIO, the default, and over ROMIO), the configurations in a new
# order each round; prints every run, then per shape, phase and configuration the medians of
# the phase (open + calls + close, as IOR counts it), the open, the close and the calls, and
# the layer's bandwidth over the better native's.
# Usage: tools/dropin-bench.sh --calls [MPI (openmpi)] [ranks (8)] [rounds (7)]
# MCIO_BASE_PRELOAD=<an earlier build's libmcio_preload.so>: that layer too, as base and
# base-romio, in the same interleaved rounds (before and after in one run).
set -euo pipefail
calls=0
[ "${1:-}" = --calls ] && calls=1 && shift
np=${2:-8} rounds=${3:-$((calls ? 7 : 3))}
. "$(dirname "$0")/../scripts/mpi-env.sh"
b=$(mpi_build "${1:-openmpi}")
mpi_launch "$b"
mpiexec=("$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" -n "$np")
lib=$(realpath "$b/src/pmpi/libmcio_preload.so")
out=$(mktemp -d /tmp/dropin-bench.XXXXXX)
if [ $calls = 1 ] && [ "$MCIO_MPI" != openmpi ]; then
  echo "tools/dropin-bench.sh --calls compares Open MPI's two engines: give an Open MPI build, not $b" >&2
  exit 2
fi
if [ $calls = 1 ]; then
  shapes=("16m-1m 16777216 1048576 1" "4x4m-256k 4194304 262144 4" "256x64k 65536 65536 256"
          "168x100000-20000 100000 20000 168")
  configs=(romio ompio mcio mcio-romio)
  base=${MCIO_BASE_PRELOAD:-}
  [ -n "$base" ] && base=$(realpath "$base") && configs+=(base base-romio)
  for r in $(seq "$rounds"); do
    for sh in "${shapes[@]}"; do
      read -r name block xfer segs <<< "$sh"
      # A new order each round: the configurations rotate.
      for i in $(seq 0 $((${#configs[@]} - 1))); do
        c=${configs[$(((i + r) % ${#configs[@]}))]}
        case $c in
          romio) pre=(--mca io "$MCIO_MPI_ROMIO_IO") ;;
          ompio) pre=(--mca io ompio) ;;
          mcio) pre=(-x LD_PRELOAD="$lib") ;;
          mcio-romio) pre=(--mca io "$MCIO_MPI_ROMIO_IO" -x LD_PRELOAD="$lib") ;;
          base) pre=(-x LD_PRELOAD="$base") ;;
          base-romio) pre=(--mca io "$MCIO_MPI_ROMIO_IO" -x LD_PRELOAD="$base") ;;
        esac
        "${mpiexec[@]}" "${pre[@]}" "$b/dropin-calls" "$out/f" "$block" "$xfer" "$segs" |
          sed "s/^/$name $c /" >> "$out/calls"
        rm -f "$out/f"
      done
    done
  done
  echo "# every run: shape config phase phase_s S open_ms MS close_ms MS call_us_median US MiB/s BW"
  cat "$out/calls"
  echo "# medians over $rounds rounds (min-max of the phase): shape phase config phase_s open_ms close_ms call_us MiB/s [layer/best native]"
  python3 - "$out/calls" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    runs[(f[0], f[2], f[1])].append([float(f[i]) for i in (4, 6, 8, 10, 12)])
for shape in dict.fromkeys(k[0] for k in runs):
    for phase in ("write", "read"):
        med = {c: [statistics.median(v[i] for v in runs[(shape, phase, c)]) for i in range(5)]
               for (s, p, c) in runs if s == shape and p == phase}
        best = max(med[c][4] for c in ("romio", "ompio") if c in med)
        for c, m in med.items():
            span = [v[0] for v in runs[(shape, phase, c)]]
            ratio = f" {m[4] / best:.2f}x" if c.startswith(("mcio", "base")) else ""
            print(f"{shape} {phase} {c} {m[0]:.4f} ({min(span):.4f}-{max(span):.4f}) "
                  f"{m[1]:.2f} {m[2]:.2f} {m[3]:.1f} {m[4]:.1f}{ratio}")
PY
  rm -rf "$out"
  exit 0
fi
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
