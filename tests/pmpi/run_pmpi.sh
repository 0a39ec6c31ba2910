#!/usr/bin/env bash
# Runs one unmodified MPI program natively, under the drop-in layer (LD_PRELOAD), linked with
# --wrap (when a wrapped build is given) and under the layer with MCIO_DISABLE=1, and checks:
#   - the files are identical (cmp, or the given tool where metadata may legitimately differ),
#   - the read dumps (<dump>.<rank>) are identical,
#   - under the layer, MCIO_STATS has one line per collective call the program made (it writes
#     the count to its calls file; "-": at least one line), and none with MCIO_DISABLE=1.
# Usage: run_pmpi.sh <dir> <libmcio_preload.so> <np> <compare: cmp|h5diff|ncmpidiff>
#                    <native program> <wrapped program or -> -- <mpiexec and its flags...>
# The program is called as: <program> <file> <dump prefix> <calls file>
# NATIVE_READS_BROKEN=1 (Open MPI 4.1's OMPIO, whose collective reads into some non-contiguous
# memory types return wrong data, as the program's own read-back check shows): the native run may
# fail its read checks; its file is still the reference, and the reads are compared between the
# layer's runs, each of which must pass every check of its own.
set -u
dir=$1 preload=$2 np=$3 compare=$4 prog=$5 wrapped=$6
shift 6
[ "$1" = "--" ] && shift
mpiexec=("$@")
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail=0
run() { # name, env..., program
  local name=$1; shift
  echo "== $name: ${mpiexec[*]} -n $np env $*"
  if ! "${mpiexec[@]}" -n "$np" env MCIO_STATS="$dir/$name.stats" "$@" \
      "$dir/$name.out" "$dir/$name.dump" "$dir/$name.calls"; then
    if [ "$name" = native ] || [ "$name" = disabled ] && [ "${NATIVE_READS_BROKEN:-0}" = 1 ]; then
      echo "note: the MPI library's own run failed its checks (NATIVE_READS_BROKEN)"
    else
      echo "FAIL: $name run failed"; fail=1
    fi
  fi
}
run native PMPI_EXPECT_LAYER=0 "$prog"
run preload PMPI_EXPECT_LAYER=1 LD_PRELOAD="$preload" "$prog"
run disabled PMPI_EXPECT_LAYER=0 MCIO_DISABLE=1 LD_PRELOAD="$preload" "$prog"
runs=(preload disabled)
if [ "$wrapped" != "-" ]; then
  run wrap PMPI_EXPECT_LAYER=1 "$wrapped"
  runs+=(wrap)
fi
same() { # a b
  case "$compare" in
    cmp) cmp "$1" "$2" ;;
    h5diff) cmp -s "$1" "$2" || h5diff "$1" "$2" ;;
    ncmpidiff) cmp -s "$1" "$2" || ncmpidiff "$1" "$2" ;;
  esac
}
reads=native
[ "${NATIVE_READS_BROKEN:-0}" = 1 ] && reads=preload
for r in "${runs[@]}"; do
  same "$dir/native.out" "$dir/$r.out" || { echo "FAIL: $r file differs from native"; fail=1; }
  [ "$r" = "$reads" ] && continue
  [ "$r" = disabled ] && [ "$reads" != native ] && continue
  for d in "$dir"/$reads.dump.*; do
    [ -e "$d" ] || continue
    cmp "$d" "$dir/$r.dump.${d##*.}" || { echo "FAIL: $r read dump of rank ${d##*.} differs from $reads"; fail=1; }
  done
done
lines() { [ -f "$1" ] && wc -l < "$1" || echo 0; }
for r in preload ${wrapped/#-/}; do
  [ "$r" = "$wrapped" ] && r=wrap
  want=$(cat "$dir/$r.calls" 2>/dev/null || echo "?")
  got=$(lines "$dir/$r.stats")
  if [ "$want" = "-" ]; then
    [ "$got" -gt 0 ] || { echo "FAIL: $r: no MCIO_STATS lines: the engine served nothing"; fail=1; }
  elif [ "$got" != "$want" ]; then
    echo "FAIL: $r: $got MCIO_STATS lines, expected $want (one per collective call)"; fail=1
  fi
  echo "$r: the engine served $got collective calls"
done
[ "$(lines "$dir/disabled.stats")" = 0 ] || { echo "FAIL: MCIO_DISABLE=1 still used the engine"; fail=1; }
[ $fail = 0 ] && echo "PASS: files and reads identical in native, ${runs[*]}"
exit $fail
