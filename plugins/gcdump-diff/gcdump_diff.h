/* plugins/gcdump-diff: the analyzer's state and the join of two snapshots,
 * shared by gcdump_diff.c (join, suspects, owners, emit) and growth.c (the
 * growth table and its paths). */
#ifndef PP_GCDUMP_DIFF_H
#define PP_GCDUMP_DIFF_H

#include <stdint.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "heap_common.h"
#include "../common/decl.h"

typedef struct state {
    const pp_host_api *host;
    int64_t top, paths, threshold;
    int merge;
    const pp_heap_snapshot *snap[2]; /* view[i] once consumed */
    pp_heap_snapshot view[2];        /* hc_snapshot_view; arrays valid
                                          until finish returns */
} state;

/* One row of the join. */
typedef struct diff_row {
    const char *name;
    uint32_t key[2]; /* key index per side, HC_NONE if absent */
    int64_t count[2], bytes[2];
    int64_t dcount, dbytes;
} diff_row;

/* A leak suspect and what it holds. Rows are in name order and never move;
 * everything refers to them by index. */
typedef struct suspect {
    uint32_t row;
    uint32_t owner_row; /* row of the suspect whose instances own
                                    (immediately dominate) most of this one's
                                    instances, or HC_NONE */
    uint64_t held;      /* candidate bytes its instances retain */
} suspect;

typedef struct work {
    hc_keys k[2];
    hc_dom dom;
    diff_row *rows;
    uint32_t nrows;
    uint32_t *order;
    uint32_t *parent;
    uint32_t *bfs; /* candidate nodes in BFS order */
    uint32_t nbfs;
    hc_growth growth;     /* the candidate's BFS tree by position */
    uint64_t *ret[2];     /* [keys of each side] retained bytes */
    uint32_t *owner;      /* [rows] row whose instances hold this
                                    (accumulating) type's, or HC_NONE */
    char **gpath;         /* [rows] growth path, computed on demand */
    uint32_t gpaths_left; /* growth paths still allowed (each costs a
                                    pass over the heap) */
    int unknown_class;    /* a shown static root has no declaring class */
    uint8_t *from_static;
    uint32_t nstatic;
    uint32_t *sample;     /* [candidate keys] sample node */
    uint32_t *row_of_key; /* [candidate keys] */
    suspect *sus;
    uint32_t nsus;
    char *buf;
} work;

#define PATH_BUF 4096

static inline int
gd_cmp_delta(const void *a, const void *b)
{
    const diff_row *x = a, *y = b;
    if (x->dbytes != y->dbytes)
        return x->dbytes > y->dbytes ? -1 : 1;
    if (x->dcount != y->dcount)
        return x->dcount > y->dcount ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* A type whose instances accumulate: at least two more of them. One more
 * instance is a container that appeared or was replaced (a dictionary's
 * entry array on its first insert, a resize): what it holds is what
 * accumulates, so it is looked through as an owner. */
static inline int
gd_accumulating(const diff_row *r)
{
    return r->dcount > 1 && r->key[1] != HC_NONE;
}

static inline int64_t
gd_retained_delta(const work *w, const diff_row *r)
{
    int64_t a = r->key[0] != HC_NONE ? (int64_t)w->ret[0][r->key[0]] : 0;
    int64_t b = r->key[1] != HC_NONE ? (int64_t)w->ret[1][r->key[1]] : 0;
    return b - a;
}

/* The path that holds most of row r's bytes (computed once per row, at most
 * gpaths_left times); the sample path beyond that. Owned by w; NULL on
 * ENOMEM. */
const char *gd_growth_path(state *st, work *w, uint32_t r);

/* Table growth into ctx. PP_OK, PP_ENOMEM or the host's error. */
int gd_emit_growth(state *st, work *w, pp_ctx *ctx);

/* The tables finish writes, by their place in pp_gd_tables (tables.c: the
 * descriptor's declarations; each writer makes its table from its entry). */
enum { PP_GD_T_GROWTH, PP_GD_T_BY_TYPE, PP_GD_T_PATHS, PP_GD_T_LEAK_SUSPECTS };
extern const pp_table_decl pp_gd_tables[];

#endif
