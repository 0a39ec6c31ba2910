#!/usr/bin/env bash
# Installs what mcio needs to build and test, when it is missing: a C/C++ toolchain, CMake,
# Ninja, Debian's MPICH and Open MPI (side by side), hwloc, GoogleTest, python3-venv, for the
# drop-in layer's tests gfortran, HDF5 (for each MPI) and PnetCDF, and SimGrid for the simulation
# build. As root it runs
# apt-get; otherwise it prints the exact command to run and stops. Then the figures' matplotlib
# from PyPI into .venv (tools/requirements.txt), which needs no root.
# Usage: scripts/setup.sh [mpich5|openmpi5|impi ...]
#   each named MPI, the newest releases from PyPI (MPICH 5, Open MPI 5, Intel MPI: wheels with
#   compilers, headers and launchers), goes into its own virtual environment .venv-<name>, made
#   again when its pin (scripts/mpi-env.sh) changes; scripts/build.sh <name> builds against it.
set -euo pipefail

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

have_cmd gcc || need+=(gcc)
have_cmd g++ || need+=(g++)
have_cmd cmake || need+=(cmake)
have_cmd ninja || need+=(ninja-build)
have_cmd pkg-config || need+=(pkg-config)
have_cmd mpicc.mpich || need+=(mpich libmpich-dev)
have_cmd mpicc.openmpi || need+=(openmpi-bin libopenmpi-dev)
have_pkg libhwloc-dev || need+=(libhwloc-dev)
have_pkg libgtest-dev || need+=(libgtest-dev)
# Figures: a virtual environment of /usr/bin/python3 (below).
have_pkg python3-venv || need+=(python3-venv)
# The drop-in layer's tests (tests/pmpi): Fortran MPI programs, HDF5 built with each MPI, h5diff,
# and PnetCDF (Debian builds it with Open MPI) with ncmpidiff.
have_cmd gfortran || need+=(gfortran)
have_pkg libhdf5-mpich-dev || need+=(libhdf5-mpich-dev)
have_pkg libhdf5-openmpi-dev || need+=(libhdf5-openmpi-dev)
have_cmd h5diff || need+=(hdf5-tools)
have_pkg libpnetcdf-dev || need+=(libpnetcdf-dev)
have_cmd ncmpidiff || need+=(pnetcdf-bin)
# Python and NetCDF users of the drop-in layer (tests/pmpi: py_mpi4py, py_h5py, pmpi_nc4); Debian
# builds all three with Open MPI.
have_pkg python3-numpy || need+=(python3-numpy)
have_pkg python3-mpi4py || need+=(python3-mpi4py)
have_pkg python3-h5py-mpi || need+=(python3-h5py-mpi)
have_pkg libnetcdf-mpi-dev || need+=(libnetcdf-mpi-dev)
# The simulation build (docs/simulation.md): SimGrid's SMPI (smpicc, smpirun, libsimgrid).
have_pkg libsimgrid-dev || need+=(libsimgrid-dev)
# The fuzz targets (scripts/fuzz.sh): Debian's clang and its runtime libraries (libFuzzer,
# ASan, UBSan: libclang-rt-dev). The sanitizer build (scripts/sanitize.sh) uses gcc's.
have_cmd clang || need+=(clang)
have_pkg libclang-rt-dev || need+=(libclang-rt-dev)

if [ ${#need[@]} -gt 0 ]; then
  # Another apt may hold the dpkg lock (a shared machine): wait for it rather than fail.
  apt=(apt-get -o DPkg::Lock::Timeout=900)
  cmd="${apt[*]} update && DEBIAN_FRONTEND=noninteractive ${apt[*]} install -y --no-install-recommends ${need[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "mcio needs these Debian packages: ${need[*]}" >&2
    echo "Run as root:  $cmd" >&2
    exit 1
  fi
  echo "setup: installing ${need[*]}" >&2
  "${apt[@]}" update -qq
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends "${need[@]}" >&2
fi

# The figures' Python (tools/mcio_venv.py switches the tools to it): made again whenever
# tools/requirements.txt changes, which the copy inside it records.
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
if ! cmp -s "$root/tools/requirements.txt" "$venv/requirements.txt"; then
  echo "setup: creating $venv (tools/requirements.txt from PyPI)" >&2
  rm -rf "$venv"
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$root/tools/requirements.txt" >&2
  cp "$root/tools/requirements.txt" "$venv/requirements.txt"
fi

# The PyPI MPIs asked for.
. "$root/scripts/mpi-env.sh"
for name in "$@"; do
  [ -n "${PYPI_MPIS[$name]:-}" ] || { echo "setup: no PyPI MPI named '$name' (${!PYPI_MPIS[*]})" >&2; exit 2; }
  venv="$root/.venv-$name"
  if [ "$(cat "$venv/mcio-pin" 2>/dev/null)" != "${PYPI_MPIS[$name]}" ]; then
    echo "setup: creating $venv (${PYPI_MPIS[$name]} from PyPI)" >&2
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv"
    # shellcheck disable=SC2086 # the pin is pip's arguments
    "$venv/bin/pip" install -q --disable-pip-version-check ${PYPI_MPIS[$name]} >&2
    echo "${PYPI_MPIS[$name]}" > "$venv/mcio-pin"
  fi
done
