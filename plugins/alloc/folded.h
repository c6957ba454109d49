/* plugins/alloc: folded stacks ("root;...;leaf" frame names) kept as
 * sequences of name ids, not strings.
 *
 * by_stack lists every distinct folded stack; as strings (about 1 KB each
 * on deep stacks) they were held twice before the result document held them
 * a third time, which made alloc's memory grow with the trace (140 MB on a
 * 634 MB trace). As name-id sequences they cost 4 bytes a frame; the string
 * is built only for the row being emitted, and ranking ties compare the
 * sequences exactly as strcmp would compare the strings.
 *
 * A sequence names one string only if no frame name contains ';'. When one
 * does, the table interns the joined strings instead (by_string), so rows
 * merge exactly as before. */
#ifndef PP_ALLOC_FOLDED_H
#define PP_ALLOC_FOLDED_H

#include <stdint.h>

#include "../common/stackset.h"
#include "../common/strbuf.h"
#include "../common/strtab.h"

typedef struct pp_alloc_folded {
    const pp_pc_strtab *names;   /* borrowed: frame names by id */
    int by_string;
    pp_pc_stackset seqs;         /* name ids, root first (stored as "IPs") */
    pp_pc_strtab strs;           /* by_string: the folded strings */
    pp_pc_strbuf buf;
} pp_alloc_folded;

/* by_string: set when a name in names contains ';'. */
void pp_alloc_folded_init(pp_alloc_folded *f, const pp_pc_strtab *names, int by_string);
void pp_alloc_folded_free(pp_alloc_folded *f);
/* The folded id of the stack whose frame name ids are ids[0..n), LEAF
 * first. PP_OK or PP_ENOMEM. */
int pp_alloc_folded_intern(pp_alloc_folded *f, const uint32_t *ids, uint32_t n, uint32_t *id);
uint32_t pp_alloc_folded_count(const pp_alloc_folded *f);
/* The string of a folded id: borrowed until the next call on f. NULL when
 * out of memory. */
const char *pp_alloc_folded_string(pp_alloc_folded *f, uint32_t id);
/* strcmp of the strings of two folded ids; lit, when not NULL, stands for
 * a (literal string) and b for the id. */
int pp_alloc_folded_cmp(const pp_alloc_folded *f, uint32_t a, uint32_t b);
int pp_alloc_folded_cmp_lit(const pp_alloc_folded *f, const char *lit, uint32_t b);

#endif
