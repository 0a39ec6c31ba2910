/*
 * Fuzz target: the hints parser (src/core/util/mcio_hints.c) on the text of a hints file, as
 * MCIO_HINTS or ROMIO_HINTS give it: every line through mcio_hints_parse_line and
 * mcio_hints_set, then a round trip. Properties: no crash; a rejected line leaves a message;
 * the hints in force that differ from the defaults, printed by mcio_hints_get and set again on
 * fresh defaults, print the same (what get_info reports is what a program can pass back).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_hints.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    mcio_hints h = mcio_hints_default();
    char detail[MCIO_DETAIL_LEN];
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *key, *value;
        int kind = mcio_hints_parse_line(line, &key, &value);
        if (kind <= 0)
            continue;
        detail[0] = '\0';
        if (mcio_hints_set(&h, key, value, "fuzz:1", detail) != MCIO_SUCCESS && !detail[0])
            __builtin_trap(); /* an error without a message */
        int64_t x;
        (void)mcio_parse_bytes(value, 0, INT64_MAX, &x);
    }
    mcio_hints again = mcio_hints_default(), def = mcio_hints_default();
    char key[128], value[4200], key2[128], value2[4200];
    for (int i = 0; mcio_hints_get(&h, i, key, sizeof key, value, sizeof value) == 1; i++) {
        mcio_hints_get(&def, i, key2, sizeof key2, value2, sizeof value2);
        if (strcmp(value, value2) == 0)
            continue; /* still the default, which may be no settable value (cb_nodes 0) */
        if (mcio_hints_set(&again, key, value, "round trip", detail) != MCIO_SUCCESS) {
            fprintf(stderr, "hint %s: get_info printed '%s', which set rejects: %s\n", key, value, detail);
            __builtin_trap();
        }
    }
    for (int i = 0; mcio_hints_get(&h, i, key, sizeof key, value, sizeof value) == 1; i++) {
        mcio_hints_get(&again, i, key2, sizeof key2, value2, sizeof value2);
        if (strcmp(key, key2) != 0 || strcmp(value, value2) != 0) {
            fprintf(stderr, "hint %s: '%s' printed, set again, prints '%s'\n", key, value, value2);
            __builtin_trap();
        }
    }
    free(text);
    return 0;
}
