#!/usr/bin/env bash
# Runs mpi_deadline (every argument is the launch command) with a 5 s deadline and checks the
# report: exit status non-zero, rank 0 named in mcio_file_open, every other rank named too.
out=$(MCIO_TEST_DEADLINE=5 "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
n=$(printf '%s\n' "$out" | grep -c "deadline passed: rank [0-9]*/")
[ $rc -ne 0 ] || { echo "FAIL: the hung run exited 0"; exit 1; }
printf '%s\n' "$out" | grep -q "deadline passed: rank 0/[0-9]* in mcio_file_open" ||
  { echo "FAIL: rank 0 not reported in mcio_file_open"; exit 1; }
np=$(printf '%s\n' "$out" | sed -n 's/.*deadline passed: rank 0\/\([0-9]*\) .*/\1/p' | head -1)
[ "$n" -eq "$np" ] || { echo "FAIL: $n of $np ranks reported where they were"; exit 1; }
echo "PASS: all $np ranks reported where they were"
