#!/usr/bin/env bash
# Many hosts on one machine: a testbed of N "hosts" joined by rate-limited network links.
#
#   scripts/hosts.sh up N [--link RATE] [--mem SIZE] [--servers S]
#                                          make (or keep) hosts mcio-h1..mcio-hN; with --servers,
#                                          S file-server hosts mcio-s1..mcio-sS too, with a
#                                          GlusterFS volume on them that every mcio-hI mounts
#                                          (scripts/hosts-gluster.sh)
#   scripts/hosts.sh down                  remove what `up` made, stop the processes in the hosts
#   scripts/hosts.sh status                what is up, link rates and byte counters (exit 0 when up)
#   scripts/hosts.sh exec HOST -- CMD...   run CMD on HOST (mcio-h2, h2 or 2), in the caller's
#                                          directory, in HOST's memory cgroup when it has one
#   scripts/hosts.sh counters              per host: bytes it sent and received over its link
#   scripts/hosts.sh launcher MPI PPN [K]  the words of a launch of PPN ranks on each of hosts
#                                          1..K (default all) by MPI (mpich or openmpi), run from
#                                          host 1: `hosts.sh exec h1 -- $(hosts.sh launcher
#                                          openmpi 2) ./prog`; mcio-run takes the same words.
#                                          Without -n the job fills the slots: K x PPN ranks.
#                                          MCIO_HOSTS_MPIEXEC: another launcher of that family
#                                          (MPICH 5 from PyPI: .venv-mpich5/bin/mpiexec)
#   scripts/hosts.sh shared                the directory every host sees (files under test)
#   scripts/hosts.sh link HOST down|up     take HOST's link down (cut off from every other host,
#                                          a partition) or up again
#
# A host is a long-lived process (sleep, its pid in the state directory) that holds a network
# namespace, a UTS namespace with the host's name, a mount namespace and an IPC namespace. Its
# mount namespace has a private /dev/shm and /tmp (tmpfs: no shared-memory file or socket of
# one host is seen by another, as on separate machines) and an /etc/hosts that names every
# host; it is a slave of the machine's mounts, so a mount made on the machine shows in every
# host and a host's own mounts stay its own. Every other directory is the machine's: the
# build (this checkout, bound into the private /tmp where it lies under /tmp), and the shared directory /var/tmp/mcio-hosts (MCIO_HOSTS_SHARED) for files all hosts
# must see, as a cluster file system would be.
# The network: host i has eth0 = 10.44.0.(10+i)/24, one end of a veth pair whose other end
# (mcio-v<i>) is a port of the bridge mcio-br in a network namespace of its own (mcio-hosts);
# nothing is added to the machine's own network namespace and no route leads out of the
# 10.44.0.0/24 subnet. Each link is shaped in both directions by a token bucket (tbf) at RATE
# (default 1gbit: 125 MB/s, about 1/40 of a shared-memory copy on this machine, so a byte
# between hosts is clearly dearer than one within a host; tc's units: 500mbit, 2gbit...). The
# kernel here has no netem: no delay can be added, the links have the veth's own latency (tens
# of microseconds). --mem SIZE puts each host in a memory cgroup of SIZE (k, m, g suffixes; v1
# or v2, made under this script's own cgroup, as scripts/memlimit.sh does): the node's memory.
# A server host (mcio-sJ, 10.44.0.(100+J)) is the same but for a private /run and
# /var/lib/glusterd (tmpfs), so that its glusterd's sockets, pid files and state are its own, as
# on a separate machine; it has no memory cgroup and takes no ranks.
# Names differ from scripts/gluster.sh's (its namespace mcio-gluster, its state /run/mcio-gluster):
# the two testbeds never clash. This script's state (pids, what it made) is in /run/mcio-hosts.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/memcg-lib.sh"

RUN=/run/mcio-hosts
SW=mcio-hosts
BR=mcio-br
SUBNET=10.44.0
SHARED=${MCIO_HOSTS_SHARED:-/var/tmp/mcio-hosts}
DEFAULT_RATE=1gbit

die() { echo "hosts.sh: $*" >&2; exit 1; }
say() { echo "hosts.sh: $*" >&2; }
alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }
nhosts() { cat "$RUN/n" 2>/dev/null || echo 0; }
nservers() { cat "$RUN/servers" 2>/dev/null || echo 0; }
# Hosts are numbered 1..N (compute, mcio-hI) then N+1..N+S (servers, mcio-sJ): name, address.
hname() { if [ "$1" -le "$(nhosts)" ]; then echo "mcio-h$1"; else echo "mcio-s$(($1 - $(nhosts)))"; fi; }
haddr() { if [ "$1" -le "$(nhosts)" ]; then echo "$SUBNET.$((10 + $1))"; else echo "$SUBNET.$((100 + $1 - $(nhosts)))"; fi; }
host_pid() { cat "$RUN/$(hname "$1").pid" 2>/dev/null || true; }
sw() { ip -n "$SW" "$@"; }

# HOST as mcio-h2, h2 or 2 -> 2, mcio-s1 or s1 -> N+1 (dies when there is no such host up).
host_index() {
  local i=${1#mcio-} off=0 max
  max=$(nhosts)
  case "$i" in s[0-9]*) i=${i#s}; off=$(nhosts); max=$(nservers) ;; *) i=${i#h} ;; esac
  [[ "$i" =~ ^[0-9]+$ ]] && [ "$i" -ge 1 ] && [ "$i" -le "$max" ] ||
    die "no host '$1' (up: mcio-h1..mcio-h$(nhosts)$([ "$(nservers)" -eq 0 ] || echo ", mcio-s1..mcio-s$(nservers)"); scripts/hosts.sh up N)"
  i=$((i + off))
  alive "$(host_pid "$i")" || die "host $(hname "$i") is not running (scripts/hosts.sh up again)"
  echo "$i"
}

install_missing() {
  local need=()
  command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 || need+=(iproute2)
  command -v nsenter >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1 || need+=(util-linux)
  [ ${#need[@]} -eq 0 ] && return 0
  say "installing ${need[*]}"
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq \
    --no-install-recommends "${need[@]}" >&2
}

# The machine's /etc/hosts and every host's name, bind-mounted over /etc/hosts in each host.
write_hosts_file() {
  local i
  { grep -v ' mcio-[hs][0-9]*$' /etc/hosts || true
    for i in $(seq "$(( $(nhosts) + $(nservers) ))"); do echo "$(haddr "$i") $(hname "$i")"; done; } >"$RUN/hosts"
}

# Host i's holder: new namespaces, its name, private /dev/shm and /tmp, the shared /etc/hosts;
# a server's private /run and /var/lib/glusterd.
start_host() {
  local i=$1 name pid server=0
  name=$(hname "$i")
  [ "$i" -le "$(nhosts)" ] || server=1
  pid=$(host_pid "$i")
  alive "$pid" && return 0
  rm -f "$RUN/$name.pid"
  # A checkout under /tmp (a CI's clone) stays visible through the private /tmp: bound aside
  # before the tmpfs hides it, then back at its own path.
  unshare --net --uts --mount --ipc --propagation slave -- bash -c '
    src=$4 stage=$5 under_tmp=0
    # The pid file is written through the state directory as the working directory: a
    # server'"'"'s own /run hides the machine'"'"'s.
    cd "$(dirname "$3")" || exit 1
    case "$src/" in /tmp/*) under_tmp=1 ;; esac
    hostname "$1" && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
      { [ $under_tmp = 0 ] || { mkdir -p "$stage" && mount --bind "$src" "$stage"; }; } &&
      mount -t tmpfs -o mode=1777,size=2g tmpfs /tmp && mount --bind "$2" /etc/hosts &&
      { [ $under_tmp = 0 ] || { mkdir -p "$src" && mount --bind "$stage" "$src" && umount "$stage"; }; } &&
      { [ "$6" = 0 ] || { mount -t tmpfs -o mode=755,size=64m tmpfs /run &&
                           mount -t tmpfs -o mode=755,size=64m tmpfs /var/lib/glusterd; }; } &&
      ip link set lo up || exit 1
    # No IPv6: its link-local chatter would blur the links'"'"' byte counters.
    sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
    p=$(basename "$3") && echo $$ >"$p.tmp" && mv "$p.tmp" "$p"
    exec sleep infinity' mcio-host "$name" "$RUN/hosts" "$RUN/$name.pid" "$(dirname "$here")" \
    "$RUN/$name.root" "$server" </dev/null >/dev/null 2>&1 &
  for _ in $(seq 100); do
    [ -s "$RUN/$name.pid" ] && return 0
    sleep 0.05
  done
  die "host $name did not start (unshare --net --uts --mount --ipc: are namespaces allowed here?)"
}

# Host i's memory cgroup of the given bytes, its holder inside (what `exec` starts joins it).
host_cgroup() {
  local i=$1 bytes=$2 cg
  memcg_self || die "--mem: $MEMCG_WHY"
  cg="$MEMCG_SELF/mcio-hosts-h$i"
  [ -d "$cg" ] || mkdir "$cg" || die "--mem: cannot create $cg"
  if memcg_limit "$cg" "$bytes" && echo "$(host_pid "$i")" >"$cg/cgroup.procs"; then
    echo "$cg" >"$RUN/mcio-h$i.cgroup"
  else
    rmdir "$cg" 2>/dev/null
    die "--mem: cannot limit $cg to $bytes bytes or move mcio-h$i into it"
  fi
}

# The link of host i: the veth pair, its address, the bridge port, the shaping both ways.
link_host() {
  local i=$1 rate=$2 pid
  pid=$(host_pid "$i")
  if ! sw link show "mcio-v$i" >/dev/null 2>&1; then
    sw link add "mcio-v$i" type veth peer name eth0 netns "$pid"
  fi
  sw link set "mcio-v$i" master "$BR" up
  nsenter -t "$pid" --net ip addr replace "$(haddr "$i")/24" dev eth0
  nsenter -t "$pid" --net ip link set eth0 up
  # burst: at least a rate's worth of one timer tick (HZ 250: 4 ms, 500 KB at 1 Gbit/s) and a
  # whole 64 KiB offloaded segment, or tbf would hold the link below its rate.
  sw link set "mcio-v$i" up
  sw link show "mcio-v$i" >/dev/null
  tc -n "$SW" qdisc replace dev "mcio-v$i" root tbf rate "$rate" burst 1mb latency 50ms
  nsenter -t "$pid" --net tc qdisc replace dev eth0 root tbf rate "$rate" burst 1mb latency 50ms
}

up() {
  local n="" rate=$DEFAULT_RATE mem="" bytes="" i servers=0
  while [ $# -gt 0 ]; do
    case "$1" in
      --link) rate=${2:?--link needs a rate, e.g. 1gbit}; shift 2 ;;
      --mem) mem=${2:?--mem needs a size, e.g. 2g}; shift 2 ;;
      --servers) servers=${2:?--servers needs a number of server hosts, e.g. 2}; shift 2 ;;
      [0-9]*) n=$1; shift ;;
      *) die "up: unknown argument '$1' (usage: up N [--link RATE] [--mem SIZE] [--servers S])" ;;
    esac
  done
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 64 ] || die "up: N, the number of hosts (1-64), is missing or wrong: '$n'"
  [[ "$servers" =~ ^[0-9]+$ ]] && [ "$servers" -le 8 ] || die "up: --servers '$servers' is not a number of server hosts (0-8)"
  [ -z "$mem" ] || bytes=$(memcg_bytes "$mem") || die "--mem '$mem' is not a byte count (digits, optional k, m, g)"
  [ "$(id -u)" -eq 0 ] || die "needs root (namespaces, links)"
  [ "$(nhosts)" -eq 0 ] || { [ "$(nhosts)" -eq "$n" ] && [ "$(nservers)" -eq "$servers" ]; } ||
    die "up $n --servers $servers: $(nhosts) hosts and $(nservers) servers are up; scripts/hosts.sh down first"
  install_missing
  # A server host's private /var/lib/glusterd is mounted over the package's folder.
  [ "$servers" -eq 0 ] || "$here/gluster.sh" install
  mkdir -p "$RUN"
  echo "$n" >"$RUN/n"
  echo "$servers" >"$RUN/servers"
  if [ ! -d "$SHARED" ]; then mkdir -p "$SHARED" && chmod 1777 "$SHARED" && echo 1 >"$RUN/made-shared"; fi
  write_hosts_file
  if [ ! -e "/run/netns/$SW" ]; then
    ip netns add "$SW" || die "cannot make the network namespace $SW (ip netns add)"
    echo 1 >"$RUN/made-netns"
  fi
  ip netns exec "$SW" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
  sw link show "$BR" >/dev/null 2>&1 || sw link add "$BR" type bridge
  sw link set "$BR" up
  for i in $(seq "$((n + servers))"); do
    start_host "$i"
    [ -z "$bytes" ] || [ "$i" -gt "$n" ] || host_cgroup "$i" "$bytes"
    link_host "$i" "$rate"
  done
  echo "$rate" >"$RUN/rate"
  say "up: $n hosts mcio-h1..mcio-h$n, links of $rate${mem:+, memory $mem each}; shared directory $SHARED"
  [ "$servers" -eq 0 ] || "$here/hosts-gluster.sh" up
}

# Every process whose network namespace is host i's (the holder, and all `exec` started there).
host_procs() {
  local ns p
  ns=$(readlink "/proc/$1/ns/net" 2>/dev/null) || return 0
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/ns/net" 2>/dev/null)" = "$ns" ] && echo "${p#/proc/}"
  done
  return 0
}

down() {
  local f pid pids cg
  [ "$(nservers)" -eq 0 ] || "$here/hosts-gluster.sh" down || say "the hosts' GlusterFS did not stop cleanly"
  for f in "$RUN"/mcio-[hs]*.pid; do
    [ -f "$f" ] || continue
    pid=$(cat "$f")
    if alive "$pid"; then
      pids=$(host_procs "$pid")
      # shellcheck disable=SC2086
      kill $pids 2>/dev/null || true
      for _ in $(seq 25); do alive "$pid" || break; sleep 0.2; done
      pids=$(host_procs "$pid")
      # shellcheck disable=SC2086
      [ -z "$pids" ] || kill -9 $pids 2>/dev/null || true
      for _ in $(seq 25); do alive "$pid" || break; sleep 0.2; done
    fi
    cg=$(cat "${f%.pid}.cgroup" 2>/dev/null || true)
    [ -z "$cg" ] || [ ! -d "$cg" ] || rmdir "$cg" 2>/dev/null || say "could not remove $cg"
  done
  # Deleting the switch's namespace deletes its bridge and veth ends, and so their peers.
  [ -f "$RUN/made-netns" ] && ip netns del "$SW" 2>/dev/null
  [ -f "$RUN/made-shared" ] && rm -rf "$SHARED"
  rm -rf "$RUN"
  say "down: no host, link or process of ours is left"
}

counters() {
  local i rx tx
  for i in $(seq "$(( $(nhosts) + $(nservers) ))"); do
    # The bridge side's rx is what the host sent, its tx what the host received.
    rx=$(sw -s link show "mcio-v$i" | awk '/RX:/ { getline; print $1; exit }')
    tx=$(sw -s link show "mcio-v$i" | awk '/TX:/ { getline; print $1; exit }')
    echo "$(hname "$i") sent $rx received $tx"
  done
}

status() {
  local n i pid rc=0
  n=$(nhosts)
  [ "$n" -gt 0 ] || { echo "no hosts up"; return 1; }
  echo "hosts: $n, servers: $(nservers), links of $(cat "$RUN/rate" 2>/dev/null), shared directory $SHARED"
  for i in $(seq "$((n + $(nservers)))"); do
    pid=$(host_pid "$i")
    if alive "$pid"; then
      echo "$(hname "$i"): running (pid $pid), $(haddr "$i")$( [ -f "$RUN/mcio-h$i.cgroup" ] && echo ", cgroup $(cat "$RUN/mcio-h$i.cgroup")")$(sw link show "mcio-v$i" | grep -q 'state DOWN' && echo ", link down")"
    else
      echo "$(hname "$i"): not running"; rc=1
    fi
  done
  [ $rc -ne 0 ] || counters
  return $rc
}

exec_host() {
  local i pid cg
  i=$(host_index "${1:?exec: which host?}")
  shift
  [ "${1:-}" = "--" ] && shift
  [ $# -ge 1 ] || die "exec: no command (usage: exec HOST -- CMD...)"
  pid=$(host_pid "$i")
  cg=$(cat "$RUN/mcio-h$i.cgroup" 2>/dev/null || true)
  [ -z "$cg" ] || echo $$ >"$cg/cgroup.procs" || die "exec: cannot join $cg"
  exec nsenter -t "$pid" --net --uts --mount --ipc --wd="$PWD" -- "$@"
}

# Launch words for MPI $1, $2 ranks on each of hosts 1..$3; the hostfile in the state directory.
launcher() {
  local mpi=${1:?launcher: mpich or openmpi} ppn=${2:?launcher: ranks per host} k=${3:-$(nhosts)} f i
  [[ "$ppn" =~ ^[1-9][0-9]*$ ]] || die "launcher: ranks per host '$ppn' is not a positive number"
  [[ "$k" =~ ^[1-9][0-9]*$ ]] && [ "$k" -le "$(nhosts)" ] || die "launcher: $k hosts asked, $(nhosts) up"
  f="$RUN/hostfile.$mpi.$k.$ppn"
  case "$mpi" in
    mpich)
      for i in $(seq "$k"); do echo "mcio-h$i:$ppn"; done >"$f"
      # UCX (MPICH's ch4 device here) over TCP on eth0 between hosts, its shared memory within
      # (but Debian's MPICH 4.0.2 may hang in MPI_Finalize: tests/hosts/on_hosts.sh).
      echo "${MCIO_HOSTS_MPIEXEC:-mpiexec.mpich} -f $f -launcher rsh -launcher-exec $here/hosts-agent.sh" \
           "-genv UCX_NET_DEVICES eth0" ;;
    openmpi)
      for i in $(seq "$k"); do echo "mcio-h$i slots=$ppn"; done >"$f"
      echo "${MCIO_HOSTS_MPIEXEC:-mpiexec.openmpi} --allow-run-as-root --oversubscribe --hostfile $f" \
           "--mca plm_rsh_agent $here/hosts-agent.sh --mca plm_rsh_no_tree_spawn 1" \
           "--mca btl tcp,vader,self --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0" ;;
    *) die "launcher: MPI '$mpi' is neither mpich nor openmpi" ;;
  esac
}

# A partition: HOST's link down at the bridge (its packets and those to it dropped, its own
# eth0 without carrier), or up again.
link_updown() {
  local i
  i=$(host_index "${1:?link: which host?}")
  case "${2:-}" in
    down|up) sw link set "mcio-v$i" "$2" ;;
    *) die "link: '${2:-}' is neither down nor up (usage: link HOST down|up)" ;;
  esac
}

case "${1:-}" in
  up) shift; up "$@" ;;
  link) shift; link_updown "$@" ;;
  down) down ;;
  status) status ;;
  exec) shift; exec_host "$@" ;;
  counters) counters ;;
  launcher) shift; launcher "$@" ;;
  shared) echo "$SHARED" ;;
  *) echo "usage: scripts/hosts.sh up N [--link RATE] [--mem SIZE] [--servers S] | down | link HOST down|up | status | exec HOST -- CMD... | counters | launcher MPI PPN [K] | shared" >&2; exit 2 ;;
esac
