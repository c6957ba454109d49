/* Block order and sequence numbers (sequence.h). */
#include "config.h"

#include <xxhash.h>

#include "nettrace/nettrace_internal.h"

/* Past this many distinct blocks the set starts again: memory stays
 * bounded (16 MB) on any trace; a repeat further back than that shows as a
 * sequence number going backwards instead. */
#define MAX_SEEN (1u << 20)

int
nt_sequence_block(pp_trace_source *r, const uint8_t *body, size_t len, uint64_t off)
{
    nt_sequence *s = &r->seqs;
    uint64_t key = XXH3_64bits(body, len), *first;

    s->block_reordered = 0;
    if ((first = pp_u64map_get(&s->seen, key)) != NULL) {
        s->repeated_blocks++;
        nt_warn_at(r, off, "%s: the event block at byte %llu repeats the one at byte %llu; "
                   "skipped (its events are not counted twice)", r->name,
                   (unsigned long long)off, (unsigned long long)(*first - 1));
        return 1;
    }
    if (s->seen.count >= MAX_SEEN)
        pp_u64map_clear(&s->seen);
    (void)pp_u64map_put(&s->seen, key, off + 1);   /* out of memory: only a check lost */
    return 0;
}

void
nt_sequence_point(pp_trace_source *r)
{
    pp_u64map_clear(&r->seqs.seen);
}

void
nt_sequence_event(pp_trace_source *r, uint64_t thread, uint32_t seq)
{
    nt_sequence *s = &r->seqs;
    uint64_t *last = pp_u64map_get(&r->seq_by_thread, thread);
    int32_t gap;

    if (last == NULL || (uint32_t)*last == 0) {
        if (last == NULL && r->seq_logging)
            nt_seq_log_miss(r, thread, seq, 0);
        if (last == NULL)
            pp_u64map_put(&r->seq_by_thread, thread, seq);
        else
            *last = seq;
        return;
    }
    gap = (int32_t)(seq - ((uint32_t)*last + 1));
    if (gap > 0) {
        r->st.dropped_events += (uint32_t)gap;
        s->sequence_gaps++;
        *last = seq;
    } else if (gap < 0) {
        /* A region cannot tell how far the whole trace's count is from 0. */
        r->seq_unsure |= r->seq_logging;
        /* Late, not lost: the jump that skipped it counted it as dropped. */
        if (r->st.dropped_events > 0)
            r->st.dropped_events--;
        if (!s->block_reordered) {
            s->block_reordered = 1;
            s->reordered_blocks++;
            nt_warn_at(r, r->blk_off, "%s: the event block at byte %llu goes back in sequence "
                       "numbers (thread %llu: %u after %u): blocks are out of order", r->name,
                       (unsigned long long)r->blk_off, (unsigned long long)thread, seq,
                       (uint32_t)*last);
        }
    } else {
        *last = seq;
    }
}

/* A region's reader (region.c) notes where a capture thread first shows. */
void
nt_seq_log_miss(pp_trace_source *r, uint64_t thread, uint32_t seq, int from_sp)
{
    struct nt_seq_miss *l = nt_grow(r->seq_log, &r->seq_log_cap, r->nseq_log + 1, sizeof *l);

    if (!l) {
        r->seq_unsure = 1;       /* out of memory: the merge cannot replay it */
        return;
    }
    r->seq_log = l;
    l[r->nseq_log].thread = thread;
    l[r->nseq_log].seq = seq;
    l[r->nseq_log].from_sp = (uint32_t)from_sp;
    r->nseq_log++;
}

void
nt_sequence_free(nt_sequence *s)
{
    pp_u64map_free(&s->seen);
}
