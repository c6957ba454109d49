/* Private: a V4/V5 .nettrace read as regions between sequence points, one
 * reader each, and the readers' facts merged back into the first one as if
 * it had read the whole file (region.c; inspect_par.c drives it).
 *
 * Why the split is exact (NetTraceFormat_v5.md, "Header compression",
 * "MetadataBlock", "SPBlock", "StackBlock"; ../shared/reference/nettrace.md
 * points 8, 14, 21, 22): header compression restarts at every block;
 * metadata ids are global and defined before use, so a region's reader
 * that first parses every MetadataBlock before its start knows every id;
 * stacks are forgotten at each sequence point (blocks.c flush_stacks), so a
 * region that starts at one needs no stack from before it. What crosses a
 * sequence point is the last sequence number per capture thread: a region
 * starts with the point's numbers, logs each thread it meets that the point
 * did not name, and the merge replays those first sightings against the
 * numbers of the regions before (the serial reader's own rules). Where
 * that replay cannot give the serial answer (a sequence going backwards, a
 * point behind the numbers before it) the merge says so and the caller
 * reads the file serially instead. */
#ifndef PP_NETTRACE_REGION_H
#define PP_NETTRACE_REGION_H

#include <stddef.h>
#include <stdint.h>

#include "nettrace/nettrace_internal.h"

/* The block offsets a split needs, from one walk over block headers. */
typedef struct nt_index {
    uint64_t *meta; /* MetadataBlock object offsets */
    size_t nmeta, meta_cap;
    struct nt_sp_at {
        uint64_t start, end;
    } * sp; /* SPBlock objects: [start, end) */
    size_t nsp, sp_cap;
    uint64_t first_events; /* the first EventBlock object, UINT64_MAX: none */
} nt_index;

/* Walk the block headers of r's file (pread, r is not moved) from r->pos
 * to the first sequence point at or after byte `until`, the end, or the
 * first block that is cut or malformed (the region readers then meet it as
 * the serial one would). r must be a seekable V4/V5 reader. PP_ENOMEM, or
 * PP_OK. */
int nt_index_build(pp_trace_source *r, uint64_t until, nt_index *ix);
void nt_index_free(nt_index *ix);

/* What a region's reader had read before its own part began. */
typedef struct nt_region_base {
    pp_nettrace_stats st; /* counters after the starting point */
    uint64_t repeated, reordered, gaps, missing;
    size_t nmetas; /* entries parsed before the region (not its own) */
    struct nt_seq_start {
        uint64_t thread, seq;
    } * seqs; /* the point's numbers */
    size_t nseqs;
} nt_region_base;

/* Open a reader of path for the region that starts at the sequence point
 * ix->sp[sp] and ends after the block that ends at stop (0: the input's
 * end): every metadata block before the point parsed, the point read.
 * The reader has no callbacks; set them after. On error (*out NULL) the
 * code with err set. */
int nt_region_open(const char *path, const nt_index *ix, size_t sp, uint64_t stop,
                   pp_trace_source **out, nt_region_base *base, pp_error *err);
void nt_region_base_free(nt_region_base *b);

/* Fold region reader rk (read to its end, after the regions before it were
 * folded) into r0: counters, event counts, metadata rows (rk's own
 * entries move to r0), methods, modules, time range, process ids, sequence
 * numbers. 0 when r0 now holds what a serial read would, 1 when the serial
 * answer cannot be derived (read serially), PP_ENOMEM. */
int nt_region_merge(pp_trace_source *r0, pp_trace_source *rk, const nt_region_base *b);

/* The sequence points (indexes into ix->sp, into at[0..nsp)) where
 * regions of a file of `size` bytes start: every one (every != 0, tests),
 * or those nearest `jobs` equal shares of the bytes. Returns how many
 * regions (one more than starts). */
size_t nt_region_pick(const nt_index *ix, uint64_t size, unsigned jobs, int every, size_t *at);

#endif
