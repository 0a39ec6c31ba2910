/* The memory of the nodes, detected or virtual: see mcio_memory.h. Pure but for reading
 * /proc/meminfo in mcio_memory_available. */
#include "mcio_memory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_splitmix64.h"

/* A uniform double in (0, 1]. */
static double unit(uint64_t *state)
{
    return ((double)(splitmix64(state) >> 11) + 1.0) / 9007199254740992.0;
}

/* Copy the next field of s up to sep (or the end) into buf; returns the rest, or NULL at the end. */
static const char *field(const char *s, char sep, char *buf, size_t len)
{
    const char *e = strchr(s, sep);
    size_t n = e ? (size_t)(e - s) : strlen(s);
    if (n >= len)
        n = len - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return e ? e + 1 : NULL;
}

int mcio_memory_virtual(const char *spec, int nnodes, int64_t *node_mem,
                        char detail[MCIO_DETAIL_LEN])
{
    char buf[64];
    const char *p;
    if (!spec || !*spec)
        goto bad;
    if (strncmp(spec, "normal:", 7) == 0) {
        int64_t v[3] = {0, 0, 1};
        int n = 0;
        for (p = spec + 7; p && n < 3; n++) {
            p = field(p, ':', buf, sizeof buf);
            if (mcio_parse_bytes(buf, 0, INT64_MAX / 4, &v[n]))
                goto bad;
        }
        if (p || n < 2)
            goto bad;
        uint64_t state = (uint64_t)v[2];
        for (int j = 0; j < nnodes; j++) {
            double u1 = unit(&state), u2 = unit(&state);
            double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
            double x = (double)v[0] + (double)v[1] * z;
            node_mem[j] = x <= 0 ? 0 : (int64_t)llround(x);
        }
        return MCIO_SUCCESS;
    }
    int count = 0;
    for (p = spec; p;) {
        int64_t x;
        p = field(p, ',', buf, sizeof buf);
        if (mcio_parse_bytes(buf, 0, INT64_MAX, &x))
            goto bad;
        count++;
    }
    for (int j = 0; j < nnodes; j++) {
        int k = j % count;
        p = spec;
        for (int i = 0; i <= k; i++)
            p = field(p, ',', buf, sizeof buf);
        mcio_parse_bytes(buf, 0, INT64_MAX, &node_mem[j]);
    }
    return MCIO_SUCCESS;
bad:
    snprintf(detail, MCIO_DETAIL_LEN,
             "MCIO_VIRTUAL_NODE_MEMORY='%.100s': expected byte counts separated by commas "
             "(64m,16m,0) or normal:MEAN:SD[:SEED]",
             spec ? spec : "");
    return MCIO_ERR_ARG;
}

int64_t mcio_memory_parse_meminfo(const char *text)
{
    const char *p = strstr(text, "MemAvailable:");
    if (!p)
        return -1;
    char *end;
    long long kib = strtoll(p + strlen("MemAvailable:"), &end, 10);
    if (end == p + strlen("MemAvailable:") || kib < 0 || kib > INT64_MAX / 1024)
        return -1;
    return (int64_t)kib * 1024; /* the kernel writes kB, meaning KiB */
}

int64_t mcio_memory_available(void)
{
    char text[4096];
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return -1;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    return mcio_memory_parse_meminfo(text);
}
