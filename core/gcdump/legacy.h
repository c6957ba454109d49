/* Private: the 64-bit snapshot arrays of ABI 1.0/1.1 (node_size,
 * node_address, edge_start) for a lean gcdump snapshot, built when a stage
 * whose plugin declares an older minor is about to read it. */
#ifndef PP_GCDUMP_LEGACY_H
#define PP_GCDUMP_LEGACY_H

#include <perfpipe/error.h>
#include <perfpipe/records.h>

/* Make s's node_size, node_address and edge_start valid (they then live as
 * long as the snapshot). A snapshot that has them already (every one but a
 * lean gcdump's) is left alone. PP_ENOMEM, or PP_EIO when the file shrank
 * since it was decoded, with err filled. */
int pp_gcdump_legacy_arrays(const pp_heap_snapshot *s, pp_error *err);

#endif
