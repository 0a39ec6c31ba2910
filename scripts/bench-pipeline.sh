#!/usr/bin/env bash
# Pipelined aggregation (issue 4), measured: collective writes and reads of mcio-bench through
# classic rounds (depth 1) and through the pipeline (depth 2, 4), interleaved rep by rep so that
# every ratio compares runs made at the same time. Every byte is verified by mcio-bench.
# Prints, per configuration, the median over the reps of the slowest rank's time per call
# (MCIO_STATS t_total), its ratio to the depth-1 run with the same sub-buffer (same rounds,
# half or a quarter of the memory) and to the depth-1 run with the same collective buffer,
# and the median I/O, exchange, wait and overlap times.
#
# With the slow backend and no BYTE_S given, the delay is calibrated per operation, as the
# issue's bar asks ("the slow backend tuned so that file access takes about as long as the
# exchange"): CAL_REPS depth-1 runs without delay measure, per operation, the aggregator's
# exchange (t_total - t_io) and file access (t_io); the delay per byte then adds the difference,
# and each operation is measured with its own delay (writes and reads in separate runs, so each
# run's other operation is ignored). When the file access is already the longer phase no delay
# is added, and the header says so.
#
# Usage: scripts/bench-pipeline.sh [openmpi|mpich]   settings from the environment:
#   RANKS (2) SIZE per rank (32m) SUB sub-buffer (4m) REPS (21) PATTERN (ior)
#   BACKEND (slow) CALL_S (0) BYTE_S (calibrated) CAL_REPS (9) TRANSPORT (p2p) DEPTHS ("2 4")
#   DIR (/tmp) CB_NODES (1) TRANSFER (ior transfer size, 2k)
#   DIRECT (0; 1: hints direct_write and direct_read, O_DIRECT file access for posix and slow)
#   HINTS (more hints, "key=value key=value", e.g. "mcio_io_thread=always")
# Two ranks by default: one aggregator and one sender, a core each on a 2-core machine. With
# more ranks than cores the aggregator's I/O thread competes with ranks for a processor, and
# what is measured is the scheduler rather than the overlap.
set -euo pipefail
mpi=${1:-openmpi}
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$root/scripts/build.sh" "$mpi")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
RANKS=${RANKS:-2} SIZE=${SIZE:-32m} SUB=${SUB:-4m} REPS=${REPS:-21} PATTERN=${PATTERN:-ior}
BACKEND=${BACKEND:-slow} CALL_S=${CALL_S:-0} BYTE_S=${BYTE_S:-} CAL_REPS=${CAL_REPS:-9}
TRANSPORT=${TRANSPORT:-p2p} DEPTHS=${DEPTHS:-2 4} DIR=${DIR:-/tmp} CB_NODES=${CB_NODES:-1}
TRANSFER=${TRANSFER:-2k} DIRECT=${DIRECT:-0}
direct=false
[ "$DIRECT" = 1 ] && direct=true
extra=()
for h in ${HINTS:-}; do extra+=(--hint "$h"); done
. "$root/scripts/mpi-env.sh"
mpi_launch "$dir"
launch=("$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" -n "$RANKS")
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

run() { # stats-file depth cb_buffer_size transport byte_seconds
  MCIO_STATS="$1" "${launch[@]}" "$dir/mcio-bench" --engine mcio --reps 1 \
    --pattern "$PATTERN" --size "$SIZE" --transfer "$TRANSFER" --dir "$DIR" --hint mcio_io_backend="$BACKEND" \
    --hint mcio_slow_call_seconds="$CALL_S" --hint mcio_slow_byte_seconds="$5" \
    --hint cb_nodes="$CB_NODES" --hint cb_buffer_size="$3" --hint mcio_pipeline_depth="$2" \
    --hint mcio_subbuffer_size="$sub" --hint mcio_transport="$4" --hint direct_write=$direct \
    --hint direct_read=$direct ${extra[@]+"${extra[@]}"} >/dev/null
}

# Median of field f over the calls of operation op in a stats file.
median() { # file op field
  grep "\"op\":\"$2\"" "$1" | sed -n "s/.*\"$3\":\([0-9.e+-]*\).*/\1/p" | sort -g |
    awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}

# The delay per byte for operation op: given, or calibrated (see the top of this file).
declare -A delay note
for op in write read; do
  delay[$op]=${BYTE_S:-0}
  note[$op]="given"
done
if [ "$BACKEND" = slow ] && [ -z "$BYTE_S" ]; then
  for rep in $(seq "$CAL_REPS"); do
    run "$work/cal.json" 1 "$sub" p2p 0
  done
  for op in write read; do
    io=$(median "$work/cal.json" "$op" t_io)
    exch=$(awk -v t="$(median "$work/cal.json" "$op" t_total)" -v io="$io" 'BEGIN {print t - io}')
    per_agg=$(grep -m1 "\"op\":\"$op\"" "$work/cal.json" |
      sed -n 's/.*"bytes":\([0-9]*\).*"aggregators":\([0-9]*\).*/\1 \2/p' | awk '{print $1 / $2}')
    delay[$op]=$(awk -v e="$exch" -v i="$io" -v b="$per_agg" 'BEGIN {d = (e - i) / b; printf "%.3g", (d > 0 ? d : 0)}')
    note[$op]=$(awk -v e="$exch" -v i="$io" 'BEGIN {printf "calibrated: exchange %.4f s, file access %.4f s without delay%s", e, i, (i >= e ? " (already the longer phase)" : "")}')
  done
  echo "bench-pipeline: delay per byte: write ${delay[write]} s, read ${delay[read]} s" >&2
fi

for op in write read; do
  for rep in $(seq "$REPS"); do
    for c in "${configs[@]}"; do
      set -- $c
      run "$work/$1.$op.json" "$2" "$3" "$4" "${delay[$op]}"
    done
    echo "bench-pipeline: $op rep $rep/$REPS done" >&2
  done
done

echo "# $mpi, $RANKS ranks, $PATTERN $SIZE per rank (transfer $TRANSFER), cb_nodes $CB_NODES, backend $BACKEND" \
     "(call ${CALL_S} s, direct I/O $direct), sub-buffer $SUB, $REPS reps, files in $DIR${HINTS:+, hints $HINTS}"
for op in write read; do
  echo "# $op: byte ${delay[$op]} s (${note[$op]})"
done
printf '%-10s %-5s %9s %9s %9s %9s %9s %9s %9s\n' config op t_total vs_sub vs_cb t_io \
       t_exch t_wait t_overlap
for c in "${configs[@]}"; do
  set -- $c
  d=$2
  for op in write read; do
    f="$work/$1.$op.json"
    t=$(median "$f" "$op" t_total)
    base=$(median "$work/d1-sub.$op.json" "$op" t_total)
    cb=$base
    [ "$d" -gt 1 ] && cb=$(median "$work/d1-cb$d.$op.json" "$op" t_total)
    printf '%-10s %-5s %9.4f %9.3f %9.3f %9.4f %9.4f %9.4f %9.4f\n' "$1" "$op" "$t" \
      "$(awk -v a="$t" -v b="$base" 'BEGIN {print a / b}')" \
      "$(awk -v a="$t" -v b="$cb" 'BEGIN {print a / b}')" \
      "$(median "$f" "$op" t_io)" "$(median "$f" "$op" t_exchange)" \
      "$(median "$f" "$op" t_wait)" "$(median "$f" "$op" t_overlap)"
  done
done
