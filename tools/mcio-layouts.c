/*
 * Random layouts against native MPI-IO (issue 23): a plain MPI program run under the drop-in
 * layer (LD_PRELOAD=libmcio_preload.so; tools/random-layouts.sh). Its MPI_File_* calls go to mcio,
 * its PMPI_File_* calls straight to the MPI library (the layer defines only the MPI_ names), so
 * one run writes every layout both ways and compares.
 *
 * A layout, drawn from its seed (the same on every rank, splitmix64):
 *   - a file view per rank: displacement, etype (MPI_BYTE or MPI_INT) and a filetype, either
 *     ranks interleaved (vector, subarray or darray of a shared global array) or extents and
 *     holes (the file cut into chunks of random sizes, each owned by a random rank or by
 *     nobody; the rank's filetype an hindexed or struct of its chunks, sometimes resized to leave
 *     a hole at the end of each tile), so that no two ranks write the same byte;
 *   - a memory type per rank (contiguous, vector with gaps, indexed in shuffled order, a resized
 *     struct) and a count of it;
 *   - the access: write_at_all at a random offset or write_all at the individual pointer;
 *   - hints for mcio: strategy romio or memory, pipeline depth 1, 2 or 4, transport p2p or rma,
 *     cb_nodes, tiny and odd cb_buffer_size and sub-buffer sizes, romio_cb_write/read, backend
 *     mpiio or posix, a stripe size.
 * Per layout: the file written natively (PMPI) and through mcio (MPI), compared byte for byte by
 * rank 0; then the native file read back through the same view and memory type natively and
 * through mcio into sentinel-filled buffers, which must be equal byte for byte and hold what was
 * written. Every rank agrees on the outcome (allreduce) after each layout.
 *
 * Usage: mcio-layouts --seed S --count N --dir D [--quiet]
 * Prints one line per failing layout (its seed reproduces it) and a summary line:
 *   "mcio-layouts: <ranks> ranks, <N> layouts, <d> differences, <calls> mcio calls"
 * Exit status 0 when no layout differed.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcio_splitmix64.h"

static int rank, nprocs;

static int64_t pick(uint64_t *s, int64_t lo, int64_t hi) /* inclusive */
{
    return lo + (int64_t)(splitmix64(s) % (uint64_t)(hi - lo + 1));
}

/* The file view of this rank for layout state s (the same draws on every rank). */
typedef struct view {
    MPI_Offset disp;
    MPI_Datatype etype, ftype;
    int esize;
    char what[64];
} view;

static void view_interleaved(uint64_t *s, view *v)
{
    int e = v->esize, kind = (int)pick(s, 0, 2);
    if (kind == 0) { /* blocks of bl etypes, ranks in turn */
        int bl = (int)pick(s, 1, 40), count = (int)pick(s, 1, 30);
        MPI_Datatype t; /* the extent a whole period, so the next tile starts after every rank's */
        MPI_Type_vector(count, bl, bl * nprocs, v->etype, &t);
        MPI_Type_create_resized(t, 0, (MPI_Aint)count * bl * nprocs * e, &v->ftype);
        MPI_Type_free(&t);
        v->disp += (MPI_Offset)rank * bl * e;
        snprintf(v->what, sizeof v->what, "vector %d x %d", count, bl);
    } else if (kind == 1) { /* this rank's block of a 2-D or 3-D array, ranks in a row */
        int nd = (int)pick(s, 2, 3), g[3], sub[3], st[3];
        for (int d = 0; d < nd; d++)
            g[d] = (int)pick(s, 1, 12);
        g[nd - 1] = (int)pick(s, 1, 6) * nprocs;
        for (int d = 0; d < nd; d++)
            sub[d] = g[d], st[d] = 0;
        sub[nd - 1] = g[nd - 1] / nprocs;
        st[nd - 1] = rank * sub[nd - 1];
        int order = pick(s, 0, 1) ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        if (order == MPI_ORDER_FORTRAN) { /* cut the slowest dimension in Fortran order: the first */
            sub[nd - 1] = g[nd - 1], st[nd - 1] = 0;
            g[0] = (int)pick(s, 1, 6) * nprocs;
            sub[0] = g[0] / nprocs, st[0] = rank * sub[0];
        }
        MPI_Type_create_subarray(nd, g, sub, st, order, v->etype, &v->ftype);
        snprintf(v->what, sizeof v->what, "subarray %d-D %s", nd, order == MPI_ORDER_C ? "C" : "F");
    } else { /* darray: block or cyclic over a process grid */
        int g[2], dist[2], darg[2], ps[2] = {0, 0};
        MPI_Dims_create(nprocs, 2, ps);
        for (int d = 0; d < 2; d++) {
            g[d] = (int)pick(s, 1, 16) * ps[d] + (int)pick(s, 0, 1) * (int)pick(s, 0, ps[d] - 1);
            dist[d] = pick(s, 0, 1) ? MPI_DISTRIBUTE_CYCLIC : MPI_DISTRIBUTE_BLOCK;
            darg[d] = dist[d] == MPI_DISTRIBUTE_CYCLIC && pick(s, 0, 1) ? (int)pick(s, 1, 3)
                                                                         : MPI_DISTRIBUTE_DFLT_DARG;
        }
        int order = pick(s, 0, 1) ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        MPI_Type_create_darray(nprocs, rank, 2, g, dist, darg, ps, order, v->etype, &v->ftype);
        snprintf(v->what, sizeof v->what, "darray %dx%d", g[0], g[1]);
    }
}

/* Extents and holes: the file cut into chunks, each owned by a rank or by nobody. */
static void view_chunks(uint64_t *s, view *v)
{
    int nchunks = (int)pick(s, 1, 6 * nprocs + 4), mine = 0;
    int *bl = malloc((size_t)nchunks * sizeof *bl);
    MPI_Aint *dp = malloc((size_t)nchunks * sizeof *dp);
    MPI_Datatype *ty = malloc((size_t)nchunks * sizeof *ty);
    int64_t at = 0;
    for (int c = 0; c < nchunks; c++) {
        int len = (int)pick(s, 1, pick(s, 0, 3) ? 64 : 3000); /* in etypes */
        int owner = (int)pick(s, -1, nprocs - 1);
        if (owner == rank) {
            bl[mine] = len, dp[mine] = (MPI_Aint)(at * v->esize), ty[mine] = v->etype;
            mine++;
        }
        at += len;
    }
    int tail = (int)pick(s, 0, 3) == 0; /* a hole at the end of each tile */
    MPI_Datatype t;
    if (pick(s, 0, 1))
        MPI_Type_create_hindexed(mine, bl, dp, v->etype, &t);
    else
        MPI_Type_create_struct(mine, bl, dp, ty, &t);
    if (tail || mine == 0) {
        /* every rank's tile spans the whole region (plus the hole), so tiles do not collide */
        MPI_Type_create_resized(t, 0, (MPI_Aint)(at + (tail ? pick(s, 1, 100) : 0)) * v->esize, &v->ftype);
        MPI_Type_free(&t);
    } else {
        /* no resize: a tile ends at this rank's last chunk; a second tile would overlap the
         * others' chunks, so the access stays within one tile (see main) */
        v->ftype = t;
    }
    snprintf(v->what, sizeof v->what, "chunks %d (%d mine)%s", nchunks, mine, tail ? " + tail hole" : "");
    free(bl), free(dp), free(ty);
}

/* A memory type over units of etype (so data is whole etypes), its size in bytes. */
static MPI_Datatype memtype(uint64_t *s, MPI_Datatype etype, char *what, size_t wl)
{
    MPI_Datatype t;
    int kind = (int)pick(s, 0, 3);
    if (kind == 0) {
        MPI_Type_contiguous((int)pick(s, 1, 64), etype, &t);
        snprintf(what, wl, "contiguous");
    } else if (kind == 1) {
        int bl = (int)pick(s, 1, 16);
        MPI_Type_vector((int)pick(s, 1, 8), bl, bl + (int)pick(s, 0, 5), etype, &t);
        snprintf(what, wl, "vector");
    } else if (kind == 2) { /* blocks in shuffled order: memory may go backwards */
        int n = (int)pick(s, 1, 8), bl[8], d[8], at = 0;
        for (int i = 0; i < n; i++)
            bl[i] = (int)pick(s, 1, 12), d[i] = at, at += bl[i] + (int)pick(s, 0, 3);
        for (int i = n - 1; i > 0; i--) {
            int j = (int)pick(s, 0, i), x = d[i];
            d[i] = d[j], d[j] = x;
            x = bl[i], bl[i] = bl[j], bl[j] = x;
        }
        /* shuffled blocks may overlap when lengths moved: keep each block within its slot */
        for (int i = 0; i < n; i++)
            bl[i] = 1;
        MPI_Type_indexed(n, bl, d, etype, &t);
        snprintf(what, wl, "indexed shuffled");
    } else {
        MPI_Datatype in;
        int bl[2] = {(int)pick(s, 1, 6), (int)pick(s, 1, 6)};
        int es;
        MPI_Type_size(etype, &es);
        MPI_Aint d[2] = {0, (MPI_Aint)(bl[0] + pick(s, 0, 4)) * es};
        MPI_Datatype ty[2] = {etype, etype};
        MPI_Type_create_struct(2, bl, d, ty, &in);
        MPI_Type_create_resized(in, 0, d[1] + (MPI_Aint)(bl[1] + pick(s, 0, 4)) * es, &t);
        MPI_Type_free(&in);
        snprintf(what, wl, "resized struct");
    }
    MPI_Type_commit(&t);
    return t;
}

static unsigned char pattern(uint64_t seed, int r, int64_t i)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + (uint64_t)r * 0xBF58476D1CE4E5B9ull + (uint64_t)i;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBull;
    return (unsigned char)(x >> 56);
}

static void set(MPI_Info info, const char *k, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    MPI_Info_set(info, k, b);
}

/* Random mcio hints; a short description in what. */
static MPI_Info hints(uint64_t *s, char *what, size_t wl)
{
    MPI_Info info;
    MPI_Info_create(&info);
    static const int64_t bufs[] = {61, 97, 256, 1000, 4096, 65536, 16 << 20};
    static const char *cbm[] = {"automatic", "enable", "disable"};
    int memory = (int)pick(s, 0, 2) == 0, depth = (int)(int64_t[]){1, 1, 2, 4}[pick(s, 0, 3)];
    int rma = (int)pick(s, 0, 1), cbn = (int)pick(s, 0, nprocs), posix = (int)pick(s, 0, 1);
    int64_t buf = bufs[pick(s, 0, 6)], stripe = (int64_t[]){0, 0, 512, 4096}[pick(s, 0, 3)];
    const char *cbw = cbm[pick(s, 0, 2)], *cbr = cbm[pick(s, 0, 2)];
    MPI_Info_set(info, "mcio_strategy", memory ? "memory" : "romio");
    if (memory) {
        set(info, "mcio_msgind", (int64_t)pick(s, 1, 64) * 256);
        set(info, "mcio_nah", pick(s, 1, 4));
        set(info, "mcio_memmin", 0);
    }
    set(info, "mcio_pipeline_depth", depth);
    MPI_Info_set(info, "mcio_transport", rma ? "rma" : "p2p");
    if (depth > 1 && pick(s, 0, 1))
        set(info, "mcio_subbuffer_size", (int64_t[]){1, 100, 512, 1000}[pick(s, 0, 3)]);
    if (cbn)
        set(info, "cb_nodes", cbn);
    set(info, "cb_buffer_size", buf);
    if (stripe)
        set(info, "striping_unit", stripe);
    MPI_Info_set(info, "romio_cb_write", cbw);
    MPI_Info_set(info, "romio_cb_read", cbr);
    MPI_Info_set(info, "mcio_io_backend", posix ? "posix" : "mpiio");
    snprintf(what, wl, "%s d%d %s cb_nodes %d buf %lld stripe %lld cb %s/%s %s", memory ? "memory" : "romio",
             depth, rma ? "rma" : "p2p", cbn, (long long)buf, (long long)stripe, cbw, cbr,
             posix ? "posix" : "mpiio");
    return info;
}

/* Whole file into a new buffer (rank 0), its size in *n; NULL when it cannot be read. */
static unsigned char *slurp(const char *path, int64_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)*n + 1);
    if (b && fread(b, 1, (size_t)*n, f) != (size_t)*n)
        free(b), b = NULL;
    fclose(f);
    return b;
}

/*
 * The file this rank's write must produce, computed without MPI-IO: the data stream is
 * MPI_Pack of the memory, and data byte j of a filetype tile lands at the displacement MPI_Pack
 * reads byte j from in a memory image whose bytes spell their own displacement. Returns the
 * number of bytes; *off and *val (allocated) the file offset and value of each.
 */
static int64_t expected_bytes(const view *v, MPI_Offset off_etypes, const void *buf, int cnt, MPI_Datatype mt,
                              int64_t **off, unsigned char **val)
{
    MPI_Count msize, fsize, tlb, text, flb, fext;
    MPI_Type_size_x(mt, &msize);
    MPI_Type_size_x(v->ftype, &fsize);
    MPI_Type_get_true_extent_x(v->ftype, &tlb, &text);
    MPI_Type_get_extent_x(v->ftype, &flb, &fext);
    int64_t n = (int64_t)msize * cnt;
    *off = malloc((size_t)n * sizeof **off + 1);
    *val = malloc((size_t)n + 1);
    int pos = 0;
    MPI_Pack(buf, cnt, mt, *val, (int)n, &pos, MPI_COMM_SELF);
    if (n == 0 || fsize == 0)
        return n;
    int64_t *map = calloc((size_t)fsize, sizeof *map);
    unsigned char *img = malloc((size_t)text + 1), *packed = malloc((size_t)fsize);
    for (int pass = 0; pass < 3; pass++) { /* displacements < 2^24 */
        for (MPI_Count i = 0; i < text; i++)
            img[i] = (unsigned char)((uint64_t)(tlb + i) >> (8 * pass));
        pos = 0;
        MPI_Pack(img - tlb, 1, v->ftype, packed, (int)fsize, &pos, MPI_COMM_SELF);
        for (MPI_Count j = 0; j < fsize; j++)
            map[j] |= (int64_t)packed[j] << (8 * pass);
    }
    int64_t p0 = (int64_t)off_etypes * v->esize;
    for (int64_t k = 0; k < n; k++) {
        int64_t q = p0 + k;
        (*off)[k] = v->disp + (q / fsize) * fext + map[q % fsize];
    }
    free(map), free(img), free(packed);
    return n;
}

/* why: the MPI error strings of a failed native (rc1) and mcio (rc2) access. */
static void describe_errors(const char *what, int rc1, int rc2, char *why, size_t n)
{
    char e1[MPI_MAX_ERROR_STRING] = "", e2[MPI_MAX_ERROR_STRING] = "";
    int l;
    if (rc1 != MPI_SUCCESS)
        MPI_Error_string(rc1, e1, &l);
    if (rc2 != MPI_SUCCESS)
        MPI_Error_string(rc2, e2, &l);
    snprintf(why, n, "%s: native '%.60s', mcio '%.100s'", what, e1, e2);
}

typedef struct layout_access {
    int write, at;
    MPI_Offset off;
} layout_access;

/* One collective access on path, natively (PMPI) or through the layer (MPI). */
static int do_access(int native, const char *path, MPI_Info info, const view *v, const layout_access *a,
                     void *buf, int count, MPI_Datatype mt)
{
    MPI_File fh;
    int amode = a->write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, rc;
    rc = native ? PMPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh)
                : MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = native ? PMPI_File_set_view(fh, v->disp, v->etype, v->ftype, "native", MPI_INFO_NULL)
                : MPI_File_set_view(fh, v->disp, v->etype, v->ftype, "native", MPI_INFO_NULL);
    if (rc == MPI_SUCCESS && !a->at) {
        rc = native ? PMPI_File_seek(fh, a->off, MPI_SEEK_SET) : MPI_File_seek(fh, a->off, MPI_SEEK_SET);
    }
    if (rc == MPI_SUCCESS) {
        if (a->write)
            rc = a->at ? (native ? PMPI_File_write_at_all(fh, a->off, buf, count, mt, MPI_STATUS_IGNORE)
                                 : MPI_File_write_at_all(fh, a->off, buf, count, mt, MPI_STATUS_IGNORE))
                       : (native ? PMPI_File_write_all(fh, buf, count, mt, MPI_STATUS_IGNORE)
                                 : MPI_File_write_all(fh, buf, count, mt, MPI_STATUS_IGNORE));
        else
            rc = a->at ? (native ? PMPI_File_read_at_all(fh, a->off, buf, count, mt, MPI_STATUS_IGNORE)
                                 : MPI_File_read_at_all(fh, a->off, buf, count, mt, MPI_STATUS_IGNORE))
                       : (native ? PMPI_File_read_all(fh, buf, count, mt, MPI_STATUS_IGNORE)
                                 : MPI_File_read_all(fh, buf, count, mt, MPI_STATUS_IGNORE));
    }
    int rc2 = native ? PMPI_File_close(&fh) : MPI_File_close(&fh);
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* One drawn layout: the shared view and hints, this rank's memory type, count and access. */
typedef struct layout {
    uint64_t seed;
    view v;
    int ints, interleaved;
    MPI_Info info;
    char hw[160], mw[32];
    MPI_Datatype mt;
    MPI_Count msize;
    layout_access a;
    int cnt;
    int64_t span;      /* bytes of the memory buffers */
    unsigned char *w;  /* the data written */
} layout;

/*
 * Layout seed from its seed: the view and hints from *s (the same draws on every rank), then
 * this rank's memory type, count and access from its own stream. The order of the draws is the
 * layout's identity: a seed printed by a failing run draws the same layout again.
 */
static void draw_layout(uint64_t seed, uint64_t *s, layout *L)
{
    memset(L, 0, sizeof *L);
    L->seed = seed;
    view *v = &L->v;
    v->disp = pick(s, 0, 3) ? 0 : pick(s, 1, 4096);
    L->ints = (int)pick(s, 0, 2) == 0;
    v->etype = L->ints ? MPI_INT : MPI_BYTE;
    v->esize = L->ints ? 4 : 1;
    if (v->disp % v->esize)
        v->disp -= v->disp % v->esize;
    L->interleaved = (int)pick(s, 0, 1);
    if (L->interleaved)
        view_interleaved(s, v);
    else
        view_chunks(s, v);
    MPI_Type_commit(&v->ftype);
    L->info = hints(s, L->hw, sizeof L->hw);
    uint64_t sr = *s ^ ((uint64_t)rank * 0xD1B54A32D192ED03ull);
    L->mt = memtype(&sr, v->etype, L->mw, sizeof L->mw);
    MPI_Count fsize, mlb, mext;
    MPI_Type_size_x(v->ftype, &fsize);
    MPI_Type_size_x(L->mt, &L->msize);
    MPI_Type_get_extent_x(L->mt, &mlb, &mext);
    L->a = (layout_access){.write = 1, .at = (int)pick(&sr, 0, 2) != 0};
    /* Within one tile when tiles would overlap (an unresized chunks view): the data from
     * the offset to the tile's end. Otherwise up to three tiles' worth. */
    int64_t ftile = fsize / v->esize, room = 3 * ftile;
    if (!L->interleaved && strstr(v->what, "tail") == NULL && strstr(v->what, "(0 mine)") == NULL)
        room = ftile;
    L->a.off = room > 0 ? pick(&sr, 0, room / 4) : 0;
    int64_t want = room - L->a.off; /* etypes at most */
    L->cnt = L->msize > 0 && want > 0 ? (int)pick(&sr, 0, (int64_t)(want * v->esize / L->msize))
                                      : 0;
    if (pick(&sr, 0, 9) == 0)
        L->cnt = 0; /* some ranks with nothing */
    L->span = (int64_t)mext * (L->cnt ? L->cnt : 1) + 64;
    L->w = malloc((size_t)L->span);
    for (int64_t i = 0; i < L->span; i++)
        L->w[i] = pattern(seed, rank, i);
}

static void free_layout(layout *L)
{
    free(L->w);
    MPI_Type_free(&L->mt);
    MPI_Type_free(&L->v.ftype);
    MPI_Info_free(&L->info);
}

/* The file both writes must produce, on rank 0: fend bytes, prefilled, then every rank's bytes. */
typedef struct expected_file {
    int64_t fend, total;
    int64_t *off;       /* rank 0: total offsets */
    unsigned char *val; /* rank 0: their values */
} expected_file;

/*
 * What each rank's write must produce, gathered on rank 0, and the file's end: past every
 * access, sometimes with a margin drawn from *s.
 */
static void gather_expected(const layout *L, uint64_t *s, expected_file *x)
{
    int64_t *eo;
    unsigned char *ev;
    int64_t en = expected_bytes(&L->v, L->a.off, L->w, L->cnt, L->mt, &eo, &ev);
    int nmine = (int)en, *ns = NULL, *at = NULL, total = 0;
    if (rank == 0)
        ns = calloc((size_t)nprocs, sizeof *ns), at = calloc((size_t)nprocs, sizeof *at);
    MPI_Gather(&nmine, 1, MPI_INT, ns, 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < nprocs; r++)
        at[r] = total, total += ns[r];
    x->total = total;
    x->off = rank == 0 ? malloc((size_t)total * sizeof *x->off + 1) : NULL;
    x->val = rank == 0 ? malloc((size_t)total + 1) : NULL;
    MPI_Gatherv(eo, nmine, MPI_INT64_T, x->off, ns, at, MPI_INT64_T, 0, MPI_COMM_WORLD);
    MPI_Gatherv(ev, nmine, MPI_BYTE, x->val, ns, at, MPI_BYTE, 0, MPI_COMM_WORLD);
    x->fend = 0;
    for (int64_t i = 0; i < en; i++)
        x->fend = eo[i] + 1 > x->fend ? eo[i] + 1 : x->fend;
    MPI_Allreduce(MPI_IN_PLACE, &x->fend, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    x->fend += pick(s, 0, 3) ? pick(s, 0, 100) : 0;
    free(eo), free(ev), free(ns), free(at);
}

static unsigned char prefill_byte(int64_t i)
{
    return (unsigned char)(i * 7 + 3);
}

/*
 * Rank 0: both files first hold the same sentinel bytes, past the end of every access, as the
 * project's tests prefill theirs: holes must keep them. (On an empty file, ROMIO's data-sieving
 * writes were seen to leave run-dependent bytes in holes past the end of file, which no
 * comparison can judge.) Returns 1 on failure, with why.
 */
static int prefill(const char *const paths[2], int64_t fend, char *why, size_t wl)
{
    int fail = 0;
    unsigned char *pre = malloc((size_t)fend + 1);
    for (int64_t i = 0; i < fend; i++)
        pre[i] = prefill_byte(i);
    for (int f = 0; f < 2; f++) {
        FILE *fp = fopen(paths[f], "wb");
        if (!fp || fwrite(pre, 1, (size_t)fend, fp) != (size_t)fend)
            fail = 1, snprintf(why, wl, "cannot prefill %.150s", paths[f]);
        if (fp)
            fclose(fp);
    }
    free(pre);
    return fail;
}

/*
 * Rank 0: mcio's file (paths[1]) must equal the oracle byte for byte; the native file
 * (paths[0]) differing while mcio's does not counts in *native_wrong. Returns 1 on failure.
 */
static int check_files(const char *const paths[2], const expected_file *x, long *native_wrong,
                       char *why, size_t wl)
{
    int fail = 0;
    int64_t na = 0, nb = 0, ne = x->fend;
    unsigned char *fe = calloc((size_t)ne + 1, 1);
    for (int64_t i = 0; i < ne; i++)
        fe[i] = prefill_byte(i);
    for (int64_t i = 0; i < x->total; i++)
        fe[x->off[i]] = x->val[i];
    unsigned char *fa = slurp(paths[0], &na), *fb = slurp(paths[1], &nb);
    if (!fa || !fb || nb != ne) {
        fail = 1;
        snprintf(why, wl, "file sizes: expected %lld, native %lld, mcio %lld", (long long)ne,
                 (long long)na, (long long)nb);
    } else {
        for (int64_t i = 0; i < ne; i++)
            if (fb[i] != fe[i]) {
                fail = 1;
                snprintf(why, wl,
                         "mcio's file differs at byte %lld of %lld (mcio %u, expected %u, native %u)",
                         (long long)i, (long long)ne, fb[i], fe[i], i < na ? fa[i] : 0);
                break;
            }
        if (!fail && (na != ne || memcmp(fa, fe, (size_t)ne) != 0))
            (*native_wrong)++; /* mcio right, the MPI library's own collective write not */
    }
    free(fa), free(fb), free(fe);
    return fail;
}

/*
 * Write the layout both ways and check both files (collective). Returns the agreed failure;
 * why is set on the rank that saw it.
 */
static int write_both(const layout *L, uint64_t *s, const char *const paths[2], long *calls,
                      long *native_wrong, char *why, size_t wl)
{
    expected_file x;
    gather_expected(L, s, &x);
    int fail = rank == 0 ? prefill(paths, x.fend, why, wl) : 0;
    MPI_Barrier(MPI_COMM_WORLD);
    int rc1 = do_access(1, paths[0], L->info, &L->v, &L->a, L->w, L->cnt, L->mt);
    int rc2 = do_access(0, paths[1], L->info, &L->v, &L->a, L->w, L->cnt, L->mt);
    (*calls)++;
    if (rc1 != MPI_SUCCESS || rc2 != MPI_SUCCESS)
        fail = 1, describe_errors("write", rc1, rc2, why, wl);
    MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!fail && rank == 0)
        fail = check_files(paths, &x, native_wrong, why, wl);
    free(x.off), free(x.val);
    MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return fail;
}

/*
 * Read the native file back both ways into sentinel-filled buffers (collective). mcio's read
 * gives back what was written where the memory type has data, the sentinel elsewhere: those
 * bytes are marked by unpacking the packed data into a sentinel buffer. Returns the agreed
 * failure.
 */
static int read_both(const layout *L, const char *native_path, long *calls, long *native_wrong,
                     char *why, size_t wl)
{
    int fail = 0, cnt = L->cnt;
    size_t span = (size_t)L->span;
    unsigned char *rn = malloc(span), *rm = malloc(span);
    memset(rn, 0xA5, span), memset(rm, 0xA5, span);
    layout_access r = L->a;
    r.write = 0;
    int rc1 = do_access(1, native_path, L->info, &L->v, &r, rn, cnt, L->mt);
    int rc2 = do_access(0, native_path, L->info, &L->v, &r, rm, cnt, L->mt);
    (*calls)++;
    if (rc1 != MPI_SUCCESS || rc2 != MPI_SUCCESS) {
        fail = 1, describe_errors("read", rc1, rc2, why, wl);
    } else {
        unsigned char *want_r = malloc(span), *pk = malloc((size_t)(L->msize * cnt) + 1);
        memset(want_r, 0xA5, span);
        int pos = 0;
        MPI_Pack(L->w, cnt, L->mt, pk, (int)(L->msize * cnt), &pos, MPI_COMM_SELF);
        pos = 0;
        MPI_Unpack(pk, (int)(L->msize * cnt), &pos, want_r, cnt, L->mt, MPI_COMM_SELF);
        int bad_native = 0;
        for (size_t i = 0; i < span; i++)
            if (rm[i] != want_r[i]) {
                fail = 1;
                snprintf(why, wl,
                         "rank %d: mcio's read differs at memory byte %lld (mcio %u, expected %u, "
                         "native %u)",
                         rank, (long long)i, rm[i], want_r[i], rn[i]);
                break;
            }
        if (!fail && memcmp(rn, want_r, span) != 0)
            bad_native = 1;
        MPI_Allreduce(MPI_IN_PLACE, &bad_native, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        *native_wrong += rank == 0 && bad_native;
        free(want_r), free(pk);
    }
    free(rn), free(rm);
    MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return fail;
}

typedef struct options {
    uint64_t seed0;
    long count;
    const char *dir;
    int quiet;
} options;

/* 0, or 2 after printing the usage. */
static int parse_args(int argc, char **argv, options *o)
{
    *o = (options){.seed0 = 1, .count = 10, .dir = "."};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            o->seed0 = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc)
            o->count = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            o->dir = argv[++i];
        else if (!strcmp(argv[i], "--quiet"))
            o->quiet = 1;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: mcio-layouts --seed S --count N --dir D [--quiet]\n");
            return 2;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    options o;
    if (parse_args(argc, argv, &o) != 0) {
        MPI_Finalize();
        return 2;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    char pa[600], pb[600];
    snprintf(pa, sizeof pa, "%s/layout-native.%d", o.dir, nprocs);
    snprintf(pb, sizeof pb, "%s/layout-mcio.%d", o.dir, nprocs);
    const char *const paths[2] = {pa, pb};
    long diffs = 0, calls = 0, native_wrong = 0;
    for (long l = 0; l < o.count; l++) {
        uint64_t seed = o.seed0 + (uint64_t)l, s = seed * 0x2545F4914F6CDD1Dull + (uint64_t)nprocs;
        layout L;
        draw_layout(seed, &s, &L);
        char why[200] = "";
        int fail = write_both(&L, &s, paths, &calls, &native_wrong, why, sizeof why);
        if (!fail)
            fail = read_both(&L, pa, &calls, &native_wrong, why, sizeof why);
        if (fail) {
            diffs++;
            if (why[0] || rank == 0)
                fprintf(stderr,
                        "mcio-layouts: layout seed %llu (%d ranks) DIFFERS: %s; view %s etype %s "
                        "disp %lld, memory %s x %d, %s %lld; hints %s\n",
                        (unsigned long long)seed, nprocs, why[0] ? why : "(another rank)", L.v.what,
                        L.ints ? "int" : "byte", (long long)L.v.disp, L.mw, L.cnt,
                        L.a.at ? "at" : "seek", (long long)L.a.off, L.hw);
        } else if (!o.quiet && rank == 0 && l % 100 == 99) {
            printf("mcio-layouts: %ld of %ld layouts, %ld differences\n", l + 1, o.count, diffs);
            fflush(stdout);
        }
        free_layout(&L);
    }
    if (rank == 0) {
        unlink(pa), unlink(pb);
        printf("mcio-layouts: %d ranks, %ld layouts, %ld differences, %ld mcio calls, %ld where the "
               "MPI library's own collective I/O was wrong\n",
               nprocs, o.count, diffs, calls, native_wrong);
    }
    MPI_Finalize();
    return diffs ? 1 : 0;
}
