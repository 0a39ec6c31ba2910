#include "mcio_hints.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mcio_hints mcio_hints_default(void)
{
    mcio_hints h = {.cb_buffer_size = 16 * 1024 * 1024, .cb_nodes = 0, .striping_unit = 0};
    strcpy(h.strategy, "romio");
    strcpy(h.io_backend, "mpiio");
    h.pipeline_depth = 1;
    strcpy(h.transport, "p2p");
    return h;
}

/* A byte count: decimal digits with an optional k/m/g suffix (powers of 1024). */
static int parse_bytes(const char *v, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)v[0]))
        return -1;
    unsigned long long x = strtoull(v, &end, 10);
    if (errno)
        return -1;
    unsigned long long mul = 1;
    switch (tolower((unsigned char)*end)) {
    case 'k': mul = 1ull << 10; end++; break;
    case 'm': mul = 1ull << 20; end++; break;
    case 'g': mul = 1ull << 30; end++; break;
    default: break;
    }
    if (mul > 1 && (*end == 'i' || *end == 'I')) /* accept KiB-style "4Mi" */
        end++;
    if (*end != '\0' || x > (unsigned long long)INT64_MAX / mul)
        return -1;
    int64_t y = (int64_t)(x * mul);
    if (y < min || y > max)
        return -1;
    *out = y;
    return 0;
}

/* Seconds: a decimal number (1e-9 and 0.5 alike), finite, from 0 to an hour. */
static int parse_seconds(const char *v, double *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)v[0]) && v[0] != '.')
        return -1;
    double x = strtod(v, &end);
    if (errno || *end != '\0' || !(x >= 0.0 && x <= 3600.0))
        return -1;
    *out = x;
    return 0;
}

/* A backend name: lower-case letters, digits and '_', short enough to keep. Whether a backend of
 * that name is registered is known only to the engine, which checks it when the file opens. */
static int is_name(const char *v)
{
    size_t n = strlen(v);
    if (n == 0 || n >= MCIO_NAME_LEN)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!islower((unsigned char)v[i]) && !isdigit((unsigned char)v[i]) && v[i] != '_')
            return 0;
    return 1;
}

int mcio_hints_set(mcio_hints *h, const char *key, const char *value, const char *where,
                   char detail[MCIO_DETAIL_LEN])
{
    int64_t x;
    if (strcmp(key, "cb_buffer_size") == 0) {
        /* A round's bytes to one peer go in one MPI message, whose count is an int. */
        if (parse_bytes(value, 1, INT32_MAX, &x))
            goto bad_bytes;
        h->cb_buffer_size = x;
    } else if (strcmp(key, "cb_nodes") == 0) {
        if (parse_bytes(value, 1, INT32_MAX, &x))
            goto bad_count;
        h->cb_nodes = (int)x;
    } else if (strcmp(key, "striping_unit") == 0) {
        if (parse_bytes(value, 0, INT32_MAX, &x))
            goto bad_bytes;
        h->striping_unit = x;
    } else if (strcmp(key, "mcio_strategy") == 0) {
        if (!mcio_planner_find(value)) {
            char known[128] = "";
            for (int i = 0; mcio_planner_name(i); i++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                         mcio_planner_name(i));
            snprintf(detail, MCIO_DETAIL_LEN,
                     "hint mcio_strategy (%s): '%s' is not a strategy (known: %s)", where, value,
                     known);
            return MCIO_ERR_HINT;
        }
        snprintf(h->strategy, sizeof h->strategy, "%s", value);
    } else if (strcmp(key, "mcio_io_backend") == 0) {
        if (!is_name(value)) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "hint mcio_io_backend (%s): '%s' is not a backend name (lower-case letters, "
                     "digits, '_')",
                     where, value);
            return MCIO_ERR_HINT;
        }
        snprintf(h->io_backend, sizeof h->io_backend, "%s", value);
    } else if (strcmp(key, "mcio_pipeline_depth") == 0) {
        if (parse_bytes(value, 1, 1024, &x)) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "hint mcio_pipeline_depth (%s): '%s' is not an integer from 1 to 1024", where,
                     value);
            return MCIO_ERR_HINT;
        }
        h->pipeline_depth = (int)x;
    } else if (strcmp(key, "mcio_subbuffer_size") == 0) {
        if (parse_bytes(value, 0, INT32_MAX, &x))
            goto bad_bytes;
        h->subbuffer_size = x;
    } else if (strcmp(key, "mcio_transport") == 0) {
        if (strcmp(value, "p2p") != 0 && strcmp(value, "rma") != 0) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "hint mcio_transport (%s): '%s' is not a transport (known: p2p, rma)", where,
                     value);
            return MCIO_ERR_HINT;
        }
        snprintf(h->transport, sizeof h->transport, "%s", value);
    } else if (strcmp(key, "mcio_slow_call_seconds") == 0 ||
               strcmp(key, "mcio_slow_byte_seconds") == 0) {
        double t;
        if (parse_seconds(value, &t)) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "hint %s (%s): '%s' is not a number of seconds from 0 to 3600", key, where,
                     value);
            return MCIO_ERR_HINT;
        }
        if (strcmp(key, "mcio_slow_call_seconds") == 0)
            h->slow_call_seconds = t;
        else
            h->slow_byte_seconds = t;
    } else if (strncmp(key, "mcio_", 5) == 0) {
        snprintf(detail, MCIO_DETAIL_LEN,
                 "hint %s (%s): unknown mcio hint (value '%s'); see docs/hints.md", key, where,
                 value);
        return MCIO_ERR_HINT;
    }
    return MCIO_SUCCESS;
bad_bytes:
    snprintf(detail, MCIO_DETAIL_LEN,
             "hint %s (%s): '%s' is not a byte count in range (digits with optional k/m/g)", key,
             where, value);
    return MCIO_ERR_HINT;
bad_count:
    snprintf(detail, MCIO_DETAIL_LEN, "hint %s (%s): '%s' is not a positive integer", key, where,
             value);
    return MCIO_ERR_HINT;
}

int mcio_hints_parse_line(char *line, char **key, char **value)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return 0;
    *key = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (*p == '\0')
        return -1; /* a key without a value */
    *p++ = '\0';
    while (isspace((unsigned char)*p))
        p++;
    *value = p;
    char *e = p + strlen(p);
    while (e > p && isspace((unsigned char)e[-1]))
        *--e = '\0';
    if (*p == '\0')
        return -1;
    for (char *q = p; *q; q++)
        if (isspace((unsigned char)*q))
            return -1; /* values are single words */
    return 1;
}

int mcio_hints_get(const mcio_hints *h, int i, char *key, int keylen, char *value, int valuelen)
{
    switch (i) {
    case 0:
        snprintf(key, keylen, "cb_buffer_size");
        snprintf(value, valuelen, "%" PRId64, h->cb_buffer_size);
        return 1;
    case 1:
        snprintf(key, keylen, "cb_nodes");
        snprintf(value, valuelen, "%d", h->cb_nodes);
        return 1;
    case 2:
        snprintf(key, keylen, "striping_unit");
        snprintf(value, valuelen, "%" PRId64, h->striping_unit);
        return 1;
    case 3:
        snprintf(key, keylen, "mcio_strategy");
        snprintf(value, valuelen, "%s", h->strategy);
        return 1;
    case 4:
        snprintf(key, keylen, "mcio_io_backend");
        snprintf(value, valuelen, "%s", h->io_backend);
        return 1;
    case 5:
        snprintf(key, keylen, "mcio_pipeline_depth");
        snprintf(value, valuelen, "%d", h->pipeline_depth);
        return 1;
    case 6:
        snprintf(key, keylen, "mcio_subbuffer_size");
        snprintf(value, valuelen, "%" PRId64, h->subbuffer_size);
        return 1;
    case 7:
        snprintf(key, keylen, "mcio_transport");
        snprintf(value, valuelen, "%s", h->transport);
        return 1;
    case 8:
        snprintf(key, keylen, "mcio_slow_call_seconds");
        snprintf(value, valuelen, "%.17g", h->slow_call_seconds);
        return 1;
    case 9:
        snprintf(key, keylen, "mcio_slow_byte_seconds");
        snprintf(value, valuelen, "%.17g", h->slow_byte_seconds);
        return 1;
    default:
        return 0;
    }
}

mcio_plan_params mcio_hints_plan_params(const mcio_hints *h)
{
    return (mcio_plan_params){
        .buffer_size = h->cb_buffer_size, .cb_nodes = h->cb_nodes, .stripe = h->striping_unit};
}
