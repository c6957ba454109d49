/* plugins/alloc: the tables finish writes, declared once (ABI 1.5): the
 * descriptor hands these declarations to the host, and each writer makes
 * its table from its entry (../common/decl.h). Apart from the analyzer and
 * the writers, which both read it, so that neither calls the other back. */
#include "config.h"

#include <stddef.h>

#include "alloc.h"
#include "type_stacks.h"
#include "../common/modules.h"

/* What finish builds (ABI 1.5): rules, candidates and compare read these
 * declarations from the result document (tables[i].decl). */
const pp_table_decl pp_alloc_tables[] = {
    [PP_ALLOC_T_BY_TYPE] = {
        .name = "by_type",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "bytes", PP_COL_BYTES, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "bytes_lo", PP_COL_BYTES, 0 },
                                        { "bytes_hi", PP_COL_BYTES, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", NULL },
        .subject = "type",
        .figures = (const pp_figure_decl[]){ { "bytes", "bytes", PP_AXIS_ALLOCATION },
                                             { "samples", "samples", PP_AXIS_ALLOCATION },
                                             { "share", "percent", NULL },
                                             { NULL, NULL, NULL } },
    },
    [PP_ALLOC_T_BY_FRAME] = {
        .name = "by_frame",
        .columns = (const pp_column[]){ { "frame", PP_COL_STRING, 0 },
                                        { "bytes", PP_COL_BYTES, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "module", PP_COL_STRING, 0 },
                                        { "call_site", PP_COL_STRING, 0 },
                                        { "bytes_lo", PP_COL_BYTES, 0 },
                                        { "bytes_hi", PP_COL_BYTES, 0 },
                                        { "source", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "frame", NULL },
        .subject = "frame",
        .figures = (const pp_figure_decl[]){ { "bytes", "bytes", PP_AXIS_ALLOCATION },
                                             { "samples", "samples", PP_AXIS_ALLOCATION },
                                             { "share", "percent", NULL },
                                             { NULL, NULL, NULL } },
        .candidate = &(const pp_candidate_decl){ .cost = "bytes",
                                                 .label = "allocation churn",
                                                 .does = "allocates (sampled)",
                                                 .flags = PP_CANDIDATE_FRAME },
    },
    [PP_ALLOC_T_BY_TYPE_FRAME] = {
        .name = "by_type_frame",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "frame", PP_COL_STRING, 0 },
                                        { "bytes", PP_COL_BYTES, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "module", PP_COL_STRING, 0 },
                                        { "call_site", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", "frame", NULL },
        .subject = "frame",
        .figures = (const pp_figure_decl[]){ { "bytes", "bytes", PP_AXIS_ALLOCATION },
                                             { "samples", "samples", PP_AXIS_ALLOCATION },
                                             { NULL, NULL, NULL } },
    },
    [PP_ALLOC_T_BY_TYPE_FRAME_KIND] = {
        .name = "by_type_frame_kind",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "frame", PP_COL_STRING, 0 },
                                        { "kind", PP_COL_STRING, 0 },
                                        { "bytes", PP_COL_BYTES, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "threads", PP_COL_COUNT, PP_COL_FLAG_THREADS },
                                        { "module", PP_COL_STRING, 0 },
                                        { "call_site", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", "frame", "kind", NULL },
        .subject = "frame",
        .figures = (const pp_figure_decl[]){ { "bytes", "bytes", PP_AXIS_ALLOCATION },
                                             { "samples", "samples", PP_AXIS_ALLOCATION },
                                             { NULL, NULL, NULL } },
    },
    [PP_ALLOC_T_BY_KIND] = {
        .name = "by_kind",
        .columns = (const pp_column[]){ { "kind", PP_COL_STRING, 0 },
                                        { "bytes", PP_COL_BYTES, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "bytes_lo", PP_COL_BYTES, 0 },
                                        { "bytes_hi", PP_COL_BYTES, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "kind", NULL },
        .subject = "kind",
        .figures = (const pp_figure_decl[]){ { "bytes", "bytes", PP_AXIS_ALLOCATION },
                                             { "samples", "samples", PP_AXIS_ALLOCATION },
                                             { NULL, NULL, NULL } },
    },
    [PP_ALLOC_T_BY_STACK] = {
        .name = "by_stack",
        .columns = (const pp_column[]){ { "stack", PP_COL_STRING, PP_COL_FLAG_STACK },
                                        { "bytes", PP_COL_BYTES, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "stack", NULL },
        .figures = (const pp_figure_decl[]){ { "bytes", "bytes", PP_AXIS_ALLOCATION },
                                             { "samples", "samples", PP_AXIS_ALLOCATION },
                                             { NULL, NULL, NULL } },
    },
    {
        /* only with the type-stacks option; no key: a stack repeats once
         * per type */
        .name = "by_type_stack",
        .columns = pp_alloc_type_stack_columns,
        .figures = (const pp_figure_decl[]){ { "bytes", "bytes", PP_AXIS_ALLOCATION },
                                             { "samples", "samples", PP_AXIS_ALLOCATION },
                                             { NULL, NULL, NULL } },
    },
    PP_PC_MODULES_TABLE_DECL,
    { .name = NULL },
};
