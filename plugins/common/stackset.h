/* plugins/common: interning of call stacks.
 *
 * Frames can only be named once the whole trace was read (method rundown
 * comes last), so analyzers keep stacks as raw instruction pointers while
 * consuming, aggregate by stack id, and name them in finish(). Each distinct
 * IP is stored once and gets a dense IP id; a stack is an array of IP ids
 * (4 bytes a frame), LEAF FIRST, as the event delivered it. Stack ids are
 * dense, 0..count-1, in first-seen order; an empty stack is a stack like any
 * other.
 *
 * The reader's stack_id is only unique inside one stack region (the stack
 * cache is flushed at each sequence point), so it is not the key; but inside
 * a region it names one stack, so pp_pc_stackset_event caches region stack
 * id -> stack id and pays the hashing of the frames once per stack and
 * region, not once per event. */
#ifndef PP_PLUGIN_STACKSET_H
#define PP_PLUGIN_STACKSET_H

#include <stdint.h>

#include <perfpipe/records.h>

#include "u64map.h"

/* Region stack ids at or above this are not cached (hashed every time). */
#define PP_PC_STACKSET_REGION_MAX (1u << 20)

typedef struct pp_pc_stackset {
    uint64_t *ip;         /* [nip] distinct IPs, by IP id */
    uint32_t nip, capip;
    pp_pc_u64map ip_ids;  /* ip -> IP id */
    uint32_t *frames;     /* all stacks' IP ids, stack after stack */
    uint64_t nframes, capframes;
    uint64_t *off;        /* [count] start in frames */
    uint32_t *len;        /* [count] frames */
    uint64_t *hash;       /* [count] */
    uint32_t count, cap;
    uint32_t *slots;      /* id + 1, 0 empty */
    uint32_t nslots;
    /* region cache: region stack id -> stack id + 1 (0 = not yet seen) */
    uint32_t region;
    int have_region;
    uint32_t *region_ids;
    uint32_t region_cap, region_hi;   /* allocated / highest index written + 1 */
    uint32_t *tmp;        /* IP ids of the stack being interned */
    uint32_t tmpcap;
} pp_pc_stackset;

/* A zeroed pp_pc_stackset is empty. */
void pp_pc_stackset_free(pp_pc_stackset *s);
/* The id of ips[0..n) (leaf first). PP_OK or PP_ENOMEM / PP_ELIMIT. */
int pp_pc_stackset_intern(pp_pc_stackset *s, const uint64_t *ips, uint32_t n, uint32_t *id);
/* The id of ev's stack (empty when it has none), through the region cache
 * when the host delivers stack_region (ABI 1.1), else like intern. */
int pp_pc_stackset_event(pp_pc_stackset *s, const pp_trace_event *ev, uint32_t *id);
/* IP ids of a stack (leaf first), borrowed from s until the next intern. */
static inline const uint32_t *pp_pc_stackset_frames(const pp_pc_stackset *s, uint32_t id, uint32_t *n)
{
    *n = s->len[id];
    return s->frames + s->off[id];
}
/* The IP of an IP id. */
static inline uint64_t pp_pc_stackset_ip(const pp_pc_stackset *s, uint32_t ip_id) { return s->ip[ip_id]; }

#endif
