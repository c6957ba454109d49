/* plugins/common: the distinct call stacks of a trace, keyed by content,
 * stored as compact IP ids; the one stack store of alloc and cpu.
 *
 * Frames can only be named in finish(), after the method rundown, so every
 * distinct stack is kept until then: on a 1.6 GB deep-stack trace 262,941
 * stacks of 41 frames, on the 210 MB sampled trace 382,508. Each distinct IP
 * gets a dense IP id in first-seen order; a stack is its IP ids, LEAF FIRST,
 * as the event delivered it, and an empty stack is a stack like any other.
 * The content key is the only index (one probe a new stack, 24-byte slots,
 * dropped by seal), and a frame takes as many bytes as the number of
 * distinct IPs needs: 1 up to 256 IPs, 2 up to 65,536, else 4 (the store is
 * rewritten wider when a new IP needs it). alloc's deep trace has 112
 * distinct IPs, so 1 byte a frame; an older store of 4-byte ids behind an
 * index of its own, with a content cache in front, took 160 MB there.
 *
 * Identity is XXH3-128 of the raw IPs: two different stacks agreeing on it
 * have a chance below 2^-80 even for 10^8 distinct stacks (the same hash
 * names the input in the result). Ids are dense, in first-seen order.
 *
 * The reader's stack_id names one stack inside one stack region (the cache
 * is flushed at each sequence point), so a region map in front of the
 * content key saves the hashing for the events that repeat a region's id. */
#ifndef PP_PLUGIN_STACKS_H
#define PP_PLUGIN_STACKS_H

#include <stdint.h>

#include <perfpipe/records.h>

#include "u64map.h"

/* Region stack ids at or above this are not mapped (hashed every time). */
#define PP_PC_STACKS_REGION_MAX (1u << 20)

typedef struct pp_pc_stacks_entry pp_pc_stacks_entry;

typedef struct pp_pc_stacks {
    uint64_t *ip; /* [nip] distinct IPs, by IP id */
    uint32_t nip, capip;
    pp_pc_u64map ip_ids; /* ip -> IP id */
    /* A direct-mapped cache in front of ip_ids, (ip, id + 1) by the ip's
     * multiplicative hash: a new stack looks up each of its frames (10.8 M
     * on a 1.6 GB trace), nearly all of a few hundred IPs. */
    struct {
        uint64_t ip;
        uint32_t id1;
    } ip_cache[1024];
    uint8_t *frames;             /* every stack's IP ids, `width` bytes each, leaf first */
    uint64_t nframes, capframes; /* in frames */
    unsigned width;              /* 1, 2 or 4 */
    uint64_t *off;               /* [count] first frame */
    uint32_t *len;               /* [count] frames */
    uint32_t count, cap;
    /* the content index, freed by pp_pc_stacks_seal */
    pp_pc_stacks_entry *slot; /* open addressing, power of two */
    uint32_t nslots;
    uint32_t gen; /* + 1 each time slot moves (memos move with it) */
    /* region stack id -> id + 1, for the current region */
    uint32_t region;
    int have_region;
    uint32_t *by_id;
    uint32_t *by_id_slot; /* [by_id_cap] its content slot (the memo lives there) */
    uint32_t by_id_cap;
    uint32_t *touched; /* region ids set this region */
    uint32_t ntouched, touched_cap;
    uint32_t no_memo; /* the memo of a stack without a slot */
    uint32_t *tmp;    /* IP ids of the stack being added */
    uint32_t tmpcap;
} pp_pc_stacks;

/* A zeroed store is empty. */
void pp_pc_stacks_free(pp_pc_stacks *s);

/* The id of ev's stack (empty when ev->stack is NULL or the depth 0). PP_OK,
 * PP_ENOMEM or PP_ELIMIT. *memo points at a word the caller may keep a hint
 * in for this stack (0 at first, e.g. its last aggregate row): it sits in
 * memory the lookup has just touched. Valid until the next call; a hint may
 * be lost or stale, never wrong about identity (the caller checks what it
 * names). Not after pp_pc_stacks_seal. */
int pp_pc_stacks_id(pp_pc_stacks *s, const pp_trace_event *ev, uint32_t *id, uint32_t **memo);

/* The id of the stack ips[0..n) (leaf first), added when unseen, as
 * pp_pc_stacks_id would give an event with those frames: to fold another
 * store in, its stacks in id order. PP_OK, PP_ENOMEM or PP_ELIMIT. Not
 * after pp_pc_stacks_seal. */
int pp_pc_stacks_intern(pp_pc_stacks *s, const uint64_t *ips, uint32_t n, uint32_t *id);

/* The trace is read: drop the index and the region map (the stacks stay).
 * Frames are then at least min_width bytes (1, 2 or 4): 4 lets a caller
 * walk them with pp_pc_stacks_frames32. PP_OK, or PP_ENOMEM when widening
 * failed (the store is sealed and unchanged). */
int pp_pc_stacks_seal(pp_pc_stacks *s, unsigned min_width);

static inline uint32_t
pp_pc_stacks_depth(const pp_pc_stacks *s, uint32_t id)
{
    return s->len[id];
}

/* IP id of frame i (0 = leaf) of stack id. */
static inline uint32_t
pp_pc_stacks_frame(const pp_pc_stacks *s, uint32_t id, uint32_t i)
{
    uint64_t at = s->off[id] + i;
    switch (s->width) {
    case 1: return s->frames[at];
    case 2: return ((const uint16_t *)(const void *)s->frames)[at];
    default: return ((const uint32_t *)(const void *)s->frames)[at];
    }
}

/* The IP ids of stack id, leaf first, into out[0..depth). */
void pp_pc_stacks_frames(const pp_pc_stacks *s, uint32_t id, uint32_t *out);

/* IP ids of stack id, leaf first, borrowed: only once sealed 4 wide. */
static inline const uint32_t *
pp_pc_stacks_frames32(const pp_pc_stacks *s, uint32_t id, uint32_t *depth)
{
    *depth = s->len[id];
    /* only empty stacks: no frame array at all (NULL + 0 is undefined) */
    if (s->frames == NULL)
        return NULL;
    return (const uint32_t *)(const void *)s->frames + s->off[id];
}

/* The IP of an IP id. */
static inline uint64_t
pp_pc_stacks_ip(const pp_pc_stacks *s, uint32_t ip_id)
{
    return s->ip[ip_id];
}

#endif
