/* plugins/common: string interning for analyzer plugins.
 *
 * Names (types, frames, folded stacks) repeat millions of times in a trace;
 * an id per distinct string lets aggregates be plain arrays. Ids are dense,
 * 0..count-1, in first-seen order, and stay valid until pp_pc_strtab_free. */
#ifndef PP_PLUGIN_STRTAB_H
#define PP_PLUGIN_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct pp_pc_strtab {
    char **strs;      /* [count] owned, NUL-terminated */
    uint32_t *lens;   /* [count] */
    uint64_t *hashes; /* [count] */
    uint32_t count, cap;
    uint32_t *slots; /* open addressing: id + 1, 0 = empty */
    uint32_t nslots; /* power of two */
} pp_pc_strtab;

/* A zeroed pp_pc_strtab is a valid empty table. */
void pp_pc_strtab_init(pp_pc_strtab *t);
void pp_pc_strtab_free(pp_pc_strtab *t);

/* The id of s[0..len) (interned on first sight). 0 or PP_ENOMEM. */
int pp_pc_strtab_intern(pp_pc_strtab *t, const char *s, size_t len, uint32_t *id);

/* The id of s if present: 1 found, 0 absent. */
int pp_pc_strtab_find(const pp_pc_strtab *t, const char *s, size_t len, uint32_t *id);

/* The string of an id (borrowed from t). id must be < t->count. */
static inline const char *
pp_pc_strtab_get(const pp_pc_strtab *t, uint32_t id)
{
    return t->strs[id];
}

/* XXH3 (64-bit) over bytes, shared by the other helpers. Only lookups
 * depend on it: ids are first-seen order, so results do not. */
uint64_t pp_pc_hash_bytes(const void *p, size_t n, uint64_t seed);
/* A strong 64-bit mixer (splitmix64 finalizer). */
static inline uint64_t
pp_pc_hash_u64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

#endif
