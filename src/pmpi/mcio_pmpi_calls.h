/*
 * The drop-in layer's calls, in one table. Generated from it:
 *   - the C wrappers (mcio_pmpi_wrappers.c: the MPI_ names for LD_PRELOAD, __wrap_ for --wrap),
 *   - the Fortran wrappers of `use mpi` / mpif.h and of mpi_f08 (mcio_pmpi_fortran.c),
 *   - the -Wl,--wrap= options (src/pmpi/CMakeLists.txt reads the rows' first two columns),
 *   - the list of symbols the libraries must define, checked against `nm` by the test
 *     lint.pmpi_table (so no wrapper lives outside the table, and none is missing).
 *
 * MCIO_PMPI_CALLS(X): X(name, shape, write, buffer type, large, Fortran symbol, f08 symbol, errors)
 *   name     the MPI name without MPI_;
 *   shape    how the layer handles it: a collective data call by form and position
 *            (BLOCKING|NONBLOCKING|BEGIN _ INDIV|AT), served by the engine; END, the end of a
 *            split collective; or the bookkeeping call it is (OPEN, CLOSE, SET_VIEW, SET_INFO,
 *            GET_INFO, SYNC), the MPI library's routine with the layer's bookkeeping around it;
 *   write    1 write, 0 read (collectives and ends; 0 for bookkeeping);
 *   buffer   the buffer's C type (collectives and ends; void for bookkeeping);
 *   large    LARGE: also an MPI 4 large-count form, MPI_<name>_c (wrapped where mpi.h has it);
 *            SMALL: none;
 *   Fortran  gfortran's symbol of the `use mpi` / mpif.h binding (Open MPI's call PMPI_ directly,
 *            so only these wrappers see a Fortran program's calls; MPICH's call the C MPI_ names);
 *   f08      the mpi_f08 symbol. Open MPI's call PMPI_ directly: all wrapped. MPICH's data calls
 *            are other symbols (mpi_file_write_all_f08ts_, buffers as C descriptors) that call
 *            the C MPI_ names, which the C wrappers serve; its bookkeeping calls have these
 *            symbols and call PMPI_ directly: wrapped (Debian's libmpichfort 4.0 and Open MPI
 *            4.1's libmpi_usempif08, read with nm -D and objdump);
 *   errors   RAISE: an mcio error becomes an MPI error of its class (MCIO_PMPI_ERROR_CLASSES),
 *            raised through the file's error handler and returned; MPI: the MPI library's code
 *            is returned, the layer's bookkeeping cannot fail the call (a hint it cannot take
 *            fails the next collective call instead, which is RAISE).
 */
#ifndef MCIO_PMPI_CALLS_H
#define MCIO_PMPI_CALLS_H

/* clang-format off */
#define MCIO_PMPI_CALLS(X) \
    X(File_write_all, BLOCKING_INDIV, 1, const void *, LARGE, mpi_file_write_all_, mpi_file_write_all_f08_, RAISE) \
    X(File_read_all, BLOCKING_INDIV, 0, void *, LARGE, mpi_file_read_all_, mpi_file_read_all_f08_, RAISE) \
    X(File_write_at_all, BLOCKING_AT, 1, const void *, LARGE, mpi_file_write_at_all_, mpi_file_write_at_all_f08_, RAISE) \
    X(File_read_at_all, BLOCKING_AT, 0, void *, LARGE, mpi_file_read_at_all_, mpi_file_read_at_all_f08_, RAISE) \
    X(File_iwrite_all, NONBLOCKING_INDIV, 1, const void *, LARGE, mpi_file_iwrite_all_, mpi_file_iwrite_all_f08_, RAISE) \
    X(File_iread_all, NONBLOCKING_INDIV, 0, void *, LARGE, mpi_file_iread_all_, mpi_file_iread_all_f08_, RAISE) \
    X(File_iwrite_at_all, NONBLOCKING_AT, 1, const void *, LARGE, mpi_file_iwrite_at_all_, mpi_file_iwrite_at_all_f08_, RAISE) \
    X(File_iread_at_all, NONBLOCKING_AT, 0, void *, LARGE, mpi_file_iread_at_all_, mpi_file_iread_at_all_f08_, RAISE) \
    X(File_write_all_begin, BEGIN_INDIV, 1, const void *, LARGE, mpi_file_write_all_begin_, mpi_file_write_all_begin_f08_, RAISE) \
    X(File_read_all_begin, BEGIN_INDIV, 0, void *, LARGE, mpi_file_read_all_begin_, mpi_file_read_all_begin_f08_, RAISE) \
    X(File_write_at_all_begin, BEGIN_AT, 1, const void *, LARGE, mpi_file_write_at_all_begin_, mpi_file_write_at_all_begin_f08_, RAISE) \
    X(File_read_at_all_begin, BEGIN_AT, 0, void *, LARGE, mpi_file_read_at_all_begin_, mpi_file_read_at_all_begin_f08_, RAISE) \
    X(File_write_all_end, END, 1, const void *, SMALL, mpi_file_write_all_end_, mpi_file_write_all_end_f08_, MPI) \
    X(File_read_all_end, END, 0, void *, SMALL, mpi_file_read_all_end_, mpi_file_read_all_end_f08_, MPI) \
    X(File_write_at_all_end, END, 1, const void *, SMALL, mpi_file_write_at_all_end_, mpi_file_write_at_all_end_f08_, MPI) \
    X(File_read_at_all_end, END, 0, void *, SMALL, mpi_file_read_at_all_end_, mpi_file_read_at_all_end_f08_, MPI) \
    X(File_open, OPEN, 0, void, SMALL, mpi_file_open_, mpi_file_open_f08_, MPI) \
    X(File_close, CLOSE, 0, void, SMALL, mpi_file_close_, mpi_file_close_f08_, MPI) \
    X(File_set_view, SET_VIEW, 0, void, SMALL, mpi_file_set_view_, mpi_file_set_view_f08_, MPI) \
    X(File_set_info, SET_INFO, 0, void, SMALL, mpi_file_set_info_, mpi_file_set_info_f08_, MPI) \
    X(File_get_info, GET_INFO, 0, void, SMALL, mpi_file_get_info_, mpi_file_get_info_f08_, MPI) \
    X(File_sync, SYNC, 0, void, SMALL, mpi_file_sync_, mpi_file_sync_f08_, RAISE)

/* mcio status -> MPI error class, for the RAISE rows: X(mcio status, MPI class). Statuses not
 * listed (MCIO_ERR_MPI) become MPI_ERR_OTHER. */
#define MCIO_PMPI_ERROR_CLASSES(X) \
    X(MCIO_ERR_ARG, MPI_ERR_ARG) \
    X(MCIO_ERR_HINT, MPI_ERR_INFO_VALUE) \
    X(MCIO_ERR_AMODE, MPI_ERR_ACCESS) \
    X(MCIO_ERR_NOMEM, MPI_ERR_NO_MEM) \
    X(MCIO_ERR_FILE, MPI_ERR_FILE) \
    X(MCIO_ERR_IO, MPI_ERR_IO) \
    X(MCIO_ERR_NOSPACE, MPI_ERR_NO_SPACE) \
    X(MCIO_ERR_FBIG, MPI_ERR_IO) \
    X(MCIO_ERR_INTERNAL, MPI_ERR_INTERN)
/* clang-format on */

#endif
