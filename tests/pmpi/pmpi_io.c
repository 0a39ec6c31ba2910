/*
 * A plain MPI-IO program (it knows nothing of mcio) that runs every datatype constructor as file
 * view and as memory type through every collective data call: blocking, explicit offset,
 * nonblocking, split, large-count (MPI 4), zero counts on some ranks, two calls in a row on the
 * individual file pointer. run_pmpi.sh runs it natively, under LD_PRELOAD and linked with
 * --wrap, and compares the files and the read dumps byte for byte across the runs.
 *
 * Usage: pmpi_io <file> <dump prefix> <expected-calls file>   [PMPI_IO_STRIDE=k: every k-th case]
 * Each rank checks by itself that every data byte it reads back equals what it wrote (packed
 * with MPI_Pack on both sides), and that the individual file pointer moved as MPI says; it dumps
 * every read buffer whole (holes included: they must stay untouched) to <dump prefix>.<rank>.
 * Rank 0 writes the number of collective data calls made to <expected-calls file>: under the
 * layer, the MCIO_STATS file must have exactly that many lines.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmpi_test.h"

static int rank, nprocs, failures, calls;
static FILE *dump;

#define MPI_OK(call)                                                                          \
    do {                                                                                      \
        int rc_ = (call);                                                                     \
        if (rc_ != MPI_SUCCESS) {                                                             \
            char s_[MPI_MAX_ERROR_STRING];                                                    \
            int l_;                                                                           \
            MPI_Error_string(rc_, s_, &l_);                                                   \
            CHECK(rc_ == MPI_SUCCESS, "%s", s_);                                              \
        }                                                                                     \
    } while (0)

enum { NTYPES = 17 };

/* Datatype number i (the same on every rank unless noted). 'file' asks for one usable as a
 * filetype (non-negative, increasing displacements). */
static MPI_Datatype make_type(int i, int file, const char **name)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, a, b;
    switch (i) {
    case 0:
        *name = "contiguous";
        MPI_Type_contiguous(5, MPI_INT, &t);
        break;
    case 1:
        *name = "vector";
        MPI_Type_vector(3, 2, 4, MPI_INT, &t);
        break;
    case 2:
        *name = "hvector";
        MPI_Type_create_hvector(3, 2, 20, MPI_SHORT, &t);
        break;
    case 3: {
        *name = "indexed";
        int bl[] = {1, 2, 3}, d[] = {0, 3, 8};
        MPI_Type_indexed(3, bl, d, MPI_INT, &t);
        break;
    }
    case 4: {
        *name = "hindexed";
        int bl[] = {2, 1};
        MPI_Aint d[] = {0, 24};
        MPI_Type_create_hindexed(2, bl, d, MPI_DOUBLE, &t);
        break;
    }
    case 5: {
        *name = "indexed_block";
        int d[] = {0, 4, 9};
        MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &t);
        break;
    }
    case 6: {
        *name = "hindexed_block";
        MPI_Aint d[] = {4, 40};
        MPI_Type_create_hindexed_block(2, 3, d, MPI_CHAR, &t);
        break;
    }
    case 7: { /* a zero-length block in the middle */
        *name = "struct";
        int bl[] = {1, 2, 0, 3};
        MPI_Aint d[] = {0, 8, 12, 16};
        MPI_Datatype ty[] = {MPI_INT, MPI_SHORT, MPI_DOUBLE, MPI_CHAR};
        MPI_Type_create_struct(4, bl, d, ty, &t);
        break;
    }
    case 8: { /* 2-D C-order block of a global array, ranks side by side */
        *name = "subarray_c";
        int sizes[] = {4, 3 * nprocs}, sub[] = {3, 2}, starts[] = {1, 3 * rank};
        MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
        break;
    }
    case 9: { /* 3-D Fortran order */
        *name = "subarray_f";
        int sizes[] = {2 * nprocs, 3, 2}, sub[] = {2, 2, 1}, starts[] = {2 * rank, 1, 1};
        MPI_Type_create_subarray(3, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_SHORT, &t);
        break;
    }
    case 10: { /* block x cyclic(2) over a 2-D grid of ranks */
        *name = "darray_c";
        /* every rank owns some (Open MPI 4.1's OMPIO divides by zero on an empty filetype) */
        int ps[2] = {0, 0};
        MPI_Dims_create(nprocs, 2, ps);
        int g[] = {3 * ps[0] - 1, 7}, dist[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            darg[] = {MPI_DISTRIBUTE_DFLT_DARG, 2};
        MPI_Type_create_darray(nprocs, rank, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
        break;
    }
    case 11: { /* cyclic x none x block(2), Fortran order */
        *name = "darray_f";
        int g[] = {6, 2, 2 * nprocs},
            dist[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK},
            darg[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[] = {1, 1, nprocs};
        MPI_Type_create_darray(nprocs, rank, 3, g, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
        break;
    }
    case 12: /* a larger extent than the data: a hole at the end of every tile */
        *name = "resized_up";
        MPI_Type_vector(2, 3, 5, MPI_CHAR, &a);
        MPI_Type_create_resized(a, 0, 16, &t);
        MPI_Type_free(&a);
        break;
    case 13: /* negative lower bound (memory only: a filetype gets lb 0) */
        *name = "resized_neglb";
        MPI_Type_contiguous(3, MPI_INT, &a);
        MPI_Type_create_resized(a, file ? 0 : -8, 20, &t);
        MPI_Type_free(&a);
        break;
    case 14:
        *name = "dup";
        MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &a);
        MPI_Type_dup(a, &t);
        MPI_Type_free(&a);
        break;
    case 15: { /* negative displacements in memory; a filetype uses positive ones */
        *name = "hindexed_negative";
        int bl[] = {2, 3, 1};
        MPI_Aint dm[] = {-16, 8, -40}, df[] = {0, 16, 40};
        MPI_Type_create_hindexed(3, bl, file ? df : dm, MPI_INT, &t);
        break;
    }
    default: { /* nested: a vector of structs with a hole */
        *name = "vector_of_struct";
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 8};
        MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, bl, d, ty, &a);
        MPI_Type_create_resized(a, 0, 24, &b);
        MPI_Type_vector(2, 2, 3, b, &t);
        MPI_Type_free(&a);
        MPI_Type_free(&b);
        break;
    }
    }
    MPI_Type_commit(&t);
    return t;
}

/* The call families, rotated over the cases. */
enum { F_ALL, F_AT, F_IALL, F_IAT, F_SPLIT, F_SPLIT_AT, F_LARGE, F_LARGE_AT, F_TWICE, NFAM };
static const char *fam_name[] = {"all", "at_all", "iall", "iat_all", "split", "split_at",
                                 "all_c", "at_all_c", "twice"};

/* One collective write or read of count copies of mt at etype offset off. */
static void do_access(MPI_File fh, int write, int fam, MPI_Offset off, void *buf, int count,
                   MPI_Datatype mt)
{
    MPI_Status st;
    MPI_Request rq;
#if !(MPI_VERSION >= 4)
    if (fam == F_LARGE)
        fam = F_ALL;
    if (fam == F_LARGE_AT)
        fam = F_AT;
#endif
    int indiv = fam == F_ALL || fam == F_IALL || fam == F_SPLIT || fam == F_LARGE || fam == F_TWICE;
    if (indiv)
        MPI_OK(MPI_File_seek(fh, off, MPI_SEEK_SET));
    calls++;
    switch (fam) {
    case F_ALL:
        MPI_OK(write ? MPI_File_write_all(fh, buf, count, mt, &st) : MPI_File_read_all(fh, buf, count, mt, &st));
        break;
    case F_AT:
        MPI_OK(write ? MPI_File_write_at_all(fh, off, buf, count, mt, &st)
                     : MPI_File_read_at_all(fh, off, buf, count, mt, &st));
        break;
    case F_IALL:
        MPI_OK(write ? MPI_File_iwrite_all(fh, buf, count, mt, &rq) : MPI_File_iread_all(fh, buf, count, mt, &rq));
        MPI_OK(MPI_Wait(&rq, &st));
        break;
    case F_IAT:
        MPI_OK(write ? MPI_File_iwrite_at_all(fh, off, buf, count, mt, &rq)
                     : MPI_File_iread_at_all(fh, off, buf, count, mt, &rq));
        MPI_OK(MPI_Wait(&rq, &st));
        break;
    case F_SPLIT:
        if (write) {
            MPI_OK(MPI_File_write_all_begin(fh, buf, count, mt));
            MPI_OK(MPI_File_write_all_end(fh, buf, &st));
        } else {
            MPI_OK(MPI_File_read_all_begin(fh, buf, count, mt));
            MPI_OK(MPI_File_read_all_end(fh, buf, &st));
        }
        break;
    case F_SPLIT_AT:
        if (write) {
            MPI_OK(MPI_File_write_at_all_begin(fh, off, buf, count, mt));
            MPI_OK(MPI_File_write_at_all_end(fh, buf, &st));
        } else {
            MPI_OK(MPI_File_read_at_all_begin(fh, off, buf, count, mt));
            MPI_OK(MPI_File_read_at_all_end(fh, buf, &st));
        }
        break;
#if MPI_VERSION >= 4
    case F_LARGE:
        MPI_OK(write ? MPI_File_write_all_c(fh, buf, (MPI_Count)count, mt, &st)
                     : MPI_File_read_all_c(fh, buf, (MPI_Count)count, mt, &st));
        break;
    case F_LARGE_AT:
        MPI_OK(write ? MPI_File_write_at_all_c(fh, off, buf, (MPI_Count)count, mt, &st)
                     : MPI_File_read_at_all_c(fh, off, buf, (MPI_Count)count, mt, &st));
        break;
#endif
    default: { /* two calls in a row: the second starts where the first left the pointer */
        int first = count / 2;
        calls++;
        MPI_OK(write ? MPI_File_write_all(fh, buf, first, mt, &st) : MPI_File_read_all(fh, buf, first, mt, &st));
        MPI_Aint lb, ext;
        MPI_Type_get_extent(mt, &lb, &ext);
        char *rest = (char *)buf + (MPI_Aint)first * ext;
        MPI_OK(write ? MPI_File_write_all(fh, rest, count - first, mt, &st)
                     : MPI_File_read_all(fh, rest, count - first, mt, &st));
        count -= first; /* the status is the second call's */
        break;
    }
    }
    int got = -1, msize = 0;
    MPI_Get_count(&st, mt, &got);
    MPI_Type_size(mt, &msize);
    if (msize == 0) /* MPI: a zero-size datatype counts zero */
        count = 0;
    CHECK(got == count, "%s %s: status count %d, expected %d", write ? "write" : "read",
          fam_name[fam], got, count);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: pmpi_io <file> <dump prefix> <calls file>\n");
        MPI_Finalize();
        return 2;
    }
    char dname[4096];
    snprintf(dname, sizeof dname, "%s.%d", argv[2], rank);
    dump = fopen(dname, "w");
    CHECK(dump != NULL, "cannot open %s", dname);

    MPI_File fh;
    MPI_Info info;
    MPI_Info_create(&info);
    if (getenv("PMPI_SMALL_BUFFER"))
        MPI_Info_set(info, "cb_buffer_size", "4096"); /* several rounds even for small cases */
    if (rank == 0) /* one rank, before anyone opens: a late delete would unlink the new file */
        MPI_File_delete(argv[1], MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    if (failures)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* A sentinel over the whole file first: MPI libraries' read-modify-write past the end of
     * file leaves undefined bytes in holes, which no comparison could rely on. */
    int64_t prefill = ((int64_t)nprocs + 2) * 40000;
    if (rank == 0) {
        char *s = malloc((size_t)prefill);
        for (int64_t i = 0; i < prefill; i++)
            s[i] = (char)(i * 13 + 5);
        MPI_OK(MPI_File_write_at(fh, 0, s, (int)prefill, MPI_BYTE, MPI_STATUS_IGNORE));
        free(s);
    }
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_sync(fh));

    int64_t base = 0; /* where the next case's region starts in the file */
    /* PMPI_IO_STRIDE=k: every k-th case only (MPICH at many ranks on few cores) */
    int stride = getenv("PMPI_IO_STRIDE") ? atoi(getenv("PMPI_IO_STRIDE")) : 1;
    for (int c = 0; c < NTYPES * 2; c += stride > 0 ? stride : 1) {
        /* file type c % NTYPES against memory type (c * 7 + 3) % NTYPES; the second pass
         * swaps roles with the etype MPI_INT where the filetype is made of ints. */
        const char *fname, *mname;
        int fi = c % NTYPES, mi = (c * 7 + 3) % NTYPES;
        MPI_Datatype ft = make_type(fi, 1, &fname), mt = make_type(mi, 0, &mname);
        int fam = c % NFAM;
        int fsize, msize;
        MPI_Aint flb, fext, mlb, mext, mtlb, mtext;
        MPI_Type_size(ft, &fsize);
        MPI_Type_size(mt, &msize);
        MPI_Type_get_extent(ft, &flb, &fext);
        MPI_Type_get_extent(mt, &mlb, &mext);
        MPI_Type_get_true_extent(mt, &mtlb, &mtext);
        /* etype: MPI_BYTE, or a 2-byte type when both sizes allow (offsets then count shorts) */
        MPI_Datatype etype = (c >= NTYPES && fsize % 2 == 0 && msize % 2 == 0) ? MPI_SHORT : MPI_BYTE;
        int esize;
        MPI_Type_size(etype, &esize);
        /* every rank writes count memory types; some ranks none (zero-count) */
        int count = 3 + c % 4;
        if (c % 5 == 2 && rank % 2 == 1)
            count = 0;
        if (fsize == 0)
            count = 0;
        /* sizes must be whole etypes; then the offset: a few etypes in, for the at forms */
        MPI_Offset off = (c % 3) * (fsize / esize > 1 ? 1 : 0);
        int64_t nbytes = (int64_t)count * msize;
        int64_t maxbytes = (int64_t)(3 + 3) * msize + (int64_t)off * esize;
        int64_t tiles = fsize ? (maxbytes + fsize - 1) / fsize + 1 : 1;
        /* subarray and darray types span the global array already and interleave the ranks;
         * the others get a region of their own per rank */
        int shared = fi >= 8 && fi <= 11;
        int64_t region = tiles * fext + 64; /* the largest over ranks: memory sizes differ */
        MPI_Allreduce(MPI_IN_PLACE, &region, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
        MPI_Offset disp = base + (shared ? 0 : rank * region);
        base += shared ? region : nprocs * region;
        base += 13; /* odd alignment */

        /* memory: count copies of mt; buffers with margins, holes prefilled */
        int64_t span = count ? (int64_t)(count - 1) * mext + mtext : 0;
        char *wmem = malloc((size_t)span + 256), *rmem = malloc((size_t)span + 256);
        char *wbuf = wmem + 128 - mtlb, *rbuf = rmem + 128 - mtlb;
        for (int64_t i = 0; i < span + 256; i++) {
            wmem[i] = (char)(i * 31 + rank * 7 + c * 3 + 1);
            rmem[i] = (char)0xEE;
        }
        char what[160];
        snprintf(what, sizeof what, "case %d: view %s, memory %s x %d, %s, etype %s", c, fname,
                 mname, count, fam_name[fam], etype == MPI_BYTE ? "byte" : "short");

        if (getenv("PMPI_DEBUG"))
            fprintf(stderr, "rank %d %s: disp %lld region %lld nbytes %lld\n", rank, what,
                    (long long)disp, (long long)region, (long long)nbytes);
        MPI_OK(MPI_File_set_view(fh, disp, etype, ft, "native", MPI_INFO_NULL));
        do_access(fh, 1, fam, off, wbuf, count, mt);
        if (fam == F_ALL || fam == F_IALL || fam == F_SPLIT || fam == F_TWICE || fam == F_LARGE) {
            MPI_Offset pos = -1;
            MPI_File_get_position(fh, &pos);
            CHECK(pos == off + nbytes / esize, "%s: pointer at %lld after the write, expected %lld",
                  what, (long long)pos, (long long)(off + nbytes / esize));
        }
        /* read back with another family: the same bytes */
        do_access(fh, 0, (fam + 4) % NFAM, off, rbuf, count, mt);
        int psize = 0;
        MPI_Pack_size(count, mt, MPI_COMM_WORLD, &psize);
        char *pw = malloc((size_t)psize + 1), *pr = malloc((size_t)psize + 1);
        int pw_at = 0, pr_at = 0;
        MPI_Pack(wbuf, count, mt, pw, psize, &pw_at, MPI_COMM_WORLD);
        MPI_Pack(rbuf, count, mt, pr, psize, &pr_at, MPI_COMM_WORLD);
        CHECK(pw_at == pr_at && memcmp(pw, pr, (size_t)pw_at) == 0, "%s: read back differs", what);
        /* untouched margins */
        for (int i = 0; i < 128; i++) {
            CHECK(rmem[i] == (char)0xEE && rmem[span + 128 + i] == (char)0xEE,
                  "%s: read touched memory outside the type", what);
            if (rmem[i] != (char)0xEE || rmem[span + 128 + i] != (char)0xEE)
                break;
        }
        if (dump)
            fwrite(rmem, 1, (size_t)span + 256, dump);
        free(pw), free(pr), free(wmem), free(rmem);
        MPI_Type_free(&ft);
        MPI_Type_free(&mt);
    }

    /* Reads past the end of file stop there. MPI says the status counts what was read (the
     * layer's does); ROMIO's collective reads count the whole request, so either is accepted,
     * and only the bytes before the end of file are compared across runs. */
    {
        MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        MPI_Offset size;
        MPI_File_get_size(fh, &size);
        char b[100];
        memset(b, 0x5A, sizeof b);
        MPI_Status st;
        calls++;
        MPI_OK(MPI_File_read_at_all(fh, size - 40 + rank, b, 100, MPI_BYTE, &st));
        int got = -1;
        MPI_Get_count(&st, MPI_BYTE, &got);
        CHECK(got == 40 - rank || got == 100, "read at EOF: %d bytes, expected %d", got, 40 - rank);
        if (dump)
            fwrite(b, 1, (size_t)(40 - rank), dump);
    }

    /* The hints in force: under the layer, mcio's are listed too. */
    CHECK(base <= prefill, "the cases went past the prefilled %lld bytes (%lld)", (long long)prefill,
          (long long)base);
    MPI_Info got;
    MPI_File_get_info(fh, &got);
    char v[64];
    int flag = 0;
    MPI_Info_get(got, "mcio_strategy", sizeof v - 1, v, &flag);
    const char *expect = getenv("PMPI_EXPECT_LAYER");
    if (expect && *expect == '1')
        CHECK(flag, "MPI_File_get_info does not show mcio_strategy under the layer");
    else
        CHECK(!flag, "MPI_File_get_info shows mcio_strategy without the layer");
    MPI_Info_free(&got);
    MPI_OK(MPI_File_close(&fh));
    if (dump)
        fclose(dump);

    char callstr[16];
    snprintf(callstr, sizeof callstr, "%d", calls);
    return pmpi_test_finish("pmpi_io", failures, argv[3], callstr);
}
