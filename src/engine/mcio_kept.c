/*
 * What a communicator's closed files leave for the next open on it (issue 51: programs open
 * files again and again on one communicator, and each open paid a communicator duplicate, the
 * machine's detection and the cost table's broadcast, collectives that ranks sharing cores pay
 * dearly: an open cost 8-14 times ROMIO's under the drop-in).
 *
 * Glossary: user communicator: the one a program opens a file on; kept handle (mcio_kept): a
 * private duplicate of it with what was found on it (the machine description, the cost table),
 * which a close gives back and the next open on the same communicator takes; pool: a user
 * communicator's kept handles (an attribute of it), a stack. Opens and closes are collective,
 * so every rank pushes and pops alike and takes the same handle. Handles go with their user
 * communicator (its attribute's delete callback) or, where that comes too late (the world communicator
 * at MPI_Finalize), when MPI_COMM_SELF's attributes go, first in MPI_Finalize.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_engine.h"

struct mcio_kept_pool {
    mcio_kept *top;
    int refs; /* the attribute's, and each file's that took a handle from it */
    int dead; /* the attribute went: handles given back are freed */
    struct mcio_kept_pool *next, *prev; /* every live pool, for MPI_Finalize */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#ifndef MCIO_SIMULATE /* simulated ranks share a process: nothing is kept (pool_of) */
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
static int pool_keyval = MPI_KEYVAL_INVALID, self_keyval = MPI_KEYVAL_INVALID;
#endif
static struct mcio_kept_pool *pools; /* every live pool */
static int finalizing;               /* MPI_COMM_SELF's attributes went: MPI_Finalize */

void mcio_kept_free(mcio_kept *k)
{
    if (!k)
        return;
    if (k->comm != MPI_COMM_NULL && !finalizing)
        PMPI_Comm_free(&k->comm);
    mcio_machine_free(&k->machine);
    free(k);
}

/* Called with lock held: the pool's handles freed. */
static void pool_empty(struct mcio_kept_pool *p)
{
    while (p->top) {
        mcio_kept *k = p->top;
        p->top = k->next;
        mcio_kept_free(k);
    }
}

/* Called with lock held: one reference less; the pool goes with the last. */
static void pool_unref(struct mcio_kept_pool *p)
{
    if (--p->refs > 0)
        return;
    pool_empty(p);
    if (p->prev)
        p->prev->next = p->next;
    else
        pools = p->next;
    if (p->next)
        p->next->prev = p->prev;
    free(p);
}

#ifndef MCIO_SIMULATE
static int pool_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    struct mcio_kept_pool *p = value;
    pthread_mutex_lock(&lock);
    pool_empty(p); /* the communicator goes: its duplicates too, while MPI still runs */
    p->dead = 1;
    pool_unref(p);
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* First in MPI_Finalize: every pool's duplicates freed while MPI can still free them. */
static int self_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval, (void)value, (void)extra;
    pthread_mutex_lock(&lock);
    for (struct mcio_kept_pool *p = pools; p; p = p->next)
        pool_empty(p);
    finalizing = 1;
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

static void keyvals_create(void)
{
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, pool_delete, &pool_keyval, NULL) !=
        MPI_SUCCESS)
        pool_keyval = MPI_KEYVAL_INVALID;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_keyval, NULL) !=
            MPI_SUCCESS ||
        PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL) != MPI_SUCCESS)
        pool_keyval = MPI_KEYVAL_INVALID; /* no pools where they could outlive MPI */
}
#endif

/* comm's pool, made on first use; NULL where none can be had (then nothing is kept). */
static struct mcio_kept_pool *pool_of(MPI_Comm comm)
{
#ifdef MCIO_SIMULATE
    (void)comm; /* simulated ranks share a process: their tables are kept otherwise */
    return NULL;
#else
    pthread_once(&keyval_once, keyvals_create);
    void *val = NULL;
    int flag = 0;
    if (pool_keyval == MPI_KEYVAL_INVALID || finalizing ||
        PMPI_Comm_get_attr(comm, pool_keyval, &val, &flag) != MPI_SUCCESS)
        return NULL;
    if (flag)
        return val;
    struct mcio_kept_pool *p = calloc(1, sizeof *p);
    if (!p || PMPI_Comm_set_attr(comm, pool_keyval, p) != MPI_SUCCESS) {
        free(p);
        return NULL;
    }
    p->refs = 1;
    p->next = pools;
    if (pools)
        pools->prev = p;
    pools = p;
    return p;
#endif
}

mcio_kept *mcio_kept_take(MPI_Comm comm)
{
    pthread_mutex_lock(&lock);
    struct mcio_kept_pool *p = pool_of(comm);
    mcio_kept *k = p ? p->top : NULL;
    if (k)
        p->top = k->next;
    else if ((k = calloc(1, sizeof *k)) != NULL)
        k->comm = MPI_COMM_NULL;
    if (k) {
        k->next = NULL;
        k->pool = p;
        if (p)
            p->refs++;
    }
    pthread_mutex_unlock(&lock);
    return k;
}

void mcio_kept_give(mcio_kept *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&lock);
    struct mcio_kept_pool *p = k->pool;
    if (p && !p->dead && !finalizing && k->comm != MPI_COMM_NULL) {
        k->next = p->top;
        p->top = k;
        k = NULL;
    }
    if (p)
        pool_unref(p);
    pthread_mutex_unlock(&lock);
    mcio_kept_free(k);
}
