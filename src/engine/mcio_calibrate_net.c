/*
 * The network between nodes, as the job meets it (issue 44, item 3): the message figures of
 * the cost table (Hockney's alpha and beta: msg, msg_byte) measured between rank 0 and the
 * first rank of another node, at the first open on a communicator whose ranks span nodes.
 *
 * Why not the cached probe's: the probe (mcio_calibrate_probe.c) ping-pongs ranks 0 and 1,
 * which a job's launcher puts on one node (Open MPI and MPICH fill a host's slots first), so
 * it measured a shared-memory copy: on scripts/hosts.sh's testbed at 1 Gbit/s, 4 hosts x 2
 * ranks, msg_byte priced a byte between hosts at 0.2 ns where the link takes 8 ns. And the
 * cache is the file system's (one file per device), not the job's: a job on one host and the
 * next across four read the same table. So the figures between nodes are the job's, measured
 * once per file communicator and kept in an attribute of it, as the collective's cost is
 * (mcio_calibrate.c, coll_here); a job whose nodes are one host's (MCIO_VIRTUAL_RANKS_PER_NODE,
 * or a single node) keeps the probe's.
 *
 * The bandwidth is timed on messages sent one way back to back after an untimed one: the first
 * message between two ranks pays the MPI library's connection (Open MPI's TCP transport
 * connects lazily), and a shaped link (tbf's bucket, 1 MB on the testbed) passes its first
 * burst at the line's speed, which no exchange of a collective call sustains.
 *
 * Glossary: alpha (msg), a message's latency; beta (msg_byte), a byte's time on the link.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate_internal.h"
#include "mcio_engine.h"

#ifndef MCIO_SIMULATE
enum { PINGS = 9, BIG = 1 << 20, TIMED = 2 };

static int net_keyval[2] = {MPI_KEYVAL_INVALID, MPI_KEYVAL_INVALID};
static pthread_once_t net_once = PTHREAD_ONCE_INIT;

static void net_keyvals_create(void)
{
    for (int i = 0; i < 2; i++)
        PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &net_keyval[i],
                                NULL);
}

/* The figures an earlier open on comm agreed (1), or 0. Values are the doubles' bits: every
 * rank has them or none (no allocation that one rank might fail). */
static int net_kept(MPI_Comm comm, double v[2])
{
    int flag = 1;
    for (int i = 0; i < 2 && flag; i++) {
        void *val = NULL;
        flag = 0;
        if (net_keyval[i] != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL)
            PMPI_Comm_get_attr(comm, net_keyval[i], &val, &flag);
        uintptr_t bits = (uintptr_t)val;
        memcpy(&v[i], &bits, sizeof v[i]);
    }
    return flag;
}

static void net_keep(MPI_Comm comm, const double v[2])
{
    for (int i = 0; i < 2; i++) {
        uintptr_t bits = 0;
        memcpy(&bits, &v[i], sizeof v[i]);
        if (net_keyval[i] != MPI_KEYVAL_INVALID && comm != MPI_COMM_NULL)
            PMPI_Comm_set_attr(comm, net_keyval[i], (void *)bits);
    }
}

/* Rank 0 and peer: v[0] the median one-way time of an 8-byte message (half a round trip),
 * v[1] a byte's time in TIMED messages of BIG bytes sent back to back (after an untimed one)
 * and acknowledged by 8 bytes. Rank 0's figures; 0 elsewhere. */
static void measure_pair(mcio_file fh, int peer, char *buf, double v[2])
{
    double each[PINGS];
    MPI_Comm c = fh->comm;
    int me = fh->rank, other = me == 0 ? peer : 0;
    for (int i = 0; i < PINGS; i++) {
        double t0 = PMPI_Wtime();
        if (me == 0) {
            PMPI_Send(buf, 8, MPI_BYTE, other, MCIO_TAG_DATA, c);
            PMPI_Recv(buf, 8, MPI_BYTE, other, MCIO_TAG_DATA, c, MPI_STATUS_IGNORE);
        } else {
            PMPI_Recv(buf, 8, MPI_BYTE, other, MCIO_TAG_DATA, c, MPI_STATUS_IGNORE);
            PMPI_Send(buf, 8, MPI_BYTE, other, MCIO_TAG_DATA, c);
        }
        each[i] = (PMPI_Wtime() - t0) / 2.0;
    }
    double alpha = mcio_calibrate_median_of(each, PINGS), t0 = 0;
    for (int i = 0; i <= TIMED; i++) {
        if (i == 1)
            t0 = PMPI_Wtime();
        if (me == 0)
            PMPI_Send(buf, BIG, MPI_BYTE, other, MCIO_TAG_DATA, c);
        else
            PMPI_Recv(buf, BIG, MPI_BYTE, other, MCIO_TAG_DATA, c, MPI_STATUS_IGNORE);
    }
    if (me == 0)
        PMPI_Recv(buf, 8, MPI_BYTE, other, MCIO_TAG_DATA, c, MPI_STATUS_IGNORE);
    else
        PMPI_Send(buf, 8, MPI_BYTE, other, MCIO_TAG_DATA, c);
    /* Less the acknowledgement's latency; not below half the raw figure: on a loaded host
     * (8 ranks on 2 cores) a descheduled rank made alpha a scheduler's slice, 30 ms. */
    double raw = (PMPI_Wtime() - t0) / ((double)TIMED * BIG);
    double beta = raw - alpha / ((double)TIMED * BIG);
    beta = beta > raw / 2 ? beta : raw / 2;
    v[0] = me == 0 ? alpha : 0;
    v[1] = me == 0 ? beta : 0;
}
#endif

void mcio_calibrate_net_between(mcio_file fh, mcio_cost_table *t)
{
#ifndef MCIO_SIMULATE
    const mcio_machine *m = &fh->machine;
    if (m->nnodes < 2 || m->is_virtual)
        return;
    pthread_once(&net_once, net_keyvals_create);
    double v[2] = {0, 0};
    if (!net_kept(fh->comm, v)) {
        int peer = m->rank_order[m->node_first[1]]; /* the second node's first rank */
        char *buf = NULL;
        int bad = 0, any;
        if (fh->rank == 0 || fh->rank == peer)
            bad = (buf = malloc(BIG)) == NULL;
        PMPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, fh->comm);
        if (any) { /* no memory for the measure: the probe's figures stand */
            free(buf);
            return;
        }
        if (fh->rank == 0 || fh->rank == peer) {
            memset(buf, 0x5a, BIG);
            measure_pair(fh, peer, buf, v);
        }
        free(buf);
        PMPI_Bcast(v, 2, MPI_DOUBLE, 0, fh->comm);
        net_keep(fh->comm, v);
    }
    t->msg = v[0] > 1e-8 ? v[0] : 1e-8;
    t->msg_byte = v[1] > 1e-13 ? v[1] : 1e-13;
#else
    (void)fh, (void)t;
#endif
}
