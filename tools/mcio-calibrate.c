/*
 * mcio-calibrate: run the cost model's calibration probe on purpose (src/engine/mcio_calibrate.c)
 * on the file system of a directory, with the ranks of the job, cache the result as mcio does on
 * first use, and print the figures (or JSON).
 *
 *   mpiexec -n 8 mcio-calibrate --dir /mnt/mcio-gluster [--json] [--cached] [--replace]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "mcio.h"

static const char usage[] =
    "usage: mpiexec -n N mcio-calibrate [--dir DIR] [--json] [--cached] [--replace]\n"
    "Measures the costs mcio's cost model chooses with (file-system call and byte, for writes\n"
    "and reads, one rank and all the ranks of a node at once; a message, a collective, a copy)\n"
    "on the file system of DIR (default: the current directory), caches them as mcio does on\n"
    "first use ($XDG_CACHE_HOME/mcio or ~/.cache/mcio), and prints them. The cache keeps\n"
    "the last five probes of each figure and stands for their medians: a probe on a loaded\n"
    "host moves them little (it says so).\n"
    "  --json     print JSON\n"
    "  --cached   print the cached figures without measuring (measure only if none)\n"
    "  --replace  this probe's figures replace the cache's (the file system changed)\n";

/* One "key value" line of the text into the output. */
static void print_line(const char *key, const char *val, int json, int *first)
{
    if (!json) {
        printf("  %-14s %s\n", key, val);
        return;
    }
    char *end;
    strtod(val, &end);
    int number = *val && *end == '\0';
    printf("%s\n  \"%s\": %s%s%s", *first ? "" : ",", key, number ? "" : "\"", val,
           number ? "" : "\"");
    *first = 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, json = 0, cached = 0, replace = 0, rc = 0;
    const char *dir = ".";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--cached"))
            cached = 1;
        else if (!strcmp(argv[i], "--replace"))
            replace = 1;
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else {
            int help = !strcmp(argv[i], "--help");
            if (rank == 0)
                fputs(usage, help ? stdout : stderr);
            MPI_Finalize();
            return help ? 0 : 2;
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/.mcio-calibrate-%d.probe", dir, (int)getpid());
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mcio_calibrate", cached ? "auto" : replace ? "replace" : "force");
    mcio_file fh;
    double t0 = MPI_Wtime();
    int st = mcio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    double took = MPI_Wtime() - t0;
    MPI_Info_free(&info);
    if (st != MCIO_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "mcio-calibrate: cannot open a file in %s: %s\n", dir,
                    mcio_error_message());
        MPI_Finalize();
        return 1;
    }
    char text[4096];
    if (mcio_file_get_costs(fh, text, sizeof text) != MCIO_SUCCESS)
        rc = 1;
    mcio_file_close(&fh);
    if (rank == 0) {
        unlink(path);
        int first = 1, kept = 0;
        const char *at = strstr(text, "\nkept ");
        if (at)
            kept = atoi(at + 6);
        if (kept > 0)
            fprintf(stderr,
                    "mcio-calibrate: %d figures of this probe were more than twice the cached "
                    "ones (the cache stands for the medians of its last probes; a loaded "
                    "host?); --replace stores this probe as it is\n",
                    kept);
        if (json)
            printf("{");
        else
            printf("mcio-calibrate: %s (seconds; _1: one rank of a node, _n: conc ranks at once)\n",
                   dir);
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
            if (line[0] == '#')
                continue;
            char *sp = strchr(line, ' ');
            if (!sp)
                continue;
            *sp = '\0';
            print_line(line, sp + 1, json, &first);
        }
        char t[32];
        snprintf(t, sizeof t, "%.3f", took);
        print_line("open_seconds", t, json, &first);
        print_line("dir", dir, json, &first);
        if (json)
            printf("\n}\n");
    }
    MPI_Finalize();
    return rc;
}
