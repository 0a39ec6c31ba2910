/*
 * The base of the pure core (src/core): what every part of it shares and nothing in it depends
 * on. Status codes (the public include/mcio_errors.h, which includes nothing), the length of an
 * error message, and the byte-count parser the hints and the machine model both read.
 */
#ifndef MCIO_BASE_H
#define MCIO_BASE_H

#include <stdint.h>

#include "mcio_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The length of the message a failing function writes into its detail[] argument. */
#define MCIO_DETAIL_LEN 256

/* A byte count: digits with an optional k/m/g suffix (powers of 1024; "4Mi" as well), in
 * [min, max]. Returns 0 and sets *out, or -1. */
int mcio_parse_bytes(const char *v, int64_t min, int64_t max, int64_t *out);

#ifdef __cplusplus
}
#endif

#endif
