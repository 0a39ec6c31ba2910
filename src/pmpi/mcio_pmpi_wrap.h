/*
 * Interception macros of the drop-in layer, one header for both ways of getting in front of the
 * MPI library (Darshan's darshan-mpiio.c and UnifyFS's gotcha/wrap headers do the same):
 *
 * - shared library (libmcio_preload.so, LD_PRELOAD or linked before libmpi): the wrapper *is*
 *   MPI_File_write_all; the next definition (the MPI library's, or another tool's) is found with
 *   dlsym(RTLD_NEXT), and the PMPI_ name is the fallback;
 * - static archive built with -DMCIO_PMPI_LINKTIME (libmcio_wrap.a, linked with
 *   -Wl,--wrap=MPI_File_write_all,...): the wrapper is __wrap_MPI_File_write_all and the real
 *   function __real_MPI_File_write_all.
 *
 * MCIO_REAL_DECL(ret, name, params) declares the real function; MCIO_WRAPPER(name) is the name the
 * wrapper is defined under; MCIO_REAL(name) calls through to the real function.
 */
#ifndef MCIO_PMPI_WRAP_H
#define MCIO_PMPI_WRAP_H

#ifdef MCIO_PMPI_LINKTIME

#define MCIO_WRAPPER(name) __wrap_##name
#define MCIO_REAL_DECL(ret, name, params) extern ret __real_##name params;
#define MCIO_REAL(name) __real_##name

#else

/* dlsym(RTLD_NEXT, name), or fallback when nothing follows us (a static MPI). */
void *mcio_pmpi_resolve(const char *name, void *fallback);

#define MCIO_WRAPPER(name) name
/* The race on first use is benign: every thread stores the same address. */
#define MCIO_REAL_DECL(ret, name, params)                                                \
    static ret(*real_##name) params;                                                     \
    static ret (*mcio_real_##name(void)) params                                          \
    {                                                                                    \
        if (!real_##name)                                                                \
            real_##name = (__typeof__(real_##name))mcio_pmpi_resolve(#name, (void *)&P##name); \
        return real_##name;                                                              \
    }
#define MCIO_REAL(name) mcio_real_##name()

#endif

#endif
