/* The byte-count parser of the pure core (mcio_base.h). */
#include "mcio_base.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

int mcio_parse_bytes(const char *v, int64_t min, int64_t max, int64_t *out)
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
