/* Counting jansson's failed allocations (jsonmem.h). */
#include "config.h"

#include <stdlib.h>

#include <jansson.h>

#include "jsonmem.h"

static uint64_t failures;

static void *
counted_malloc(size_t n)
{
    void *p = malloc(n);

    if (p == NULL)
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
    return p;
}

void
pp_jsonmem_count(void)
{
    json_set_alloc_funcs(counted_malloc, free);
}

void
pp_jsonmem_lost(void)
{
    __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);
}

uint64_t
pp_jsonmem_failures(void)
{
    return __atomic_load_n(&failures, __ATOMIC_RELAXED);
}
