/*
 * Datatype flattening for the drop-in layer.
 *
 * A datatype's type map is a list of (basic type, displacement); collective I/O needs only its
 * bytes: the blocks (displacement, length) in type-map order, adjacent blocks merged (ROMIO's
 * ADIOI_Flatten does the same, from MPI_Type_get_envelope / get_contents). Every constructor is
 * decoded recursively: a child is flattened once and its blocks replicated, and a child that is
 * one dense block (len == extent) is replicated as one block, so contiguous(2^30, MPI_BYTE) costs
 * one block, not 2^30. subarray and darray are expanded from their parameters (the darray
 * process grid is row-major whatever the array order, as the MPI standard says).
 *
 * Glossary: type map order: the order of the bytes in the data stream, which maps memory to
 * file; dense: one block filling its extent; monotone: usable as an MPI filetype (blocks in
 * increasing order, not overlapping); tiles_ok: and within one extent, so tiles never overlap.
 */
#include "mcio_pmpi_flatten.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct blist {
    int64_t n, cap;
    int64_t *disp, *len;
    int fail; /* out of memory or an unsupported constructor */
} blist;

static void put(blist *b, int64_t d, int64_t l)
{
    if (l <= 0 || b->fail)
        return;
    if (b->n > 0 && b->disp[b->n - 1] + b->len[b->n - 1] == d) {
        b->len[b->n - 1] += l;
        return;
    }
    if (b->n == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 8;
        int64_t *nd = realloc(b->disp, (size_t)cap * sizeof *nd);
        if (nd)
            b->disp = nd;
        int64_t *nl = nd ? realloc(b->len, (size_t)cap * sizeof *nl) : NULL;
        if (!nl) {
            b->fail = 1;
            return;
        }
        b->len = nl;
        b->cap = cap;
    }
    b->disp[b->n] = d;
    b->len[b->n] = l;
    b->n++;
}

/* count copies of child's blocks, the i-th shifted by base + i * stride. */
static void put_repeat(blist *b, const blist *child, int64_t base, int64_t count, int64_t stride)
{
    if (count <= 0 || child->n == 0)
        return;
    if (child->n == 1 && child->len[0] == stride) {
        put(b, base + child->disp[0], count * stride);
        return;
    }
    for (int64_t i = 0; i < count && !b->fail; i++)
        for (int64_t j = 0; j < child->n; j++)
            put(b, base + i * stride + child->disp[j], child->len[j]);
}

static void blist_free(blist *b)
{
    free(b->disp);
    free(b->len);
}

/* The _x forms throughout: a type of 2 GiB or more has no int size (MPI_Type_size answers
 * MPI_UNDEFINED), and such types (a darray of several GiB per rank, a vector of 2^29 ints) are
 * exactly the views that need collective I/O most. */
static int64_t extent_of(MPI_Datatype t)
{
    MPI_Count lb, ext;
    PMPI_Type_get_extent_x(t, &lb, &ext);
    return (int64_t)ext;
}

static int build(MPI_Datatype t, blist *out);

/* One child, flattened at displacement 0. */
static int build_child(MPI_Datatype t, blist *c)
{
    memset(c, 0, sizeof *c);
    build(t, c);
    return !c->fail;
}

/*
 * The elements of an array of dimension nd (sizes gsize, element extent ext), dimension d
 * taking the indices idx[d][0..nidx[d]), in array order (C: the last dimension fastest).
 * Consecutive indices of the fastest dimension become one put_repeat.
 */
static void put_grid(blist *b, const blist *child, int64_t ext, int nd, const int64_t *stride,
                     int64_t *const *idx, const int64_t *nidx, int fortran, int level, int64_t base)
{
    int d = fortran ? nd - 1 - level : level; /* the dimension of this loop level */
    if (level == nd - 1) {
        for (int64_t i = 0; i < nidx[d] && !b->fail;) {
            int64_t j = i + 1;
            while (j < nidx[d] && idx[d][j] == idx[d][j - 1] + 1)
                j++;
            put_repeat(b, child, base + idx[d][i] * stride[d], j - i, ext);
            i = j;
        }
        return;
    }
    for (int64_t i = 0; i < nidx[d] && !b->fail; i++)
        put_grid(b, child, ext, nd, stride, idx, nidx, fortran, level + 1, base + idx[d][i] * stride[d]);
}

/* subarray (darray == 0) or darray: build the index lists, then put_grid. */
static void build_array(blist *out, const int *ints, MPI_Datatype old, int darray)
{
    int nd = darray ? ints[2] : ints[0];
    const int *gsize = darray ? ints + 3 : ints + 1;
    int order = darray ? ints[3 + 4 * nd] : ints[1 + 3 * nd];
    int fortran = order == MPI_ORDER_FORTRAN;
    blist child;
    int64_t **idx = calloc((size_t)nd + 1, sizeof *idx);
    int64_t *nidx = calloc((size_t)nd + 1, sizeof *nidx), *stride = calloc((size_t)nd + 1, sizeof *stride);
    int *coord = calloc((size_t)nd + 1, sizeof *coord);
    if (!idx || !nidx || !stride || !coord || !build_child(old, &child)) {
        out->fail = 1;
        if (idx)
            blist_free(&child);
        goto done;
    }
    int64_t ext = extent_of(old);
    if (darray) { /* the rank's coordinates in the row-major process grid */
        const int *psize = ints + 3 + 3 * nd;
        int r = ints[1];
        for (int d = nd - 1; d >= 0; d--) {
            coord[d] = r % psize[d];
            r /= psize[d];
        }
    }
    for (int d = 0; d < nd; d++) {
        int64_t g = gsize[d], lo = 0, hi = 0, k = 1, p = 1, c = 0;
        int cyclic = 0;
        if (darray) {
            int dist = ints[3 + nd + d], darg = ints[3 + 2 * nd + d];
            p = ints[3 + 3 * nd + d];
            c = coord[d];
            if (dist == MPI_DISTRIBUTE_NONE) {
                lo = 0, hi = g;
            } else if (dist == MPI_DISTRIBUTE_BLOCK) {
                int64_t bs = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
                lo = c * bs < g ? c * bs : g;
                hi = lo + bs < g ? lo + bs : g;
            } else {
                cyclic = 1;
                k = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
                lo = 0, hi = g;
            }
        } else {
            lo = ints[1 + 2 * nd + d];
            hi = lo + ints[1 + nd + d];
        }
        idx[d] = malloc((size_t)(hi - lo + 1) * sizeof(int64_t));
        if (!idx[d]) {
            out->fail = 1;
            break;
        }
        for (int64_t i = lo; i < hi; i++)
            if (!cyclic || (i / k) % p == c)
                idx[d][nidx[d]++] = i;
    }
    /* C order: the last dimension varies fastest; Fortran order: the first. */
    for (int d = 0; d < nd && !out->fail; d++) {
        int dd = fortran ? d : nd - 1 - d;
        int prev = fortran ? dd - 1 : dd + 1;
        stride[dd] = d == 0 ? ext : stride[prev] * gsize[prev];
    }
    int empty = 0;
    for (int d = 0; d < nd; d++)
        empty |= nidx[d] == 0;
    if (!out->fail && nd > 0 && !empty)
        put_grid(out, &child, ext, nd, stride, idx, nidx, fortran, 0, 0);
    blist_free(&child);
done:
    for (int d = 0; idx && d < nd; d++)
        free(idx[d]);
    free(idx);
    free(nidx);
    free(stride);
    free(coord);
}

static int is_named(MPI_Datatype t)
{
    int ni, na, nt, comb;
    PMPI_Type_get_envelope(t, &ni, &na, &nt, &comb);
    return comb == MPI_COMBINER_NAMED;
}

/* A named (or Fortran-parameterized) type: one block, or MPI_SHORT_INT's two. */
static void build_basic(MPI_Datatype t, blist *out)
{
    MPI_Count size, tlb, text;
    PMPI_Type_size_x(t, &size);
    PMPI_Type_get_true_extent_x(t, &tlb, &text);
    if ((int64_t)size == (int64_t)text) {
        put(out, tlb, size);
    } else if (t == MPI_SHORT_INT) { /* struct {short; int;}: a hole after the short */
        struct si {
            short s;
            int i;
        };
        put(out, 0, sizeof(short));
        put(out, (int64_t)offsetof(struct si, i), sizeof(int));
    } else {
        out->fail = 1;
    }
}

/* A derived type from its constructor (comb) and MPI_Type_get_contents's arrays. */
static void build_derived(int comb, const int *ints, const MPI_Aint *addrs,
                          const MPI_Datatype *types, blist *out)
{
    blist c;
    memset(&c, 0, sizeof c);
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* the blocks stay; MPI reports the new bounds */
        build(types[0], out);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        if (build_child(types[0], &c))
            put_repeat(out, &c, 0, ints[0], extent_of(types[0]));
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        if (build_child(types[0], &c)) {
            int64_t e = extent_of(types[0]);
            int64_t stride = comb == MPI_COMBINER_VECTOR ? ints[2] * e : (int64_t)addrs[0];
            if (c.n == 1 && c.len[0] == e && stride == (int64_t)ints[1] * e) /* dense: one block */
                put_repeat(out, &c, 0, (int64_t)ints[0] * ints[1], e);
            else
                for (int i = 0; i < ints[0] && !out->fail; i++)
                    put_repeat(out, &c, i * stride, ints[1], e);
        }
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        if (build_child(types[0], &c)) {
            int64_t e = extent_of(types[0]);
            for (int i = 0; i < ints[0] && !out->fail; i++) {
                int64_t d = comb == MPI_COMBINER_INDEXED ? ints[1 + ints[0] + i] * e : (int64_t)addrs[i];
                put_repeat(out, &c, d, ints[1 + i], e);
            }
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        if (build_child(types[0], &c)) {
            int64_t e = extent_of(types[0]);
            for (int i = 0; i < ints[0] && !out->fail; i++) {
                int64_t d = comb == MPI_COMBINER_INDEXED_BLOCK ? ints[2 + i] * e : (int64_t)addrs[i];
                put_repeat(out, &c, d, ints[1], e);
            }
        }
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < ints[0] && !out->fail; i++) {
            blist ci;
            if (build_child(types[i], &ci))
                put_repeat(out, &ci, (int64_t)addrs[i], ints[1 + i], extent_of(types[i]));
            else
                out->fail = 1;
            blist_free(&ci);
        }
        break;
    case MPI_COMBINER_SUBARRAY:
        build_array(out, ints, types[0], 0);
        break;
    case MPI_COMBINER_DARRAY:
        build_array(out, ints, types[0], 1);
        break;
    default: /* MPI-1's *_INTEGER forms and anything newer: the MPI library does it */
        out->fail = 1;
        break;
    }
    if (c.fail)
        out->fail = 1;
    blist_free(&c);
}

/* The blocks of one instance of t at displacement 0, appended to out. */
static int build(MPI_Datatype t, blist *out)
{
    int ni, na, nt, comb;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nt, &comb) != MPI_SUCCESS) {
        out->fail = 1;
        return 0;
    }
    if (comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
        comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER) {
        build_basic(t, out);
        return !out->fail;
    }
    int *ints = malloc(((size_t)ni + 1) * sizeof *ints);
    MPI_Aint *addrs = malloc(((size_t)na + 1) * sizeof *addrs);
    MPI_Datatype *types = malloc(((size_t)nt + 1) * sizeof *types);
    if (!ints || !addrs || !types) {
        free(ints), free(addrs), free(types);
        out->fail = 1;
        return 0;
    }
    PMPI_Type_get_contents(t, ni, na, nt, ints, addrs, types);
    build_derived(comb, ints, addrs, types, out);
    for (int i = 0; i < nt; i++)
        if (!is_named(types[i]))
            PMPI_Type_free(&types[i]);
    free(ints), free(addrs), free(types);
    return !out->fail;
}

void mcio_flat_retain(mcio_flat *f)
{
    __atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
}

void mcio_flat_release(mcio_flat *f)
{
    if (!f || __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) > 0)
        return;
    free(f->disp);
    free(f->len);
    free(f->prefix);
    free(f);
}

int mcio_flat_dense(const mcio_flat *f)
{
    return f->ok && f->n == 1 && f->len[0] == f->extent;
}

static mcio_flat *flatten(MPI_Datatype t)
{
    mcio_flat *f = calloc(1, sizeof *f);
    if (!f)
        return NULL;
    f->refs = 1;
    MPI_Count size, lb, ext;
    PMPI_Type_size_x(t, &size);
    PMPI_Type_get_extent_x(t, &lb, &ext);
    f->size = size, f->lb = lb, f->extent = ext;
    blist b;
    memset(&b, 0, sizeof b);
    build(t, &b);
    f->ok = !b.fail;
    f->n = b.n, f->disp = b.disp, f->len = b.len;
    f->prefix = malloc(((size_t)b.n + 1) * sizeof(int64_t));
    if (!f->prefix)
        f->ok = 0;
    int64_t sum = 0;
    f->monotone = f->ok;
    for (int64_t i = 0; f->prefix && i < b.n; i++) {
        f->prefix[i] = sum;
        sum += b.len[i];
        if (b.disp[i] < 0 || (i > 0 && b.disp[i] < b.disp[i - 1] + b.len[i - 1]))
            f->monotone = 0;
    }
    if (f->prefix)
        f->prefix[b.n] = sum;
    if (sum != f->size) /* the walk disagrees with MPI: trust MPI and step aside */
        f->ok = f->monotone = 0;
    /* PnetCDF's record-variable filetypes are one tile whose blocks span more than the extent:
     * fine while an access stays in the first tile. */
    f->tiles_ok = f->monotone &&
                  (b.n == 0 || b.disp[b.n - 1] + b.len[b.n - 1] - b.disp[0] <= f->extent);
    return f;
}

static int keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t keyval_lock = PTHREAD_MUTEX_INITIALIZER;

static int delete_attr(MPI_Datatype t, int kv, void *attr, void *extra)
{
    (void)t, (void)kv, (void)extra;
    mcio_flat_release(attr);
    return MPI_SUCCESS;
}

/* Predefined types, flattened once per process and kept (each call's memory type and the
 * default view's are one: flattening them at every call was an allocation and four MPI queries
 * of each small call, issue 51). Beyond the table's room, flattened per call as before. */
static struct {
    MPI_Datatype type;
    mcio_flat *flat;
} named[32];
static int nnamed;

static mcio_flat *named_flat(MPI_Datatype type)
{
    mcio_flat *f = NULL;
    pthread_mutex_lock(&keyval_lock);
    for (int i = 0; i < nnamed && !f; i++)
        if (named[i].type == type)
            f = named[i].flat;
    if (!f && nnamed < (int)(sizeof named / sizeof named[0]) && (f = flatten(type)) != NULL) {
        named[nnamed].type = type, named[nnamed++].flat = f; /* the table's reference */
    } else if (!f) {
        pthread_mutex_unlock(&keyval_lock);
        return flatten(type);
    }
    mcio_flat_retain(f);
    pthread_mutex_unlock(&keyval_lock);
    return f;
}

mcio_flat *mcio_flat_get(MPI_Datatype type)
{
    if (is_named(type)) /* no attributes on predefined types */
        return named_flat(type);
    pthread_mutex_lock(&keyval_lock);
    if (keyval == MPI_KEYVAL_INVALID)
        PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, delete_attr, &keyval, NULL);
    pthread_mutex_unlock(&keyval_lock);
    void *attr = NULL;
    int found = 0;
    PMPI_Type_get_attr(type, keyval, &attr, &found);
    if (found) {
        mcio_flat_retain(attr);
        return attr;
    }
    mcio_flat *f = flatten(type);
    if (f && PMPI_Type_set_attr(type, keyval, f) == MPI_SUCCESS)
        mcio_flat_retain(f); /* the attribute's reference */
    return f;
}
