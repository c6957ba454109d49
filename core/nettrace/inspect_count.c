/* inspect's counting pass over one reader (the whole file, or one region
 * of a parallel read): events per stack definition, frames per address. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/inspect.h"
#include "nettrace/nettrace_internal.h"

void
nt_inspect_on_warning(void *user, const pp_error *w)
{
    nt_warn_sink *s = user;
    s->count++;
    if (!s->have) {
        snprintf(s->msg, sizeof s->msg, "%s", w->message);
        s->have = 1;
    }
}

/* Frames counted by address: a direct-mapped cache of (address, count) in
 * front of the map. A trace's frames come from a few hundred to a few
 * thousand addresses (112 under 203 M frames on a 1.6 GB trace), so nearly
 * every frame is a hit in 64 KB that stays in cache; the map's probe, a
 * third of inspect's time when stacks do not repeat, is paid on evictions
 * only. Keys and counts in two arrays, and a slot matches on its key
 * alone: a slot whose count is 0 (empty, or flushed) that matches adds to 0,
 * which is what filling it would store; that saved a quarter of the
 * per-frame cost (a load and a branch). */
#define FC_BITS 12
typedef struct frame_counts {
    pp_u64map *ips; /* address -> count, what the cache evicts */
    uint64_t ip[1u << FC_BITS];
    uint64_t n[1u << FC_BITS];
} frame_counts;

static int
fc_evict(frame_counts *fc, uint64_t ip, uint64_t n)
{
    uint64_t *c = pp_u64map_get(fc->ips, ip);
    if (c) {
        *c += n;
        return 0;
    }
    return pp_u64map_put(fc->ips, ip, n);
}

static int
add_frames(frame_counts *fc, const uint64_t *stack, uint32_t depth, uint64_t n)
{
    for (uint32_t i = 0; i < depth; i++) {
        uint64_t ip = stack[i];
        size_t j = (size_t)((ip * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - FC_BITS));
        if (fc->ip[j] == ip) {
            fc->n[j] += n;
            continue;
        }
        if (fc->n[j] && fc_evict(fc, fc->ip[j], fc->n[j]) < 0)
            return -1;
        fc->ip[j] = ip;
        fc->n[j] = n;
    }
    return 0;
}

/* Everything the cache holds into the map. */
static int
fc_flush(frame_counts *fc)
{
    for (size_t j = 0; j < (1u << FC_BITS); j++)
        if (fc->n[j]) {
            if (fc_evict(fc, fc->ip[j], fc->n[j]) < 0)
                return -1;
            fc->n[j] = 0;
        }
    return 0;
}

/* Events per stack definition of the current region. The runtime defines a
 * stack in a stack block and the events of the region name it by id; the
 * reader keeps a region's stacks until its sequence point. So an event only
 * counts a use of its definition, and when the reader reports the region's
 * end each used definition's frames are added once, times its uses, in the
 * order they sit in the reader's array. On a 1.6 GB deep-stack trace that
 * walks 151 M frames instead of 197 M, sequentially instead of wherever
 * each event's stack lies (stacks used by 1.34 events on average). The
 * content table this replaced (XXH3-128 per definition, 64 k stacks at
 * most) hardly ever hit there: 263 k distinct stacks. */
typedef struct region_counts {
    uint64_t *uses; /* [cap]: events per index in r->stacks */
    size_t cap;
    frame_counts *fc;
    int failed; /* out of memory in the region callback */
} region_counts;

static void
region_end(void *user, const pp_trace_source *r)
{
    region_counts *rc = user;
    size_t n = rc->cap < r->nstacks ? rc->cap : r->nstacks;

    for (size_t i = 0; i < n; i++)
        if (rc->uses[i]) {
            const nt_stack *s = &r->stacks[i];
            if (add_frames(rc->fc, r->stack_ips + s->first, s->depth, rc->uses[i]) < 0)
                rc->failed = 1;
            rc->uses[i] = 0;
        }
}

/* Count ev's use of its stack; -1 when out of memory. */
static int
region_add(region_counts *rc, pp_trace_source *r, const pp_trace_event *ev)
{
    if (ev->stack_depth == 0)
        return 0;
    const nt_stack *s = nt_find_stack(r, ev->stack_id); /* found: depth > 0 */
    size_t i = (size_t)(s - r->stacks);
    if (i >= rc->cap) {
        /* Bounded by the reader's own stack array (r->nstacks). */
        size_t old = rc->cap;
        uint64_t *u = nt_grow(rc->uses, &rc->cap, i + 1, sizeof *u);
        if (!u)
            return -1;
        memset(u + old, 0, (rc->cap - old) * sizeof *u);
        rc->uses = u;
    }
    rc->uses[i]++;
    return 0;
}

int
nt_inspect_count(pp_trace_source *r, const char *path, pp_u64map *ips, pp_error *err)
{
    const pp_trace_event *ev;
    int rc;

    frame_counts *fc = calloc(1, sizeof *fc);
    if (!fc) {
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    fc->ips = ips;
    region_counts rcn = { NULL, 0, fc, 0 };
    r->on_region_end = region_end;
    r->region_user = &rcn;
    while ((rc = pp_nettrace_next(r, &ev, err)) == 1) {
        if (region_add(&rcn, r, ev) < 0 || rcn.failed) {
            rc = PP_ENOMEM;
            pp_error_set(err, rc, "%s: out of memory", path);
            break;
        }
    }
    r->on_region_end = NULL;
    if (rc >= 0) {
        region_end(&rcn, r); /* the last region has no sequence point after it */
        if (rcn.failed || fc_flush(fc) < 0) {
            rc = PP_ENOMEM;
            pp_error_set(err, rc, "%s: out of memory", path);
        }
    }
    free(rcn.uses);
    free(fc);
    return rc < 0 ? rc : PP_OK;
}
