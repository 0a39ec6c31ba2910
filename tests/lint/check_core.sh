#!/usr/bin/env bash
# The pure core (src/core) is one folder that builds without MPI and includes nothing from a
# higher layer. Checked by ctest in two parts:
#   check_core.sh layers <source root>
#     every #include "..." of a file in src/core names a header of src/core in its own layer or
#     a lower one (base < machine < plan < util), or include/mcio_errors.h; and no <mpi.h>,
#     <hwloc.h> or <pthread.h>;
#   check_core.sh alone <source root> <build dir>
#     configures src/core on its own with the plain C compiler (cc, not an MPI wrapper) and
#     builds it with -Werror, with an mpi.h and a hwloc.h first on the include path that stop
#     the build if anything includes them.
set -u
what=${1:?usage: check_core.sh layers|alone <source root> [build dir]}
root=${2:?usage: check_core.sh layers|alone <source root> [build dir]}
core=$root/src/core

layers() {
    local status=0 order=(base machine plan util) i j f inc allowed dir
    for i in "${!order[@]}"; do
        for f in "$core/${order[$i]}"/*.[ch]; do
            [ -e "$f" ] || continue
            while IFS= read -r inc; do
                allowed=0
                [ "$inc" = mcio_errors.h ] && allowed=1
                for ((j = 0; j <= i; j++)); do
                    [ -e "$core/${order[$j]}/$inc" ] && allowed=1
                done
                if [ $allowed = 0 ]; then
                    dir=$(cd "$root" && find src include -name "$inc" -printf '%h ' 2>/dev/null)
                    echo "${f#$root/}: includes \"$inc\" (${dir:-not found}), not from src/core/{$(IFS=,; echo "${order[*]:0:$((i + 1))}")}"
                    status=1
                fi
            done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/p' "$f")
            if grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(mpi|hwloc|pthread)\.h>' "$f"; then
                echo "${f#$root/}: the pure core includes no MPI, hwloc or threads"
                status=1
            fi
        done
    done
    # Every source file of the core is in one of the layers.
    local stray
    stray=$(find "$core" -name '*.[ch]' | grep -vE "/src/core/($(IFS='|'; echo "${order[*]}"))/[^/]+$")
    if [ -n "$stray" ]; then
        echo "files of src/core outside its layers (${order[*]}):"
        echo "$stray"
        status=1
    fi
    [ $status -eq 0 ] && echo "src/core: includes only its own layers (base < machine < plan < util) and mcio_errors.h"
    return $status
}

alone() {
    local out=${1:?usage: check_core.sh alone <source root> <build dir>}
    local cc
    cc=$(command -v cc || command -v gcc) || { echo "no plain C compiler (cc)"; return 1; }
    rm -rf "$out" && mkdir -p "$out/poison" || return 1
    for h in mpi.h hwloc.h; do
        printf '#error "the pure core (src/core) must not include %s"\n' "$h" > "$out/poison/$h"
    done
    if ! cmake -S "$core" -B "$out/build" -DCMAKE_C_COMPILER="$cc" \
            -DCMAKE_C_FLAGS="-I$out/poison" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$out/configure.log" 2>&1; then
        cat "$out/configure.log"
        return 1
    fi
    if ! cmake --build "$out/build" -j 2 > "$out/build.log" 2>&1; then
        cat "$out/build.log"
        return 1
    fi
    [ -f "$out/build/libmcio_core.a" ] || { echo "no libmcio_core.a in $out/build"; return 1; }
    echo "src/core built alone with $cc, no MPI on the include path: $(ls "$out/build/libmcio_core.a")"
}

case "$what" in
layers) layers ;;
alone) alone "${3:-}" ;;
*) echo "check_core.sh: layers or alone, not '$what'" >&2; exit 2 ;;
esac
