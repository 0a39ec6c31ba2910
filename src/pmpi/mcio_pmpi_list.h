/*
 * The MPI-IO calls the drop-in layer wraps: one line each. mcio_pmpi_wrappers.c generates the
 * wrappers from these lists; CMake reads this file for the -Wl,--wrap= options of link-time use
 * (every `File_...` name below, plus `_c` for the large-count collectives where the MPI has them).
 *
 * MCIO_PMPI_COLLECTIVES(X, count type, name suffix): X(form, position, write, name, buffer type,
 * count type) for the collective data calls, served by the engine.
 */
#ifndef MCIO_PMPI_LIST_H
#define MCIO_PMPI_LIST_H

#define MCIO_PMPI_COLLECTIVES(X, CNT, SFX)                                        \
    X(BLOCKING, INDIV, 1, File_write_all##SFX, const void *, CNT)                 \
    X(BLOCKING, INDIV, 0, File_read_all##SFX, void *, CNT)                        \
    X(BLOCKING, AT, 1, File_write_at_all##SFX, const void *, CNT)                 \
    X(BLOCKING, AT, 0, File_read_at_all##SFX, void *, CNT)                        \
    X(NONBLOCKING, INDIV, 1, File_iwrite_all##SFX, const void *, CNT)             \
    X(NONBLOCKING, INDIV, 0, File_iread_all##SFX, void *, CNT)                    \
    X(NONBLOCKING, AT, 1, File_iwrite_at_all##SFX, const void *, CNT)             \
    X(NONBLOCKING, AT, 0, File_iread_at_all##SFX, void *, CNT)                    \
    X(BEGIN, INDIV, 1, File_write_all_begin##SFX, const void *, CNT)              \
    X(BEGIN, INDIV, 0, File_read_all_begin##SFX, void *, CNT)                     \
    X(BEGIN, AT, 1, File_write_at_all_begin##SFX, const void *, CNT)              \
    X(BEGIN, AT, 0, File_read_at_all_begin##SFX, void *, CNT)

/* X(name, buffer type): the ends of the split collectives (no large-count forms). */
#define MCIO_PMPI_SPLIT_ENDS(X)                                                   \
    X(File_write_all_end, const void *)                                           \
    X(File_read_all_end, void *)                                                  \
    X(File_write_at_all_end, const void *)                                        \
    X(File_read_at_all_end, void *)

/* Wrapped by hand in mcio_pmpi_wrappers.c (bookkeeping around the MPI library's routine):
 * File_open File_close File_set_view File_set_info File_get_info File_sync */

#endif
