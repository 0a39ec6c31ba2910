/*
 * Shared between the calibration's files (mcio_calibrate.c: the cache, the figures measured at
 * open, mcio_calibrate_file; mcio_calibrate_probe.c: the probe), not part of mcio_engine.h.
 */
#ifndef MCIO_CALIBRATE_INTERNAL_H
#define MCIO_CALIBRATE_INTERNAL_H

#include <string.h>

#include "mcio_engine.h"

/* Called through a volatile pointer: a copy into memory nobody reads after is otherwise dead
 * code to the compiler (measured here: 0.17 us for 256 KiB). */
static void *(*volatile copy_fn)(void *, const void *, size_t) = memmove;

/* The median of n times (sorted in place). */
double mcio_calibrate_median_of(double *v, int n);

/* The cache files' generation, in their names (its history: mcio_calibrate.c). */
enum { MCIO_CALIBRATE_GENERATION = 7 };

/* mcio_calibrate_cache.c: the cache directory ($XDG_CACHE_HOME/mcio, else ~/.cache/mcio) into
 * dir, 0 or -1; and file (in dir) written with text atomically (a temporary file renamed),
 * making dir and its parent where missing; failures are silent. */
int mcio_calibrate_cache_dir(char *dir, size_t cap);
void mcio_calibrate_write_atomic(const char *dir, const char *file, const char *text, size_t len);

/* The host's figures kept between processes (mcio_calibrate_host.c): 0 and the medians of the
 * last measurements where enough are kept, else -1 (then measure, and keep: which adds this
 * measurement and returns the medians with it among them). */
int mcio_calibrate_host_kept(double *copy, double *piece);
void mcio_calibrate_host_keep(double *copy, double *piece);

/* The ranks of the first node: the probe's conc (mcio_calibrate.c). */
int mcio_calibrate_first_node_ranks(mcio_file fh);

/* Collective: where fh's ranks span real nodes (not MCIO_VIRTUAL_*), t's message figures (msg,
 * msg_byte) measured between rank 0 and the second node's first rank, once per file
 * communicator and kept in an attribute of it (which kept handles pass on to the next open on
 * the program's communicator; mcio_calibrate_net.c); otherwise t is left as it is. */
void mcio_calibrate_net_between(mcio_file fh, mcio_cost_table *t);

#endif
