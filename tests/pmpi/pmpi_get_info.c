/*
 * What a program reads back is what it set (issue 49): MPI_File_get_info reports, for every key
 * the program set, the value as set, natively and under the drop-in layer alike. The program
 * sets hints the ways MPI-IO programs do:
 *   - ROMIO_HINTS, set with setenv after MPI_Init to a file written then (ROMIO reads it at the
 *     first open, and a key's first line counts: ind_rd_buffer_size 49, not 60);
 *   - the info at open, which wins over the file (romio_cb_write);
 *   - MPI_File_set_info after open (romio_cb_read, over the file's), checked before and after
 *     the next collective call (the layer hands such hints to its engine at that call);
 *   - MPI_File_set_view's info.
 * PMPI_GET_INFO_ISSUE=1: the file of issue 49 instead (romio_cb_read enable, ind_rd_buffer_size 49
 * then 60, romio_no_indep_rw true) and no other hints: ROMIO then forces collective buffering
 * and drops romio_no_indep_rw at MPI_File_set_info (MPICH 4.0.2), so the hints after open are
 * left to the other run.
 * Natively a key is checked where the MPI library reports it (ROMIO reports its keys and reads
 * ROMIO_HINTS; OMPIO does neither), so the native run checks the MPI library, not mcio's idea
 * of it; under the layer every key the program set must be there, with its value. The data
 * written is read back and compared, and the files must match native (run_pmpi.sh).
 * Usage: pmpi_get_info <file> <dump prefix> <calls file>
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

static int rank, nprocs, failures, layer, romio;

/* The keys the program has set so far, with their values (later settings replace). */
enum { MAXSET = 16 };
static struct {
    const char *key, *value;
} set[MAXSET];
static int nset;

static void program_set(const char *key, const char *value)
{
    for (int i = 0; i < nset; i++)
        if (strcmp(set[i].key, key) == 0) {
            set[i].value = value;
            return;
        }
    if (nset < MAXSET)
        set[nset].key = key, set[nset++].value = value;
}

/* Every key set so far, read back with MPI_File_get_info at point `when`. */
static void expect_set(MPI_File fh, const char *when)
{
    MPI_Info used;
    CHECK(MPI_File_get_info(fh, &used) == MPI_SUCCESS, "%s: MPI_File_get_info", when);
    for (int i = 0; i < nset; i++) {
        char v[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        MPI_Info_get(used, set[i].key, MPI_MAX_INFO_VAL, v, &flag);
        int must = layer || romio;
        CHECK(flag || !must, "%s: MPI_File_get_info has no %s (set to %s)", when, set[i].key,
              set[i].value);
        CHECK(!flag || strcmp(v, set[i].value) == 0, "%s: MPI_File_get_info: %s = %s, set to %s",
              when, set[i].key, v, set[i].value);
    }
    MPI_Info_free(&used);
}

static MPI_Info info_of(const char *key, const char *value)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    program_set(key, value);
    return info;
}

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, &rank, &nprocs);
    const char *e = getenv("PMPI_EXPECT_LAYER");
    layer = e && strcmp(e, "1") == 0;
    /* The hints file, written after MPI_Init and named to ROMIO with setenv. */
    char hpath[600];
    snprintf(hpath, sizeof hpath, "%s.hints", argv[1]);
    const char *issue = getenv("PMPI_GET_INFO_ISSUE");
    int only_file = issue && strcmp(issue, "1") == 0;
    if (rank == 0) {
        FILE *h = fopen(hpath, "w");
        CHECK(h != NULL, "cannot write %s", hpath);
        if (h)
            fprintf(h, "# ROMIO's hints file: a key's first line counts\nromio_cb_read enable\n"
                       "ind_rd_buffer_size 49\nind_rd_buffer_size 60\nromio_no_indep_rw %s\n"
                       "romio_cb_write enable\n", only_file ? "true" : "false"), fclose(h);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    setenv("ROMIO_HINTS", hpath, 1);
    program_set("romio_cb_read", "enable");
    program_set("ind_rd_buffer_size", "49");
    program_set("romio_no_indep_rw", only_file ? "true" : "false");
    program_set("romio_cb_write", "enable");

    MPI_Info info = MPI_INFO_NULL;
    if (!only_file) {
        info = info_of("romio_cb_write", "disable"); /* the info wins over the file */
        MPI_Info_set(info, "cb_buffer_size", "1048576");
        program_set("cb_buffer_size", "1048576");
    }
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh) ==
              MPI_SUCCESS, "open");
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    MPI_File_get_info(fh, &used);
    MPI_Info_get(used, "romio_cb_write", MPI_MAX_INFO_VAL, v, &romio);
    MPI_Info_free(&used);
    expect_set(fh, "after open");

    if (!only_file) {
        info = info_of("romio_cb_read", "disable");
        MPI_File_set_info(fh, info);
        MPI_Info_free(&info);
        expect_set(fh, "after MPI_File_set_info");
    }

    /* Interleaved blocks of 1000 ints, two per rank, written and read back collectively. */
    enum { B = 1000 };
    int *buf = malloc(2 * B * sizeof *buf), *back = malloc(2 * B * sizeof *back);
    for (int i = 0; i < 2 * B; i++)
        buf[i] = rank * 1000003 + i;
    MPI_Datatype ft;
    MPI_Type_vector(2, B, B * nprocs, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    info = only_file ? MPI_INFO_NULL : info_of("cb_buffer_size", "2097152");
    MPI_File_set_view(fh, (MPI_Offset)rank * B * sizeof(int), MPI_INT, ft, "native", info);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    expect_set(fh, "after MPI_File_set_view");
    CHECK(MPI_File_write_all(fh, buf, 2 * B, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS, "write_all");
    expect_set(fh, "after a collective write");
    failures += pmpi_test_read_back_dump(fh, buf, back, 2 * B, argv[2]);
    MPI_File_close(&fh);
    MPI_Type_free(&ft);
    free(buf), free(back);
    return pmpi_test_finish("pmpi_get_info", failures, argv[3], "2");
}
