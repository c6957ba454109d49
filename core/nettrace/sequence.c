/* Block order and sequence numbers (sequence.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

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
        nt_warn_at(r, off,
                   "%s: the event block at byte %llu repeats the one at byte %llu; "
                   "skipped (its events are not counted twice)",
                   r->name, (unsigned long long)off, (unsigned long long)(*first - 1));
        return 1;
    }
    if (s->seen.count >= MAX_SEEN)
        pp_u64map_clear(&s->seen);
    (void)pp_u64map_put(&s->seen, key, off + 1); /* out of memory: only a check lost */
    return 0;
}

void
nt_sequence_point(pp_trace_source *r)
{
    pp_u64map_clear(&r->seqs.seen);
}

void
nt_sequence_first(pp_trace_source *r, uint32_t seq, int from_sp)
{
    uint32_t lost = from_sp ? seq : seq - 1;

    if (r->format != 4 || seq == 0 || lost == 0)
        return;
    r->st.dropped_events += lost;
    r->seqs.sequence_gaps++;
}

int
nt_sequence_event(pp_trace_source *r, uint64_t thread, uint32_t seq)
{
    nt_sequence *s = &r->seqs;
    uint64_t *last = pp_u64map_get(&r->seq_by_thread, thread);
    int32_t gap;

    if (last == NULL || (uint32_t)*last == 0) {
        if (last == NULL && r->seq_logging)
            nt_seq_log_miss(r, thread, seq, 0);
        else if (last == NULL)
            nt_sequence_first(r, seq, 0);
        if (last == NULL)
            return pp_u64map_put(&r->seq_by_thread, thread, seq) < 0 ? -1 : 0;
        *last = seq;
        return 0;
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
            nt_warn_at(r, r->blk_off,
                       "%s: the event block at byte %llu goes back in sequence "
                       "numbers (thread %llu: %u after %u): blocks are out of order",
                       r->name, (unsigned long long)r->blk_off, (unsigned long long)thread, seq,
                       (uint32_t)*last);
        }
    } else {
        *last = seq;
    }
    return 0;
}

/* A region's reader (region.c) notes where a capture thread first shows. */
void
nt_seq_log_miss(pp_trace_source *r, uint64_t thread, uint32_t seq, int from_sp)
{
    struct nt_seq_miss *l = nt_grow(r->seq_log, &r->seq_log_cap, r->nseq_log + 1, sizeof *l);

    if (!l) {
        r->seq_unsure = 1; /* out of memory: the merge cannot replay it */
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
    free(s->stack_used);
}

int
nt_sequence_stacks(pp_trace_source *r, uint32_t first, uint32_t count, uint64_t off)
{
    nt_sequence *s = &r->seqs;
    uint8_t *u;

    if (r->format != 4)
        return 0; /* V6 stack ids are not known to restart per region */
    u = nt_grow(s->stack_used, &s->stack_used_cap, r->nstacks + 1, 1);
    if (!u)
        return -1;
    s->stack_used = u;
    memset(u + r->nstacks - count, 0, count);
    s->region_open = 1;
    if (first != s->stack_end + 1) {
        s->missing_blocks++;
        if (first > s->stack_end + 1)
            nt_warn_at(r, off,
                       "%s: the stack block at byte %llu starts at stack id %u, but the "
                       "ids before it end at %u: a stack block is missing (events naming ids "
                       "%u-%u have no stack)",
                       r->name, (unsigned long long)off, first, s->stack_end, s->stack_end + 1,
                       first - 1);
        else
            nt_warn_at(r, off,
                       "%s: the stack block at byte %llu starts at stack id %u, but "
                       "ids up to %u are defined already: stack blocks are missing or out of "
                       "order",
                       r->name, (unsigned long long)off, first, s->stack_end);
    }
    if (count > 0)
        s->stack_end = first + count - 1;
    return 0;
}

void
nt_sequence_stack_ref(pp_trace_source *r, uint32_t id, size_t found, uint64_t off)
{
    nt_sequence *s = &r->seqs;

    if (r->format != 4)
        return;
    s->region_open = 1;
    if (found) {
        s->stack_used[found - 1] = 1;
        return;
    }
    if (s->undef_events++ == 0)
        s->undef_off = off;
    if (id > s->undef_max)
        s->undef_max = id;
}

void
nt_sequence_region_end(pp_trace_source *r)
{
    nt_sequence *s = &r->seqs;
    uint64_t unused = 0;

    if (!s->region_open)
        return;
    /* Ids inside a hole a StackBlock's first id showed are counted there. */
    if (s->undef_events > 0 && (s->undef_max > s->stack_end || r->nstacks == 0)) {
        s->missing_blocks++;
        nt_warn_at(r, s->undef_off,
                   "%s: %llu events from byte %llu on name stacks (up to id "
                   "%u) that no stack block of their region defines: a stack block is missing; "
                   "those events have no stack",
                   r->name, (unsigned long long)s->undef_events, (unsigned long long)s->undef_off,
                   s->undef_max);
    }
    /* A cut trace lost the events of its last stacks: the cut says so. */
    for (size_t i = 0; i < r->nstacks && !r->st.truncated; i++)
        unused += s->stack_used[i] == 0;
    if (unused > 0) {
        s->missing_blocks++;
        nt_warn_at(r, r->pos,
                   "%s: %llu of the %zu stacks defined before byte %llu are named by "
                   "no event: an event block is missing",
                   r->name, (unsigned long long)unused, r->nstacks, (unsigned long long)r->pos);
    }
    s->stack_end = 0;
    s->undef_max = 0;
    s->undef_events = 0;
    s->region_open = 0;
}
