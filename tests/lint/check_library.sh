#!/usr/bin/env bash
# House rules on the library's sources (src/), checked by ctest as lint.library:
#  - its MPI calls use PMPI_ names, so that a tool or the drop-in layer intercepting MPI_* sees
#    only the application's calls and the engine never re-enters the layer (constants and
#    types such as MPI_BYTE and MPI_Aint are not calls and stay MPI_);
#  - it never ends the job (exit, abort, MPI_Abort) and never uses MPI_COMM_WORLD: errors come
#    back as statuses, on the file's own communicator.
set -u
root=${1:?usage: check_library.sh <source root>}
status=0
check() {
  local what=$1 pattern=$2 hits
  hits=$(grep -rnE "$pattern" "$root/src" --include='*.c' --include='*.h')
  if [ -n "$hits" ]; then
    echo "$what:"
    echo "$hits"
    status=1
  fi
}
check "MPI_ calls in the library (use the PMPI_ name)" '\bMPI_[A-Z][a-z][A-Za-z_0-9]*[[:space:]]*\('
check "the library must not end the job" '\b(exit|_exit|abort|P?MPI_Abort)[[:space:]]*\('
check "the library must not use MPI_COMM_WORLD (use the file's communicator)" '\bMPI_COMM_WORLD\b'
[ $status -eq 0 ] && echo "src/: PMPI_ names only, no exit/abort/MPI_Abort, no MPI_COMM_WORLD"
exit $status
