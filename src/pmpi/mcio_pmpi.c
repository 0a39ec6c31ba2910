/*
 * The drop-in layer's core: which files mcio serves, their views, and one collective data call
 * turned into an mcio_writev_at_all / mcio_readv_at_all.
 *
 * Design. The application's MPI_File stays the MPI library's (opened by the real MPI_File_open):
 * every call mcio does not serve goes to it unchanged, and it keeps the view and the individual
 * file pointer, which the layer reads (MPI_File_get_position) and moves (MPI_File_seek) as MPI
 * requires. Beside it the layer opens an mcio_file on the same communicator and path; its own
 * MPI-IO handle sees bytes (no view), which is what the engine's aggregators need. A call is
 * served only when every rank can serve it: a rank that cannot declines it in the engine's own
 * agreement of the call (mcio_file_fail_next), and then all ranks fall back to the MPI library
 * together, so no rank waits in the engine for a rank that went elsewhere and a served call
 * costs the layer no collective of its own.
 *
 * Glossary: view: (displacement, etype, filetype) of MPI_File_set_view; data stream: the bytes
 * the view exposes, in order (offsets count etypes of it); piece: a (file offset, length, memory
 * address) triple, where a filetype block and a memory-type block overlap.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "mcio_pmpi.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio.h"
#include "mcio_pmpi_calls.h"
#include "mcio_pmpi_flatten.h"

typedef struct pieces {
    int64_t n, cap;
    int64_t *off, *len;
    void **addr;
} pieces;

static void pieces_free(pieces *p);

typedef struct pmpi_file {
    MPI_File fh;   /* the application's handle */
    mcio_file mf;  /* the engine's; MCIO_FILE_NULL where its open failed */
    char *path;
    int opening; /* the engine's open is begun, to end at the first collective call */
    int enabled; /* 0: mcio_enable false on this rank: it declines each call */
    int closed_to_mcio; /* mcio_enable false at open: the file shows none of mcio's hints */
    int off;     /* 1: a call found it declined so on some rank: every call goes to the library */
    int amode;
    int64_t disp, etype_size; /* the view */
    mcio_flat *ft;
    int view_ok;
    int split; /* 1: mcio ran a split collective's begin; its end reports split_bytes */
    int64_t split_bytes;
    /* Hints given after open (MPI_File_set_info, MPI_File_set_view's info), merged in order;
     * the engine takes them at the next collective data call, where the ranks meet anyway. */
    MPI_Info pending;
    pieces pieces; /* the last call's, kept: a call's pieces need no allocation of their own */
    struct pmpi_file *next;
} pmpi_file;

static pmpi_file *files;
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int in_layer; /* re-entry guard */

void *mcio_pmpi_resolve(const char *name, void *fallback)
{
    void *p = dlsym(RTLD_NEXT, name);
    return p ? p : fallback;
}

/* Interception on for this call: not disabled, MPI alive, not inside the layer already. */
static int active(void)
{
    static int disabled = -1;
    if (disabled < 0) {
        const char *e = getenv("MCIO_DISABLE");
        disabled = e && *e && strcmp(e, "0") != 0;
    }
    if (disabled || in_layer)
        return 0;
    int fin = 0;
    PMPI_Finalized(&fin);
    return !fin;
}

/* MCIO_PMPI_VERBOSE=1: say on stderr why a call went to the MPI library. */
static int verbose(void)
{
    static int v = -1;
    if (v < 0) {
        const char *e = getenv("MCIO_PMPI_VERBOSE");
        v = e && *e && strcmp(e, "0") != 0;
    }
    return v;
}

static pmpi_file *lookup(MPI_File fh)
{
    pthread_mutex_lock(&files_lock);
    pmpi_file *f = files;
    while (f && f->fh != fh)
        f = f->next;
    pthread_mutex_unlock(&files_lock);
    return f;
}

/* 1 when info says mcio_enable false. */
static int info_disables(MPI_Info info)
{
    if (info == MPI_INFO_NULL)
        return 0;
    char v[16];
    int flag = 0;
    PMPI_Info_get(info, "mcio_enable", (int)sizeof v - 1, v, &flag);
    return flag && strcmp(v, "false") == 0;
}

void mcio_pmpi_after_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File fh)
{
    /* Sequential files have only shared pointers, which mcio leaves to the MPI library. */
    if (!active() || (amode & MPI_MODE_SEQUENTIAL))
        return;
    in_layer = 1;
    pmpi_file *f = calloc(1, sizeof *f);
    char *name = strdup(path);
    /* The file exists now: the engine's handle must neither create, nor refuse it (EXCL),
     * nor delete it at close. Its open ends at the file's first collective data call, where
     * the ranks meet anyway (mcio_file_open_end): a program that opens files often, or never
     * calls collectively on some, pays no collective of mcio's at open. */
    int mamode = amode & ~(MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_DELETE_ON_CLOSE);
    if (!f || !name || mcio_file_open_begin(comm, path, mamode, info, &f->mf) != MCIO_SUCCESS) {
        /* Only without memory for a few hundred bytes: this rank cannot take part, and the
         * others will wait for it at the file's first collective call. */
        fprintf(stderr, "mcio: out of memory at the open of %s: the program's collective calls "
                        "on it cannot be served\n", path);
        free(f);
        free(name);
        in_layer = 0;
        return;
    }
    MPI_Info mi;
    char v[16] = "";
    int flag = 0;
    mcio_file_get_info(f->mf, &mi); /* local: the hints files and info as read on this rank */
    PMPI_Info_get(mi, "mcio_enable", (int)sizeof v - 1, v, &flag);
    PMPI_Info_free(&mi);
    f->fh = fh;
    f->path = name;
    f->opening = 1;
    /* mcio_enable false (info, MCIO_HINTS): declined in the engine's agreement of each call, so
     * that a rank set so alone never leaves the others waiting. */
    f->enabled = !(flag && strcmp(v, "false") == 0) && !info_disables(info);
    f->closed_to_mcio = !f->enabled;
    f->amode = amode;
    f->disp = 0, f->etype_size = 1;
    f->ft = mcio_flat_get(MPI_BYTE);
    f->view_ok = f->ft && f->ft->ok;
    f->pending = MPI_INFO_NULL;
    pthread_mutex_lock(&files_lock);
    f->next = files;
    files = f;
    pthread_mutex_unlock(&files_lock);
    in_layer = 0;
}

/* Collective, at the file's first collective call: the engine's open ends (on every rank alike:
 * the ranks reach a file's collective calls in the same order). 0 where it failed: the file is
 * the MPI library's from then on, said once on stderr. */
static int engine_ready(pmpi_file *f)
{
    if (!f->opening)
        return f->mf != MCIO_FILE_NULL;
    f->opening = 0;
    if (mcio_file_open_end(&f->mf) == MCIO_SUCCESS)
        return 1;
    MPI_Group group;
    int rank = 0;
    if (PMPI_File_get_group(f->fh, &group) == MPI_SUCCESS) {
        PMPI_Group_rank(group, &rank);
        PMPI_Group_free(&group);
    }
    if (rank == 0)
        fprintf(stderr, "mcio: %s is left to the MPI library: %s\n", f->path, mcio_error_message());
    f->off = 1;
    return 0;
}

int mcio_pmpi_before_close(MPI_File fh)
{
    if (in_layer)
        return MPI_SUCCESS;
    pthread_mutex_lock(&files_lock);
    pmpi_file **p = &files;
    while (*p && (*p)->fh != fh)
        p = &(*p)->next;
    pmpi_file *f = *p;
    if (f)
        *p = f->next;
    pthread_mutex_unlock(&files_lock);
    if (!f)
        return MPI_SUCCESS;
    in_layer = 1;
    if (f->mf != MCIO_FILE_NULL) /* collective, as MPI_File_close is; its data is written */
        mcio_file_close(&f->mf);
    free(f->path);
    if (f->pending != MPI_INFO_NULL)
        PMPI_Info_free(&f->pending);
    mcio_flat_release(f->ft);
    pieces_free(&f->pieces);
    free(f);
    in_layer = 0;
    return MPI_SUCCESS;
}

/* Set info's pairs in into (later values win). Local. */
static void info_merge(MPI_Info into, MPI_Info info)
{
    int n = 0;
    if (info == MPI_INFO_NULL || into == MPI_INFO_NULL)
        return;
    PMPI_Info_get_nkeys(info, &n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
        if (flag)
            PMPI_Info_set(into, key, value);
    }
}

/* Merge info's pairs into the file's pending hints (later values win). Local. */
static void pend_hints(pmpi_file *f, MPI_Info info)
{
    int n = 0;
    if (info == MPI_INFO_NULL || PMPI_Info_get_nkeys(info, &n) != MPI_SUCCESS || n == 0)
        return;
    if (f->pending == MPI_INFO_NULL && PMPI_Info_create(&f->pending) != MPI_SUCCESS)
        return;
    info_merge(f->pending, info);
}

void mcio_pmpi_after_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype,
                              MPI_Datatype filetype, const char *datarep, MPI_Info info)
{
    pmpi_file *f = lookup(fh);
    if (!f || in_layer)
        return;
    in_layer = 1;
    int esize = 0;
    PMPI_Type_size(etype, &esize);
    mcio_flat_release(f->ft);
    f->ft = mcio_flat_get(filetype);
    f->disp = disp;
    f->etype_size = esize;
    /* external32 and user representations convert data: the MPI library does that. */
    f->view_ok = f->ft && f->ft->ok && f->ft->monotone && esize > 0 &&
                 datarep && strcmp(datarep, "native") == 0 && disp >= 0;
    if (info_disables(info))
        f->enabled = 0;
    pend_hints(f, info);
    if (!f->view_ok && verbose())
        fprintf(stderr, "mcio: view not served: datarep %s, filetype %s%s, %lld blocks\n",
                datarep ? datarep : "(null)", f->ft && f->ft->ok ? "flattened" : "not flattened",
                f->ft && f->ft->ok && !f->ft->monotone ? " but not monotone" : "",
                f->ft ? (long long)f->ft->n : 0LL);
    in_layer = 0;
}

void mcio_pmpi_after_set_info(MPI_File fh, MPI_Info info)
{
    pmpi_file *f = lookup(fh);
    if (!f || in_layer)
        return;
    if (info_disables(info))
        f->enabled = 0;
    pend_hints(f, info);
}

/* The MPI library's answer, under the engine's hints in force and every key the program set,
 * as it set it (the engine's record of its hints files and info, then the hints given after
 * open that the next collective call hands the engine). What the engine's own handle was
 * opened with never shows: info is the application's handle's. */
void mcio_pmpi_after_get_info(MPI_File fh, MPI_Info info)
{
    pmpi_file *f = lookup(fh);
    if (!f || in_layer || info == MPI_INFO_NULL)
        return;
    in_layer = 1;
    MPI_Info mi, given;
    if (f->closed_to_mcio)
        PMPI_Info_set(info, "mcio_enable", "false");
    else if (f->mf && mcio_file_get_info(f->mf, &mi) == MCIO_SUCCESS) {
        info_merge(info, mi);
        if (mcio_file_get_given_info(f->mf, &given) == MCIO_SUCCESS) {
            info_merge(info, given);
            PMPI_Info_free(&given);
        }
        info_merge(info, f->pending);
        if (!f->enabled || f->off)
            PMPI_Info_set(info, "mcio_enable", "false");
        PMPI_Info_free(&mi);
    }
    in_layer = 0;
}

/* An MPI error code of the right class that carries mcio's message, raised on the file. */
static int raise_error(MPI_File fh, int status, const char *msg)
{
    int cls = MPI_ERR_OTHER;
#define MCIO_X_CLASS(st, mpi_class)                                                            \
    if (status == st)                                                                        \
        cls = mpi_class;
    MCIO_PMPI_ERROR_CLASSES(MCIO_X_CLASS)
#undef MCIO_X_CLASS
    int code = cls, len = 0;
    char text[MPI_MAX_ERROR_STRING], back[MPI_MAX_ERROR_STRING] = "";
    snprintf(text, sizeof text, "mcio: %s", msg);
    if (PMPI_Add_error_code(cls, &code) == MPI_SUCCESS &&
        PMPI_Add_error_string(code, text) == MPI_SUCCESS)
        PMPI_Error_string(code, back, &len);
    if (strcmp(back, text) != 0) {
        /* MPICH 4.0 answers MPI_Error_string of a new code of a predefined class with the class's
         * text and a stale error stack: return the class, and say mcio's message on stderr. */
        code = cls;
        fprintf(stderr, "%s\n", text);
    }
    PMPI_File_call_errhandler(fh, code);
    return code;
}

int mcio_pmpi_after_sync(MPI_File fh)
{
    pmpi_file *f = lookup(fh);
    if (!f || in_layer)
        return MPI_SUCCESS;
    in_layer = 1;
    /* Nothing of it went through mcio before its first collective call. */
    int st = f->opening || !f->mf ? MCIO_SUCCESS : mcio_file_sync(f->mf), rc = MPI_SUCCESS;
    if (st != MCIO_SUCCESS)
        rc = raise_error(fh, st, mcio_error_message());
    in_layer = 0;
    return rc;
}

/* A position in a datatype tiled from base: the data stream of count copies (or of a view). */
typedef struct cursor {
    const mcio_flat *f;
    int64_t base; /* where tile 0's displacement 0 lies */
    int64_t s;    /* data-stream bytes before the cursor */
    int64_t tile, blk, in;
} cursor;

static void cursor_init(cursor *c, const mcio_flat *f, int64_t base, int64_t s)
{
    c->f = f, c->base = base, c->s = s;
    c->tile = s / f->size;
    int64_t r = s % f->size, lo = 0, hi = f->n - 1;
    while (lo < hi) { /* the last block with prefix <= r */
        int64_t mid = (lo + hi + 1) / 2;
        if (f->prefix[mid] <= r)
            lo = mid;
        else
            hi = mid - 1;
    }
    c->blk = lo;
    c->in = r - f->prefix[lo];
}

/* The next contiguous run at the cursor, at most max bytes; advances the cursor. */
static int64_t cursor_next(cursor *c, int64_t max, int64_t *where)
{
    const mcio_flat *f = c->f;
    int64_t n;
    if (mcio_flat_dense(f)) {
        *where = c->base + f->disp[0] + c->s;
        n = max;
    } else {
        *where = c->base + c->tile * f->extent + f->disp[c->blk] + c->in;
        n = f->len[c->blk] - c->in;
        if (n > max)
            n = max;
        c->in += n;
        if (c->in == f->len[c->blk]) {
            c->in = 0;
            if (++c->blk == f->n)
                c->blk = 0, c->tile++;
        }
    }
    c->s += n;
    return n;
}

static int pieces_put(pieces *p, int64_t off, int64_t len, int64_t addr)
{
    if (p->n > 0 && p->off[p->n - 1] + p->len[p->n - 1] == off &&
        (int64_t)(intptr_t)p->addr[p->n - 1] + p->len[p->n - 1] == addr) {
        p->len[p->n - 1] += len;
        return 0;
    }
    if (p->n == p->cap) {
        int64_t cap = p->cap ? 2 * p->cap : 16;
        int64_t *o = realloc(p->off, (size_t)cap * sizeof *o);
        if (o)
            p->off = o;
        int64_t *l = o ? realloc(p->len, (size_t)cap * sizeof *l) : NULL;
        if (l)
            p->len = l;
        void **a = l ? realloc(p->addr, (size_t)cap * sizeof *a) : NULL;
        if (!a)
            return -1;
        p->addr = a;
        p->cap = cap;
    }
    p->off[p->n] = off, p->len[p->n] = len, p->addr[p->n] = (void *)(intptr_t)addr;
    p->n++;
    return 0;
}

static void pieces_free(pieces *p)
{
    free(p->off), free(p->len), free(p->addr);
}

/*
 * The pieces of nbytes of the view's data stream from byte s, against count copies of the memory
 * type from buf. Reads stop at end of file (eof >= 0), as MPI's do; *done is the bytes covered.
 */
static int build_pieces(const pmpi_file *f, const mcio_flat *mt, const void *buf, int64_t s,
                        int64_t nbytes, int64_t eof, pieces *p, int64_t *done)
{
    cursor fc, mc;
    *done = 0;
    if (nbytes == 0)
        return 0;
    cursor_init(&fc, f->ft, f->disp, s);
    cursor_init(&mc, mt, (int64_t)(intptr_t)buf, 0);
    int64_t fo = 0, fl = 0, ma = 0, ml = 0;
    while (*done < nbytes) {
        if (fl == 0)
            fl = cursor_next(&fc, nbytes - *done, &fo);
        if (ml == 0)
            ml = cursor_next(&mc, nbytes - *done, &ma);
        int64_t take = fl < ml ? fl : ml, stop = 0;
        if (eof >= 0 && fo + take >= eof) {
            take = fo < eof ? eof - fo : 0;
            stop = 1;
        }
        if (take > 0 && pieces_put(p, fo, take, ma))
            return -1;
        *done += take;
        if (stop)
            break;
        fo += take, fl -= take, ma += take, ml -= take;
    }
    return 0;
}

typedef struct grequest_state {
    int64_t bytes;
} grequest_state;

static int gq_query(void *extra, MPI_Status *status)
{
    PMPI_Status_set_elements_x(status, MPI_BYTE, ((grequest_state *)extra)->bytes);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = MPI_UNDEFINED;
    status->MPI_TAG = MPI_UNDEFINED;
    status->MPI_ERROR = MPI_SUCCESS;
    return MPI_SUCCESS;
}

static int gq_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int gq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

/* A rank's mcio_enable false (set_info, set_view's info): its calls are declined, and once the
 * ranks agree that one was declined so, the file is the MPI library's on every rank. */
static const char disabled_why[] = "mcio_enable false";

/*
 * Why this rank cannot serve the call itself (NULL when it can), for MCIO_PMPI_VERBOSE. On the
 * way it finds the call's position in etypes (*pos: the individual pointer unless explicit) and,
 * for a read, the end of file (*eof; -1 for a write).
 */
static const char *why_not_served(const mcio_pmpi_call *c, const pmpi_file *f, const mcio_flat *mt,
                                  int64_t nbytes, int64_t *pos, int64_t *eof)
{
    int atomic = 0;
    *pos = c->offset, *eof = -1;
    if (!f->enabled)
        return disabled_why;
    PMPI_File_get_atomicity(c->fh, &atomic);
    if (!mt || !mt->ok)
        return "memory datatype not flattened (unsupported constructor)";
    if (!f->view_ok)
        return "file view not supported (datarep, filetype constructor or order)";
    if (atomic)
        return "atomic mode";
    if (nbytes % f->etype_size != 0)
        return "data is not a whole number of etypes";
    if (nbytes > 0 && f->ft->size == 0)
        return "data but an empty filetype";
    if ((c->write && (f->amode & MPI_MODE_RDONLY)) || (!c->write && (f->amode & MPI_MODE_WRONLY)))
        return "access mode";
    if ((c->at && c->offset < 0) || (c->form == MCIO_FORM_NONBLOCKING && !c->request))
        return "invalid argument";
    if (!c->at) {
        MPI_Offset p;
        if (PMPI_File_get_position(c->fh, &p) != MPI_SUCCESS)
            return "MPI_File_get_position failed";
        *pos = p;
    }
    if (!f->ft->tiles_ok && *pos * f->etype_size + nbytes > f->ft->size)
        return "the access runs past a filetype whose copies would overlap";
    if (!c->write) {
        MPI_Offset size;
        if (PMPI_File_get_size(c->fh, &size) != MPI_SUCCESS)
            return "MPI_File_get_size failed";
        *eof = size;
    }
    return NULL;
}

/* A call the layer took fails: the file's error handler, and no request left behind. */
static int call_failed(const mcio_pmpi_call *c, int st, const char *msg)
{
    int rc = raise_error(c->fh, st, msg);
    if (c->form == MCIO_FORM_NONBLOCKING && c->request)
        *c->request = MPI_REQUEST_NULL;
    return rc;
}

/*
 * What MPI says after a served call of done bytes: the individual pointer moved past the data
 * requested (ROMIO does the same at EOF), the status, the split collective's state, or a
 * generalized request completed at once (the data has moved already).
 */
static int call_served(const mcio_pmpi_call *c, pmpi_file *f, int64_t pos, int64_t nbytes,
                       int64_t done)
{
    if (!c->at)
        PMPI_File_seek(c->fh, pos + nbytes / f->etype_size, MPI_SEEK_SET);
    if (c->form == MCIO_FORM_BLOCKING && c->status != MPI_STATUS_IGNORE)
        PMPI_Status_set_elements_x(c->status, MPI_BYTE, done);
    if (c->form == MCIO_FORM_BEGIN) {
        f->split = 1;
        f->split_bytes = done;
    }
    if (c->form != MCIO_FORM_NONBLOCKING)
        return MPI_SUCCESS;
    grequest_state *g = malloc(sizeof *g);
    if (!g)
        return call_failed(c, MCIO_ERR_NOMEM, "out of memory for a request");
    g->bytes = done;
    PMPI_Grequest_start(gq_query, gq_free, gq_cancel, g, c->request);
    PMPI_Grequest_complete(*c->request);
    return MPI_SUCCESS;
}

int mcio_pmpi_collective(const mcio_pmpi_call *c, int *rc)
{
    if (!active())
        return 0;
    pmpi_file *f = lookup(c->fh);
    if (!f || f->off || (c->form == MCIO_FORM_BEGIN && f->split))
        return 0;
    in_layer = 1;
    if (!engine_ready(f)) {
        in_layer = 0;
        return 0;
    }
    /* An invalid count or type is the MPI library's to report (through the file's handler). */
    mcio_flat *mt = c->count >= 0 && c->type != MPI_DATATYPE_NULL ? mcio_flat_get(c->type) : NULL;
    int64_t nbytes = mt ? (int64_t)c->count * mt->size : 0;
    int64_t pos, eof, done = 0;
    const char *why = why_not_served(c, f, mt, nbytes, &pos, &eof);
    pieces *p = &f->pieces;
    p->n = 0;
    if (!why && build_pieces(f, mt, c->buf, pos * f->etype_size, nbytes, eof, p, &done) != 0)
        why = "out of memory for the extent list";
    /* No agreement of the layer's own: a rank that cannot serve the call, or holds hints given
     * since the last call, says so in the call's own (mcio_file_fail_next). Hints pending on
     * some rank: every rank takes them (collective), then the call runs again. */
    int served = 1, st = MCIO_SUCCESS;
    for (int again = 0; again < 2; again++) {
        if (why)
            mcio_file_fail_next(f->mf, MCIO_ERR_DECLINED, why);
        else if (f->pending != MPI_INFO_NULL)
            mcio_file_fail_next(f->mf, MCIO_ERR_AGAIN, "hints pending");
        int64_t n = why ? 0 : p->n;
        st = c->write ? mcio_writev_at_all(f->mf, n, p->off, p->len, (const void *const *)p->addr)
                      : mcio_readv_at_all(f->mf, n, p->off, p->len, p->addr);
        if (st != MCIO_ERR_AGAIN)
            break;
        st = mcio_file_set_hints(f->mf, f->pending); /* collective; agreed inside */
        if (f->pending != MPI_INFO_NULL)
            PMPI_Info_free(&f->pending);
        if (st != MCIO_SUCCESS)
            break;
    }
    if (st == MCIO_ERR_DECLINED) {
        if (strstr(mcio_error_message(), disabled_why))
            f->off = 1;
        if (verbose())
            fprintf(stderr, "mcio: collective %s left to the MPI library%s%s\n",
                    c->write ? "write" : "read", why ? ": " : " (another rank cannot serve it)",
                    why ? why : "");
        served = 0;
    } else {
        *rc = st != MCIO_SUCCESS ? call_failed(c, st, mcio_error_message())
                                 : call_served(c, f, pos, nbytes, done);
    }
    mcio_flat_release(mt);
    in_layer = 0;
    return served;
}

int mcio_pmpi_split_end(MPI_File fh, MPI_Status *status, int *rc)
{
    pmpi_file *f = lookup(fh);
    if (!f || !f->split)
        return 0;
    f->split = 0;
    if (status != MPI_STATUS_IGNORE)
        PMPI_Status_set_elements_x(status, MPI_BYTE, f->split_bytes);
    *rc = MPI_SUCCESS;
    return 1;
}
