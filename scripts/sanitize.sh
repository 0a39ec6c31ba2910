#!/usr/bin/env bash
# The sanitizer run: the library, the drop-in layer and the tests built with AddressSanitizer
# and UBSan (scripts/build.sh <mpi> asan -> build/<mpi>-asan), then the unit tests and the
# multi-rank tests labelled "sanitize" (tests/CMakeLists.txt says which) on each MPI. Any report
# fails the test that made it: ASan, LeakSanitizer and UBSan all stop the process with an error.
# The MPI libraries' own reports are suppressed, each for a reason given in
# tests/sanitizers/lsan.supp and below (UBSan has reported nothing to suppress). Run by .ci/run.
# Usage: scripts/sanitize.sh [mpich|openmpi ...]   (default: both)
set -uo pipefail
. "$(dirname "$0")/suite-common.sh"
supp="$root/tests/sanitizers"
# detect_odr_violation=0: Open MPI's components (dlopened plugins) define the same globals as
# libopen-pal, which ASan reports as one-definition-rule violations of the MPI library itself.
# abort_on_error=0 and exitcode: a report ends the process with an error code, which the
# launcher and ctest see, instead of a core dump.
# verify_asan_link_order=0: the drop-in tests preload libmcio_preload.so (LD_PRELOAD, as users
# do) into programs linked with ASan; the preloaded library comes before libasan in the list,
# though libasan is loaded with the program all the same (and the layer defines no allocator).
export ASAN_OPTIONS="detect_leaks=1:detect_odr_violation=0:halt_on_error=1:abort_on_error=0:exitcode=86:verify_asan_link_order=0"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
# hwloc's PCI plugin (dlopened by every hwloc_topology_init, mcio's socket detection among
# them, and dlclosed with the last topology) leaves allocations of libpciaccess behind; once the
# plugin is unloaded LeakSanitizer reports them with no module or symbol, so no suppression can
# name them. mcio asks hwloc for packages only (I/O objects filtered out), so the plugin is not
# loaded here at all.
export HWLOC_PLUGINS_BLACKLIST=hwloc_pci
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=87"
# The unit tests' names are many: their passing lines are left out.
suite_show() { grep -vE "^ *[0-9]+/[0-9]+ Test +#[0-9]+: (unit\.).* Passed"; }
for mpi in "${mpis[@]}"; do
  echo "== $mpi (AddressSanitizer + UBSan): building"
  dir=$("$root/scripts/build.sh" "$mpi" asan) || { echo "== $mpi asan: build FAILED"; failed=$((failed + 1)); continue; }
  echo "== $mpi (AddressSanitizer + UBSan): testing"
  suite_ctest "$mpi asan" "$dir" -j2 -L "unit|sanitize" || echo "== $mpi asan: FAILED"
done
echo "== sanitizers ($(( $(date +%s) - start )) s, ${mpis[*]}): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
