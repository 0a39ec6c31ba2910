#!/usr/bin/env bash
# The drop-in layer's table (src/pmpi/mcio_pmpi_calls.h) against the libraries built from it:
# libmcio_preload.so must define exactly the table's MPI_ names (with their large-count _c forms
# where the MPI has them), its Fortran symbols and, with Open MPI, its mpi_f08 symbols;
# libmcio_wrap.a exactly the __wrap_ names; and mcio_wrap.opts must wrap exactly those names.
# So no wrapper is written outside the table, and no row lacks its wrapper.
# Usage: check_pmpi_table.sh <build dir>/src/pmpi
set -euo pipefail
dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
expect() { awk -v k="$1" '$1 == k { print $2 }' "$dir/mcio_pmpi_symbols.txt" | sort; }
defined() { nm --defined-only "$@" 2>/dev/null | awk '$2 == "T" { print $3 }'; }
same() { # what, expected file, got file
  if ! diff -u "$2" "$3" > "$work/diff"; then
    echo "FAIL: $1 (- table, + library):"; cat "$work/diff"; fail=1
  else
    echo "$1: $(wc -l < "$2") symbols, as in the table"
  fi
}
expect c > "$work/c"
{ expect fortran; expect f08; } | sort > "$work/f"
defined -D "$dir/libmcio_preload.so" | grep -E '^MPI_File_' | sort > "$work/got_c"
defined -D "$dir/libmcio_preload.so" | grep -E '^mpi_file_' | sort > "$work/got_f"
defined "$dir/libmcio_wrap.a" | sed -n 's/^__wrap_//p' | sort > "$work/got_wrap"
sed -n 's/^--wrap=//p' "$dir/mcio_wrap.opts" | sort > "$work/got_opts"
same "libmcio_preload.so, C wrappers" "$work/c" "$work/got_c"
same "libmcio_preload.so, Fortran and mpi_f08 wrappers" "$work/f" "$work/got_f"
same "libmcio_wrap.a, __wrap_ wrappers" "$work/c" "$work/got_wrap"
same "mcio_wrap.opts" "$work/c" "$work/got_opts"
[ "$(wc -l < "$work/c")" -gt 0 ] || { echo "FAIL: the table is empty"; fail=1; }
exit $fail
