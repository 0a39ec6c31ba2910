#!/usr/bin/env bash
# A real distributed file system on this host: GlusterFS, started without systemd.
#
#   scripts/gluster.sh up [--shard SIZE]   install what is missing (Debian packages), start glusterd,
#                                          create and start the volumes, FUSE-mount them; prints
#                                          the mount points. Idempotent.
#   scripts/gluster.sh down                unmount, stop and delete the volumes, stop the processes
#                                          that `up` started (by the pids it recorded), remove the
#                                          bricks and the loop device. Only what `up` made.
#   scripts/gluster.sh status              what is up (exit 0 when the volumes are mounted)
#   scripts/gluster.sh install             install what is missing, start nothing
#                                          (scripts/hosts-gluster.sh: servers on hosts of their own)
#   scripts/gluster.sh brick-pid VOL N     the pid of brick N (1-based) of volume VOL (fault tests)
#   scripts/gluster.sh brick-pid-of FILE [OFFSET]  the pid of the brick that holds the shard of
#                                          FILE at OFFSET (default 0: the first shard, which every
#                                          write of FILE updates: the shard translator keeps the
#                                          file's size there)
#   scripts/gluster.sh restart-bricks VOL  restart the dead bricks of VOL and wait until the mount's
#                                          client is connected to every brick again (fault tests)
#
# The servers live in a network namespace of their own (mcio-gluster), made by `up` and removed by
# `down`: GlusterFS refuses loopback addresses (127.0.0.0/8) for bricks, so its bricks and clients
# talk over a test address (198.51.100.1, RFC 5737) given to the namespace's own loopback device.
# The namespace has no other interface and no route out: no packet of the testbed ever leaves it. glusterd, the bricks and the FUSE clients run in it
# (nsenter --net, which keeps the mount namespace, so the mounts are seen by every process).
# The volumes:
#   mcio        4 bricks, distributed, sharding on (features.shard-block-size SIZE, 4MB default;
#               GlusterFS sizes are binary: 4MB = 4 MiB), mounted at /mnt/mcio-gluster
#   mcio-small  1 brick on a 64 MiB ext4 loop device, sharding on, mounted at /mnt/mcio-gluster-small:
#               a volume that fills (tests/gluster). Its client's write-behind is off: with it,
#               GlusterFS 10.3 lost 128-384 KiB of acknowledged and synced writes in 7 of 475
#               runs of tools/mcio-fsync-check here (0 of 250 without it), which made the fill
#               test fail for GlusterFS's loss, not mcio's (docs/reliability.md)
# Both are mounted with the FUSE client and direct-io-mode=enable (no kernel page cache).
# Bricks are folders under /var/lib/mcio-gluster (on the root file system, hence `force`); the
# state of `up` (pids, what existed before) is in /run/mcio-gluster.
set -euo pipefail

VOL=mcio
SMALL=mcio-small
MNT=${MCIO_GLUSTER_MOUNT:-/mnt/mcio-gluster}
SMALL_MNT=${MCIO_GLUSTER_SMALL_MOUNT:-/mnt/mcio-gluster-small}
DATA=/var/lib/mcio-gluster
RUN=/run/mcio-gluster
SMALL_MB=64
NS=mcio-gluster
NS_ADDR=198.51.100.1

die() { echo "gluster.sh: $*" >&2; exit 1; }
say() { echo "gluster.sh: $*" >&2; }
in_ns() { nsenter --net="/run/netns/$NS" "$@"; }
g() { in_ns gluster --mode=script "$@"; }
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
# /proc/self/mountinfo: field 5 is the mount point; the type follows the "-" separator.
mounted() {
  awk -v m="$1" '$5 == m { for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "fuse.glusterfs") f = 1; break } }
                 END { exit !f }' /proc/self/mountinfo
}
host_addr() { echo "$NS_ADDR"; }
# Mounted, but its FUSE client is gone (killed with the session or job that started it, while
# the mount stayed): every stat of it fails with ENOTCONN, "Transport endpoint is not connected".
stale() { mounted "$1" && ! stat "$1" >/dev/null 2>&1; }

# The namespace and its address; idempotent. `down` removes it only when `up` made it.
make_netns() {
  if [ ! -e "/run/netns/$NS" ]; then
    ip netns add "$NS" || die "cannot make the network namespace $NS (ip netns add)"
    echo 1 >"$RUN/made-netns"
  fi
  ip -n "$NS" link set lo up
  # `replace` adds the address or leaves it be. (A test of `addr show | grep -q` failed here under
  # pipefail when grep, done at its match, closed the pipe before ip's last line: ip died of
  # SIGPIPE, the address was added twice, "Address already assigned", and CI stopped at 0 s.)
  ip -n "$NS" addr replace "$NS_ADDR/32" dev lo
}
vol_exists() { g volume info "$1" >/dev/null 2>&1; }
# Outputs are read whole, never piped to a reader that stops early (grep -q, head): under pipefail
# the writer's SIGPIPE would fail the test (make_netns).
vol_started() { local info; info=$(g volume info "$1" 2>/dev/null) && grep -q '^Status: Started' <<<"$info"; }
# The pid of the brick at host:path of volume $1, from `volume status` (empty when not running).
brick_status_pid() { g volume status "$1" "$(host_addr):$2" 2>/dev/null | awk '/^Brick/ && !p { print $NF; p = 1 }'; }

install_missing() {
  local need=()
  command -v glusterd >/dev/null 2>&1 || need+=(glusterfs-server)
  command -v mount.glusterfs >/dev/null 2>&1 || need+=(glusterfs-client)
  command -v getfattr >/dev/null 2>&1 || need+=(attr)
  command -v mkfs.ext4 >/dev/null 2>&1 || need+=(e2fsprogs)
  command -v ip >/dev/null 2>&1 || need+=(iproute2)
  command -v nsenter >/dev/null 2>&1 || need+=(util-linux)
  [ ${#need[@]} -eq 0 ] && return 0
  [ "$(id -u)" -eq 0 ] || die "needs root to install ${need[*]} (and to run glusterd and mount)"
  say "installing ${need[*]}"
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
    --no-install-recommends "${need[@]}" >&2
}

start_glusterd() {
  local pid
  pid=$(cat "$RUN/glusterd.pid" 2>/dev/null || true)
  if alive "$pid"; then return 0; fi
  # Only a glusterd that shares this mount namespace (so /var/lib/glusterd and /run) is in the
  # way: those of scripts/hosts.sh's server hosts have their own.
  local p other=""
  for p in $(pgrep -x glusterd || true); do
    [ "$(readlink "/proc/$p/ns/mnt" 2>/dev/null)" = "$(readlink /proc/self/ns/mnt)" ] && other=$p
  done
  if [ -n "$other" ]; then
    die "a glusterd that this script did not start is running (pid $other); stop it first"
  fi
  [ -d /var/lib/glusterd ] || echo 1 >"$RUN/made-glusterd-dir"
  say "starting glusterd"
  in_ns glusterd -p "$RUN/glusterd.pid" --log-file=/var/log/glusterfs/mcio-glusterd.log
  for _ in $(seq 100); do
    g volume list >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "glusterd did not answer within 20 s (see /var/log/glusterfs/mcio-glusterd.log)"
}

make_volume() { # name shard brick...
  local name=$1 shard=$2
  shift 2
  if ! vol_exists "$name"; then
    say "creating volume $name (${#@} bricks, shards of $shard)"
    mkdir -p "$@"
    local bricks=() b
    for b in "$@"; do bricks+=("$(host_addr):$b"); done
    g volume create "$name" transport tcp "${bricks[@]}" force >&2
    g volume set "$name" features.shard on >&2
    g volume set "$name" nfs.disable on >&2 || true
  fi
  # The shard size is a parameter: set it every time (only new files take a new size).
  g volume set "$name" features.shard-block-size "$shard" >&2
  vol_started "$name" || g volume start "$name" >&2
}

mount_volume() { # name mountpoint
  if stale "$2"; then
    say "$2: a mount of ours whose client is gone (not connected): unmounting it"
    umount "$2" 2>/dev/null || umount -l "$2"
  fi
  mkdir -p "$2"
  mounted "$2" && return 0
  in_ns mount -t glusterfs -o direct-io-mode=enable "$(host_addr):/$1" "$2"
  for _ in $(seq 50); do
    mounted "$2" && return 0
    sleep 0.2
  done
  die "mounting $1 at $2 failed (see /var/log/glusterfs/)"
}

small_brick() {
  local img=$DATA/small.img dir=$DATA/small dev
  mkdir -p "$dir"
  if ! mountpoint -q "$dir"; then
    if [ ! -f "$img" ]; then
      truncate -s ${SMALL_MB}M "$img"
      mkfs.ext4 -q -F "$img"
    fi
    dev=$(losetup -j "$img" | cut -d: -f1 | head -1)
    [ -n "$dev" ] || dev=$(losetup -f --show "$img") || die "no free loop device for the small brick"
    echo "$dev" >"$RUN/small.loop"
    mount "$dev" "$dir"
  fi
  mkdir -p "$dir/brick"
}

brick_pid() { # vol n
  local vol=$1 n=$2 path pid
  path=$(g volume info "$vol" | sed -n "s/^Brick$n: [^:]*://p")
  [ -n "$path" ] || die "volume $vol has no brick $n"
  pid=$(brick_status_pid "$vol" "$path")
  [[ "$pid" =~ ^[0-9]+$ ]] && [ "$pid" -gt 0 ] || die "brick $n of $vol ($path) is not running"
  echo "$pid"
}

brick_pid_of() { # file [offset]: the pid of the brick that holds the shard of file at offset
  local file=$1 off=${2:-0} path="" vol pid gfid shard idx b
  if [ "$off" -gt 0 ]; then
    gfid=$(getfattr -n glusterfs.gfid.string --only-values "$file" 2>/dev/null)
    shard=$(cat "$(awk -v f="$(realpath "$file")" '$5 != "/" && index(f, $5 "/") == 1 { m = $5 } END { print m }' \
                   /proc/self/mountinfo)"/.meta/graphs/active/*/options/shard-block-size 2>/dev/null | head -1)
    case "$shard" in *MB) shard=$(( ${shard%MB} << 20 )) ;; *KB) shard=$(( ${shard%KB} << 10 )) ;; *GB) shard=$(( ${shard%GB} << 30 )) ;; esac
    [[ "$shard" =~ ^[0-9]+$ ]] || die "cannot tell the shard size of $file"
    idx=$(( off / shard ))
    if [ "$idx" -gt 0 ]; then
      for vol in "$VOL" "$SMALL"; do
        for b in $(g volume info "$vol" 2>/dev/null | sed -n 's/^Brick[0-9]*: [^:]*://p'); do
          [ -f "$b/.shard/$gfid.$idx" ] && path=$b
        done
      done
      [ -n "$path" ] || die "shard $idx of $file ($gfid) is on no brick of this host"
    fi
  fi
  if [ -z "$path" ]; then
    path=$(getfattr -n trusted.glusterfs.pathinfo --only-values "$file" 2>/dev/null |
           sed -n 's/.*<POSIX(\([^)]*\)):.*/\1/p' | head -1)
  fi
  [ -n "$path" ] || die "cannot tell which brick holds $file (not on a GlusterFS mount?)"
  for vol in "$VOL" "$SMALL"; do
    pid=$(brick_status_pid "$vol" "$path")
    if [[ "$pid" =~ ^[0-9]+$ ]] && [ "$pid" -gt 0 ]; then echo "$pid"; return 0; fi
  done
  die "the brick $path of $file is not running"
}

restart_bricks() { # vol: restart dead bricks, wait for the FUSE client to reconnect to each
  local vol=$1 n i up
  n=$(g volume info "$vol" | sed -n 's/^Number of Bricks: \([0-9]*\)$/\1/p; s/^Number of Bricks: .*= *\([0-9]*\)$/\1/p' | head -1)
  for i in $(seq 150); do
    # glusterd notices a killed brick a moment later: ask again every 2 s until all are up.
    [ $((i % 10)) -eq 1 ] && g volume start "$vol" force >/dev/null 2>&1
    # Every brick online with at least one client (the mount) connected to it.
    up=$(g volume status "$vol" clients 2>/dev/null | awk '/^Clients connected/ && $NF > 0 { c++ } END { print c + 0 }')
    [ "$up" -ge "$n" ] && return 0
    sleep 0.2
  done
  die "the bricks of $vol did not come back with their client within 30 s"
}

up() {
  local shard=4MB
  while [ $# -gt 0 ]; do
    case "$1" in
      --shard) shard=${2:?--shard needs a size, e.g. 4MB}; shift 2 ;;
      *) die "up: unknown argument '$1' (usage: up [--shard SIZE])" ;;
    esac
  done
  [ "$(id -u)" -eq 0 ] || die "needs root (glusterd, mount)"
  [ -e /dev/fuse ] || die "no /dev/fuse: FUSE is not available here"
  install_missing
  mkdir -p "$RUN" "$DATA" /var/log/glusterfs
  make_netns
  start_glusterd
  make_volume "$VOL" "$shard" "$DATA"/b{1,2,3,4}
  small_brick
  make_volume "$SMALL" "$shard" "$DATA/small/brick"
  g volume set "$SMALL" performance.write-behind off >&2
  mount_volume "$VOL" "$MNT"
  mount_volume "$SMALL" "$SMALL_MNT"
  chmod 1777 "$MNT" "$SMALL_MNT"
  say "up: volume $VOL (4 bricks, shards of $shard) at $MNT; $SMALL (${SMALL_MB} MiB) at $SMALL_MNT"
  echo "$MNT"
}

down() {
  local pid vol f
  for m in "$SMALL_MNT" "$MNT"; do
    if mounted "$m"; then umount "$m" 2>/dev/null || umount -l "$m"; fi
    [ -d "$m" ] && rmdir "$m" 2>/dev/null || true
  done
  pid=$(cat "$RUN/glusterd.pid" 2>/dev/null || true)
  if alive "$pid"; then
    for vol in "$SMALL" "$VOL"; do
      if vol_exists "$vol"; then
        # The bricks' pids, to stop any that the volume stop leaves behind.
        for f in /var/run/gluster/vols/"$vol"/*.pid; do
          [ -f "$f" ] && cat "$f" >>"$RUN/bricks.pids"
        done
        g volume stop "$vol" force >/dev/null 2>&1 || true
        g volume delete "$vol" >/dev/null 2>&1 || true
      fi
    done
    kill "$pid"
    for _ in $(seq 50); do alive "$pid" || break; sleep 0.2; done
    alive "$pid" && kill -9 "$pid"
  fi
  if [ -f "$RUN/bricks.pids" ]; then
    while read -r pid; do alive "$pid" && kill "$pid" 2>/dev/null; done <"$RUN/bricks.pids"
  fi
  if mountpoint -q "$DATA/small" 2>/dev/null; then umount "$DATA/small"; fi
  if [ -f "$RUN/small.loop" ]; then
    losetup -d "$(cat "$RUN/small.loop")" 2>/dev/null || true
  fi
  rm -rf "$DATA"
  [ -f "$RUN/made-glusterd-dir" ] && rm -rf /var/lib/glusterd
  [ -f "$RUN/made-netns" ] && ip netns del "$NS" 2>/dev/null
  rm -rf "$RUN"
  say "down: nothing of ours is running or mounted"
}

status() {
  local pid rc=0
  pid=$(cat "$RUN/glusterd.pid" 2>/dev/null || true)
  if alive "$pid"; then echo "glusterd: running (pid $pid)"; else echo "glusterd: not running"; rc=1; fi
  for m in "$MNT" "$SMALL_MNT"; do
    if stale "$m"; then echo "stale: $m (its client is gone; up mounts it again)"; rc=1
    elif mounted "$m"; then echo "mounted: $m"; else echo "not mounted: $m"; rc=1; fi
  done
  if alive "$pid"; then g volume status "$VOL" 2>/dev/null | sed -n '/^Brick/p' || true; fi
  return $rc
}

case "${1:-}" in
  up) shift; up "$@" ;;
  down) down ;;
  status) status ;;
  install) install_missing ;;
  brick-pid) brick_pid "${2:?volume}" "${3:?brick number}" ;;
  brick-pid-of) brick_pid_of "${2:?file}" "${3:-0}" ;;
  restart-bricks) restart_bricks "${2:?volume}" ;;
  *) echo "usage: scripts/gluster.sh up [--shard SIZE] | down | status | install | brick-pid VOL N | brick-pid-of FILE [OFFSET] | restart-bricks VOL" >&2; exit 2 ;;
esac
