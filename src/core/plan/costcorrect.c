/*
 * The cost model's online correction (issue 48): what calls of a configuration measured
 * against their prediction, kept per operation in the cost table (and with it in the
 * calibration cache), by which later predictions of that configuration are multiplied
 * (mcio_decide). The model prices each candidate from a short probe; where it errs on one kind
 * of plan (on this 2-core host at 8 ranks, an aggregated write's exchange measured 1.7x its
 * prediction, and the choice went to it on a 1 % difference), the calls themselves say so.
 *
 * Glossary: a *correction* is a configuration's factor, measured over predicted time; a call
 * is *far* from its prediction beyond FAR either way; *pending*, a first far call's ratio,
 * waiting for a second before anything changes (one call's time is often the scheduler's).
 */
#include <math.h>
#include <string.h>

#include "mcio_costmodel.h"

#define FAR 1.5              /* measured / predicted beyond which a call is far */
#define FACTOR_MOST 4.0      /* a correction stays within [1/FACTOR_MOST, FACTOR_MOST] */
#define OBSERVED_LEAST 1e-3  /* calls predicted shorter are not checked (seconds) */

static int same_config(const mcio_cost_correction *k, uint64_t shape, const mcio_cost_config *c)
{
    if (k->shape != shape)
        return 0;
    if (k->independent || c->independent)
        return k->independent == c->independent;
    return k->strategy == c->strategy && k->aggs_per_node == c->aggs_per_node &&
           k->depth == c->depth && k->buffer == c->buffer;
}

static const mcio_cost_correction *find(const mcio_cost_table *t, int op, uint64_t shape,
                                        const mcio_cost_config *c)
{
    for (int k = 0; k < t->ncorr[op] && k < MCIO_COST_CORRECTIONS; k++)
        if (same_config(&t->corr[op][k], shape, c))
            return &t->corr[op][k];
    return NULL;
}

/* A configuration not measured on a shape is priced as the best-priced one measured there, once
 * two were: a host slower than its probe (other jobs; this 2-core host at a load of 40 ran every
 * configuration 10-100x its prediction) slows all configurations alike, and the corrected one
 * must not lose to one that was merely never measured. With one measured, 1: whether the model
 * or the host is at fault, only a second configuration's calls tell. */
double mcio_cost_correction_of(const mcio_cost_table *t, int op, uint64_t shape,
                               const mcio_cost_config *c)
{
    const mcio_cost_correction *k = find(t, op, shape, c);
    if (k)
        return k->factor;
    int n = 0;
    double least = 1.0;
    for (int i = 0; i < t->ncorr[op] && i < MCIO_COST_CORRECTIONS; i++)
        if (t->corr[op][i].shape == shape)
            least = n++ == 0 || t->corr[op][i].factor < least ? t->corr[op][i].factor : least;
    return n >= 2 ? least : 1.0;
}

/* c's entry in t, made (factor 1) where there is none; the last entry is reused when all are
 * taken. */
static mcio_cost_correction *entry(mcio_cost_table *t, int op, uint64_t shape,
                                   const mcio_cost_config *c)
{
    mcio_cost_correction *k = (mcio_cost_correction *)find(t, op, shape, c);
    if (k)
        return k;
    int at = t->ncorr[op] < MCIO_COST_CORRECTIONS ? t->ncorr[op]++ : MCIO_COST_CORRECTIONS - 1;
    k = &t->corr[op][at];
    *k = (mcio_cost_correction){.shape = shape,
                                .independent = c->independent,
                                .strategy = c->independent ? 0 : c->strategy,
                                .aggs_per_node = c->independent ? 0 : c->aggs_per_node,
                                .depth = c->independent ? 1 : c->depth,
                                .buffer = c->independent ? 0 : c->buffer,
                                .factor = 1.0};
    return k;
}

int mcio_cost_observe(mcio_cost_table *t, int op, uint64_t shape, const mcio_cost_config *c,
                      double predicted, double measured)
{
    predicted *= mcio_cost_correction_of(t, op, shape, c);
    if (!(predicted >= OBSERVED_LEAST) || !(measured > 0) || !isfinite(measured))
        return 0;
    /* Every configuration checked on the shape has its entry, a near one too (factor 1, or
     * what it had: the configurations measured, mcio_cost_correction_of). */
    double had = mcio_cost_correction_of(t, op, shape, c);
    mcio_cost_correction *k = entry(t, op, shape, c);
    if (k->factor == 1.0)
        k->factor = had;
    double r = measured / predicted;
    if (r <= FAR && r >= 1 / FAR) {
        k->pending = 0;
        return 0;
    }
    if (k->pending == 0 || (k->pending > 1) != (r > 1)) {
        k->pending = r; /* the first far call, or far the other way: wait for another */
        return 0;
    }
    /* Twice far the same way: the lesser of the two ratios, within bounds. */
    double by = fabs(log(k->pending)) < fabs(log(r)) ? k->pending : r, f = k->factor * by;
    k->factor = f > FACTOR_MOST ? FACTOR_MOST : f < 1 / FACTOR_MOST ? 1 / FACTOR_MOST : f;
    k->pending = 0;
    return 1;
}
