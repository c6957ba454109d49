/* Private: damage the runtime did not report. Each EventBlock's bytes are
 * hashed (xxh3): a block seen before is a repeat (a tee or copy gone wrong)
 * and is skipped, so its events are not counted twice. Sequence numbers per
 * capture thread must rise by one: a jump forward counts dropped events and
 * one sequence gap; a jump back marks the block reordered (and gives back
 * the events the earlier jump counted as dropped, since they arrive late).
 * A block removed from the file cannot be told from events the runtime
 * dropped: both show as a gap. Repeats are looked for between two sequence
 * points.
 *
 * The runtime starts every capture thread's numbers at 1, and a sequence
 * point lists only threads that wrote events: a thread first seen above 1
 * (or first named by a point above 0) lost its first events.
 *
 * Stacks prove lost blocks the numbers cannot: in a region (between two
 * sequence points) the runtime numbers stacks 1, 2, ... in StackBlock
 * order and writes a block's stacks just before the first EventBlock that
 * names them (all 36 real captures of the test bed and corpus hold to
 * both). So a StackBlock whose first id skips, or an event naming an id no
 * block defined, proves a StackBlock missing; a stack no event of its
 * region names proves an EventBlock missing (one whose thread wrote
 * nothing after it, which the numbers cannot see). Each counts one
 * missing block per region and hole, with a warning. */
#ifndef PP_NETTRACE_SEQUENCE_H
#define PP_NETTRACE_SEQUENCE_H

#include <stddef.h>
#include <stdint.h>

#include "u64map.h"

typedef struct nt_sequence {
    pp_u64map seen;      /* block hash -> file offset (+1) */
    int block_reordered; /* the current block went backwards */
    uint64_t repeated_blocks;
    uint64_t reordered_blocks;
    uint64_t sequence_gaps;
    uint64_t missing_blocks; /* Stack/EventBlocks the stack ids prove absent */
    /* The current region's stacks (reset at each sequence point). */
    uint8_t *stack_used; /* [nstacks]: 1 once an event named it */
    size_t stack_used_cap;
    uint32_t stack_end;    /* the last stack id defined (0: none yet) */
    uint32_t undef_max;    /* highest id named but not defined */
    uint64_t undef_events; /* events naming an undefined id */
    uint64_t undef_off;    /* the first of them */
    int region_open;       /* a stack defined or named since the last check */
} nt_sequence;

struct pp_trace_source;

/* Called for each EventBlock body before its events are read: 1 when the
 * block repeats an earlier one (skip it; a warning was given), else 0. */
int nt_sequence_block(struct pp_trace_source *r, const uint8_t *body, size_t len, uint64_t off);
/* A sequence point: blocks before it are not compared with blocks after
 * it (a writer may emit the same bytes again in a new region; memory stays
 * bounded by one region). */
void nt_sequence_point(struct pp_trace_source *r);
/* A capture thread's first number in the whole trace (from a sequence
 * point when from_sp): V4/V5 numbers start at 1, so anything above is
 * events lost before it (counted as dropped, one gap). */
void nt_sequence_first(struct pp_trace_source *r, uint32_t seq, int from_sp);
/* Check one event's sequence number on its capture thread. 0, or -1 out
 * of memory (a thread not remembered would count its next number as a
 * gap: the read must fail instead). */
int nt_sequence_event(struct pp_trace_source *r, uint64_t thread, uint32_t seq);
void nt_sequence_free(nt_sequence *s);
/* A StackBlock of ids [first, first + count) at off was read, r->nstacks
 * already counts them: check the ids follow on. -1 if out of memory. */
int nt_sequence_stacks(struct pp_trace_source *r, uint32_t first, uint32_t count, uint64_t off);
/* An event at off names stack id (found: its stack, or NULL). */
void nt_sequence_stack_ref(struct pp_trace_source *r, uint32_t id, size_t found, uint64_t off);
/* The region's end (a sequence point, or the end of the read): judge its
 * stacks and reset. A second call before new stacks is a no-op. */
void nt_sequence_region_end(struct pp_trace_source *r);

#endif
