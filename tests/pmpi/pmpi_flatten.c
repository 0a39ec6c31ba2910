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
    for (int pass = 0; pass < 4; pass++) { /* displacements < 2^32 */
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
    printf("pmpi_flatten: %d datatypes, %d failures\n", checked, failures);
    MPI_Finalize();
    return failures ? 1 : 0;
}
