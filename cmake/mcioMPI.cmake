# Which MPI mcio is built with, found the standard way (included twice by CMakeLists.txt).
#
# mcio_mpi_choose_compiler() runs before project(): CMake's own conventions decide
# (-DMPI_C_COMPILER=/path/to/mpicc, -DMPIEXEC_EXECUTABLE=..., or an mpicc on PATH), with one
# convenience for Debian, which installs MPICH and Open MPI side by side and lets them fight over
# `mpicc`: -DMCIO_MPI=mpich|openmpi names the wrappers mpicc.<name> and mpiexec.<name>.
# -DMCIO_MPI=smpi is SimGrid's simulated MPI (docs/simulation.md).
#
# mcio_mpi_describe() runs after find_package(MPI): it reads from mpi.h which MPI this is, not
# from any name, and sets
#   MCIO_MPI              the family: mpich (MPICH and its derivatives: Intel MPI, Cray MPICH,
#                         MVAPICH) or openmpi; what the tests and the drop-in layer key on
#   MCIO_MPI_IMPL         mpich, intelmpi or openmpi; MCIO_MPI_VERSION its version ("5.0.11")
#   MCIO_MPIEXEC_FLAGS    what every launch needs (Open MPI: oversubscription, root)
#   MCIO_MPI_ROMIO_IO     Open MPI's ROMIO component (romio321 in 4.x, romio341 in 5.x), from
#                         ompi_info; empty for the MPICH family, whose only engine is ROMIO
# and writes them into <build>/mcio-mpi.sh, which the scripts source to launch that MPI.

macro(mcio_mpi_choose_compiler)
  set(MCIO_MPI "" CACHE STRING
      "Debian's side-by-side MPIs by name (mpich, openmpi: mpicc.<name>), smpi (simulated), or empty: CMake's own MPI_C_COMPILER / mpicc on PATH")
  set_property(CACHE MCIO_MPI PROPERTY STRINGS "" mpich openmpi smpi)
  set(MCIO_MPI_CHOICE "${MCIO_MPI}")
  if(NOT MCIO_MPI_CHOICE MATCHES "^(|mpich|openmpi|smpi)$")
    message(FATAL_ERROR "MCIO_MPI must be mpich, openmpi, smpi or empty (CMake's MPI_C_COMPILER), not '${MCIO_MPI_CHOICE}'")
  endif()
  set(MCIO_SIMULATE OFF)
  if(MCIO_MPI_CHOICE STREQUAL "smpi")
    set(MCIO_SIMULATE ON)
    find_program(MCIO_MPICC smpicc REQUIRED)
    find_program(MCIO_MPIEXEC smpirun REQUIRED)
    # smpicc builds every program as a shared object that smpirun loads once per simulated rank.
    set(CMAKE_C_COMPILER "${MCIO_MPICC}" CACHE FILEPATH "" FORCE)
  elseif(MCIO_MPI_CHOICE)
    find_program(MCIO_MPICC mpicc.${MCIO_MPI_CHOICE} REQUIRED)
    find_program(MCIO_MPIEXEC mpiexec.${MCIO_MPI_CHOICE} REQUIRED)
    set(MPI_C_COMPILER "${MCIO_MPICC}" CACHE FILEPATH "" FORCE)
    set(MPIEXEC_EXECUTABLE "${MCIO_MPIEXEC}" CACHE FILEPATH "" FORCE)
  else()
    find_program(MPI_C_COMPILER NAMES mpicc)
    if(MPI_C_COMPILER AND NOT MPIEXEC_EXECUTABLE)
      # The launcher that belongs to the compiler, not the first on PATH, which may be another
      # MPI's: beside it (/opt/mpi/bin/mpicc: /opt/mpi/bin/mpiexec), with its suffix when it has
      # one (/usr/bin/mpicc, Debian's alternative for mpicc.openmpi: mpiexec.openmpi).
      # The links are followed one by one: mpicc.openmpi is itself a link to opal_wrapper.
      set(_cc "${MPI_C_COMPILER}")
      set(_names mpiexec mpirun)
      get_filename_component(_dir "${_cc}" DIRECTORY)
      foreach(_hop RANGE 8)
        get_filename_component(_name "${_cc}" NAME)
        if(_name MATCHES "^mpicc([._-].+)$")
          set(_names mpiexec${CMAKE_MATCH_1} mpirun${CMAKE_MATCH_1})
          get_filename_component(_dir "${_cc}" DIRECTORY)
          break()
        endif()
        if(NOT IS_SYMLINK "${_cc}")
          break()
        endif()
        file(READ_SYMLINK "${_cc}" _to)
        if(NOT IS_ABSOLUTE "${_to}")
          get_filename_component(_at "${_cc}" DIRECTORY)
          set(_to "${_at}/${_to}")
        endif()
        set(_cc "${_to}")
      endforeach()
      find_program(MPIEXEC_EXECUTABLE NAMES ${_names} HINTS "${_dir}" NO_DEFAULT_PATH)
    endif()
  endif()
  mcio_mpi_intel_root()
endmacro()

# Intel MPI's compiler wrappers find their installation through I_MPI_ROOT, which its
# setvars.sh or a module sets; without it they name paths that do not exist and FindMPI fails
# ("Imported target MPI::MPI_C includes non-existent path"). An installation used without
# either (a PyPI one: .venv-impi) is found from the wrapper's own prefix, where impi_info
# sits beside it, for the configure step's queries; the build calls the C compiler itself.
macro(mcio_mpi_intel_root)
  if(MPI_C_COMPILER AND NOT DEFINED ENV{I_MPI_ROOT})
    set(_icc "${MPI_C_COMPILER}")
    if(NOT IS_ABSOLUTE "${_icc}")
      find_program(_icc_path NAMES "${_icc}")
      set(_icc "${_icc_path}")
      unset(_icc_path CACHE)
    endif()
    get_filename_component(_ibin "${_icc}" DIRECTORY)
    if(_ibin AND EXISTS "${_ibin}/impi_info")
      get_filename_component(_iroot "${_ibin}" DIRECTORY)
      set(ENV{I_MPI_ROOT} "${_iroot}")
      message(STATUS "Intel MPI without I_MPI_ROOT: set to ${_iroot} for its compiler wrapper")
    endif()
  endif()
endmacro()

# The MPI's identity from its header, compiled (not run: a configure step must not need a
# working launcher). CMake's own compiler identification reads "INFO:" strings out of a binary.
function(mcio_mpi_identify out_impl out_version)
  set(src "${CMAKE_BINARY_DIR}/CMakeFiles/mcio_mpi_id.c")
  file(WRITE "${src}" [=[
#include <mpi.h>
#define S_(x) #x
#define S(x) S_(x)
#if defined(I_MPI_VERSION)
#define ID "intelmpi:" I_MPI_VERSION
#elif defined(OMPI_MAJOR_VERSION)
#define ID "openmpi:" S(OMPI_MAJOR_VERSION) "." S(OMPI_MINOR_VERSION) "." S(OMPI_RELEASE_VERSION)
#elif defined(MPICH_VERSION)
#define ID "mpich:" MPICH_VERSION
#else
#define ID "unknown:" S(MPI_VERSION) "." S(MPI_SUBVERSION)
#endif
const char mcio_mpi_id[] = "INFO:mcio_mpi[" ID "]";
int main(int argc, char **argv) { (void)argv; return mcio_mpi_id[argc]; }
]=])
  try_compile(ok "${CMAKE_BINARY_DIR}/CMakeFiles/mcio_mpi_id" "${src}"
              LINK_LIBRARIES MPI::MPI_C OUTPUT_VARIABLE log
              COPY_FILE "${CMAKE_BINARY_DIR}/CMakeFiles/mcio_mpi_id.bin")
  if(NOT ok)
    message(FATAL_ERROR "cannot compile a program with ${MPI_C_COMPILER}:\n${log}")
  endif()
  file(STRINGS "${CMAKE_BINARY_DIR}/CMakeFiles/mcio_mpi_id.bin" id REGEX "INFO:mcio_mpi\\[")
  string(REGEX REPLACE ".*INFO:mcio_mpi\\[([a-z]+):([^]]*)\\].*" "\\1;\\2" id "${id}")
  list(GET id 0 impl)
  list(GET id 1 version)
  set(${out_impl} "${impl}" PARENT_SCOPE)
  set(${out_version} "${version}" PARENT_SCOPE)
endfunction()

# Open MPI's ROMIO component has the ROMIO release in its name; ompi_info lists the io components.
function(mcio_mpi_romio_component out)
  get_filename_component(dir "${MPIEXEC_EXECUTABLE}" DIRECTORY)
  find_program(MCIO_OMPI_INFO ompi_info HINTS "${dir}" NO_DEFAULT_PATH)
  find_program(MCIO_OMPI_INFO ompi_info)
  set(component "")
  if(MCIO_OMPI_INFO)
    execute_process(COMMAND "${MCIO_OMPI_INFO}" --parsable OUTPUT_VARIABLE info ERROR_QUIET
                    TIMEOUT 60)
    string(REGEX MATCH "mca:io:(romio[0-9]+):" _m "${info}")
    set(component "${CMAKE_MATCH_1}")
  endif()
  if(NOT component)
    message(WARNING "no ROMIO io component in '${MCIO_OMPI_INFO} --parsable': native runs use OMPIO only")
  endif()
  set(${out} "${component}" PARENT_SCOPE)
endfunction()

macro(mcio_mpi_describe)
  mcio_mpi_identify(MCIO_MPI_IMPL MCIO_MPI_VERSION)
  if(MCIO_MPI_IMPL STREQUAL "openmpi")
    set(_family openmpi)
  elseif(MCIO_MPI_IMPL MATCHES "^(mpich|intelmpi)$")
    set(_family mpich)
  else()
    message(FATAL_ERROR "${MPI_C_COMPILER}: mpi.h names neither the MPICH family (MPICH_VERSION, I_MPI_VERSION) nor Open MPI (OMPI_MAJOR_VERSION); mcio is tested with those")
  endif()
  if(MCIO_MPI_CHOICE AND NOT MCIO_MPI_CHOICE STREQUAL _family)
    message(FATAL_ERROR "MCIO_MPI=${MCIO_MPI_CHOICE}, but ${MPI_C_COMPILER} is ${MCIO_MPI_IMPL} ${MCIO_MPI_VERSION}")
  endif()
  # From here on MCIO_MPI is the family found, whatever named the compiler.
  set(MCIO_MPI ${_family})
  set(MCIO_MPICC "${MPI_C_COMPILER}")
  if(NOT MPIEXEC_EXECUTABLE)
    message(FATAL_ERROR "no launcher found for ${MPI_C_COMPILER}: give -DMPIEXEC_EXECUTABLE=/path/to/mpiexec")
  endif()
  # Open MPI refuses more ranks than cores without --oversubscribe (4.x and 5.x alike; 5.x also
  # spells it --map-by :OVERSUBSCRIBE), and root without --allow-run-as-root.
  set(MCIO_MPIEXEC_FLAGS "")
  set(MCIO_MPI_ROMIO_IO "")
  if(MCIO_MPI STREQUAL "openmpi")
    list(APPEND MCIO_MPIEXEC_FLAGS --oversubscribe)
    execute_process(COMMAND id -u OUTPUT_VARIABLE _uid OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_uid STREQUAL "0")
      list(APPEND MCIO_MPIEXEC_FLAGS --allow-run-as-root)
    endif()
    mcio_mpi_romio_component(MCIO_MPI_ROMIO_IO)
  endif()
  string(REPLACE ";" " " _flags "${MCIO_MPIEXEC_FLAGS}")
  set(_romio "")
  if(MCIO_MPI_ROMIO_IO)
    set(_romio "; ROMIO: --mca io ${MCIO_MPI_ROMIO_IO}")
  endif()
  message(STATUS "mcio: ${MCIO_MPI_IMPL} ${MCIO_MPI_VERSION} (${MCIO_MPI} family): ${MPI_C_COMPILER}, launched by ${MPIEXEC_EXECUTABLE} ${_flags}${_romio}")
  file(WRITE "${CMAKE_BINARY_DIR}/mcio-mpi.sh"
       "# The MPI this build uses (cmake/mcioMPI.cmake), for scripts: . <build>/mcio-mpi.sh\n"
       "MCIO_MPI=${MCIO_MPI}\nMCIO_MPI_IMPL=${MCIO_MPI_IMPL}\nMCIO_MPI_VERSION=${MCIO_MPI_VERSION}\n"
       "MCIO_MPICC='${MPI_C_COMPILER}'\nMCIO_MPIEXEC='${MPIEXEC_EXECUTABLE}'\n"
       "MCIO_MPIEXEC_FLAGS=(${_flags})\n"
       "# Open MPI's ROMIO io component (--mca io ...), empty for the MPICH family\n"
       "MCIO_MPI_ROMIO_IO=${MCIO_MPI_ROMIO_IO}\n")
endmacro()

# mcio_mpi_links_ours(<out> <file>): whether a library or program that loads an MPI library
# (HDF5, PnetCDF, mpi4py's extension...) loads this build's, compared by real path: a library
# built for another MPI would load two MPI libraries into one process, or fail to link. Sets
# <out> to TRUE or FALSE, and <out>_MPI to the MPI libraries it loads (for a skip's reason).
function(mcio_mpi_links_ours out file)
  set(ours "")
  foreach(lib IN LISTS MPI_C_LIBRARIES)
    get_filename_component(name "${lib}" NAME)
    if(name MATCHES "^libmpi(ch)?\\.so")
      get_filename_component(real "${lib}" REALPATH)
      list(APPEND ours "${real}")
    endif()
  endforeach()
  execute_process(COMMAND ldd "${file}" OUTPUT_VARIABLE deps ERROR_QUIET)
  string(REGEX MATCHALL "libmpi(ch)?\\.so[^\n]* => [^ \n]+" lines "${deps}")
  set(theirs "")
  set(match FALSE)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE ".* => " "" path "${line}")
    get_filename_component(real "${path}" REALPATH)
    list(APPEND theirs "${path}")
    if(real IN_LIST ours)
      set(match TRUE)
    endif()
  endforeach()
  if(NOT theirs)
    set(theirs "no MPI library")
  endif()
  set(${out} ${match} PARENT_SCOPE)
  set(${out}_MPI "${theirs}" PARENT_SCOPE)
endfunction()
