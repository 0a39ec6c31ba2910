#!/usr/bin/env bash
# As a new user on a fresh machine would: install this build into an empty prefix, then build an
# outside project against it twice, with find_package(mcio) (CMake) and with pkg-config (a plain
# cc, no MPI wrapper: mcio.pc requires the MPI's own module), and run both at 2 ranks. The drop-in
# program, linked with mcio::wrap, must have been served by mcio (MCIO_STATS lines) and the
# installed mcio-run must serve it again under the launcher.
# Usage: install_test.sh <source root> <build dir> <mpi> <mpiexec and its flags...>
set -euo pipefail
root=$1 build=$2 mpi=$3
shift 3
mpiexec=("$@")
work=$(mktemp -d "$build/testdata/install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log" || { cat "$work/install.log"; exit 1; }
for f in include/mcio.h bin/mcio-run bin/mcio-bench bin/mcio-fsync-check; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name libmcio.so -print -quit)")
[ -f "$libdir/libmcio_preload.so" ] && [ -f "$libdir/libmcio_wrap.a" ] && [ -f "$libdir/pkgconfig/mcio.pc" ] ||
  { echo "FAIL: the drop-in libraries or mcio.pc are not installed next to libmcio.so"; exit 1; }
echo "installed into $prefix (libraries in ${libdir#$prefix/})"

echo "== find_package(mcio)"
cmake -S "$root/tests/install/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" \
  > "$work/cmake.log" 2>&1 || { cat "$work/cmake.log"; exit 1; }
grep "built with" "$work/cmake.log"
grep -q "built with $mpi;" "$work/cmake.log" || { echo "FAIL: the package does not say $mpi"; exit 1; }
cmake --build "$work/cmake" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"${mpiexec[@]}" -n 2 "$work/cmake/checkpoint" "$work/cmake.dat"
"${mpiexec[@]}" -n 2 env MCIO_STATS="$work/wrap.stats" \
  "$work/cmake/dropin" "$work/dropin.dat"
n=$(wc -l < "$work/wrap.stats" 2>/dev/null || echo 0)
[ "$n" = 2 ] || { echo "FAIL: mcio::wrap: $n MCIO_STATS lines, expected 2 (the write and the read)"; exit 1; }
echo "mcio::wrap: the engine served the program's 2 collective calls"

echo "== pkg-config mcio"
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "pkg-config: $(pkg-config --cflags --libs mcio)"
# shellcheck disable=SC2046
cc -o "$work/checkpoint-pc" "$root/tests/install/consumer/checkpoint.c" $(pkg-config --cflags --libs mcio) \
  -Wl,-rpath,"$(pkg-config --variable=libdir mcio)"
"${mpiexec[@]}" -n 2 "$work/checkpoint-pc" "$work/pc.dat"
cmp "$work/cmake.dat" "$work/pc.dat" || { echo "FAIL: the two builds wrote different files"; exit 1; }

echo "== installed mcio-run"
# The MPI's own module when mcio.pc requires one; else mcio.pc's flags, which carry the MPI's.
mpi_pc=$(pkg-config --print-requires mcio)
cc -o "$work/dropin-plain" "$root/tests/install/consumer/dropin.c" -Wl,--as-needed $(pkg-config --cflags --libs "${mpi_pc:-mcio}")
"$prefix/bin/mcio-run" --stats "$work/run.stats" "${mpiexec[@]}" -n 2 "$work/dropin-plain" "$work/run.dat"
n=$(wc -l < "$work/run.stats" 2>/dev/null || echo 0)
[ "$n" = 2 ] || { echo "FAIL: installed mcio-run: $n MCIO_STATS lines, expected 2"; exit 1; }
cmp "$work/dropin.dat" "$work/run.dat" || { echo "FAIL: mcio-run's file differs from mcio::wrap's"; exit 1; }
echo "PASS: installed, found by find_package and pkg-config, built, ran; mcio-run served the program"
