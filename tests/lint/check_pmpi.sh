#!/usr/bin/env bash
# The library's own MPI calls use PMPI_ names (house style): a tool or the drop-in layer that
# intercepts MPI_* must see only the application's calls, and the engine must never re-enter
# the layer. Constants and types (MPI_BYTE, MPI_Aint) are not calls and stay MPI_.
set -u
root=${1:?usage: check_pmpi.sh <source root>}
hits=$(grep -rnE '\bMPI_[A-Z][a-z][A-Za-z_0-9]*[[:space:]]*\(' "$root/src" --include='*.c' --include='*.h')
if [ -n "$hits" ]; then
  echo "MPI_ calls in the library (use the PMPI_ name):"
  echo "$hits"
  exit 1
fi
echo "no MPI_ calls in $root/src"
