/* plugins/alloc: by_type_stack (see type_stacks.h). */
#include "type_stacks.h"
#include "../common/decl.h"

#include <stdlib.h>
#include <string.h>

const pp_column pp_alloc_type_stack_columns[] = {
    /* the roles give rules the callee_types view (ABI 1.8) */
    { "stack", PP_COL_STRING, PP_COL_FLAG_STACK },
    { "bytes", PP_COL_BYTES, 0 },
    { "samples", PP_COL_COUNT, 0 },
    { "type", PP_COL_STRING, PP_COL_FLAG_TYPE },
    { NULL, 0, 0 },
};

int
pp_alloc_type_stack_add(pp_pc_agg *a, uint32_t type, uint32_t folded, const int64_t *d)
{
    /* the key is the two ids' bytes: no string is built per tick */
    char key[8];
    memcpy(key, &type, 4);
    memcpy(key + 4, &folded, 4);
    return pp_pc_agg_add(a, key, sizeof key, d, NULL);
}

int
pp_alloc_emit_type_stacks(const pp_host_api *h, pp_ctx *ctx, const pp_pc_agg *a,
                          const pp_pc_strtab *types, pp_alloc_folded *folded, const char *no_stack,
                          int64_t top, const char *other)
{
    /* no key: a stack repeats once per type */
    pp_table *t = h->table_new(ctx, "by_type_stack", pp_pc_ncolumns(pp_alloc_type_stack_columns),
                               pp_alloc_type_stack_columns, 0);
    uint32_t n = pp_pc_agg_count(a), listed;
    uint32_t *order;
    int64_t cut[2] = { 0, 0 };
    int rc = PP_OK;

    if (!t)
        return PP_ENOMEM;
    if (n == 0)
        return PP_OK;
    if ((order = pp_pc_agg_rank(a, 0, 1)) == NULL)
        return PP_ENOMEM;
    listed = top > 0 && (uint64_t)top < n ? (uint32_t)top : n;
    for (uint32_t i = listed; i < n; i++) {
        const int64_t *v = pp_pc_agg_vals(a, order[i]);
        cut[0] = pp_i64_add_sat(cut[0], v[0]);
        cut[1] += v[1];
    }
    for (uint32_t i = 0; i < listed && rc == PP_OK; i++) {
        const char *key = pp_pc_agg_key(a, order[i]);
        const int64_t *v = pp_pc_agg_vals(a, order[i]);
        uint32_t type, f;
        memcpy(&type, key, 4);
        memcpy(&f, key + 4, 4);
        const char *stack = f == UINT32_MAX ? no_stack : pp_alloc_folded_string(folded, f);
        if (!stack) {
            rc = PP_ENOMEM;
            break;
        }
        pp_cell c[4] = { pp_cell_str(stack), pp_cell_int(v[0]), pp_cell_int(v[1]),
                         pp_cell_str(pp_pc_strtab_get(types, type)) };
        rc = h->table_row(t, c);
    }
    if (rc == PP_OK && listed < n) {
        /* the rows left out stay in the sums: one row holds them */
        pp_cell c[4] = { pp_cell_str(other), pp_cell_int(cut[0]), pp_cell_int(cut[1]),
                         pp_cell_str(other) };
        rc = h->table_row(t, c);
    }
    free(order);
    return rc;
}
