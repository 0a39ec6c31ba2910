/*
 * Hints, by table: each key mcio reads is one row (its type, the field it sets, its range or
 * its choices), and setting, checking, listing and the error messages all come from the rows.
 * A new hint is a field in mcio_hints, its default below, a row, and a line in docs/hints.md.
 */
#include "mcio_hints.h"
#include "mcio_costmodel.h"
#include "mcio_placement.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mcio_hints mcio_hints_default(void)
{
    mcio_hints h = {.cb_buffer_size = 16 * 1024 * 1024,
                    .cb_nodes = 0,
                    .striping_unit = 0,
                    .cb_write = MCIO_CB_AUTOMATIC,
                    .cb_read = MCIO_CB_AUTOMATIC,
                    .enable = 1,
                    .nah = 4,                   /* the paper's Nah */
                    .msgind = 32 * 1024 * 1024, /* the paper's write Msgind */
                    .msggroup = (int64_t)1 << 30,
                    .memmin = 1024 * 1024,
                    .node_memory = 0,
                    .memory_margin = 10,
                    .pipeline_depth = 1,
                    .local_io = 1};
    h.strategy = MCIO_STRATEGY_AUTO;
    h.transport = MCIO_TRANSPORT_P2P;
    strcpy(h.io_backend, "mpiio");
    return h;
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

/* A word: lower-case letters, digits and '_', shorter than len. */
static int is_word(const char *v, size_t len)
{
    size_t n = strlen(v);
    if (n == 0 || n >= len)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!islower((unsigned char)v[i]) && !isdigit((unsigned char)v[i]) && v[i] != '_')
            return 0;
    return 1;
}

/* ROMIO's values of romio_cb_write / romio_cb_read, in enum mcio_cb_mode order. */
static const char *cb_mode_name(int i)
{
    static const char *const names[] = {"automatic", "enable", "disable"};
    return i >= 0 && i < 3 ? names[i] : NULL;
}

const char *mcio_transport_name(int t)
{
    return t == MCIO_TRANSPORT_P2P ? "p2p" : t == MCIO_TRANSPORT_RMA ? "rma" : NULL;
}

static const char *io_thread_name(int i)
{
    static const char *const names[] = {"auto", "always", "never"};
    return i >= 0 && i < 3 ? names[i] : NULL;
}

/* auto, true, false: mcio_write_sync, mcio_read_shift. */
static const char *auto_bool_name(int i)
{
    static const char *const names[] = {"auto", "true", "false"};
    return i >= 0 && i < 3 ? names[i] : NULL;
}

/* mcio_local_io: 0 false, 1 auto. */
static const char *local_io_name(int i)
{
    static const char *const names[] = {"false", "auto"};
    return i >= 0 && i < 2 ? names[i] : NULL;
}

static const char *calibrate_name(int i)
{
    static const char *const names[] = {"auto", "off", "force", "replace"};
    return i >= 0 && i < 4 ? names[i] : NULL;
}

static const char *node_gather_name(int i)
{
    static const char *const names[] = {"auto", "true", "false"};
    return i >= 0 && i < 3 ? names[i] : NULL;
}

static const char *layers_name(int i)
{
    static const char *const names[] = {"auto", "1", "2"};
    return i >= 0 && i < 3 ? names[i] : NULL;
}

static const char *bool_name(int i)
{
    return i == 0 ? "false" : i == 1 ? "true" : NULL;
}

typedef enum hint_kind {
    HINT_BYTES,  /* int64_t, a byte count in [min, max] */
    HINT_INT,    /* int, a count in [min, max] (k/m/g suffixes allowed) */
    HINT_CHOICE, /* int, the index of the value among names(0), names(1), ... */
    HINT_SECONDS, /* double, decimal seconds from 0 to an hour */
    HINT_WORD,   /* char[size], a word; one of names(i) when names is set */
    HINT_PATH    /* char[size], a file name; "" (the default) lists as unset */
} hint_kind;

typedef struct hint_spec {
    const char *key;
    hint_kind kind;
    size_t at, size;             /* the field: offsetof, sizeof */
    int64_t min, max;            /* HINT_BYTES, HINT_INT */
    const char *(*names)(int i); /* HINT_CHOICE, HINT_WORD: the values, NULL past the last */
} hint_spec;

#define FIELD(f) offsetof(mcio_hints, f), sizeof(((mcio_hints *)0)->f)

/* In the order mcio_hints_get lists them (mcio_file_get_info, docs/hints.md). */
static const hint_spec specs[] = {
    /* A round's bytes to one peer go in one MPI message, whose count is an int. */
    {.key = "cb_buffer_size", .kind = HINT_BYTES, FIELD(cb_buffer_size), .min = 1, .max = INT32_MAX},
    {.key = "cb_nodes", .kind = HINT_INT, FIELD(cb_nodes), .min = 1, .max = INT32_MAX},
    {.key = "striping_unit", .kind = HINT_BYTES, FIELD(striping_unit), .min = 0, .max = INT32_MAX},
    {.key = "romio_cb_write", .kind = HINT_CHOICE, FIELD(cb_write), .names = cb_mode_name},
    {.key = "romio_cb_read", .kind = HINT_CHOICE, FIELD(cb_read), .names = cb_mode_name},
    {.key = "mcio_strategy", .kind = HINT_CHOICE, FIELD(strategy), .names = mcio_planner_name},
    /* Whether a backend of that name is registered is known only to the engine (tests register
     * their own), which checks it when the file opens. */
    {.key = "mcio_io_backend", .kind = HINT_WORD, FIELD(io_backend)},
    {.key = "mcio_enable", .kind = HINT_CHOICE, FIELD(enable), .names = bool_name},
    {.key = "mcio_placement", .kind = HINT_CHOICE, FIELD(placement), .names = mcio_placement_name},
    {.key = "mcio_socket_rule", .kind = HINT_CHOICE, FIELD(socket_rule),
     .names = mcio_socket_rule_name},
    {.key = "mcio_topology_file", .kind = HINT_PATH, FIELD(topology_file)},
    /* The memory strategy (memory.c): the paper's Nah, Msgind, Msggroup, Memmin, and a cap on
     * the memory a node offers. */
    {.key = "mcio_nah", .kind = HINT_INT, FIELD(nah), .min = 1, .max = 1 << 20},
    {.key = "mcio_msgind", .kind = HINT_BYTES, FIELD(msgind), .min = 1, .max = INT32_MAX},
    {.key = "mcio_msggroup", .kind = HINT_BYTES, FIELD(msggroup), .min = 1, .max = INT64_MAX},
    {.key = "mcio_memmin", .kind = HINT_BYTES, FIELD(memmin), .min = 0, .max = INT64_MAX},
    {.key = "mcio_node_memory", .kind = HINT_BYTES, FIELD(node_memory), .min = 0, .max = INT64_MAX},
    /* Pipelined aggregation (mcio_pipeline.c) and the slow backend that shows its overlap. */
    {.key = "mcio_pipeline_depth", .kind = HINT_INT, FIELD(pipeline_depth), .min = 1, .max = 1024},
    {.key = "mcio_subbuffer_size", .kind = HINT_BYTES, FIELD(subbuffer_size), .min = 0,
     .max = INT32_MAX},
    {.key = "mcio_transport", .kind = HINT_CHOICE, FIELD(transport), .names = mcio_transport_name},
    {.key = "mcio_slow_call_seconds", .kind = HINT_SECONDS, FIELD(slow_call_seconds)},
    {.key = "mcio_slow_byte_seconds", .kind = HINT_SECONDS, FIELD(slow_byte_seconds)},
    /* O_DIRECT file access, for the backends that open the file themselves (mcio_io_posix.c). */
    {.key = "direct_write", .kind = HINT_CHOICE, FIELD(direct_write), .names = bool_name},
    {.key = "direct_read", .kind = HINT_CHOICE, FIELD(direct_read), .names = bool_name},
    {.key = "mcio_io_thread", .kind = HINT_CHOICE, FIELD(io_thread), .names = io_thread_name},
    /* A sync at the end of each collective write, so that a write the file system acknowledged
     * but its server refused fails that call (mcio_twophase.c). */
    {.key = "mcio_write_sync", .kind = HINT_CHOICE, FIELD(write_sync), .names = auto_bool_name},
    /* Reads into memory 4K-aliased with the file's offset moved 32 bytes on (mcio_io.c). */
    {.key = "mcio_read_shift", .kind = HINT_CHOICE, FIELD(read_shift), .names = auto_bool_name},
    /* Reads through each rank's own descriptor on the node's own file system (mcio_file.c). */
    {.key = "mcio_local_io", .kind = HINT_CHOICE, FIELD(local_io), .names = local_io_name},
    /* The default strategy (auto): the share of a node's memory it leaves free, in percent. */
    {.key = "mcio_memory_margin", .kind = HINT_INT, FIELD(memory_margin), .min = 0, .max = 90},
    /* The calibration probe of the cost model (src/engine/mcio_calibrate.c). */
    {.key = "mcio_calibrate", .kind = HINT_CHOICE, FIELD(calibrate), .names = calibrate_name},
    /* The ranks' records gathered node by node (src/engine/mcio_nodegather.c); at open only. */
    {.key = "mcio_node_gather", .kind = HINT_CHOICE, FIELD(node_gather), .names = node_gather_name},
    /* Each collective write read back after its sync and compared (mcio_verify.c). */
    {.key = "mcio_write_verify", .kind = HINT_CHOICE, FIELD(write_verify), .names = bool_name},
    /* One layer of aggregation or two, node first (src/engine/mcio_twolayer.c). */
    {.key = "mcio_layers", .kind = HINT_CHOICE, FIELD(layers), .names = layers_name},
};
#define NSPECS ((int)(sizeof specs / sizeof specs[0]))
_Static_assert(NSPECS <= 64, "mcio_hints.set has one bit per hint");

static int spec_index(const char *key)
{
    for (int i = 0; i < NSPECS; i++)
        if (strcmp(key, specs[i].key) == 0)
            return i;
    return -1;
}

int mcio_hints_is_set(const mcio_hints *h, const char *key)
{
    int i = spec_index(key);
    return i >= 0 && (h->set >> i & 1u);
}

/* "a, b, c": the values of a choice, for messages. */
static void list_names(const char *(*names)(int), char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; names(i); i++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s", i ? ", " : "", names(i));
}

static int index_of(const char *(*names)(int), const char *v)
{
    for (int i = 0; names(i); i++)
        if (strcmp(v, names(i)) == 0)
            return i;
    return -1;
}

/* mcio_hints_set's failure: MCIO_ERR_HINT, detail saying what the hint s (key) takes. */
static int bad_value(const hint_spec *s, const char *key, const char *value, const char *where,
                     char detail[MCIO_DETAIL_LEN])
{
    char known[160];
    switch (s->kind) {
    case HINT_BYTES:
        snprintf(detail, MCIO_DETAIL_LEN,
                 "hint %s (%s): '%s' is not a byte count from %" PRId64 " to %" PRId64
                 " (digits with optional k/m/g)",
                 key, where, value, s->min, s->max);
        break;
    case HINT_INT:
        snprintf(detail, MCIO_DETAIL_LEN,
                 "hint %s (%s): '%s' is not an integer from %" PRId64 " to %" PRId64, key, where,
                 value, s->min, s->max);
        break;
    case HINT_SECONDS:
        snprintf(detail, MCIO_DETAIL_LEN,
                 "hint %s (%s): '%s' is not a number of seconds from 0 to 3600", key, where,
                 value);
        break;
    case HINT_CHOICE:
    case HINT_WORD:
        if (s->names) {
            list_names(s->names, known, sizeof known);
            snprintf(detail, MCIO_DETAIL_LEN, "hint %s (%s): '%s' is not one of %s", key, where,
                     value, known);
        } else {
            snprintf(detail, MCIO_DETAIL_LEN,
                     "hint %s (%s): '%s' is not a name (lower-case letters, digits, '_')", key,
                     where, value);
        }
        break;
    case HINT_PATH:
        snprintf(detail, MCIO_DETAIL_LEN, "hint %s (%s): '%.120s' is empty or longer than %zu bytes",
                 key, where, value, s->size - 1);
        break;
    }
    return MCIO_ERR_HINT;
}

int mcio_hints_set(mcio_hints *h, const char *key, const char *value, const char *where,
                   char detail[MCIO_DETAIL_LEN])
{
    int si = spec_index(key);
    const hint_spec *s = si >= 0 ? &specs[si] : NULL;
    if (!s) {
        if (strncmp(key, "mcio_", 5) != 0)
            return MCIO_SUCCESS; /* meant for the MPI library */
        snprintf(detail, MCIO_DETAIL_LEN,
                 "hint %s (%s): unknown mcio hint (value '%s'); see docs/hints.md", key, where,
                 value);
        return MCIO_ERR_HINT;
    }
    char *field = (char *)h + s->at;
    int64_t x;
    double secs;
    int i;
    switch (s->kind) {
    case HINT_BYTES:
        if (mcio_parse_bytes(value, s->min, s->max, &x))
            goto bad;
        *(int64_t *)field = x;
        break;
    case HINT_INT:
        if (mcio_parse_bytes(value, s->min, s->max, &x))
            goto bad;
        *(int *)field = (int)x;
        break;
    case HINT_CHOICE:
        if ((i = index_of(s->names, value)) < 0)
            goto bad;
        *(int *)field = i;
        break;
    case HINT_SECONDS:
        if (parse_seconds(value, &secs))
            goto bad;
        *(double *)field = secs;
        break;
    case HINT_WORD:
        if (!is_word(value, s->size) || (s->names && index_of(s->names, value) < 0))
            goto bad;
        snprintf(field, s->size, "%s", value);
        break;
    case HINT_PATH:
        if (!*value || strlen(value) >= s->size)
            goto bad;
        snprintf(field, s->size, "%s", value);
        break;
    }
    h->set |= (uint64_t)1 << si;
    return MCIO_SUCCESS;
bad:
    return bad_value(s, key, value, where, detail);
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
    if (i < 0 || i >= NSPECS)
        return 0;
    const hint_spec *s = &specs[i];
    const char *field = (const char *)h + s->at;
    snprintf(key, (size_t)keylen, "%s", s->key);
    switch (s->kind) {
    case HINT_BYTES:
        snprintf(value, (size_t)valuelen, "%" PRId64, *(const int64_t *)field);
        break;
    case HINT_INT:
        snprintf(value, (size_t)valuelen, "%d", *(const int *)field);
        break;
    case HINT_CHOICE:
        snprintf(value, (size_t)valuelen, "%s", s->names(*(const int *)field));
        break;
    case HINT_SECONDS:
        snprintf(value, (size_t)valuelen, "%.17g", *(const double *)field);
        break;
    case HINT_WORD:
    case HINT_PATH:
        snprintf(value, (size_t)valuelen, "%s", field);
        break;
    }
    return 1;
}

unsigned mcio_hints_cost_fixed(const mcio_hints *h, int write)
{
    unsigned f = 0;
    if (mcio_hints_is_set(h, write ? "romio_cb_write" : "romio_cb_read"))
        f |= MCIO_COST_FIX_CB;
    if (mcio_hints_is_set(h, "cb_nodes"))
        f |= MCIO_COST_FIX_CB_NODES;
    if (mcio_hints_is_set(h, "cb_buffer_size"))
        f |= MCIO_COST_FIX_BUFFER;
    if (mcio_hints_is_set(h, "mcio_pipeline_depth") || h->transport == MCIO_TRANSPORT_RMA)
        f |= MCIO_COST_FIX_DEPTH;
    return f;
}

int mcio_hints_write_sync(const mcio_hints *h, int defers_errors)
{
    return h->write_sync == MCIO_WRITE_SYNC_TRUE || h->write_verify ||
           (h->write_sync == MCIO_WRITE_SYNC_AUTO && defers_errors);
}

mcio_planner_params mcio_hints_planner_params(const mcio_hints *h, int write)
{
    return (mcio_planner_params){.buffer_size = h->cb_buffer_size,
                              .cb_nodes = h->cb_nodes,
                              .stripe = h->striping_unit,
                              .cb = write ? h->cb_write : h->cb_read,
                              .placement = h->placement,
                              .socket_rule = h->socket_rule,
                              .nah = h->nah,
                              .msgind = h->msgind,
                              .msggroup = h->msggroup,
                              .memmin = h->memmin,
                              .memory_margin = h->memory_margin};
}

mcio_decide_hints mcio_hints_decide(const mcio_hints *h, int write, int64_t stripe,
                                    unsigned fixed)
{
    mcio_decide_hints d = {.strategy = h->strategy,
                           .params = mcio_hints_planner_params(h, write),
                           .depth = h->pipeline_depth,
                           .subbuffer = h->subbuffer_size,
                           .fixed = fixed};
    d.params.stripe = stripe;
    return d;
}
