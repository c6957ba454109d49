/* plugins/spans: the tables finish writes, declared once (ABI 1.5): the
 * descriptor hands these declarations to the host, and each writer makes
 * its table from its entry (../common/decl.h). Apart from the analyzer and
 * the writers, which both read it, so that neither calls the other back. */
#include "config.h"

#include <stddef.h>

#include "spans.h"

/* What finish builds (ABI 1.5): rules, candidates and compare read these
 * declarations from the result document (tables[i].decl). */
const pp_table_decl pp_spans_tables[] = {
    [PP_SPANS_T_BY_OPERATION] = {
        .name = "by_operation",
        .columns = (const pp_column[]){ { "operation", PP_COL_STRING, 0 },
                                        { "requests", PP_COL_COUNT, 0 },
                                        { "p50_ms", PP_COL_NUMBER, 0 },
                                        { "p95_ms", PP_COL_NUMBER, 0 },
                                        { "max_ms", PP_COL_NUMBER, 0 },
                                        { "overlaps", PP_COL_COUNT, 0 },
                                        { "total_ms", PP_COL_NUMBER, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "operation", NULL },
        .subject = "operation",
        .figures = (const pp_figure_decl[]){ { "total_ms", "ms", PP_AXIS_TIME },
                                             { "p50_ms", "ms", PP_AXIS_TIME },
                                             { "p95_ms", "ms", PP_AXIS_TIME },
                                             { "max_ms", "ms", PP_AXIS_TIME },
                                             { "requests", "count", PP_AXIS_LOAD },
                                             { NULL, NULL, NULL } },
        .work_totals = (const char *const[]){ "requests", NULL },
    },
    [PP_SPANS_T_ATTRIBUTION] = {
        .name = "attribution",
        .columns = (const pp_column[]){ { "operation", PP_COL_STRING, 0 },
                                        { "kind", PP_COL_STRING, 0 },
                                        { "downstream", PP_COL_STRING, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "calls", PP_COL_COUNT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "operation", "kind", "downstream", NULL },
        .subject = "downstream",
        .figures = (const pp_figure_decl[]){ { "ms", "ms", PP_AXIS_TIME },
                                             { "calls", "count", PP_AXIS_TIME },
                                             { "share", "percent", NULL },
                                             { NULL, NULL, NULL } },
        .work_totals = (const char *const[]){ "requests", NULL },
    },
    { .name = NULL },
};
