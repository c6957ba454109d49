/* Private: the evidence a rule can match, read from result documents.
 *
 * This is the one place that knows how analyzers' tables look to rules:
 * the schema rule files are checked against, read from what analyzers
 * declare of their tables (ABI 1.5) or from result documents, the columns
 * derived from a table's own by the roles its declaration gives them (ABI
 * 1.7: a database command's verb, a heap path's root kind) and the views
 * derived from several (callees: what a candidate frame calls, from the
 * stage's stack profile). A column an analyzer adds is known to rules once
 * its descriptor declares it; no analyzer or table is known by name. */
#ifndef PP_CORE_RULES_EVIDENCE_H
#define PP_CORE_RULES_EVIDENCE_H

#include <stddef.h>

#include <jansson.h>

#include <perfpipe/plugin.h>

/* A table as rules see it: column names and rows (arrays of cells, in the
 * table's order, derived columns appended). */
typedef struct pp_ev_table {
    json_t *columns; /* array of strings */
    json_t *rows;    /* array of arrays */
} pp_ev_table;

/* Column kinds of the schema. */
typedef enum pp_ev_kind {
    PP_EV_ANALYZER_UNKNOWN = 0, /* a third-party analyzer: anything goes */
    PP_EV_TABLE_UNKNOWN,
    PP_EV_COLUMN_UNKNOWN,
    PP_EV_STRING,
    PP_EV_NUMBER
} pp_ev_kind;

/* A schema is a JSON object {analyzer: {table: {column: "s" | "n"}}}
 * (json_object() to start). Add what analyzer a declares of its tables
 * (nothing for a descriptor older than ABI 1.5), or the tables of every
 * stage of a result document, with the derived columns and views of
 * either. PP_OK or PP_ENOMEM. */
int pp_ev_schema_add_analyzer(json_t *schema, const pp_analyzer *a);
int pp_ev_schema_add_doc(json_t *schema, const json_t *doc);

/* What schema says of analyzer/table/column (column NULL: of the table
 * alone, PP_EV_STRING meaning "known"). A NULL schema knows no analyzer. */
pp_ev_kind pp_ev_schema(const json_t *schema, const char *analyzer, const char *table,
                        const char *column);

/* "a, b, c": the tables of an analyzer schema knows, or the columns of one
 * of its tables, for messages. */
void pp_ev_schema_list(const json_t *schema, const char *analyzer, const char *table, char *buf,
                       size_t size);

/* A cache of evidence tables for the documents of one call (candidates, a
 * run): each view is built once. */
typedef struct pp_ev_cache pp_ev_cache;

pp_ev_cache *pp_ev_cache_new(void);
void pp_ev_cache_free(pp_ev_cache *c);

/* The evidence table `name` of `stage` (a stage object of a result
 * document): the stage's own table plus derived columns, or a derived
 * view. NULL when the stage has no such table (or memory ran out: rules
 * then see no evidence, never wrong evidence). Owned by the cache. */
const pp_ev_table *pp_ev_get(pp_ev_cache *c, const json_t *stage, const char *name);

/* Index of a column, or -1. */
int pp_ev_column(const pp_ev_table *t, const char *name);

/* The stage's analyzer name, or NULL. */
const char *pp_ev_analyzer(const json_t *stage);

#endif
