/*
 * MPI_Type_create_darray against the MPI standard's definition (MPI 4.1, section 5.1.4), and
 * the drop-in layer's flattening (src/pmpi/mcio_pmpi_flatten.c) against both.
 *
 * The standard builds a darray from one hvector per dimension over the rank's blocks, nested
 * from the fastest-varying dimension outwards, with the processes numbered in row-major order
 * of the process grid whatever the array's order. Its type map therefore lists the elements
 * the rank owns in increasing order of their offset in the global array, where in dimension d
 * at process coordinate c (of p) element i is owned when
 *   BLOCK(b) (b = darg, or ceil(g / p) by default):  i / b == c
 *   CYCLIC(k) (k = darg, 1 by default):              (i / k) % p == c
 *   NONE:                                            always.
 * This program enumerates the global array in memory order and keeps the owned elements, which
 * is that definition with nothing to get wrong, then compares
 *   - the MPI library's type map (read back with MPI_Pack, as pmpi_flatten does), and
 *   - mcio's flattening
 * with it, element by element. The grids and distributions are pmpi_flatten's darray cases.
 * The test fails when mcio's flattening differs from the standard (or the reference does not
 * distribute the array: every element held by exactly one rank of the grid). A library whose
 * darray differs from the standard is reported, with whether its darrays of that grid still
 * distribute the array: Intel MPI 2021.19's do not (with a CYCLIC(k > 1) dimension over a
 * distributed inner one, the k elements of a block are laid at the inner type's size instead
 * of its extent: ranks overlap and elements belong to none). The layer serves such views by
 * the standard, which is what the program asked for; the library's own I/O would not.
 * One process; mpiexec -n 1.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcio_pmpi_flatten.h"

/* The standard's type map of a darray of ints: byte offsets of the owned elements, in order. */
static int64_t *standard_map(int rank, int nd, const int *g, const int *dist, const int *darg, const int *ps,
                             int order, int *n)
{
    int coord[8], r = rank;
    for (int d = nd - 1; d >= 0; d--) /* row-major process grid, whatever the array order */
        coord[d] = r % ps[d], r /= ps[d];
    int64_t total = 1;
    for (int d = 0; d < nd; d++)
        total *= g[d];
    int64_t *map = malloc((size_t)total * sizeof *map);
    *n = 0;
    for (int64_t off = 0; off < total; off++) { /* memory order */
        int64_t rest = off, owned = 1;
        for (int k = 0; k < nd && owned; k++) {
            int d = order == MPI_ORDER_C ? nd - 1 - k : k; /* fastest-varying first */
            int64_t i = rest % g[d];
            rest /= g[d];
            if (dist[d] == MPI_DISTRIBUTE_BLOCK) {
                int64_t b = darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? (g[d] + ps[d] - 1) / ps[d] : darg[d];
                owned = i / b == coord[d];
            } else if (dist[d] == MPI_DISTRIBUTE_CYCLIC) {
                int64_t kk = darg[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg[d];
                owned = (i / kk) % ps[d] == coord[d];
            }
        }
        if (owned)
            map[(*n)++] = off * (int64_t)sizeof(int);
    }
    return map;
}

/* The MPI library's type map, element offsets by MPI_Pack of ints that hold their own offset. */
static int64_t *library_map(MPI_Datatype t, int64_t total, int *n)
{
    int size;
    MPI_Type_size(t, &size);
    *n = size / (int)sizeof(int);
    int *mem = malloc((size_t)total * sizeof *mem), *packed = malloc((size_t)size + sizeof(int));
    int64_t *map = malloc(((size_t)*n + 1) * sizeof *map);
    for (int64_t i = 0; i < total; i++)
        mem[i] = (int)(i * (int64_t)sizeof(int));
    int pos = 0;
    MPI_Pack(mem, 1, t, packed, size, &pos, MPI_COMM_SELF);
    for (int i = 0; i < *n; i++)
        map[i] = packed[i];
    free(mem), free(packed);
    return map;
}

/* mcio's type map, or NULL when the layer would not serve the type (left to the library). */
static int64_t *mcio_map(MPI_Datatype t, int *n)
{
    mcio_flat *f = mcio_flat_get(t);
    if (!f || !f->ok) {
        mcio_flat_release(f);
        return NULL;
    }
    int64_t *map = malloc(((size_t)f->size / sizeof(int) + 1) * sizeof *map);
    *n = 0;
    for (int64_t b = 0; b < f->n; b++)
        for (int64_t j = 0; j < f->len[b]; j += (int64_t)sizeof(int))
            map[(*n)++] = f->disp[b] + j;
    mcio_flat_release(f);
    return map;
}

/* The index of the first difference, or -1. */
static int64_t first_difference(const int64_t *a, int na, const int64_t *b, int nb)
{
    for (int i = 0; i < na && i < nb; i++)
        if (a[i] != b[i])
            return i;
    return na == nb ? -1 : (na < nb ? na : nb);
}

enum { NG = 3 };
static const int g[NG] = {7, 9, 8};
static const int dists[][NG] = {{MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE},
                                {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                                {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK}};
static const int dargs[][NG] = {{MPI_DISTRIBUTE_DFLT_DARG, 2, MPI_DISTRIBUTE_DFLT_DARG},
                                {2, MPI_DISTRIBUTE_DFLT_DARG, 3},
                                {MPI_DISTRIBUTE_DFLT_DARG, 1, 4}};
static int cases, lib_wrong, mcio_wrong, lib_wrong_grids, lib_overlaps, std_overlaps;

/* Counts, for every element, how many ranks' maps hold it; returns how many elements are held
 * by other than exactly one rank (0 for a distribution). */
static int64_t not_partitioned(const int *owners, int64_t total)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < total; i++)
        bad += owners[i] != 1;
    return bad;
}

/* One grid (np ranks), distribution v, order: every rank's darray, compared. */
static void check_grid(int np, int v, int ord)
{
    int ps[NG] = {0, 0, 1};
    MPI_Dims_create(np, 2, ps);
    if (dists[v][0] == MPI_DISTRIBUTE_NONE) /* NONE needs psize 1 */
        ps[2] = ps[0], ps[0] = 1;
    if (dists[v][2] == MPI_DISTRIBUTE_NONE && ps[2] != 1)
        return;
    for (int d = 0; d < NG; d++) /* block with an explicit darg must cover the dimension */
        if (dists[v][d] == MPI_DISTRIBUTE_BLOCK && dargs[v][d] != MPI_DISTRIBUTE_DFLT_DARG &&
            dargs[v][d] * ps[d] < g[d])
            return;
    int64_t total = (int64_t)g[0] * g[1] * g[2];
    int *lib_owners = calloc((size_t)total, sizeof(int)), *std_owners = calloc((size_t)total, sizeof(int));
    int any_lib_wrong = 0;
    for (int r = 0; r < np; r++) {
        MPI_Datatype t;
        if (MPI_Type_create_darray(np, r, NG, g, dists[v], dargs[v], ps, ord, MPI_INT, &t) != MPI_SUCCESS)
            continue;
        MPI_Type_commit(&t);
        cases++;
        int ns, nl, nm = 0;
        int64_t *std = standard_map(r, NG, g, dists[v], dargs[v], ps, ord, &ns);
        int64_t *libm = library_map(t, total, &nl);
        int64_t *mc = mcio_map(t, &nm);
        char name[128];
        snprintf(name, sizeof name, "darray rank %d of %d (grid %dx%dx%d) dist %d %s", r, np, ps[0], ps[1],
                 ps[2], v, ord == MPI_ORDER_FORTRAN ? "Fortran" : "C");
        for (int i = 0; i < ns; i++)
            std_owners[std[i] / (int64_t)sizeof(int)]++;
        for (int i = 0; i < nl; i++)
            if (libm[i] >= 0 && libm[i] < total * (int64_t)sizeof(int))
                lib_owners[libm[i] / (int64_t)sizeof(int)]++;
        int64_t dl = first_difference(std, ns, libm, nl), dm = mc ? first_difference(std, ns, mc, nm) : -1;
        if (dl >= 0 && (any_lib_wrong = 1) && lib_wrong++ < 3)
            printf("the MPI library differs from the standard: %s: element %lld at byte %lld, the library's at "
                   "%lld\n", name, (long long)dl, dl < ns ? (long long)std[dl] : -1LL,
                   dl < nl ? (long long)libm[dl] : -1LL);
        if (!mc)
            printf("FAIL %s: mcio cannot flatten it\n", name), mcio_wrong++;
        else if (dm >= 0 && mcio_wrong++ < 5)
            printf("FAIL mcio's flattening differs from the standard: %s: element %lld at byte %lld, mcio's at "
                   "%lld\n", name, (long long)dm, dm < ns ? (long long)std[dm] : -1LL,
                   dm < nm ? (long long)mc[dm] : -1LL);
        free(std), free(libm), free(mc);
        MPI_Type_free(&t);
    }
    int64_t lb = not_partitioned(lib_owners, total), sb = not_partitioned(std_owners, total);
    if (sb)
        printf("FAIL the reference: grid of %d, dist %d: %lld elements not held by exactly one rank\n", np, v,
               (long long)sb), std_overlaps++;
    lib_wrong_grids += any_lib_wrong;
    if (any_lib_wrong && lb && lib_overlaps++ < 3)
        printf("  the library's darrays of that grid (%d ranks, dist %d) are no distribution: %lld of %lld elements "
               "held by two ranks or by none\n", np, v, (long long)lb, (long long)total);
    free(lib_owners), free(std_owners);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = 0;
    for (int np = 1; np <= 16; np++)
        for (int v = 0; v < 3; v++)
            for (int order = 0; order < 2; order++)
                check_grid(np, v, order ? MPI_ORDER_FORTRAN : MPI_ORDER_C);
    printf("%s\n%d darray types: mcio's flattening differs from the standard's type map in %d; the MPI "
           "library's in %d, in %d grids, %d of which its darrays do not distribute (elements held by two "
           "ranks or by none)\n", lib, cases, mcio_wrong, lib_wrong, lib_wrong_grids, lib_overlaps);
    int failed = mcio_wrong > 0 || std_overlaps > 0 || cases == 0;
    MPI_Finalize();
    return failed;
}
