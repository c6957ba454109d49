/* plugins/common: zeroed memory that is read before it is written.
 *
 * calloc's fresh pages are mapped lazily: a probe that reads one first
 * maps the shared zero page, and the first write then takes a second,
 * copy-on-write fault whose TLB flush interrupts every other thread of the
 * process (6 % of a `perfpipe alloc --jobs 2` run on the deep bench trace,
 * the hash tables' probes and the report's sums). Writing to each page here
 * takes the one ordinary fault a page instead. */
#ifndef PP_PLUGIN_COMMON_ZALLOC_H
#define PP_PLUGIN_COMMON_ZALLOC_H

#include <stdlib.h>

/* n elements of size bytes, all zero, or NULL (also on overflow); free().
 * A store to each page (volatile: a compiler folds malloc + memset into
 * calloc) takes its fault as a write. */
static inline void *
pp_pc_zalloc(size_t n, size_t size)
{
    volatile unsigned char *p = calloc(n ? n : 1, size ? size : 1);
    size_t bytes = n * size;

    for (size_t i = 0; p != NULL && i < bytes; i += 4096)
        p[i] = 0;
    if (p != NULL && bytes != 0)
        p[bytes - 1] = 0; /* the last page, when p is not aligned */
    return (void *)p;
}

#endif
