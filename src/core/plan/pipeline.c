/*
 * Sub-buffers for the pipelined executors: the planner's collective buffer of each aggregator
 * is cut into sub-buffers, and each sub-buffer becomes a round of its own, so that the
 * schedule (who sends what to whom in which round) needs nothing new and works for every
 * planning strategy. The executor keeps `slots` consecutive rounds in flight, in distinct
 * sub-buffers of the same collective buffer. Pure.
 *
 * Sehrish, Son, Liao, Choudhary, Schuchardt, "Improving Collective I/O Performance by
 * Pipelining Request Aggregation and File Access" (shared/seeds/003: sub-buffers of the stripe
 * size, 16 of them in a 16 MiB buffer), and the topology-aware aggregation of
 * shared/seeds/004 (TAPIOCA: two buffers per aggregator, in multiples of the file system's
 * block size).
 *
 * Glossary (and mcio_planner.h):
 *   collective buffer  what the planner gives an aggregator (window[d] before this function)
 *   sub-buffer         a slice of the collective buffer holding one round; a multiple of the
 *                      alignment unit (stripe or file-system block) when it can be
 *   slots              sub-buffers of one aggregator in flight at once (the pipeline depth,
 *                      capped so that they fit in the collective buffer)
 */
#include "mcio_planner.h"

int mcio_fdplan_subdivide(mcio_fdplan *plan, int64_t subbuf, int depth, int64_t unit, int *slots)
{
    if (subbuf < 1)
        subbuf = 1;
    if (depth < 1)
        depth = 1;
    if (unit < 1)
        unit = 1;
    plan->max_rounds = 0;
    plan->max_buffer = 0;
    for (int d = 0; d < plan->ndomains; d++) {
        int64_t w = plan->window[d] > 0 ? plan->window[d] : 1;
        /* The budget: depth sub-buffers within the collective buffer, whole units if possible. */
        int64_t s = w / depth < subbuf ? w / depth : subbuf;
        if (s >= unit)
            s -= s % unit;
        else
            s = unit < w ? unit : w; /* one unit at least (or the whole buffer when smaller) */
        int64_t fit = w / s;
        int inflight = fit < depth ? (int)(fit > 0 ? fit : 1) : depth;
        plan->window[d] = s;
        int64_t span = plan->win_end[d] - plan->win_start[d];
        if (plan->rounds[d] == 0 || span <= 0) {
            plan->rounds[d] = 0;
            slots[d] = 1;
            continue;
        }
        int64_t rounds = span / s + (span % s != 0);
        if (rounds > INT32_MAX)
            return MCIO_ERR_ARG;
        plan->rounds[d] = (int)rounds;
        slots[d] = rounds < inflight ? (int)rounds : inflight;
        if (plan->rounds[d] > plan->max_rounds)
            plan->max_rounds = plan->rounds[d];
        int64_t held = (int64_t)slots[d] * (span < s ? span : s);
        if (held > plan->max_buffer)
            plan->max_buffer = held;
    }
    return MCIO_SUCCESS;
}

int64_t mcio_pipeline_unit(int depth, int64_t stripe, int64_t fs_block)
{
    return depth > 1 && stripe == 0 ? fs_block : stripe;
}

int64_t mcio_pipeline_subbuffer(int64_t subbuffer_hint, int64_t stripe, int64_t unit)
{
    if (subbuffer_hint > 0)
        return subbuffer_hint;
    return stripe > 0 ? unit : ((1 << 20) + unit - 1) / unit * unit;
}
