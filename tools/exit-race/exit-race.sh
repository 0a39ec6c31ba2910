#!/usr/bin/env bash
# Open MPI reports a job whose processes all called MPI_Finalize as "exiting improperly"
# (mpiexec exit 1) when its launcher could not answer their PMIx_Finalize within PMIx's 2 s:
# the rank exits, and the launcher sees the exit before the finalize notice. This shows it
# without and with mcio: N launches at 3 ranks of a hello world and of an MPI-IO program under
# the drop-in layer, with the launcher stopped 1 s (within PMIx's wait) and 5 s (beyond it)
# as rank 0 enters PMIx_Finalize (slow_launcher.c). docs/reliability.md, "exiting improperly".
# Usage: tools/exit-race/exit-race.sh <Open MPI> [N]   (prints one line per case)
#   an Open MPI build directory, or its name as scripts/build.sh takes it (built if needed)
set -uo pipefail
n=${2:-8}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/mpi-env.sh"
build=$(mpi_build "${1:?usage: exit-race.sh <Open MPI build dir or name> [N]}") || exit 2
preload="$build/src/pmpi/libmcio_preload.so" dropin="$build/tests/pmpi/pmpi_dropin"
[ -f "$preload" ] && [ -x "$dropin" ] || { echo "exit-race.sh: build $build first" >&2; exit 2; }
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
gcc -O2 -shared -fPIC -o "$tmp/libslow_launcher.so" "$here/slow_launcher.c" -ldl || exit 2
mpi_launch "$build" || exit 2
"$MCIO_MPICC" -O2 -o "$tmp/hello" "$here/hello.c" || exit 2
mpiexec=("$MCIO_MPIEXEC" "${MCIO_MPIEXEC_FLAGS[@]}" -n 3)
for secs in 1 5; do
  for prog in hello dropin; do
    improper=0 other=0
    for ((i = 0; i < n; i++)); do
      if [ $prog = hello ]; then
        out=$("${mpiexec[@]}" env SLOW_LAUNCHER_SECS=$secs LD_PRELOAD="$tmp/libslow_launcher.so" \
              "$tmp/hello" 2>&1)
      else
        out=$("${mpiexec[@]}" env SLOW_LAUNCHER_SECS=$secs \
              LD_PRELOAD="$preload:$tmp/libslow_launcher.so" "$dropin" "$tmp/f" 2>&1)
      fi
      rc=$?
      if grep -q "exiting improperly" <<< "$out"; then
        improper=$((improper + 1))
      elif [ $rc -ne 0 ]; then
        other=$((other + 1)); printf '%s\n' "$out" | tail -5
      fi
    done
    echo "launcher stopped ${secs} s, $prog$([ $prog = dropin ] && echo ' under the drop-in'): $improper of $n launches 'exiting improperly', $other other failures"
  done
done
