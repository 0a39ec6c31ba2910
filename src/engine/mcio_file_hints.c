/*
 * The hints of an open: ROMIO's hints file (ROMIO_HINTS), mcio's (MCIO_HINTS) and the info, in
 * that order, over mcio's defaults, and the record of them as the program set them (what
 * mcio_file_get_info reports). Local: every rank reads them itself; the open agrees.
 */
#define _GNU_SOURCE /* open_memstream, fmemopen */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_engine.h"

/* Record key = value in given, the hints as set: from the first source (ROMIO's file) only when
 * the key is not there yet, as ROMIO takes a key's first line; from later sources always. */
static void record_given(MPI_Info given, const char *key, const char *value, int first_wins)
{
    int len = 0, flag = 0;
    if (given == MPI_INFO_NULL || strlen(key) > MPI_MAX_INFO_KEY || strlen(value) > MPI_MAX_INFO_VAL)
        return;
    if (first_wins)
        PMPI_Info_get_valuelen(given, key, &len, &flag);
    if (!flag)
        PMPI_Info_set(given, key, value);
}

/* Apply the pairs of info over h, recording them in given; `where` names the source in
 * messages. Local. */
int mcio_file_apply_info(MPI_Info info, mcio_hints *h, MPI_Info given, const char *where,
                      char detail[MCIO_DETAIL_LEN])
{
    if (info == MPI_INFO_NULL)
        return MCIO_SUCCESS;
    int nkeys = 0;
    PMPI_Info_get_nkeys(info, &nkeys);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
        if (!flag)
            continue;
        int st = mcio_hints_set(h, key, value, where, detail);
        if (st != MCIO_SUCCESS)
            return st;
        record_given(given, key, value, 0);
    }
    return MCIO_SUCCESS;
}

/* ROMIO's hints file as ROMIO reads it: once, at the process's first open, whatever
 * ROMIO_HINTS says later (MPICH 4.0.2: a second open after setenv to another file still has
 * the first file's hints), and a file that cannot be read is ignored. */
static struct {
    pthread_once_t once;
    char *path, *text; /* NULL: none */
    size_t len;
} romio_file = {.once = PTHREAD_ONCE_INIT};

static void romio_file_load(void)
{
    const char *path = getenv("ROMIO_HINTS");
    FILE *f = path && *path ? fopen(path, "r") : NULL;
    if (!f)
        return;
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    char chunk[4096];
    size_t n;
    while (m && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, m);
    if (m && fclose(m) == 0 && !ferror(f) && (romio_file.path = strdup(path)))
        romio_file.text = text, romio_file.len = len;
    else
        free(text);
    fclose(f);
}

/* Apply the "key value" lines of hints file f (named path) over h, recording them in given;
 * first_wins: a key's first line counts, as in ROMIO's file; else its last. Local. */
static int apply_hints_lines(FILE *f, const char *path, int first_wins, mcio_hints *h,
                             MPI_Info given, char detail[MCIO_DETAIL_LEN])
{
    char *line = NULL, where[MCIO_DETAIL_LEN / 2];
    size_t cap = 0;
    int lineno = 0, st = MCIO_SUCCESS;
    /* getline: a line of any length (a long comment) is one line, not several. */
    while (st == MCIO_SUCCESS && getline(&line, &cap, f) >= 0) {
        char *key, *value;
        lineno++;
        snprintf(where, sizeof where, "%.100s:%d", path, lineno);
        int kind = mcio_hints_parse_line(line, &key, &value);
        if (kind < 0) {
            snprintf(detail, MCIO_DETAIL_LEN, "%s: expected 'key value', got '%.80s'", where, line);
            st = MCIO_ERR_HINT;
        } else if (kind > 0) {
            int len = 0, seen = 0;
            if (first_wins && strlen(key) <= MPI_MAX_INFO_KEY)
                PMPI_Info_get_valuelen(given, key, &len, &seen);
            if (!seen && (st = mcio_hints_set(h, key, value, where, detail)) == MCIO_SUCCESS)
                record_given(given, key, value, 0); /* the key's first line, or its last */
        }
    }
    free(line);
    return st;
}

/* Apply the hints of ROMIO's hints file (ROMIO_HINTS, read once as ROMIO reads it: the keys
 * mcio shares with ROMIO must take the values ROMIO applied), then of MCIO_HINTS (mcio's own,
 * more specific, read at every open; a file that cannot be opened is an error), then those in
 * info (which win over both, as in ROMIO); given (empty) records them. Local. */
int mcio_file_read_hints(MPI_Info info, mcio_hints *h, MPI_Info given, char detail[MCIO_DETAIL_LEN])
{
    *h = mcio_hints_default();
    int st = MCIO_SUCCESS;
    pthread_once(&romio_file.once, romio_file_load);
    if (romio_file.text) {
        FILE *f = fmemopen(romio_file.text, romio_file.len, "r");
        st = f ? apply_hints_lines(f, romio_file.path, 1, h, given, detail) : MCIO_ERR_NOMEM;
        if (f)
            fclose(f);
        else
            snprintf(detail, MCIO_DETAIL_LEN, "out of memory");
    }
    const char *path = getenv("MCIO_HINTS");
    if (st == MCIO_SUCCESS && path && *path) {
        FILE *f = fopen(path, "r");
        if (!f) {
            snprintf(detail, MCIO_DETAIL_LEN, "MCIO_HINTS=%s: %s", path, strerror(errno));
            return MCIO_ERR_HINT;
        }
        st = apply_hints_lines(f, path, 0, h, given, detail);
        fclose(f);
    }
    if (st != MCIO_SUCCESS)
        return st;
    return mcio_file_apply_info(info, h, given, "MPI_Info", detail);
}
