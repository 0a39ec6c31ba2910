#!/usr/bin/env bash
# File traffic crosses the links: runs a command (a write then a read of BYTES of file data on the
# server hosts' GlusterFS volume) between two readings of scripts/hosts.sh's link counters, and
# checks that the servers received at least BYTES, and no more than the protocol's share above it
# (RPC and TCP/IP headers, lookups: at most 25% + 4 MiB), and sent at least BYTES (the reads: the
# engine's and the check's), and that the compute hosts together sent and received at least as
# much (with the job's own messages between them). Prints the figures.
# Usage: link_bytes.sh BYTES -- command...
set -u
hosts_sh=$(cd "$(dirname "$0")/../.." && pwd)/scripts/hosts.sh
want=${1:?link_bytes.sh: BYTES}
shift
[ "${1:-}" = -- ] && shift
sums() { # sent and received of the compute hosts, then of the servers (%.0f: mawk's %d stops at 2^31)
  "$hosts_sh" counters | awk '{ k = ($1 ~ /^mcio-s/); s[k] += $3; r[k] += $5 }
                              END { printf "%.0f %.0f %.0f %.0f\n", s[0], r[0], s[1], r[1] }'
}
read -r hs0 hr0 ss0 sr0 <<<"$(sums)"
"$@" || { echo "FAIL: the command failed: $*"; exit 1; }
read -r hs1 hr1 ss1 sr1 <<<"$(sums)"
hs=$((hs1 - hs0)) hr=$((hr1 - hr0)) ss=$((ss1 - ss0)) sr=$((sr1 - sr0))
echo "file bytes each way $want; compute hosts sent $hs received $hr; servers received $sr sent $ss"
most=$((want + want / 4 + 4194304))
rc=0
for v in "servers received:$sr" "servers sent:$ss" "compute hosts sent:$hs" "compute hosts received:$hr"; do
  n=${v##*:}
  [ "$n" -ge "$want" ] || { echo "FAIL: ${v%%:*} $n bytes, fewer than the file's $want"; rc=1; }
done
[ "$sr" -le "$most" ] || { echo "FAIL: servers received $sr bytes, more than the file's $want + 25% + 4 MiB"; rc=1; }
exit $rc
