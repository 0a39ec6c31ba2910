/*
 * The layer's datatype flattening (src/pmpi/mcio_pmpi_flatten.c) against the MPI library's own
 * type engine: for each datatype, MPI_Pack of a memory image whose bytes spell their own
 * displacement (one pass per byte of the displacement) gives, for every packed byte, the
 * displacement MPI took it from, in type-map order. The flattened blocks, expanded to bytes,
 * must give the same sequence; size, bounds and the filetype flags are checked too.
 * Covers every constructor, subarray and darray for every rank of 1-16-rank grids, resized with
 * negative bounds, zero-length blocks, nesting, and the cache (the same object comes back).
 * One process; mpiexec -n 1.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_pmpi_flatten.h"

static int failures, checked;

/* The displacement of every packed byte of one instance of t, by MPI_Pack. */
static int64_t *typemap_by_pack(MPI_Datatype t, int *n)
{
    MPI_Aint tlb, text;
    MPI_Type_get_true_extent(t, &tlb, &text);
    int size;
    MPI_Type_size(t, &size);
    *n = size;
    int64_t *disp = calloc((size_t)size + 1, sizeof *disp);
    unsigned char *mem = malloc((size_t)text + 1), *packed = malloc((size_t)size + 1);
    /* An empty type packs nothing, and its true bounds mean nothing: Open MPI reports a true
     * lower bound near the largest MPI_Aint for an empty darray block, and mem - tlb would
     * point far outside mem (undefined behaviour, which UBSan reports). */
    for (int pass = 0; pass < 4 && size > 0; pass++) { /* displacements < 2^32 */
        for (MPI_Aint i = 0; i < text; i++)
            mem[i] = (unsigned char)((uint64_t)(tlb + i) >> (8 * pass));
        int pos = 0;
        MPI_Pack(mem - tlb, 1, t, packed, size, &pos, MPI_COMM_SELF);
        for (int i = 0; i < size; i++)
            disp[i] |= (int64_t)packed[i] << (8 * pass);
    }
    /* displacements are relative to 0; tlb may be negative: sign-extend from 32 bits */
    for (int i = 0; i < size; i++)
        disp[i] = (int64_t)(int32_t)(uint32_t)disp[i];
    free(mem), free(packed);
    return disp;
}

static void check(const char *name, MPI_Datatype t, int want_monotone)
{
    checked++;
    int n;
    int64_t *want = typemap_by_pack(t, &n);
    mcio_flat *f = mcio_flat_get(t);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    if (!f || !f->ok) {
        fprintf(stderr, "FAIL %s: not flattened\n", name);
        failures++;
        goto done;
    }
    if (f->size != n || f->lb != lb || f->extent != ext) {
        fprintf(stderr, "FAIL %s: size/lb/extent %lld/%lld/%lld, MPI says %d/%lld/%lld\n", name,
                (long long)f->size, (long long)f->lb, (long long)f->extent, n, (long long)lb,
                (long long)ext);
        failures++;
    }
    int64_t k = 0;
    for (int64_t b = 0; b < f->n && k <= n; b++)
        for (int64_t j = 0; j < f->len[b]; j++, k++)
            if (k >= n || f->disp[b] + j != want[k]) {
                fprintf(stderr, "FAIL %s: byte %lld of the type map at %lld, MPI packs it from %lld\n",
                        name, (long long)k, (long long)(f->disp[b] + j), k < n ? (long long)want[k] : -1LL);
                failures++;
                goto done;
            }
    if (k != n) {
        fprintf(stderr, "FAIL %s: %lld bytes flattened, MPI packs %d\n", name, (long long)k, n);
        failures++;
    }
    if (want_monotone >= 0 && f->monotone != want_monotone) {
        fprintf(stderr, "FAIL %s: monotone %d, expected %d\n", name, f->monotone, want_monotone);
        failures++;
    }
    /* cached: the same object comes back */
    mcio_flat *g = mcio_flat_get(t);
    int named = 0, ni, na, nt, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    named = comb == MPI_COMBINER_NAMED;
    if (!named && g != f) {
        fprintf(stderr, "FAIL %s: flattened twice (no cache)\n", name);
        failures++;
    }
    mcio_flat_release(g);
done:
    mcio_flat_release(f);
    free(want);
}

/*
 * Types of 2 GiB or more, which MPI_Pack cannot check here without GiBs of memory: the blocks
 * must be those the caller computed from the type's parameters (nblocks, the i-th at
 * disp0 + i * step, each len bytes), the size MPI's MPI_Type_size_x, the flags those of a
 * usable filetype.
 */
static void check_large(const char *name, MPI_Datatype t, int64_t nblocks, int64_t disp0, int64_t step,
                        int64_t len)
{
    checked++;
    MPI_Type_commit(&t);
    MPI_Count size;
    MPI_Type_size_x(t, &size);
    mcio_flat *f = mcio_flat_get(t);
    if (!f || !f->ok || !f->monotone || !f->tiles_ok) {
        fprintf(stderr, "FAIL %s: %s\n", name, !f || !f->ok ? "not flattened" : "not usable as a view");
        failures++;
    } else if (f->size != size || size < ((int64_t)1 << 31) || f->n != nblocks) {
        fprintf(stderr, "FAIL %s: size %lld (MPI: %lld), %lld blocks (expected %lld)\n", name,
                (long long)f->size, (long long)size, (long long)f->n, (long long)nblocks);
        failures++;
    } else {
        for (int64_t i = 0; i < f->n; i++)
            if (f->disp[i] != disp0 + i * step || f->len[i] != len) {
                fprintf(stderr, "FAIL %s: block %lld at %lld, %lld bytes; expected at %lld, %lld bytes\n",
                        name, (long long)i, (long long)f->disp[i], (long long)f->len[i],
                        (long long)(disp0 + i * step), (long long)len);
                failures++;
                break;
            }
    }
    mcio_flat_release(f);
    MPI_Type_free(&t);
}

static void check_free(const char *name, MPI_Datatype t, int want_monotone)
{
    MPI_Type_commit(&t);
    check(name, t, want_monotone);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Datatype t, a, b;
    check("int", MPI_INT, 1);
    check("short_int (a hole)", MPI_SHORT_INT, 1);
    check("double_int", MPI_DOUBLE_INT, 1);
    MPI_Type_contiguous(7, MPI_SHORT, &t);
    check_free("contiguous", t, 1);
    MPI_Type_contiguous(1 << 28, MPI_BYTE, &t); /* one block, not 2^28 */
    check_free("contiguous 2^28 bytes", t, 1);
    MPI_Type_vector(4, 3, 5, MPI_INT, &t);
    check_free("vector", t, 1);
    MPI_Type_vector(3, 2, -4, MPI_INT, &t);
    check_free("vector negative stride", t, 0);
    MPI_Type_create_hvector(3, 2, 13, MPI_SHORT, &t);
    check_free("hvector odd stride", t, 1);
    {
        int bl[] = {1, 0, 2, 3}, d[] = {0, 2, 3, 9};
        MPI_Type_indexed(4, bl, d, MPI_DOUBLE, &t);
        check_free("indexed with a zero-length block", t, 1);
        int d2[] = {9, 3, 0, 1};
        MPI_Type_indexed(4, bl, d2, MPI_INT, &t);
        check_free("indexed out of order", t, 0);
    }
    {
        int bl[] = {2, 1, 3};
        MPI_Aint d[] = {-24, 40, 0};
        MPI_Type_create_hindexed(3, bl, d, MPI_INT, &t);
        check_free("hindexed negative", t, 0);
    }
    {
        int d[] = {1, 5, 6};
        MPI_Type_create_indexed_block(3, 2, d, MPI_FLOAT, &t);
        check_free("indexed_block", t, 0); /* blocks 4-11, 20-27, 24-31 overlap */
        MPI_Aint hd[] = {3, 17, 40};
        MPI_Type_create_hindexed_block(3, 5, hd, MPI_CHAR, &t);
        check_free("hindexed_block", t, 1);
    }
    {
        int bl[] = {1, 3, 0, 2};
        MPI_Aint d[] = {0, 6, 20, 24};
        MPI_Datatype ty[] = {MPI_SHORT, MPI_CHAR, MPI_DOUBLE, MPI_SHORT_INT};
        MPI_Type_create_struct(4, bl, d, ty, &t);
        check_free("struct", t, 1);
    }
    MPI_Type_vector(2, 3, 5, MPI_CHAR, &a);
    MPI_Type_create_resized(a, -7, 30, &t);
    check_free("resized negative lb", t, 1);
    MPI_Type_create_resized(a, 0, 3, &b); /* extent smaller than the data: copies overlap */
    MPI_Type_contiguous(3, b, &t);
    check_free("contiguous of a shrunk type", t, 0);
    MPI_Type_free(&b);
    MPI_Type_dup(a, &t);
    check_free("dup", t, 1);
    MPI_Type_free(&a);
    {
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 8};
        MPI_Datatype ty[] = {MPI_INT, MPI_DOUBLE};
        MPI_Type_create_struct(2, bl, d, ty, &a);
        MPI_Type_create_resized(a, 0, 24, &b);
        MPI_Type_vector(3, 2, 3, b, &t);
        check_free("vector of resized struct", t, 1);
        MPI_Type_free(&a), MPI_Type_free(&b);
    }
    { /* subarrays, both orders, 1-3 dimensions */
        int s3[] = {5, 4, 6}, ss3[] = {2, 3, 4}, st3[] = {1, 1, 2};
        MPI_Type_create_subarray(3, s3, ss3, st3, MPI_ORDER_C, MPI_INT, &t);
        check_free("subarray 3-D C", t, 1);
        MPI_Type_create_subarray(3, s3, ss3, st3, MPI_ORDER_FORTRAN, MPI_DOUBLE, &t);
        check_free("subarray 3-D Fortran", t, 1);
        int s1[] = {10}, ss1[] = {10}, st1[] = {0};
        MPI_Type_create_subarray(1, s1, ss1, st1, MPI_ORDER_C, MPI_SHORT, &t);
        check_free("subarray whole", t, 1);
    }
    /* darray: every rank of every grid up to 16 ranks, several distributions */
    int dists[][3] = {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE},
                      {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                      {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}};
    int dargs[][3] = {{MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_DISTRIBUTE_DFLT_DARG},
                      {2, MPI_DISTRIBUTE_DFLT_DARG, 3},
                      {MPI_DISTRIBUTE_DFLT_DARG, 1, 4}};
    for (int np = 1; np <= 16; np++)
        for (int v = 0; v < 3; v++)
            for (int order = 0; order < 2; order++)
                for (int r = 0; r < np; r++) {
                    int g[] = {7, 9, 8}, ps[3] = {0, 0, 1};
                    MPI_Dims_create(np, 2, ps);
                    if (dists[v][0] == MPI_DISTRIBUTE_NONE) /* NONE needs psize 1 */
                        ps[2] = ps[0], ps[0] = 1;
                    if (dists[v][2] == MPI_DISTRIBUTE_NONE && ps[2] != 1)
                        continue;
                    /* block with an explicit darg must cover the dimension */
                    int ok = 1;
                    for (int d = 0; d < 3; d++)
                        if (dists[v][d] == MPI_DISTRIBUTE_BLOCK && dargs[v][d] != MPI_DISTRIBUTE_DFLT_DARG &&
                            dargs[v][d] * ps[d] < g[d])
                            ok = 0;
                    if (!ok)
                        continue;
                    if (MPI_Type_create_darray(np, r, 3, g, dists[v], dargs[v], ps,
                                               order ? MPI_ORDER_FORTRAN : MPI_ORDER_C, MPI_INT,
                                               &t) != MPI_SUCCESS)
                        continue;
                    char name[96];
                    snprintf(name, sizeof name, "darray %d/%d dist %d %s", r, np, v, order ? "F" : "C");
                    check_free(name, t, 1);
                }
    /* 2 GiB and more (issue 23: such views and memory types went to the MPI library). A struct
     * around a contiguous type of 2^31 - 1 bytes, as memory type, and a vector of 2^29 ints, as
     * file type: one block of 2^31 bytes each. */
    {
        MPI_Datatype big, one;
        MPI_Type_contiguous(2147483647, MPI_BYTE, &big);
        MPI_Type_contiguous(1, MPI_BYTE, &one);
        int bl[] = {1, 1};
        MPI_Aint d[] = {0, 2147483647};
        MPI_Datatype ty[] = {big, one};
        MPI_Type_create_struct(2, bl, d, ty, &t);
        check_large("struct around contiguous 2^31 - 1 bytes", t, 1, 0, 0, (int64_t)1 << 31);
        MPI_Type_free(&big), MPI_Type_free(&one);
        MPI_Type_vector(1 << 29, 1, 1, MPI_INT, &t);
        check_large("vector of 2^29 ints", t, 1, 0, 0, (int64_t)1 << 31);
        /* 2^28 blocks of 8 bytes would be a 4 GiB block list; 2^20 blocks of 2 KiB are 2 GiB */
        MPI_Type_vector(1 << 20, 512, 1024, MPI_INT, &t);
        check_large("vector of 2^20 blocks of 2 KiB", t, 1 << 20, 0, 4096, 2048);
    }
    /* A 3-D block-distributed array of ints, 2000 x 1000 x 1400 on a 2 x 2 x 1 grid: 2.8 GB per
     * rank, 1000 blocks of 500 x 1400 ints each, for rank r at row (r / 2) * 1000 + i and
     * column (r % 2) * 500 of the 1000 x 1400 planes. Fortran order on a 1 x 2 x 2 grid: the
     * first dimension varies fastest, so the planes of 2000 x 1000 ints are cut in two halves. */
    for (int r = 0; r < 4; r++) {
        int g[] = {2000, 1000, 1400}, ps[] = {2, 2, 1};
        int dist[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
        int darg[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
        char name[96];
        MPI_Type_create_darray(4, r, 3, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
        snprintf(name, sizeof name, "darray 2000 x 1000 x 1400 C, rank %d of 4", r);
        int64_t plane = (int64_t)1000 * 1400 * 4;
        check_large(name, t, 1000, (int64_t)(r / 2) * 1000 * plane + (int64_t)(r % 2) * 500 * 1400 * 4,
                    plane, (int64_t)500 * 1400 * 4);
        int ps2[] = {1, 2, 2};
        MPI_Type_create_darray(4, r, 3, g, dist, darg, ps2, MPI_ORDER_FORTRAN, MPI_INT, &t);
        snprintf(name, sizeof name, "darray 2000 x 1000 x 1400 Fortran, rank %d of 4", r);
        /* grid coordinates row-major: (0, r / 2, r % 2); the slowest dimension is the third */
        int64_t fplane = (int64_t)2000 * 1000 * 4;
        check_large(name, t, 700, (int64_t)(r % 2) * 700 * fplane + (int64_t)(r / 2) * 500 * 2000 * 4,
                    fplane, (int64_t)500 * 2000 * 4);
    }
    printf("pmpi_flatten: %d datatypes, %d failures\n", checked, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
