/*
 * The host's figures kept between processes (mcio_calibrate.c, host_figures): a copy's cost
 * per byte and the cost per piece of the MPI library's datatype engine and mcio's lists. They
 * are the host's and its MPI library's, not the job's, yet each process measured them at its
 * first open on the node's first rank: 1.5-2 ms there (most of it faulting in fresh memory),
 * while the node's other ranks waited in the next collective (issue 51: the first call of a
 * drop-in program), and each measurement's noise moved the cost model's choice between
 * processes (issue 48). So the last KEEP measurements of this host and library are kept in
 * <cache directory>/host-<hostname>-<library hash>.<generation>, one "copy piece" line each,
 * and once ENOUGH are there their medians stand instead of a measurement. Until then a process
 * measures and adds its line (written atomically: a temporary file renamed). A cache that
 * cannot be read or written only means a measurement per process, as before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "calibrate_internal.h"
#include "mcio_fnv1a.h"

#ifndef MCIO_SIMULATE /* simulated ranks share a process and a host: nothing is kept */

enum { KEEP = 5, ENOUGH = 3 };

/* The file's path into out; 0, or -1 when no cache directory or host name can be had. dir:
 * its directory. */
static int host_path(char *dir, size_t dcap, char *out, size_t cap)
{
    char host[256] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        return -1;
    PMPI_Get_library_version(lib, &len);
    uint64_t h = mcio_fnv1a(MCIO_FNV1A_OFFSET, lib, len > 0 ? (size_t)len : 0);
    if (mcio_calibrate_cache_dir(dir, dcap) != 0)
        return -1;
    int n = snprintf(out, cap, "%s/host-%s-%016llx.%d", dir, host, (unsigned long long)h,
                 MCIO_CALIBRATE_GENERATION);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The measurements in the file, oldest first, into copy[] and piece[]: how many (0 when none). */
static int host_read(const char *path, double copy[KEEP], double piece[KEEP])
{
    FILE *f = fopen(path, "r");
    int n = 0;
    double c, p;
    while (f && n < KEEP && fscanf(f, "%lg %lg", &c, &p) == 2)
        if (c > 0 && p >= 0)
            copy[n] = c, piece[n++] = p;
    if (f)
        fclose(f);
    return n;
}

int mcio_calibrate_host_kept(double *copy, double *piece)
{
    char dir[MCIO_PATH_LEN], path[MCIO_PATH_LEN + 320];
    double c[KEEP], p[KEEP];
    int n = host_path(dir, sizeof dir, path, sizeof path) == 0 ? host_read(path, c, p) : 0;
    if (n < ENOUGH)
        return -1;
    *copy = mcio_calibrate_median_of(c, n);
    *piece = mcio_calibrate_median_of(p, n);
    return 0;
}

void mcio_calibrate_host_keep(double *copy, double *piece)
{
    char dir[MCIO_PATH_LEN], path[MCIO_PATH_LEN + 320];
    double c[KEEP + 1], p[KEEP + 1];
    if (host_path(dir, sizeof dir, path, sizeof path) != 0)
        return;
    int n = host_read(path, c, p);
    if (n == KEEP) /* the oldest goes */
        memmove(c, c + 1, (KEEP - 1) * sizeof c[0]), memmove(p, p + 1, (KEEP - 1) * sizeof p[0]), n--;
    c[n] = *copy, p[n++] = *piece;
    char text[(KEEP + 1) * 64];
    int len = 0;
    for (int i = 0; i < n; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, "%.6e %.6e\n", c[i], p[i]);
    mcio_calibrate_write_atomic(dir, path, text, (size_t)len);
    /* This process's figures: the medians with its own measurement among them. */
    *copy = mcio_calibrate_median_of(c, n);
    *piece = mcio_calibrate_median_of(p, n);
}
#endif
