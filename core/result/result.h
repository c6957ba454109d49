/* Private: the result document (perfpipe-result/1) under construction, and
 * its renderers. The document is a jansson tree from the start, so a result
 * built in this run and one loaded from disk (compare, render) are the same
 * thing.
 *
 * Shape:
 * { "format": "perfpipe-result/1",
 *   "tool": {"name": "perfpipe", "version": "X.Y.Z"},
 *   "pipeline": "alloc", "knobs": {"k": "v", ...},
 *   "inputs": [ {"name","path","kind","bytes","hash":{"algo","value"}, "warnings":[...], ...reader facts} ],
 *   "stages": [ {"id","analyzer":{"name","version"},"status":"ok"|"failed","error":"...",
 *                "tables":[{"name","key":[..],"columns":[{"name","type"}],"rows":[[..]]}],
 *                "findings":[{"severity","code","message"}],
 *                "totals":{"name":{"type":"bytes","value":123}} } ] }
 */
#ifndef PP_CORE_RESULT_H
#define PP_CORE_RESULT_H

#include <stdio.h>
#include <jansson.h>

#include <perfpipe/plugin.h>

#define PP_RESULT_FORMAT "perfpipe-result/1"

/* A new empty document (new reference). */
json_t *pp_result_new(const char *pipeline_name);

/* Append a stage entry; returns it (borrowed from doc). */
json_t *pp_result_add_stage(json_t *doc, const char *id, const char *analyzer,
                            const char *analyzer_version);

/* Host-table implementations on a stage entry. */
pp_table *pp_result_table_new(json_t *stage, const char *name, uint32_t ncolumns,
                              const pp_column *columns, uint32_t nkey);
int pp_result_table_row(pp_table *t, const pp_cell *cells);
int pp_result_finding(json_t *stage, uint32_t severity, const char *code,
                      const char *message);
int pp_result_total_int(json_t *stage, const char *name, uint32_t type, int64_t value);
int pp_result_total_double(json_t *stage, const char *name, uint32_t type, double value);
int pp_result_total_string(json_t *stage, const char *name, const char *value);
/* Free the pp_table wrappers of a stage (the JSON stays in the document). */
void pp_result_tables_release(json_t *stage);

/* Column type names <-> PP_COL_*. */
const char *pp_column_type_name(uint32_t type);
uint32_t pp_column_type_from_name(const char *name);  /* 0 if unknown */

/* Check that a loaded JSON is a perfpipe-result/1 document. */
int pp_result_validate(const json_t *doc, pp_error *err);

/* Render a document. Formats: "table" (aligned text, human units), "json",
 * "markdown", "csv". Returns PP_OK or PP_EINVAL for an unknown format. */
int pp_render(const json_t *doc, const char *format, FILE *out, pp_error *err);

/* Human units used by the text renderers: "1.21 GB", "35.4 ms". */
void pp_format_bytes(char *buf, size_t size, double bytes);
void pp_format_duration_ns(char *buf, size_t size, double ns);

#endif
