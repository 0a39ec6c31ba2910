#!/usr/bin/env bash
# mcio-run end to end: an unmodified MPI-IO program run through `mcio-run --hints --stats` under
# this MPI's launcher writes the same file as its native run, the engine served both of its
# collective calls (MCIO_STATS), with the hints file's strategy; LD_PRELOAD, MCIO_HINTS and
# MCIO_STATS reach the ranks only through the launcher's forwarding options (mcio-run does not
# export them into its own environment). The other MPI's launcher, when installed, is refused.
# Usage: mcio_run_test.sh <mcio-run> <program> <mpi> <mpiexec and its flags...>
set -euo pipefail
run=$1 prog=$2 mpi=$3
shift 3
mpiexec=("$@")
work=$(mktemp -d "$(dirname "$prog")/mcio_run.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail=0
"${mpiexec[@]}" -n 3 "$prog" "$work/native.dat"
printf '# chosen for the test: not the default strategy\nmcio_strategy memory\n' > "$work/hints"
"$run" --hints "$work/hints" --stats "$work/stats" "${mpiexec[@]}" -n 3 "$prog" "$work/run.dat"
cmp "$work/native.dat" "$work/run.dat" || { echo "FAIL: the file differs from the native run's"; fail=1; }
n=$(wc -l < "$work/stats" 2>/dev/null || echo 0)
[ "$n" = 2 ] || { echo "FAIL: $n MCIO_STATS lines, expected 2 (the write and the read)"; fail=1; }
m=$(grep -c '"strategy":"memory"' "$work/stats" 2>/dev/null || true)
m=${m:-0}
[ "$m" = 2 ] || { echo "FAIL: $m of the calls used the hints file's strategy (memory), expected 2"; fail=1; }
echo "mcio-run: the engine served $n calls, $m with the hints file's strategy"
# Open MPI: the program's handles open with ROMIO unless the caller chose an engine.
if [ "$mpi" = openmpi ]; then
  want=$(sed -n 's/^romio_io=//p' "$run")
  got=$("$run" "${mpiexec[@]}" -n 1 env | sed -n 's/^OMPI_MCA_io=//p')
  [ -n "$want" ] && [ "$got" = "$want" ] || { echo "FAIL: OMPI_MCA_io '$got' under mcio-run, expected ROMIO's '$want'"; fail=1; }
  got=$(OMPI_MCA_io=ompio "$run" "${mpiexec[@]}" -n 1 env | sed -n 's/^OMPI_MCA_io=//p')
  [ "$got" = ompio ] || { echo "FAIL: OMPI_MCA_io '$got' under mcio-run, the caller's ompio expected"; fail=1; }
  got=$("$run" "${mpiexec[@]}" --mca io ompio -n 1 env | sed -n 's/^OMPI_MCA_io=//p')
  [ "$got" = ompio ] || { echo "FAIL: OMPI_MCA_io '$got' with --mca io ompio, ompio expected"; fail=1; }
fi
# Refusals, each with a clear message and status 2.
other=openmpi
[ "$mpi" = openmpi ] && other=mpich
if command -v "mpiexec.$other" >/dev/null; then
  set +e
  msg=$("$run" "mpiexec.$other" -n 1 "$prog" "$work/other.dat" 2>&1)
  rc=$?
  set -e
  echo "other MPI's launcher: status $rc: $msg"
  [ $rc = 2 ] && [[ "$msg" == *"launcher, but this mcio-run"*"built with $mpi"* ]] ||
    { echo "FAIL: mpiexec.$other was not refused clearly"; fail=1; }
  [ ! -e "$work/other.dat" ] || { echo "FAIL: the refused run ran anyway"; fail=1; }
else
  echo "mpiexec.$other not installed: the refusal is not exercised"
fi
set +e
msg=$("$run" --stats /nonexistent/dir/s "${mpiexec[@]}" -n 1 "$prog" "$work/x.dat" 2>&1)
rc=$?
set -e
[ $rc = 2 ] && [[ "$msg" == *"not a writable directory"* ]] || { echo "FAIL: a bad --stats path: status $rc: $msg"; fail=1; }
[ $fail = 0 ] && echo "PASS: mcio-run under $mpi"
exit $fail
