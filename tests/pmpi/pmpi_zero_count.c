/*
 * Collective calls in which some ranks move nothing (count 0, buffer NULL, as the standard
 * allows) beside ranks that move bytes from a noncontiguous memory type, through a file view
 * that interleaves the ranks: MPI_File_write_at_all / read_at_all, their MPI 4 large-count
 * forms (_c), and write_all / read_all. Intel MPI 2021.19's own calls fail on the count-0
 * ranks ("Other I/O error", a status count of -32766; issue 46);
 * under the drop-in layer mcio serves them, and this program checks the result against what
 * the MPI standard says, not against another run: every byte read back through MPI-IO, every
 * status count, and at the end the whole file read by rank 0 with pread, bytes no rank wrote
 * (pre-filled with 0xEE) untouched.
 * Usage (run_pmpi.sh's): pmpi_zero_count <file> <dump prefix> <calls file>
 */
#include <fcntl.h>
#include <unistd.h>

#include "pmpi_test.h"

enum { BLOCKS = 4, BLOCK = 64, STRIDE = 128, COUNT = 2 };
enum { ELEM = BLOCKS * BLOCK, EXTENT = (BLOCKS - 1) * STRIDE + BLOCK, MINE = COUNT * ELEM };
enum { F_AT, F_AT_C, F_ALL, NFORMS };

static int rank, nprocs, failures;

static int writer(int r) { return r % 2 == 0; } /* odd ranks pass count 0 */

static unsigned char value(int r, int form, long i) { return (unsigned char)(r * 31 + form * 7 + i); }

/* Where form's region starts: each rank's COUNT elements interleaved with the others'. */
static MPI_Offset base(int form) { return (MPI_Offset)form * nprocs * MINE; }

/* The byte of a memory buffer of COUNT vector elements that holds data byte i. */
static long mem_at(long i) { return (i / ELEM) * EXTENT + (i % ELEM / BLOCK) * STRIDE + i % BLOCK; }

static int call(int form, int write, MPI_File fh, void *buf, int count, MPI_Datatype mt,
                MPI_Status *st)
{
    MPI_Offset at = 0;
    switch (form) {
#if MPI_VERSION >= 4
    case F_AT_C:
        return write ? MPI_File_write_at_all_c(fh, at, buf, (MPI_Count)count, mt, st)
                     : MPI_File_read_at_all_c(fh, at, buf, (MPI_Count)count, mt, st);
#endif
    case F_ALL:
        return write ? MPI_File_write_all(fh, buf, count, mt, st)
                     : MPI_File_read_all(fh, buf, count, mt, st);
    default:
        return write ? MPI_File_write_at_all(fh, at, buf, count, mt, st)
                     : MPI_File_read_at_all(fh, at, buf, count, mt, st);
    }
}

/* One form: write, read back into a cleared buffer, check bytes and status counts. */
static void one_form(MPI_File fh, int form, MPI_Datatype mt, MPI_Datatype ft, unsigned char *buf)
{
    int count = writer(rank) ? COUNT : 0, got = -1;
    unsigned char *b = count ? buf : NULL;
    MPI_Status st;
    MPI_File_set_view(fh, base(form) + rank * ELEM, MPI_BYTE, ft, "native", MPI_INFO_NULL);
    memset(buf, 0, COUNT * EXTENT);
    for (long i = 0; i < MINE; i++)
        buf[mem_at(i)] = value(rank, form, i);
    CHECK(call(form, 1, fh, b, count, mt, &st) == MPI_SUCCESS, "form %d write, count %d", form, count);
    MPI_Get_count(&st, mt, &got);
    CHECK(got == count, "form %d write: status count %d, expected %d", form, got, count);
    memset(buf, 0, COUNT * EXTENT);
    if (form == F_ALL) /* back to the view's start: the write moved the file pointer */
        MPI_File_seek(fh, 0, MPI_SEEK_SET);
    CHECK(call(form, 0, fh, b, count, mt, &st) == MPI_SUCCESS, "form %d read, count %d", form, count);
    MPI_Get_count(&st, mt, &got);
    CHECK(got == count, "form %d read: status count %d, expected %d", form, got, count);
    long bad = 0;
    for (long i = 0; count && i < MINE; i++)
        bad += buf[mem_at(i)] != value(rank, form, i);
    CHECK(bad == 0, "form %d read: %ld of %d bytes wrong", form, bad, MINE);
}

/* Rank 0: the whole file with pread, each byte as the writers left it or still 0xEE. */
static void check_file(const char *path)
{
    long size = (long)base(NFORMS), bad = 0;
    unsigned char *f = malloc((size_t)size);
    int fd = open(path, O_RDONLY);
    CHECK(f && fd >= 0 && pread(fd, f, (size_t)size, 0) == size, "pread %s", path);
    for (long at = 0; f && fd >= 0 && at < size; at++) {
        long rel = at % ((long)nprocs * MINE), e = rel / ((long)nprocs * ELEM);
        int form = (int)(at / ((long)nprocs * MINE)), r = (int)(rel / ELEM % nprocs);
        unsigned char want = writer(r) ? value(r, form, e * ELEM + rel % ELEM) : 0xEE;
#if !(MPI_VERSION >= 4)
        if (form == F_AT_C)
            want = 0xEE;
#endif
        bad += f[at] != want;
    }
    CHECK(bad == 0, "the file: %ld of %ld bytes wrong", bad, size);
    if (fd >= 0)
        close(fd);
    free(f);
}

int main(int argc, char **argv)
{
    pmpi_test_start(&argc, &argv, &rank, &nprocs);
    if (rank == 0) { /* every byte 0xEE before the MPI library opens the file */
        long size = (long)base(NFORMS);
        int fd = open(argv[1], O_CREAT | O_TRUNC | O_WRONLY, 0644);
        unsigned char *fill = malloc((size_t)size);
        CHECK(fd >= 0 && fill, "create %s", argv[1]);
        if (fd >= 0 && fill) {
            memset(fill, 0xEE, (size_t)size);
            CHECK(pwrite(fd, fill, (size_t)size, 0) == size, "fill %s", argv[1]);
        }
        if (fd >= 0)
            close(fd);
        free(fill);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Datatype mt, ft;
    MPI_Type_vector(BLOCKS, BLOCK, STRIDE, MPI_BYTE, &mt);
    MPI_Type_vector(COUNT, ELEM, nprocs * ELEM, MPI_BYTE, &ft);
    MPI_Type_commit(&mt);
    MPI_Type_commit(&ft);
    unsigned char *buf = malloc(COUNT * EXTENT);
    MPI_File fh;
    int calls = 0;
    CHECK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_RDWR, MPI_INFO_NULL, &fh) == MPI_SUCCESS,
          "open %s", argv[1]);
    for (int form = 0; form < NFORMS; form++) {
#if !(MPI_VERSION >= 4)
        if (form == F_AT_C)
            continue;
#endif
        one_form(fh, form, mt, ft, buf);
        calls += 2;
    }
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        check_file(argv[1]);
    free(buf);
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    char n[16];
    snprintf(n, sizeof n, "%d", calls);
    return pmpi_test_finish("pmpi_zero_count", failures, argv[3], n);
}
