# `cmake --install`: the library, its header, the drop-in layer, the tools, a CMake package
# (find_package(mcio): mcio::mcio, mcio::preload, mcio::wrap) and a pkg-config file (mcio.pc).
#
# One install per MPI, each in its own prefix (as Spack and module trees do), e.g.
#   cmake --install build/mpich   --prefix /opt/mcio/mpich
#   cmake --install build/openmpi --prefix /opt/mcio/openmpi
# The file names are the same in both; the prefix says which MPI. The package records the MPI it
# was built with (MCIO_MPI, its mpicc) and finds that one for the consumer, and mcio.pc requires
# that MPI's own pkg-config module (mpich or ompi-c), so an application that finds mcio is built
# against the right MPI without naming it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(MCIO_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/mcio)

# Installed binaries find libmcio.so next to them (libraries) or in ../lib (programs), wherever
# the prefix is moved.
file(RELATIVE_PATH _bin_to_lib ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}
     ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR})
set_target_properties(mcio mcio_preload PROPERTIES INSTALL_RPATH "$ORIGIN")
set_target_properties(mcio-bench mcio-plan PROPERTIES INSTALL_RPATH "$ORIGIN/${_bin_to_lib}")
set_target_properties(mcio_preload PROPERTIES EXPORT_NAME preload)
set_target_properties(mcio_wrap PROPERTIES EXPORT_NAME wrap)
# An application linked with mcio::wrap gets the -Wl,--wrap= options of every wrapped call.
target_link_options(mcio_wrap INTERFACE
  "$<INSTALL_INTERFACE:LINKER:@$<INSTALL_PREFIX>/${CMAKE_INSTALL_DATADIR}/mcio/mcio_wrap.opts>")

install(TARGETS mcio mcio_preload mcio_wrap EXPORT mcioTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS mcio-bench mcio-plan mcio-fsync-check RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES include/mcio.h include/mcio_errors.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_BINARY_DIR}/src/pmpi/mcio_wrap.opts DESTINATION ${CMAKE_INSTALL_DATADIR}/mcio)
install(PROGRAMS ${CMAKE_BINARY_DIR}/mcio-run.install DESTINATION ${CMAKE_INSTALL_BINDIR}
        RENAME mcio-run)
install(FILES docs/hints.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

install(EXPORT mcioTargets NAMESPACE mcio:: DESTINATION ${MCIO_INSTALL_CMAKEDIR})
configure_package_config_file(cmake/mcioConfig.cmake.in ${CMAKE_BINARY_DIR}/mcioConfig.cmake
                              INSTALL_DESTINATION ${MCIO_INSTALL_CMAKEDIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/mcioConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/mcioConfig.cmake ${CMAKE_BINARY_DIR}/mcioConfigVersion.cmake
        DESTINATION ${MCIO_INSTALL_CMAKEDIR})

# mcio.pc requires the MPI's own pkg-config module when there is one for this very MPI (its
# libdir holds the library FindMPI found: Debian's mpich and ompi-c); otherwise (a PyPI or vendor
# MPI without one, or another MPI's module of the same name) it carries the MPI's flags itself.
if(MCIO_MPI STREQUAL "mpich")
  set(_pc_mod mpich)
else()
  set(_pc_mod ompi-c)
endif()
list(GET MPI_C_LIBRARIES 0 _mpi_lib)
get_filename_component(_mpi_libdir "${_mpi_lib}" DIRECTORY)
get_filename_component(_mpi_libdir "${_mpi_libdir}" REALPATH)
execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --variable=libdir ${_pc_mod}
                OUTPUT_VARIABLE _pc_libdir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
set(MCIO_PC_MPI "")
set(MCIO_PC_MPI_CFLAGS "")
set(MCIO_PC_MPI_LIBS "")
if(_pc_libdir)
  get_filename_component(_pc_libdir "${_pc_libdir}" REALPATH)
endif()
if(_pc_libdir STREQUAL _mpi_libdir)
  set(MCIO_PC_MPI ${_pc_mod})
else()
  foreach(_d IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND MCIO_PC_MPI_CFLAGS " -I${_d}")
  endforeach()
  foreach(_l IN LISTS MPI_C_LIBRARIES)
    get_filename_component(_d "${_l}" DIRECTORY)
    string(APPEND MCIO_PC_MPI_LIBS " -Wl,-rpath,${_d} ${_l}")
  endforeach()
endif()
# Relocatable: the prefix is found from where pkg-config found the file.
file(RELATIVE_PATH MCIO_PC_TO_PREFIX ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig
     ${CMAKE_INSTALL_PREFIX})
configure_file(cmake/mcio.pc.in ${CMAKE_BINARY_DIR}/mcio.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/mcio.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
