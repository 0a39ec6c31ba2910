#!/usr/bin/env bash
# Runs a test only where what it needs is there; elsewhere prints one line saying what is missing
# and exits 77, which ctest reports as skipped (SKIP_RETURN_CODE 77).
# Usage: skip_unless.sh <shell command that must succeed> <reason> -- <test command...>
need=$1 reason=$2
shift 2
[ "$1" = "--" ] && shift
if ! bash -c "$need" >/dev/null 2>&1; then
  echo "SKIP: $reason"
  exit 77
fi
exec "$@"
