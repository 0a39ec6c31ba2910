#!/usr/bin/env bash
# Pipelined aggregation (issue 4), measured: collective writes and reads of mcio-bench through
# classic rounds (depth 1) and through the pipeline (depth 2, 4), interleaved rep by rep so that
# every ratio compares runs made at the same time. Every byte is verified by mcio-bench.
# Prints, per configuration, the median over the reps of the slowest rank's time per call
# (MCIO_STATS t_total), its ratio to the depth-1 run with the same sub-buffer (same rounds,
# half or a quarter of the memory) and to the depth-1 run with the same collective buffer,
# and the median I/O, exchange, wait and overlap times.
#
# Usage: scripts/bench-pipeline.sh [openmpi|mpich]   settings from the environment:
#   RANKS (4) SIZE per rank (16m) SUB sub-buffer (4m) REPS (21) PATTERN (ior)
#   BACKEND (slow) CALL_S (0) BYTE_S (1e-10) TRANSPORT (p2p) DEPTHS ("2 4") DIR (/tmp)
#   CB_NODES (1) TRANSFER (ior transfer size, 2k)
set -euo pipefail
mpi=${1:-openmpi}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$root/scripts/build.sh" "$mpi")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RANKS=${RANKS:-4} SIZE=${SIZE:-16m} SUB=${SUB:-4m} REPS=${REPS:-21} PATTERN=${PATTERN:-ior}
BACKEND=${BACKEND:-slow} CALL_S=${CALL_S:-0} BYTE_S=${BYTE_S:-1e-10} TRANSPORT=${TRANSPORT:-p2p}
DEPTHS=${DEPTHS:-2 4} DIR=${DIR:-/tmp} CB_NODES=${CB_NODES:-1} TRANSFER=${TRANSFER:-2k}
launch=(mpiexec.$mpi -n "$RANKS")
[ "$mpi" = openmpi ] && launch+=(--oversubscribe)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bytes() { # 4m -> 4194304
  local v=$1 n=${1%[kKmMgG]}
  case "$v" in *[kK]) echo $((n << 10));; *[mM]) echo $((n << 20));; *[gG]) echo $((n << 30));; *) echo "$v";; esac
}
sub=$(bytes "$SUB")

# name depth cb_buffer_size transport
configs=("d1-sub 1 $sub p2p")
for d in $DEPTHS; do
  configs+=("d1-cb$d 1 $((d * sub)) p2p" "d$d-$TRANSPORT $d $((d * sub)) $TRANSPORT")
done

for rep in $(seq "$REPS"); do
  for c in "${configs[@]}"; do
    set -- $c
    MCIO_STATS="$work/$1.json" "${launch[@]}" "$dir/mcio-bench" --engine mcio --reps 1 \
      --pattern "$PATTERN" --size "$SIZE" --transfer "$TRANSFER" --dir "$DIR" --hint mcio_io_backend="$BACKEND" \
      --hint mcio_slow_call_seconds="$CALL_S" --hint mcio_slow_byte_seconds="$BYTE_S" \
      --hint cb_nodes="$CB_NODES" --hint cb_buffer_size="$3" --hint mcio_pipeline_depth="$2" \
      --hint mcio_subbuffer_size="$sub" --hint mcio_transport="$4" >/dev/null
  done
  echo "bench-pipeline: rep $rep/$REPS done" >&2
done

# Median of field f over the calls of operation op in a stats file.
median() { # file op field
  grep "\"op\":\"$2\"" "$1" | sed -n "s/.*\"$3\":\([0-9.e+-]*\).*/\1/p" | sort -g |
    awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

echo "# $mpi, $RANKS ranks, $PATTERN $SIZE per rank (transfer $TRANSFER), cb_nodes $CB_NODES, backend $BACKEND" \
     "(call ${CALL_S} s, byte ${BYTE_S} s), sub-buffer $SUB, $REPS reps, files in $DIR"
printf '%-10s %-5s %9s %9s %9s %9s %9s %9s %9s\n' config op t_total vs_sub vs_cb t_io \
       t_exch t_wait t_overlap
for c in "${configs[@]}"; do
  set -- $c
  d=$2
  for op in write read; do
    t=$(median "$work/$1.json" "$op" t_total)
    base=$(median "$work/d1-sub.json" "$op" t_total)
    cb=$base
    [ "$d" -gt 1 ] && cb=$(median "$work/d1-cb$d.json" "$op" t_total)
    printf '%-10s %-5s %9.4f %9.3f %9.3f %9.4f %9.4f %9.4f %9.4f\n' "$1" "$op" "$t" \
      "$(awk -v a="$t" -v b="$base" 'BEGIN {print a / b}')" \
      "$(awk -v a="$t" -v b="$cb" 'BEGIN {print a / b}')" \
      "$(median "$work/$1.json" "$op" t_io)" "$(median "$work/$1.json" "$op" t_exchange)" \
      "$(median "$work/$1.json" "$op" t_wait)" "$(median "$work/$1.json" "$op" t_overlap)"
  done
done
