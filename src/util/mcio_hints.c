#include "mcio_hints.h"
#include "mcio_placement.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mcio_hints mcio_hints_default(void)
{
    mcio_hints h = {.cb_buffer_size = 16 * 1024 * 1024,
                    .cb_nodes = 0,
                    .striping_unit = 0,
                    .cb_write = MCIO_CB_AUTOMATIC,
                    .cb_read = MCIO_CB_AUTOMATIC};
    strcpy(h.strategy, "romio");
    strcpy(h.io_backend, "mpiio");
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

/* ROMIO's values of romio_cb_write / romio_cb_read, in enum mcio_cb_mode order. */
static const char *const cb_modes[] = {"automatic", "enable", "disable"};

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
    } else if (strcmp(key, "romio_cb_write") == 0 || strcmp(key, "romio_cb_read") == 0) {
        int mode = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(value, cb_modes[i]) == 0)
                mode = i;
        if (mode < 0) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "hint %s (%s): '%s' is not one of automatic, enable, disable", key, where,
                     value);
            return MCIO_ERR_HINT;
        }
        *(strcmp(key, "romio_cb_write") == 0 ? &h->cb_write : &h->cb_read) = mode;
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
    } else if (strcmp(key, "mcio_placement") == 0 || strcmp(key, "mcio_socket_rule") == 0) {
        int place = strcmp(key, "mcio_placement") == 0, found = -1;
        const char *(*name)(int) = place ? mcio_placement_name : mcio_socket_rule_name;
        char known[96] = "";
        for (int i = 0; name(i); i++) {
            if (strcmp(value, name(i)) == 0)
                found = i;
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     name(i));
        }
        if (found < 0) {
            snprintf(detail, MCIO_DETAIL_LEN, "hint %s (%s): '%s' is not one of %s", key, where,
                     value, known);
            return MCIO_ERR_HINT;
        }
        *(place ? &h->placement : &h->socket_rule) = found;
    } else if (strcmp(key, "mcio_topology_file") == 0) {
        if (!*value || strlen(value) >= sizeof h->topology_file) {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "hint mcio_topology_file (%s): '%.120s' is empty or longer than %d bytes",
                     where, value, MCIO_PATH_LEN - 1);
            return MCIO_ERR_HINT;
        }
        snprintf(h->topology_file, sizeof h->topology_file, "%s", value);
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
        snprintf(key, keylen, "romio_cb_write");
        snprintf(value, valuelen, "%s", cb_modes[h->cb_write]);
        return 1;
    case 4:
        snprintf(key, keylen, "romio_cb_read");
        snprintf(value, valuelen, "%s", cb_modes[h->cb_read]);
        return 1;
    case 5:
        snprintf(key, keylen, "mcio_strategy");
        snprintf(value, valuelen, "%s", h->strategy);
        return 1;
    case 6:
        snprintf(key, keylen, "mcio_io_backend");
        snprintf(value, valuelen, "%s", h->io_backend);
        return 1;
    case 7:
        snprintf(key, keylen, "mcio_placement");
        snprintf(value, valuelen, "%s", mcio_placement_name(h->placement));
        return 1;
    case 8:
        snprintf(key, keylen, "mcio_socket_rule");
        snprintf(value, valuelen, "%s", mcio_socket_rule_name(h->socket_rule));
        return 1;
    case 9:
        if (!h->topology_file[0])
            return 0;
        snprintf(key, keylen, "mcio_topology_file");
        snprintf(value, valuelen, "%s", h->topology_file);
        return 1;
    default:
        return 0;
    }
}

mcio_plan_params mcio_hints_plan_params(const mcio_hints *h, int write)
{
    return (mcio_plan_params){.buffer_size = h->cb_buffer_size,
                              .cb_nodes = h->cb_nodes,
                              .stripe = h->striping_unit,
                              .cb = write ? h->cb_write : h->cb_read,
                              .placement = h->placement,
                              .socket_rule = h->socket_rule};
}
