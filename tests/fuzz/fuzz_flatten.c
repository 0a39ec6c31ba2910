/*
 * Fuzz target: the drop-in layer's datatype flattener (src/pmpi/mcio_pmpi_flatten.c) on random
 * derived datatypes decoded from the input: up to three levels of contiguous, vector, hvector,
 * indexed, hindexed, indexed_block, hindexed_block, struct, subarray, darray, resized and dup
 * over basic types, with negative strides and displacements, zero counts and overlaps. MPI
 * runs as a singleton (MPI_Init in LLVMFuzzerInitialize). Property: when mcio flattens a type,
 * its blocks, expanded to bytes, are exactly the displacements MPI_Pack reads, byte by byte and
 * in order, from a memory image whose bytes spell their own displacement (as tests/pmpi/
 * pmpi_flatten.c checks constructor by constructor), and size, lb and extent are MPI's; the
 * monotone flag holds only for blocks in increasing, non-overlapping order.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_pmpi_flatten.h"

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static int take(reader *r)
{
    if (!r->n)
        return 0;
    r->n--;
    return *r->p++;
}

/* A small signed number: -8..23, mostly positive. */
static int small(reader *r)
{
    return take(r) % 32 - 8;
}

static const MPI_Datatype *basics(int *n)
{
    static MPI_Datatype b[6];
    b[0] = MPI_BYTE, b[1] = MPI_SHORT, b[2] = MPI_INT, b[3] = MPI_DOUBLE, b[4] = MPI_SHORT_INT,
    b[5] = MPI_CHAR;
    *n = 6;
    return b;
}

/* A datatype decoded from r, depth levels at most; MPI_DATATYPE_NULL when MPI refuses it. */
static MPI_Datatype make(reader *r, int depth)
{
    int nb;
    const MPI_Datatype *b = basics(&nb);
    int kind = depth > 0 ? take(r) % 13 : 12;
    MPI_Datatype old = kind == 12 ? MPI_DATATYPE_NULL : make(r, depth - 1), t = MPI_DATATYPE_NULL;
    if (kind != 12 && old == MPI_DATATYPE_NULL)
        return MPI_DATATYPE_NULL;
    /* MPICH 4.0.2's MPI_Pack (yaksa) divides by zero on types built over one of size or extent
     * 0 (found by this target): the reference cannot judge those, so they are not drawn. */
    MPI_Count olb = 0, oext = 1, osize = 1;
    if (old != MPI_DATATYPE_NULL)
        MPI_Type_get_extent_x(old, &olb, &oext), MPI_Type_size_x(old, &osize);
    if (oext == 0 || osize == 0) {
        MPI_Type_free(&old);
        return MPI_DATATYPE_NULL;
    }
    int rc = MPI_SUCCESS, cnt = take(r) % 5, bl[4], di[4];
    MPI_Aint ad[4];
    MPI_Datatype ty[4];
    for (int i = 0; i < 4; i++) {
        bl[i] = take(r) % 4;
        di[i] = small(r);
        ad[i] = (MPI_Aint)small(r) * 3;
    }
    switch (kind) {
    case 0: rc = MPI_Type_contiguous(cnt, old, &t); break;
    case 1: rc = MPI_Type_vector(cnt, bl[0], di[0], old, &t); break;
    case 2: rc = MPI_Type_create_hvector(cnt, bl[0], ad[0], old, &t); break;
    case 3: rc = MPI_Type_indexed(cnt, bl, di, old, &t); break;
    case 4: rc = MPI_Type_create_hindexed(cnt, bl, ad, old, &t); break;
    case 5: rc = MPI_Type_create_indexed_block(cnt, bl[0], di, old, &t); break;
    case 6: rc = MPI_Type_create_hindexed_block(cnt, bl[0], ad, old, &t); break;
    case 7:
        for (int i = 0; i < 4; i++)
            ty[i] = i == 0 ? old : b[take(r) % nb];
        rc = MPI_Type_create_struct(cnt, bl, ad, ty, &t);
        break;
    case 8: { /* subarray, 1-3 dimensions */
        int nd = 1 + take(r) % 3, sz[3], sub[3], st[3];
        for (int d = 0; d < nd; d++) {
            sz[d] = 1 + take(r) % 6;
            sub[d] = 1 + take(r) % sz[d];
            st[d] = take(r) % (sz[d] - sub[d] + 1);
        }
        rc = MPI_Type_create_subarray(nd, sz, sub, st, take(r) % 2 ? MPI_ORDER_FORTRAN : MPI_ORDER_C,
                                      old, &t);
        break;
    }
    case 9: { /* darray, 1-3 dimensions, every distribution */
        int nd = 1 + take(r) % 3, g[3], dist[3], darg[3], ps[3], np = 1;
        for (int d = 0; d < nd; d++) {
            g[d] = 1 + take(r) % 7;
            ps[d] = 1 + take(r) % 3;
            int k = take(r) % 3;
            dist[d] = k == 0 ? MPI_DISTRIBUTE_BLOCK : k == 1 ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_NONE;
            if (dist[d] == MPI_DISTRIBUTE_NONE)
                ps[d] = 1;
            darg[d] = take(r) % 2 ? MPI_DISTRIBUTE_DFLT_DARG : 1 + take(r) % 3;
            if (dist[d] == MPI_DISTRIBUTE_NONE)
                darg[d] = MPI_DISTRIBUTE_DFLT_DARG;
            if (dist[d] == MPI_DISTRIBUTE_BLOCK && darg[d] != MPI_DISTRIBUTE_DFLT_DARG &&
                darg[d] * ps[d] < g[d])
                darg[d] = MPI_DISTRIBUTE_DFLT_DARG; /* MPI requires block * psize >= gsize */
            np *= ps[d];
        }
        rc = MPI_Type_create_darray(np, take(r) % np, nd, g, dist, darg, ps,
                                    take(r) % 2 ? MPI_ORDER_FORTRAN : MPI_ORDER_C, old, &t);
        break;
    }
    case 10: rc = MPI_Type_create_resized(old, (MPI_Aint)small(r), 1 + (MPI_Aint)(take(r) % 63), &t); break;
    case 11: rc = MPI_Type_dup(old, &t); break;
    default: return b[take(r) % nb]; /* a basic type */
    }
    if (old != MPI_DATATYPE_NULL) {
        int ni, na, nt, comb;
        MPI_Type_get_envelope(old, &ni, &na, &nt, &comb);
        if (comb != MPI_COMBINER_NAMED)
            MPI_Type_free(&old);
    }
    return rc == MPI_SUCCESS ? t : MPI_DATATYPE_NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    reader r = {data, len};
    MPI_Datatype t = make(&r, 3);
    if (t == MPI_DATATYPE_NULL)
        return 0;
    int ni, na, nt, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    int named = comb == MPI_COMBINER_NAMED;
    MPI_Count size_x, tlb, text, lb, ext;
    MPI_Type_size_x(t, &size_x);
    MPI_Type_get_true_extent_x(t, &tlb, &text);
    MPI_Type_get_extent_x(t, &lb, &ext);
    if (!named)
        MPI_Type_commit(&t);
    if (ext == 0 || size_x == 0 || text < 0 || size_x > (1 << 16) || text > (1 << 20) || tlb < -(1 << 20) || tlb + text > (1 << 20)) {
        if (!named)
            MPI_Type_free(&t);
        return 0; /* keep each input fast */
    }
    int size = (int)size_x;
    /* The displacement MPI packs each byte from: three passes of the displacement's bytes. */
    int64_t *want = calloc((size_t)size + 1, sizeof *want);
    unsigned char *mem = malloc((size_t)text + 1), *packed = malloc((size_t)size + 1);
    for (int pass = 0; pass < 3; pass++) {
        for (MPI_Count i = 0; i < text; i++)
            mem[i] = (unsigned char)((uint64_t)(tlb + i + (1 << 20)) >> (8 * pass));
        int pos = 0;
        MPI_Pack(mem - tlb, 1, t, packed, size, &pos, MPI_COMM_SELF);
        for (int i = 0; i < size; i++)
            want[i] |= (int64_t)packed[i] << (8 * pass);
    }
    for (int i = 0; i < size; i++)
        want[i] -= 1 << 20;
    mcio_flat *f = mcio_flat_get(t);
    if (f && f->ok) {
        if (f->size != size || f->lb != lb || f->extent != ext) {
            fprintf(stderr, "size/lb/extent %lld/%lld/%lld, MPI %d/%lld/%lld\n", (long long)f->size,
                    (long long)f->lb, (long long)f->extent, size, (long long)lb, (long long)ext);
            __builtin_trap();
        }
        int64_t k = 0;
        for (int64_t b = 0; b < f->n; b++) {
            if (f->len[b] <= 0)
                __builtin_trap();
            if (f->monotone && b > 0 && f->disp[b] < f->disp[b - 1] + f->len[b - 1])
                __builtin_trap();
            for (int64_t j = 0; j < f->len[b]; j++, k++)
                if (k >= size || f->disp[b] + j != want[k]) {
                    fprintf(stderr, "byte %lld of the type map at %lld, MPI packs it from %lld\n",
                            (long long)k, (long long)(f->disp[b] + j), k < size ? (long long)want[k] : -1LL);
                    __builtin_trap();
                }
        }
        if (k != size)
            __builtin_trap();
    }
    mcio_flat_release(f);
    free(want), free(mem), free(packed);
    if (!named)
        MPI_Type_free(&t);
    return 0;
}
