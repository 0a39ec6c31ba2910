/*
 * The calibration's cache directory and its writes, shared by the cost table's file
 * (mcio_calibrate.c) and the host's figures (mcio_calibrate_host.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibrate_internal.h"

#ifndef MCIO_SIMULATE /* the simulation keeps no files */
int mcio_calibrate_cache_dir(char *dir, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n = xdg && *xdg ? snprintf(dir, cap, "%s/mcio", xdg)
            : home && *home ? snprintf(dir, cap, "%s/.cache/mcio", home)
                            : -1;
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

void mcio_calibrate_write_atomic(const char *dir, const char *file, const char *text, size_t len)
{
    char parent[MCIO_PATH_LEN + 16], tmp[MCIO_PATH_LEN + 400];
    snprintf(parent, sizeof parent, "%s", dir);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = '\0';
        mkdir(parent, 0755); /* ~/.cache itself may be missing */
    }
    mkdir(dir, 0755);
    if (snprintf(tmp, sizeof tmp, "%s.%ld.tmp", file, (long)getpid()) >= (int)sizeof tmp)
        return;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return;
    int ok = fwrite(text, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, file) != 0)
        unlink(tmp);
}
#endif
