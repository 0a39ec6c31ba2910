#!/usr/bin/env bash
# The remote shell of MPI launches across scripts/hosts.sh's hosts, in place of ssh: Open MPI's
# plm_rsh_agent and MPICH Hydra's rsh -launcher-exec call it as `agent [options] HOST COMMAND...`.
# Like ssh it runs the command line through a shell on HOST (the launchers quote it for one);
# options an ssh would take (-x, -n, -o ...) are skipped.
set -euo pipefail
while [ $# -gt 0 ]; do
  case "$1" in
    -o|-l|-p) shift 2 ;;
    -*) shift ;;
    *) break ;;
  esac
done
host=${1:?hosts-agent.sh: no host}
shift
exec "$(dirname "$0")/hosts.sh" exec "$host" -- /bin/sh -c "$*"
