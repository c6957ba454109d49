/* plugins/spans: shared state of the span attribution analyzer (issue #11).
 *
 * consume() keeps a compact copy of every span (strings interned); finish()
 * picks the requests, attributes their time and reports. */
#ifndef PP_PLUGIN_SPANS_H
#define PP_PLUGIN_SPANS_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#include "../common/strtab.h"

/* Downstream kinds, in report order. 0 = not a downstream call. */
#define SP_DS_NONE      0u
#define SP_DS_DATABASE  1u
#define SP_DS_CACHE     2u
#define SP_DS_HTTP      3u
#define SP_DS_MESSAGING 4u
#define SP_DS_OTHER     5u /* a client/producer span of no known kind */
#define SP_DS_COUNT     6u

#define SP_NO_ID UINT32_MAX

typedef struct sp_span {
    int64_t start, end; /* unix ns */
    uint32_t kind;      /* PP_SPAN_* */
    uint32_t ds_kind;   /* SP_DS_* */
    uint32_t span_id;   /* strtab ids ("trace/span" so ids never collide across traces) */
    uint32_t parent_id; /* SP_NO_ID for a root */
    uint32_t op;        /* operation name (server spans), else SP_NO_ID */
    uint32_t ds_name;   /* downstream name (downstream spans), else SP_NO_ID */
    uint32_t service;   /* service.name id in names ("" included) */
} sp_span;

typedef struct sp_state {
    const pp_host_api *host;
    pp_ctx *ctx;
    double inproc_share; /* % of an operation's time in-proc worth a finding */
    int64_t nplus1;      /* calls of one downstream per request worth a finding */
    sp_span *spans;
    uint32_t count, cap;
    pp_pc_strtab ids;   /* span ids */
    pp_pc_strtab names; /* operation and downstream names */
} sp_state;

/* Classify one span: its downstream kind and name (interned into st->names)
 * and, for server spans, the operation name. */
int sp_classify(sp_state *st, const pp_span *s, sp_span *out);

/* Build tables, findings and totals. */
int sp_report(sp_state *st, pp_ctx *ctx, pp_error *err);

const char *sp_ds_kind_name(uint32_t ds_kind);

/* The tables finish writes, by their place in pp_spans_tables (spans.c: the descriptor's
 * declarations, each writer makes its table from its entry). */
enum {
    PP_SPANS_T_BY_OPERATION,
    PP_SPANS_T_ATTRIBUTION,
};
extern const pp_table_decl pp_spans_tables[];

#endif
