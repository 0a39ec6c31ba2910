/*
 * An unmodified HDF5 program: a contiguous and a chunked 2-D dataset written and read back with
 * collective transfers (H5Pset_dxpl_mpio), each rank a block of rows (and, in the chunked one,
 * chunks that straddle ranks). run_pmpi.sh runs it natively and under the layer and compares the
 * files (cmp; h5diff if the bytes differ) and the read dumps.
 * Usage: h5_io <file> <dump prefix> <calls file>   (writes "-": HDF5 decides how many calls)
 * H5_IO_ROWS=n: rows per rank (default 37, not a multiple of the chunk); rank 0 then prints each
 * dataset's collective write time (slowest rank), for docs/performance.md.
 */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmpi_test.h"

#define COLS 300

int main(int argc, char **argv)
{
    int rank, nprocs, failures = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int ROWS = getenv("H5_IO_ROWS") ? atoi(getenv("H5_IO_ROWS")) : 37;
    hsize_t dims[2] = {(hsize_t)ROWS * nprocs, COLS}, chunk[2] = {16, 64};
    hsize_t start[2] = {(hsize_t)ROWS * rank, 0}, count[2] = {ROWS, COLS};
    double *w = malloc(sizeof(double) * ROWS * COLS), *r = malloc(sizeof(double) * ROWS * COLS);
    for (int i = 0; i < ROWS * COLS; i++)
        w[i] = rank * 1e6 + i * 0.5;

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    hid_t f = H5Fcreate(argv[1], H5F_ACC_TRUNC, fcpl, fapl);
    hid_t space = H5Screate_simple(2, dims, NULL);
    const char *names[] = {"contiguous", "chunked"};
    for (int d = 0; d < 2; d++) {
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_obj_track_times(dcpl, 0); /* no timestamps: the files can be compared byte by byte */
        if (d == 1)
            H5Pset_chunk(dcpl, 2, chunk);
        hid_t ds = H5Dcreate2(f, names[d], H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        hid_t fs = H5Dget_space(ds);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        hid_t ms = H5Screate_simple(2, count, NULL);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime();
        if (H5Dwrite(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, w) < 0)
            failures++;
        t = MPI_Wtime() - t;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0 && getenv("H5_IO_ROWS"))
            printf("h5_io: %s write %.1f MiB in %.4f s\n", names[d],
                   (double)ROWS * nprocs * COLS * sizeof(double) / 1048576.0, t);
        H5Sclose(ms), H5Sclose(fs), H5Dclose(ds), H5Pclose(dcpl);
    }
    H5Sclose(space);
    H5Fclose(f);

    char dname[4096];
    snprintf(dname, sizeof dname, "%s.%d", argv[2], rank);
    FILE *dump = fopen(dname, "w");
    f = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    for (int d = 0; d < 2; d++) {
        hid_t ds = H5Dopen2(f, names[d], H5P_DEFAULT);
        hid_t fs = H5Dget_space(ds);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        hid_t ms = H5Screate_simple(2, count, NULL);
        for (int i = 0; i < ROWS * COLS; i++)
            r[i] = -1;
        if (H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, r) < 0)
            failures++;
        for (int i = 0; i < ROWS * COLS; i++)
            if (r[i] != w[i]) {
                if (failures++ < 5)
                    fprintf(stderr, "FAIL rank %d: %s[%d] = %g, expected %g\n", rank, names[d], i, r[i], w[i]);
            }
        if (dump)
            fwrite(r, sizeof(double), ROWS * COLS, dump);
        H5Sclose(ms), H5Sclose(fs), H5Dclose(ds);
    }
    H5Fclose(f);
    if (dump)
        fclose(dump);
    H5Pclose(fapl), H5Pclose(dxpl), H5Pclose(fcpl);
    free(w), free(r);
    return pmpi_test_finish("h5_io", failures, argv[3], "-");
}
