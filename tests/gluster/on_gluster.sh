#!/usr/bin/env bash
# Runs commands on the GlusterFS volume of scripts/gluster.sh, in a fresh directory on its mount,
# under a deadline; skips (exit 77, one line) where the volume is not there.
# Usage: on_gluster.sh [--small] [--heal] [--deadline SECONDS] -- command... [@@ command...]
#   The commands run in order and must all succeed. In their arguments @DIR@ is the fresh
#   directory (also MCIO_TEST_DIR), @GLUSTER@ is scripts/gluster.sh. --small: the small volume
#   (the one that fills) instead of the 4-brick one. --heal: at the end, whatever happened,
#   restart any brick a fault test left dead, so that the next test finds a healthy volume.
# A command still running at the deadline (default 240 s) is killed: the test fails as a hang,
# before ctest's own timeout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
gluster_sh=$(cd "$here/../.." && pwd)/scripts/gluster.sh
mnt=${MCIO_GLUSTER_MOUNT:-/mnt/mcio-gluster}
deadline=240
heal=0
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    --small) mnt=${MCIO_GLUSTER_SMALL_MOUNT:-/mnt/mcio-gluster-small}; shift ;;
    --deadline) deadline=$2; shift 2 ;;
    --heal) heal=1; shift ;;
    *) echo "on_gluster.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
shift

skip() { echo "SKIP: $*"; exit 77; }
[ -e /dev/fuse ] || skip "no /dev/fuse: FUSE is not available on this machine"
command -v mount.glusterfs >/dev/null 2>&1 || skip "GlusterFS is not installed (scripts/gluster.sh up installs and starts it)"
awk -v m="$mnt" '$5 == m { for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "fuse.glusterfs") f = 1; break } }
                 END { exit !f }' /proc/self/mountinfo ||
  skip "no GlusterFS volume mounted at $mnt (run scripts/gluster.sh up)"

dir=$(mktemp -d "$mnt/test.XXXXXX") || { echo "FAIL: cannot create a directory on $mnt"; exit 1; }
cleanup() {
  [ $heal -eq 1 ] && "$gluster_sh" restart-bricks mcio >/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
export MCIO_TEST_DIR=$dir
end=$(( $(date +%s) + deadline ))
rc=0
while [ $# -gt 0 ]; do
  cmd=()
  while [ $# -gt 0 ] && [ "$1" != "@@" ]; do
    a=${1//@DIR@/$dir}
    cmd+=("${a//@GLUSTER@/$gluster_sh}")
    shift
  done
  [ $# -gt 0 ] && shift
  left=$(( end - $(date +%s) ))
  [ "$left" -gt 0 ] || { echo "FAIL: deadline of $deadline s passed before: ${cmd[*]}"; exit 1; }
  echo "== ${cmd[*]}"
  timeout -k 10 "$left" "${cmd[@]}"
  rc=$?
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "FAIL: deadline of $deadline s passed: a hang (killed)"
    exit 1
  fi
  [ $rc -eq 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
done
exit 0
