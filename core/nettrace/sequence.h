/* Private: damage the runtime did not report. Each EventBlock's bytes are
 * hashed (xxh3): a block seen before is a repeat (a tee or copy gone wrong)
 * and is skipped, so its events are not counted twice. Sequence numbers per
 * capture thread must rise by one: a jump forward counts dropped events and
 * one sequence gap; a jump back marks the block reordered (and gives back
 * the events the earlier jump counted as dropped, since they arrive late).
 * A block removed from the file cannot be told from events the runtime
 * dropped: both show as a gap. Repeats are looked for between two sequence
 * points. */
#ifndef PP_NETTRACE_SEQUENCE_H
#define PP_NETTRACE_SEQUENCE_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

typedef struct nt_sequence {
    pp_u64map seen;              /* block hash -> file offset (+1) */
    int block_reordered;         /* the current block went backwards */
    uint64_t repeated_blocks;
    uint64_t reordered_blocks;
    uint64_t sequence_gaps;
} nt_sequence;

struct pp_trace_source;

/* Called for each EventBlock body before its events are read: 1 when the
 * block repeats an earlier one (skip it; a warning was given), else 0. */
int nt_sequence_block(struct pp_trace_source *r, const uint8_t *body, size_t len, uint64_t off);
/* A sequence point: blocks before it are not compared with blocks after
 * it (a writer may emit the same bytes again in a new region; memory stays
 * bounded by one region). */
void nt_sequence_point(struct pp_trace_source *r);
/* Check one event's sequence number on its capture thread. */
void nt_sequence_event(struct pp_trace_source *r, uint64_t thread, uint32_t seq);
void nt_sequence_free(nt_sequence *s);

#endif
