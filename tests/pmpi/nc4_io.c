/*
 * A parallel NetCDF-4 program (Debian's libnetcdf-mpi-dev, built with Open MPI): a 3-D variable
 * (time, y, x) whose y slabs belong to the ranks, written collectively one time step at a time
 * (nc_var_par_access NC_COLLECTIVE), and a 1-D variable written as each rank's strided
 * elements; reopened and read back collectively, every value checked. run_pmpi.sh compares the
 * files (h5diff: NetCDF-4 files are HDF5 files) and reads natively and under the layer.
 * Usage: nc4_io <file> <dump prefix> <calls file>
 */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmpi_test.h"

static int rank, nprocs, failures;

#define NC(call) CHECK((call) == NC_NOERR, "%s", nc_strerror(call))

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, &rank, &nprocs);
    enum { T = 3, Y = 24, X = 200, S = 1000 };
    int ncid, dims[3], var, svar, sdim;
    int *w = malloc(sizeof(int) * T * Y * X), *r = malloc(sizeof(int) * T * Y * X);
    double sw[S], sr[S];
    for (int i = 0; i < T * Y * X; i++)
        w[i] = rank * 10000000 + i;
    for (int i = 0; i < S; i++)
        sw[i] = rank + i * 0.5;

    int rc = nc_create_par(argv[1], NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid);
    NC(rc);
    NC(nc_def_dim(ncid, "time", T, &dims[0]));
    NC(nc_def_dim(ncid, "y", (size_t)Y * nprocs, &dims[1]));
    NC(nc_def_dim(ncid, "x", X, &dims[2]));
    NC(nc_def_var(ncid, "field", NC_INT, 3, dims, &var));
    NC(nc_def_dim(ncid, "s", (size_t)S * nprocs, &sdim));
    NC(nc_def_var(ncid, "strided", NC_DOUBLE, 1, &sdim, &svar));
    NC(nc_enddef(ncid));
    NC(nc_var_par_access(ncid, var, NC_COLLECTIVE));
    NC(nc_var_par_access(ncid, svar, NC_COLLECTIVE));
    for (int t = 0; t < T; t++) {
        size_t start[3] = {(size_t)t, (size_t)rank * Y, 0}, count[3] = {1, Y, X};
        NC(nc_put_vara_int(ncid, var, start, count, w + (size_t)t * Y * X));
    }
    /* element i of rank r at r + i * nprocs */
    size_t sstart = (size_t)rank, scount = S;
    ptrdiff_t sstride = nprocs;
    NC(nc_put_vars_double(ncid, svar, &sstart, &scount, &sstride, sw));
    NC(nc_close(ncid));

    NC(nc_open_par(argv[1], NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    NC(nc_inq_varid(ncid, "field", &var));
    NC(nc_inq_varid(ncid, "strided", &svar));
    NC(nc_var_par_access(ncid, var, NC_COLLECTIVE));
    NC(nc_var_par_access(ncid, svar, NC_COLLECTIVE));
    size_t start[3] = {0, (size_t)rank * Y, 0}, count[3] = {T, Y, X};
    NC(nc_get_vara_int(ncid, var, start, count, r));
    NC(nc_get_vars_double(ncid, svar, &sstart, &scount, &sstride, sr));
    NC(nc_close(ncid));
    int bad = 0;
    for (int i = 0; i < T * Y * X; i++)
        bad += r[i] != w[i];
    for (int i = 0; i < S; i++)
        bad += sr[i] != sw[i];
    CHECK(bad == 0, "%d wrong values read back", bad);
    char dname[4200];
    snprintf(dname, sizeof dname, "%s.%d", argv[2], rank);
    FILE *d = fopen(dname, "w");
    if (d) {
        fwrite(r, sizeof(int), (size_t)T * Y * X, d);
        fwrite(sr, sizeof(double), S, d);
        fclose(d);
    }
    free(w), free(r);
    return pmpi_test_finish("nc4_io", failures, argv[3], "-");
}
