/* Dominator-tree children as lists (heap_common.h), for the dominator
 * pass's last step and for hc_retained_by_key. */
#include "config.h"

#include <string.h>

#include "heap_common.h"

/* Dominator-tree children (heap_common.h) when size[w] = 1 for every
 * w < nr already: a node with no child linked yet has size 1, so a list's
 * head is written when its first child is linked, and a node reached
 * (going down from the last, so after all its children) with size 1 is a
 * leaf: first[] needs no pass of its own. */
void
hc_dom_children_sized(uint32_t *ipre_next, uint32_t nr, uint32_t *first, uint32_t *size)
{
    for (uint32_t w = nr; w-- > 1;) {
        uint32_t p = ipre_next[w];
        if (size[w] == 1)
            first[w] = HC_NONE;
        ipre_next[w] = size[p] == 1 ? HC_NONE : first[p];
        first[p] = w;
        size[p] += size[w]; /* w's own subtree is complete: what it dominates is above it */
    }
    if (nr) {
        if (size[0] == 1)
            first[0] = HC_NONE;
        ipre_next[0] = HC_NONE;
    }
}

void
hc_set_ones(uint32_t *a, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        a[i] = 1;
}

void
hc_dom_children(uint32_t *ipre_next, uint32_t nr, uint32_t *first, uint32_t *size)
{
    if (size) {
        hc_set_ones(size, nr);
        hc_dom_children_sized(ipre_next, nr, first, size);
        return;
    }
    memset(first, 0xff, (nr ? nr : 1) * sizeof(uint32_t));
    for (uint32_t w = nr; w-- > 1;) {
        uint32_t p = ipre_next[w];
        ipre_next[w] = first[p];
        first[p] = w;
    }
    if (nr)
        ipre_next[0] = HC_NONE;
}
