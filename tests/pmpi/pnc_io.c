/*
 * An unmodified PnetCDF program: two variables (a 2-D int and a 1-D double with a record
 * dimension) written with ncmpi_put_vara_*_all (half of the ranks with zero counts in each
 * call) and read back with ncmpi_get_vara_*_all.
 * run_pmpi.sh runs it natively and under the layer and compares the files (cmp; ncmpidiff if
 * the bytes differ) and the read dumps.
 * Usage: pnc_io <file> <dump prefix> <calls file>   (writes "-")
 */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmpi_test.h"

#define NY 23 /* rows per rank */
#define NX 129
#define NREC 3

#define NC(call)                                                                     \
    do {                                                                             \
        int e_ = (call);                                                             \
        if (e_ != NC_NOERR) {                                                        \
            fprintf(stderr, "FAIL rank %d line %d: %s\n", rank, __LINE__, ncmpi_strerror(e_)); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

int main(int argc, char **argv)
{
    int rank, nprocs, failures = 0, nc, dy, dx, dr, v2, v1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int *a = malloc(sizeof(int) * NY * NX), *ra = malloc(sizeof(int) * NY * NX);
    double b[NREC * NY], rb[NREC * NY];
    for (int i = 0; i < NY * NX; i++)
        a[i] = rank * 100000 + i;
    for (int i = 0; i < NREC * NY; i++)
        b[i] = rank + i / 8.0;
    NC(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc));
    NC(ncmpi_def_dim(nc, "y", (MPI_Offset)NY * nprocs, &dy));
    NC(ncmpi_def_dim(nc, "x", NX, &dx));
    NC(ncmpi_def_dim(nc, "rec", NC_UNLIMITED, &dr));
    int d2[] = {dy, dx};
    NC(ncmpi_def_var(nc, "field", NC_INT, 2, d2, &v2));
    int d1[] = {dr, dy};
    NC(ncmpi_def_var(nc, "series", NC_DOUBLE, 2, d1, &v1));
    NC(ncmpi_enddef(nc));
    MPI_Offset s2[] = {(MPI_Offset)NY * rank, 0}, c2[] = {NY, NX};
    NC(ncmpi_put_vara_int_all(nc, v2, s2, c2, a));
    /* even ranks in one call, odd ones in the next (zero-count calls on the others); no holes:
     * MPI libraries leave undefined bytes in holes past the end of file */
    MPI_Offset s1[] = {0, (MPI_Offset)NY * rank}, c1[] = {NREC, rank % 2 ? 0 : NY};
    NC(ncmpi_put_vara_double_all(nc, v1, s1, c1, b));
    MPI_Offset c1b[] = {NREC, rank % 2 ? NY : 0};
    NC(ncmpi_put_vara_double_all(nc, v1, s1, c1b, b));
    c1[1] = NY;
    NC(ncmpi_close(nc));

    NC(ncmpi_open(MPI_COMM_WORLD, argv[1], NC_NOWRITE, MPI_INFO_NULL, &nc));
    for (int i = 0; i < NY * NX; i++)
        ra[i] = -1;
    for (int i = 0; i < NREC * NY; i++)
        rb[i] = -1;
    NC(ncmpi_get_vara_int_all(nc, v2, s2, c2, ra));
    NC(ncmpi_get_vara_double_all(nc, v1, s1, c1, rb));
    NC(ncmpi_close(nc));
    for (int i = 0; i < NY * NX; i++)
        if (ra[i] != a[i] && failures++ < 5)
            fprintf(stderr, "FAIL rank %d: field[%d] = %d, expected %d\n", rank, i, ra[i], a[i]);
    for (int i = 0; i < (int)(c1[0] * c1[1]); i++)
        if (rb[i] != b[i] && failures++ < 5)
            fprintf(stderr, "FAIL rank %d: series[%d] = %g, expected %g\n", rank, i, rb[i], b[i]);
    char dname[4096];
    snprintf(dname, sizeof dname, "%s.%d", argv[2], rank);
    FILE *dump = fopen(dname, "w");
    if (dump) {
        fwrite(ra, sizeof(int), NY * NX, dump);
        fwrite(rb, sizeof(double), NREC * NY, dump);
        fclose(dump);
    }
    return pmpi_test_finish("pnc_io", failures, argv[3], "-");
}
