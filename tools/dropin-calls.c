/*
 * An unmodified MPI-IO program with IOR's access pattern and MPIIO backend's calls, for
 * tools/dropin-bench.sh --calls: each rank writes `segments` segments of a `block`-byte block
 * in `transfer`-byte MPI_File_write_at_all calls (IOR -s -b -t -c, ranks interleaved in each
 * segment), closes, opens again and reads with MPI_File_read_at_all the blocks of the next
 * rank (IOR -C: data another rank wrote), and closes. It includes only mpi.h, so it runs
 * natively (ROMIO, OMPIO) and under the drop-in layer alike.
 *
 * Timed per rank: each open, each call and each close; a phase (write or read) is open + calls
 * + close, as IOR counts it. Printed by rank 0, one line per phase and repetition, the slowest
 * rank's figures:
 *   <write|read> phase_s <s> open_ms <ms> close_ms <ms> call_us_median <us> MiB/s <bandwidth>
 * Every byte read is checked against what its writer wrote; exit status 1 on a wrong byte.
 * Usage: dropin-calls <file> <block> <transfer> <segments> [reps (1)]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The byte at position i of the transfer t of segment s written by rank r. */
static unsigned char pattern(int r, long s, long t, long i)
{
    return (unsigned char)(r * 131 + s * 31 + t * 7 + i / 4096);
}

typedef struct phase {
    double open, close, total, call_median;
} phase;

/* One phase: open, segments x (block / transfer) calls, close; each rank's figures. A read
 * checks every byte; *bad counts the wrong transfers. */
static phase run_phase(const char *path, int write, long block, long transfer, long segments,
                       char *buf, double *calls, long *bad)
{
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int whose = write ? rank : (rank + 1) % np;
    long per = block / transfer, k = 0;
    phase p;
    MPI_File fh;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_open(MPI_COMM_WORLD, path, write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY,
                  MPI_INFO_NULL, &fh);
    p.open = MPI_Wtime() - t0;
    for (long s = 0; s < segments; s++)
        for (long t = 0; t < per; t++, k++) {
            MPI_Offset off = ((MPI_Offset)s * np + whose) * block + (MPI_Offset)t * transfer;
            if (write)
                for (long i = 0; i < transfer; i++)
                    buf[i] = (char)pattern(whose, s, t, i);
            double c0 = MPI_Wtime();
            if (write)
                MPI_File_write_at_all(fh, off, buf, (int)transfer, MPI_BYTE, MPI_STATUS_IGNORE);
            else
                MPI_File_read_at_all(fh, off, buf, (int)transfer, MPI_BYTE, MPI_STATUS_IGNORE);
            calls[k] = MPI_Wtime() - c0;
            for (long i = 0; !write && i < transfer; i++)
                if ((unsigned char)buf[i] != pattern(whose, s, t, i)) {
                    (*bad)++;
                    break;
                }
        }
    double c1 = MPI_Wtime();
    MPI_File_close(&fh);
    p.close = MPI_Wtime() - c1;
    p.total = MPI_Wtime() - t0;
    qsort(calls, (size_t)k, sizeof *calls, cmp_double);
    p.call_median = k ? calls[k / 2] : 0;
    return p;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long block = argc > 4 ? atol(argv[2]) : 0, transfer = argc > 4 ? atol(argv[3]) : 0;
    long segments = argc > 4 ? atol(argv[4]) : 0;
    int reps = argc > 5 ? atoi(argv[5]) : 1;
    if (block <= 0 || transfer <= 0 || block % transfer || transfer > (1L << 30) ||
        segments <= 0 || reps <= 0) {
        if (rank == 0)
            fprintf(stderr, "usage: dropin-calls <file> <block> <transfer (divides block)> "
                            "<segments> [reps]\n");
        MPI_Finalize();
        return 2;
    }
    char *buf = malloc((size_t)transfer);
    double *calls = malloc((size_t)(segments * (block / transfer)) * sizeof *calls);
    long bad = 0;
    for (int r = 0; r < reps && buf && calls; r++)
        for (int w = 1; w >= 0; w--) {
            phase p = run_phase(argv[1], w, block, transfer, segments, buf, calls, &bad);
            phase worst;
            MPI_Reduce(&p, &worst, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            double mib = (double)np * segments * block / (1024.0 * 1024.0);
            if (rank == 0)
                printf("%s phase_s %.6f open_ms %.3f close_ms %.3f call_us_median %.1f MiB/s %.1f\n",
                       w ? "write" : "read", worst.total, 1e3 * worst.open, 1e3 * worst.close,
                       1e6 * worst.call_median, mib / worst.total);
        }
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all)
        fprintf(stderr, "dropin-calls: %ld transfers read back wrong\n", all);
    free(buf);
    free(calls);
    MPI_Finalize();
    return all || !buf || !calls ? 1 : 0;
}
