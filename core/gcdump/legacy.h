/* Private: the per-node arrays a lean gcdump snapshot leaves out, built
 * when a stage whose plugin lacks the opt-in is about to read it: the
 * 64-bit node_size, node_address and edge_start of ABI 1.0/1.1 (for one
 * without PP_ANALYZER_FLAG_HEAP32) and node_type and node_size32 (for one
 * without PP_ANALYZER_FLAG_HEAP_SHAPES, ABI 1.4). */
#ifndef PP_GCDUMP_LEGACY_H
#define PP_GCDUMP_LEGACY_H

#include <perfpipe/error.h>
#include <perfpipe/records.h>

/* Make s's node_size, node_address and edge_start valid (they then live as
 * long as the snapshot). A snapshot that has them already (every one but a
 * lean gcdump's) is left alone. PP_ENOMEM, or PP_EIO when the file shrank
 * since it was decoded, with err filled. */
int pp_gcdump_legacy_arrays(const pp_heap_snapshot *s, pp_error *err);

/* Make s's node_type and node_size32 valid (from its shapes; they then
 * live as long as the snapshot). A snapshot that has them (every one but
 * a lean gcdump's) is left alone. PP_OK, or PP_ENOMEM with err filled. */
int pp_gcdump_node_arrays(const pp_heap_snapshot *s, pp_error *err);

#endif
