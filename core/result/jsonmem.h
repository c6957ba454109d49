/* Private: counting the document library's failed allocations.
 *
 * Most of the result document is built with jansson calls whose failure
 * is not checked one by one (json_object_set_new of a json_integer...):
 * out of memory there drops a member silently. The engine instead counts
 * every allocation jansson could not get and refuses a document built
 * while one failed (exit 7), so no such gap poses as a whole result. */
#ifndef PP_CORE_JSONMEM_H
#define PP_CORE_JSONMEM_H

#include <stdint.h>

/* Route jansson's allocations through a counting wrapper of malloc/free
 * (idempotent; objects made before keep working: same allocator). */
void pp_jsonmem_count(void);

/* Allocations jansson could not get in this process so far, and those
 * counted by pp_jsonmem_lost. */
uint64_t pp_jsonmem_failures(void);

/* Count one failed allocation outside jansson whose caller has no way to
 * return it (a regexec that ran out of space inside a yes/no matcher): the
 * document built after it is refused as if jansson's had failed. */
void pp_jsonmem_lost(void);

#endif
