#!/usr/bin/env bash
# GlusterFS servers on hosts of their own: the file system of scripts/hosts.sh's testbed, made by
# `hosts.sh up N --servers S` and removed by `hosts.sh down` (which call this script).
#
#   scripts/hosts-gluster.sh up            glusterd on each server host mcio-s1..mcio-sS (one
#                                          trusted pool), the volume mcio-hosts with 2 bricks on
#                                          each, and on each compute host mcio-hI its own FUSE
#                                          mount of it at /mnt/mcio-hosts-gluster. Idempotent.
#   scripts/hosts-gluster.sh down          the mounts and the bricks' folders removed (hosts.sh
#                                          down then stops the hosts' processes)
#   scripts/hosts-gluster.sh mount         the mount point (the same path on every compute host)
#   scripts/hosts-gluster.sh server-of FILE [OFFSET]   (on a compute host) the server host that
#                                          holds FILE's shard at OFFSET (default 0: the first,
#                                          which every write updates: the shard translator keeps
#                                          the file's size there)
#   scripts/hosts-gluster.sh cut HOST      HOST's link down (scripts/hosts.sh link HOST down)
#   scripts/hosts-gluster.sh heal          every server's link up, then wait until each compute
#                                          host's client is connected to every brick again
#   scripts/hosts-gluster.sh status        exit 0 when every compute host's client is connected
#
# The volume: distributed over the 2S bricks (server 1's, server 2's, ... in turn), sharded in
# 4 MiB (features.shard-block-size 4MB), and with network.ping-timeout 5 (GlusterFS's default
# is 42 s): a client gives up on a server that has not answered for 5 s, so a partition fails
# the calls that need that server within seconds (tests/hosts). Mounted with the FUSE client and
# direct-io-mode=enable (no kernel page cache), as scripts/gluster.sh does, and coherent across
# the clients: no attribute or entry cache in the kernel (attribute-timeout=0, entry-timeout=0)
# nor in the client (performance.stat-prefetch off: md-cache). With them, a client may hold a
# file's size for a second after another client extended it: a rank's pread right after a
# collective write by ranks on other hosts came back short (tests/hosts' gluster_bench, mcio-bench
# coll_perf and random: "after the write, the file ... holds" the poison), and mcio's read then
# returned zeros past that size. A FUSE client runs in
# its compute host's network namespace, so every byte of a file crosses the compute host's link
# and the server's (hosts.sh counters). Bricks are folders under /var/lib/mcio-hosts-gluster/sJ;
# a server's glusterd state and sockets live in its private /var/lib/glusterd and /run (tmpfs,
# scripts/hosts.sh), logs in /var/log/glusterfs/mcio-hosts-*.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
H=$here/hosts.sh
VOL=mcio-hosts
MNT=/mnt/mcio-hosts-gluster
DATA=/var/lib/mcio-hosts-gluster
STATE=/run/mcio-hosts
SHARD=4MB
SHARD_BYTES=4194304
PING=5

die() { echo "hosts-gluster.sh: $*" >&2; exit 1; }
say() { echo "hosts-gluster.sh: $*" >&2; }
nhosts() { cat "$STATE/n" 2>/dev/null || echo 0; }
nservers() { cat "$STATE/servers" 2>/dev/null || echo 0; }
on() { local h=$1; shift; "$H" exec "$h" -- "$@"; }
g() { on mcio-s1 gluster --mode=script "$@"; }
bricks() { local b j; for b in 1 2; do for j in $(seq "$(nservers)"); do echo "mcio-s$j:$DATA/s$j/b$b"; done; done; }

# glusterd on server j, unless its own (pid file in the server's private /run) is running.
start_glusterd() {
  local s=mcio-s$1 _
  on "$s" sh -c 'p=$(cat /run/glusterd.pid 2>/dev/null) && kill -0 "$p" 2>/dev/null' && return 0
  on "$s" glusterd -p /run/glusterd.pid --log-file="/var/log/glusterfs/mcio-hosts-$s-glusterd.log"
  for _ in $(seq 100); do
    on "$s" gluster --mode=script volume list >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "glusterd on $s did not answer within 20 s (/var/log/glusterfs/mcio-hosts-$s-glusterd.log)"
}

# Server 1 probes the others; wait until every one is in the pool and connected.
make_pool() {
  local j _ st
  [ "$(nservers)" -gt 1 ] || return 0
  for j in $(seq 2 "$(nservers)"); do g peer probe "mcio-s$j" >/dev/null; done
  for _ in $(seq 100); do
    st=$(g pool list 2>/dev/null || true)
    [ "$(grep -c 'Connected' <<<"$st")" -ge "$(nservers)" ] && return 0
    sleep 0.2
  done
  die "the server hosts did not form one pool within 20 s: $st"
}

make_volume() {
  local info
  # shellcheck disable=SC2046
  if ! g volume info "$VOL" >/dev/null 2>&1; then
    mkdir -p $(bricks | sed 's/^[^:]*://')
    g volume create "$VOL" transport tcp $(bricks) force >/dev/null
    g volume set "$VOL" features.shard on >/dev/null
    g volume set "$VOL" features.shard-block-size "$SHARD" >/dev/null
    g volume set "$VOL" network.ping-timeout "$PING" >/dev/null
    g volume set "$VOL" performance.stat-prefetch off >/dev/null
    g volume set "$VOL" nfs.disable on >/dev/null 2>&1 || true
  fi
  info=$(g volume info "$VOL")
  grep -q '^Status: Started' <<<"$info" || g volume start "$VOL" >/dev/null
}

mounted_on() { on "$1" awk -v m="$MNT" '$5 == m { f = 1 } END { exit !f }' /proc/self/mountinfo; }

mount_all() {
  local i backups
  backups=$(seq -f 'mcio-s%g' 2 "$(nservers)" | paste -sd: -)
  for i in $(seq "$(nhosts)"); do
    mounted_on "mcio-h$i" && continue
    on "mcio-h$i" mount -t glusterfs -o "direct-io-mode=enable,attribute-timeout=0,entry-timeout=0,log-file=/var/log/glusterfs/mcio-hosts-h$i-mount.log${backups:+,backup-volfile-servers=$backups}" \
      "mcio-s1:/$VOL" "$MNT" || die "mounting $VOL on mcio-h$i failed (/var/log/glusterfs/mcio-hosts-h$i-mount.log)"
  done
  on mcio-h1 chmod 1777 "$MNT"
}

# Whether host $1's client is connected to every brick: its .meta tree holds each protocol/client
# translator's state ("connected = 1").
client_connected() {
  on "$1" sh -c 'n=0; for f in "$1"/.meta/graphs/active/*-client-*/private; do
                   grep -q "^connected *= *1" "$f" 2>/dev/null && n=$((n + 1)); done; [ "$n" -ge "$2" ]' \
    sh "$MNT" "$(( 2 * $(nservers) ))"
}

# Wait (up to $1 s) until every compute host's client is connected to every brick.
wait_connected() {
  local i t=0
  for i in $(seq "$(nhosts)"); do
    until client_connected "mcio-h$i"; do
      [ "$t" -lt "$(( $1 * 5 ))" ] || die "mcio-h$i's client is not connected to every brick of $VOL after $1 s"
      sleep 0.2
      t=$((t + 1))
    done
  done
}

up() {
  local j
  [ "$(nservers)" -gt 0 ] || die "no server hosts (scripts/hosts.sh up N --servers S)"
  [ -e /dev/fuse ] || die "no /dev/fuse: FUSE is not available here"
  "$here/gluster.sh" install
  mkdir -p "$MNT" "$DATA" /var/log/glusterfs
  for j in $(seq "$(nservers)"); do start_glusterd "$j"; done
  make_pool
  make_volume
  mount_all
  wait_connected 30
  say "up: volume $VOL ($(( 2 * $(nservers) )) bricks on mcio-s1..mcio-s$(nservers), shards of $SHARD, ping-timeout ${PING} s) at $MNT on mcio-h1..mcio-h$(nhosts)"
}

down() {
  local i
  for i in $(seq "$(nhosts)"); do
    if mounted_on "mcio-h$i" 2>/dev/null; then
      on "mcio-h$i" umount "$MNT" 2>/dev/null || on "mcio-h$i" umount -l "$MNT" || say "could not unmount $MNT on mcio-h$i"
    fi
  done
  rm -rf "$DATA"
  rmdir "$MNT" 2>/dev/null || true
}

# The server host that holds FILE's shard at OFFSET: shard 0 is the file itself (its brick from
# the pathinfo attribute), shard k > 0 the brick folder's .shard/GFID.k.
server_of() {
  local file=$1 off=${2:-0} idx gfid b
  idx=$(( off / SHARD_BYTES ))
  if [ "$idx" -eq 0 ]; then
    b=$(getfattr -n trusted.glusterfs.pathinfo --only-values "$file" 2>/dev/null |
        sed -n 's/.*<POSIX([^)]*):\(mcio-s[0-9]*\):.*/\1/p' | head -1)
  else
    gfid=$(getfattr -n glusterfs.gfid.string --only-values "$file" 2>/dev/null) ||
      die "cannot read the gfid of $file (not on $MNT?)"
    b=$(ls -d "$DATA"/s*/b*/.shard/"$gfid.$idx" 2>/dev/null | sed -n 's|^'"$DATA"'/\(s[0-9]*\)/.*|mcio-\1|p' | head -1)
  fi
  [ -n "$b" ] || die "cannot tell which server holds shard $idx of $file"
  echo "$b"
}

heal() {
  local j
  for j in $(seq "$(nservers)"); do "$H" link "mcio-s$j" up; done
  wait_connected 60
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  mount) echo "$MNT" ;;
  server-of) server_of "${2:?server-of: which file?}" "${3:-0}" ;;
  cut) "$H" link "${2:?cut: which server host?}" down ;;
  heal) heal ;;
  status) wait_connected 0 ;;
  *) echo "usage: scripts/hosts-gluster.sh up | down | mount | server-of FILE [OFFSET] | cut HOST | heal | status" >&2; exit 2 ;;
esac
