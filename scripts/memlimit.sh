#!/usr/bin/env bash
# Run a command inside a fresh memory cgroup of a given size, as a Slurm job step with
# ConstrainRAMSpace would: the cgroup is made inside the cgroup this script already runs in
# (never at the root of the hierarchy), the command and all its children run in it, and it is
# removed afterwards. Reports the peak and whether the kernel's OOM killer struck.
#
# Usage: scripts/memlimit.sh SIZE [--json FILE] -- COMMAND [ARGS...]
#   SIZE     bytes, with an optional k, m or g suffix (powers of 1024)
#   --json   also write the report as JSON to FILE
# Prints one line to stderr:
#   memlimit: limit 512.0 MiB, peak 498.3 MiB (held 431.2 MiB), oom_kill 1, failcnt 2043, exit 137
# where peak is the cgroup's own high-water mark (v1 memory.max_usage_in_bytes, v2
# memory.peak), page cache included, and held the highest usage less the clean page cache
# (what the kernel cannot reclaim, as mcio counts it: src/core/machine/mcio_memory.c), sampled
# every MEMLIMIT_SAMPLE seconds (default 0.01). oom_kill comes from v1 memory.oom_control or
# v2 memory.events; failcnt is v1's count of charges that hit the limit.
# Exit status: the command's; 77 (printed reason) when no memory cgroup can be made here (not
# root, no writable memory controller, cgroup v2 without the memory controller delegated).
# cgroup v1 and v2 (unified) are both handled; which one is used is printed.
set -uo pipefail
. "$(dirname "$0")/memcg-lib.sh"

die_skip() {
  echo "memlimit: SKIP: $*" >&2
  exit 77
}
usage() {
  echo "usage: scripts/memlimit.sh SIZE [--json FILE] -- COMMAND [ARGS...]" >&2
  exit 2
}

[ $# -ge 3 ] || usage
size=$1
shift
json=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --json) json=${2:?--json needs a file}; shift 2 ;;
    *) usage ;;
  esac
done
[ "${1:-}" = "--" ] || usage
shift
[ $# -ge 1 ] || usage

bytes=$(memcg_bytes "$size" 2>/dev/null) ||
  { echo "memlimit: SIZE '$size' is not a byte count (digits, optional k, m, g)" >&2; exit 2; }

[ "$(id -u)" = 0 ] || die_skip "not root: making a memory cgroup needs root"

# The memory controller and this process's cgroup in it: v1 first, then v2.
memcg_self || die_skip "$MEMCG_WHY"
version=$MEMCG_VERSION self=$MEMCG_SELF

cg="$self/mcio-memlimit.$$.$RANDOM"
mkdir "$cg" 2>/dev/null || die_skip "cannot create $cg"
sampler=""
cleanup() {
  [ -n "$sampler" ] && kill "$sampler" 2>/dev/null && wait "$sampler" 2>/dev/null
  # Whatever the command left behind (a rank that outlived mpiexec) leaves with it.
  if [ -f "$cg/cgroup.procs" ]; then
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      [ -s "$cg/cgroup.procs" ] || break
      while read -r pid; do kill -KILL "$pid" 2>/dev/null; done < "$cg/cgroup.procs"
      sleep 0.2
    done
    rmdir "$cg" 2>/dev/null || echo "memlimit: could not remove $cg" >&2
  fi
  rm -f "${held_file:-}"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

memcg_limit "$cg" "$bytes" || die_skip "cannot set the limit of $cg"
if [ "$version" = 1 ]; then
  usage_file=memory.usage_in_bytes inactive=total_inactive_file active=total_active_file
  dirty=total_dirty writeback=total_writeback mapped=total_mapped_file
else
  usage_file=memory.current inactive=inactive_file active=active_file
  dirty=file_dirty writeback=file_writeback mapped=file_mapped
fi

# What the cgroup holds and cannot reclaim, its high-water mark, sampled.
held_file=$(mktemp)
echo 0 > "$held_file"
(
  trap 'echo "$most" > "$held_file"; exit 0' TERM
  most=0
  while :; do
    read -r u < "$cg/$usage_file" || break
    clean=0
    while read -r k v; do
      case "$k" in
        "$inactive"|"$active") clean=$((clean + v)) ;;
        "$dirty"|"$writeback"|"$mapped") clean=$((clean - v)) ;;
      esac
    done < "$cg/memory.stat"
    [ "$clean" -lt 0 ] && clean=0
    h=$((u - clean))
    [ "$h" -gt "$most" ] && most=$h
    sleep "${MEMLIMIT_SAMPLE:-0.01}"
  done
) &
sampler=$!

sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' memlimit "$cg" "$@"
status=$?
kill -TERM "$sampler" 2>/dev/null
wait "$sampler" 2>/dev/null
sampler=""
held=$(cat "$held_file")

if [ "$version" = 1 ]; then
  peak=$(cat "$cg/memory.max_usage_in_bytes")
  failcnt=$(cat "$cg/memory.failcnt")
  oom=$(awk '$1 == "oom_kill" {print $2}' "$cg/memory.oom_control")
else
  peak=$(cat "$cg/memory.peak" 2>/dev/null || echo -1)
  failcnt=$(awk '$1 == "max" {print $2}' "$cg/memory.events")
  oom=$(awk '$1 == "oom_kill" {print $2}' "$cg/memory.events")
fi
oom=${oom:-0}
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
echo "memlimit: cgroup v$version $cg, limit $(mib "$bytes"), peak $(mib "$peak") (held $(mib "$held")), oom_kill $oom, failcnt $failcnt, exit $status" >&2
if [ -n "$json" ]; then
  printf '{"cgroup_version":%d,"limit_bytes":%d,"peak_bytes":%d,"held_peak_bytes":%d,"oom_kill":%d,"failcnt":%d,"exit":%d}\n' \
    "$version" "$bytes" "$peak" "$held" "$oom" "$failcnt" "$status" > "$json"
fi
exit "$status"
