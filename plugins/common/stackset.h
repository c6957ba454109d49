/* plugins/common: interning of call stacks as IP arrays.
 *
 * Frames can only be named once the whole trace was read (method rundown
 * comes last), so analyzers keep stacks as raw instruction pointers while
 * consuming, aggregate by stack id, and name them in finish(). The reader's
 * own stack_id is not used as the key: it is only unique between two
 * sequence points (the stack cache is flushed there). Ids are dense, 0..count-1;
 * an empty stack is a stack like any other. IPs are stored LEAF FIRST, as
 * the event delivered them. */
#ifndef PP_PLUGIN_STACKSET_H
#define PP_PLUGIN_STACKSET_H

#include <stdint.h>

typedef struct pp_pc_stackset {
    uint64_t *ips;        /* all frames, stack after stack */
    uint64_t nips, capips;
    uint64_t *off;        /* [count] start in ips */
    uint32_t *len;        /* [count] frames */
    uint64_t *hash;       /* [count] */
    uint32_t count, cap;
    uint32_t *slots;      /* id + 1, 0 empty */
    uint32_t nslots;
} pp_pc_stackset;

void pp_pc_stackset_free(pp_pc_stackset *s);
/* The id of ips[0..n) (leaf first). PP_OK or PP_ENOMEM / PP_ELIMIT. */
int pp_pc_stackset_intern(pp_pc_stackset *s, const uint64_t *ips, uint32_t n, uint32_t *id);
/* Frames of a stack, borrowed from s until the next intern. */
static inline const uint64_t *pp_pc_stackset_ips(const pp_pc_stackset *s, uint32_t id, uint32_t *n)
{
    *n = s->len[id];
    return s->ips + s->off[id];
}

#endif
