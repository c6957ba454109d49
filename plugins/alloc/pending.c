/* plugins/alloc: the tick waiting for its row (alloc.h, pp_alloc_pending)
 * goes to the rows, from consume (alloc.c) and before a merge (merge.c). */
#include "alloc.h"

int
pp_alloc_flush(pp_alloc *a)
{
    pp_alloc_pending *p = &a->pend;
    if (!p->have)
        return PP_OK;
    p->have = 0;
    uint32_t h = p->hint;
    if (pp_alloc_rows_add(&a->raw, p->type, p->stack, p->kind, p->bytes, &h) != PP_OK)
        return PP_ENOMEM;
    if (p->memo && p->gen == a->stacks.gen) /* else the stack index moved: hint lost */
        *p->memo = h;
    if (h > 0) {
        uint64_t key = (uint64_t)(h - 1) << 32 | p->thread;
        if (key + 1 != a->last_row_thread) {
            if (pp_pc_u64map_put(&a->row_threads, key, 1) != PP_OK)
                return PP_ENOMEM;
            a->last_row_thread = key + 1;
        }
    }
    return PP_OK;
}
