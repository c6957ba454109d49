/* plugins/common: a table made from its declaration.
 *
 * A table's columns are written once, in its pp_table_decl (what the host
 * writes into the result document and rules, candidates and compare read),
 * and the code that writes its rows makes the table from that declaration,
 * so the two cannot drift. A column some runs leave out (no symbols, no
 * source lines) is declared too and left out by name here. */
#ifndef PP_PLUGIN_COMMON_DECL_H
#define PP_PLUGIN_COMMON_DECL_H

#include <stdint.h>
#include <string.h>

#include <perfpipe/plugin.h>

/* The most columns a declaration may have here. */
#define PP_PC_DECL_MAX_COLUMNS 64

/* How many columns c (NULL-terminated) has. */
static inline uint32_t
pp_pc_ncolumns(const pp_column *c)
{
    uint32_t n = 0;

    while (c[n].name != NULL)
        n++;
    return n;
}

/* Whether omit (NULL-terminated, or NULL) names column name. */
static inline int
pp_pc_decl_omitted(const char *const *omit, const char *name)
{
    for (size_t i = 0; omit != NULL && omit[i] != NULL; i++)
        if (strcmp(omit[i], name) == 0)
            return 1;
    return 0;
}

/* table_new for the table d declares: its name, its declared columns in
 * their order except those omit names (NULL: none), the first nkey of them
 * its key. NULL when the host has no memory or d declares more than
 * PP_PC_DECL_MAX_COLUMNS columns. */
static inline pp_table *
pp_pc_table_new(const pp_host_api *h, pp_ctx *ctx, const pp_table_decl *d, uint32_t nkey,
                const char *const *omit)
{
    pp_column cols[PP_PC_DECL_MAX_COLUMNS];
    uint32_t n = 0;

    for (const pp_column *c = d->columns; c->name != NULL; c++) {
        if (pp_pc_decl_omitted(omit, c->name))
            continue;
        if (n == PP_PC_DECL_MAX_COLUMNS)
            return NULL;
        cols[n++] = *c;
    }
    return h->table_new(ctx, d->name, n, cols, nkey);
}

#endif
