/* plugins/alloc: folded stacks ("root;...;leaf" frame names), kept as a
 * representative stack each, not as strings or copies of their frames.
 *
 * by_stack ranks every distinct folded stack. As strings (about 1 KB each on
 * deep stacks) they were held twice before the result document held them a
 * third time; as name-id sequences they still cost a second copy of every
 * frame (43 MB on a 1.6 GB trace). A folded stack is the names of an IP
 * stack's frames, and every IP stack that folds to it gives the same names:
 * so it is kept as one of those stacks (4 bytes) plus a 64-bit hash of its
 * name ids, a hash match being confirmed by comparing the names. The string
 * is built only for the row being emitted, and ranking ties compare the names
 * exactly as strcmp would compare the strings.
 *
 * A sequence names one string only if no frame name contains ';'. When one
 * does, the table interns the joined strings instead (by_string), so rows
 * merge exactly as before. */
#ifndef PP_ALLOC_FOLDED_H
#define PP_ALLOC_FOLDED_H

#include <stdint.h>

#include "../common/strbuf.h"
#include "../common/strtab.h"
#include "../common/stacks.h"

typedef struct pp_alloc_folded {
    const pp_pc_strtab *names;  /* borrowed: frame names by id */
    const pp_pc_stacks *stacks; /* borrowed: the IP stacks */
    const uint32_t *ipname;     /* borrowed: [IP id] name id */
    int by_string;
    uint32_t *rep;  /* [count] an IP stack of each folded id */
    uint64_t *hash; /* [count] of its name ids */
    uint32_t count, cap;
    uint32_t *slots; /* folded id + 1, 0 empty */
    uint32_t nslots;
    pp_pc_strtab strs; /* by_string: the folded strings */
    pp_pc_strbuf buf;
} pp_alloc_folded;

/* by_string: set when a name in names contains ';'. */
void pp_alloc_folded_init(pp_alloc_folded *f, const pp_pc_strtab *names, const pp_pc_stacks *stacks,
                          const uint32_t *ipname, int by_string);
void pp_alloc_folded_free(pp_alloc_folded *f);
/* The folded id of IP stack `stack`, whose frame name ids are ids[0..n)
 * (ipname of its frames, LEAF first). PP_OK or PP_ENOMEM. */
int pp_alloc_folded_intern(pp_alloc_folded *f, uint32_t stack, const uint32_t *ids, uint32_t n,
                           uint32_t *id);
/* Every stack is interned: drop the index (strings and comparisons stay). */
void pp_alloc_folded_seal(pp_alloc_folded *f);
uint32_t pp_alloc_folded_count(const pp_alloc_folded *f);
/* The string of a folded id: borrowed until the next call on f. NULL when
 * out of memory. */
const char *pp_alloc_folded_string(pp_alloc_folded *f, uint32_t id);
/* strcmp of the strings of two folded ids; lit, when not NULL, stands for
 * a (literal string) and b for the id. */
int pp_alloc_folded_cmp(const pp_alloc_folded *f, uint32_t a, uint32_t b);
int pp_alloc_folded_cmp_lit(const pp_alloc_folded *f, const char *lit, uint32_t b);

#endif
