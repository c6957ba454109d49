/* gcdump-diff's table declarations (ABI 1.5), apart from the analyzer so
 * that gcdump_diff.c stays one job. */
#include "config.h"

#include <stddef.h>

#include <perfpipe/plugin.h>

extern const pp_table_decl pp_gd_tables[];

/* What finish builds (ABI 1.5): rules, candidates and compare read these
 * declarations from the result document (tables[i].decl). */
const pp_table_decl pp_gd_tables[] = {
    {
        .name = "growth",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "count_delta", PP_COL_COUNT, 0 },
                                        { "bytes_delta", PP_COL_BYTES, 0 },
                                        { "baseline_retained", PP_COL_BYTES, 0 },
                                        { "candidate_retained", PP_COL_BYTES, 0 },
                                        { "retained_delta", PP_COL_BYTES, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "owned_by", PP_COL_STRING, 0 },
                                        { "payload", PP_COL_STRING, 0 },
                                        { "path", PP_COL_STRING, PP_COL_FLAG_ROOT_PATH },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", NULL },
        .subject = "type",
        .figures = (const pp_figure_decl[]){ { "bytes_delta", "bytes", PP_AXIS_FOOTPRINT },
                                             { "count_delta", "count", PP_AXIS_FOOTPRINT },
                                             { "retained_delta", "bytes", PP_AXIS_FOOTPRINT },
                                             { "share", "percent", NULL },
                                             { NULL, NULL, NULL } },
        .candidate = &(
            const pp_candidate_decl){ .cost = "retained_delta",
                                      .label = "footprint (heap growth)",
                                      .does = "holds more on the heap (retained growth)",
                                      .skip_if = "owned_by",
                                      .flags = PP_CANDIDATE_HEAP_TYPE,
                                      .evidence = (const char *const[]){ "count_delta", "payload",
                                                                         "path", NULL } },
    },
    {
        .name = "by_type",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "baseline_count", PP_COL_COUNT, 0 },
                                        { "candidate_count", PP_COL_COUNT, 0 },
                                        { "count_delta", PP_COL_COUNT, 0 },
                                        { "baseline_bytes", PP_COL_BYTES, 0 },
                                        { "candidate_bytes", PP_COL_BYTES, 0 },
                                        { "bytes_delta", PP_COL_BYTES, 0 },
                                        { "status", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", NULL },
        .subject = "type",
        .figures = (const pp_figure_decl[]){ { "bytes_delta", "bytes", PP_AXIS_FOOTPRINT },
                                             { "count_delta", "count", PP_AXIS_FOOTPRINT },
                                             { "candidate_bytes", "bytes", PP_AXIS_FOOTPRINT },
                                             { NULL, NULL, NULL } },
        .candidate = &(const pp_candidate_decl){ .cost = "bytes_delta",
                                                 .label = "footprint (heap growth)",
                                                 .does = "grew on the heap by",
                                                 .status = "status",
                                                 .superseded_by = "growth",
                                                 .flags = PP_CANDIDATE_HEAP_TYPE },
    },
    {
        .name = "paths",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "bytes_delta", PP_COL_BYTES, 0 },
                                        { "depth", PP_COL_COUNT, 0 },
                                        { "path", PP_COL_STRING, PP_COL_FLAG_ROOT_PATH },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", NULL },
        .subject = "type",
        .figures = (const pp_figure_decl[]){ { "bytes_delta", "bytes", PP_AXIS_FOOTPRINT },
                                             { NULL, NULL, NULL } },
    },
    {
        .name = "leak_suspects",
        .columns = (const pp_column[]){ { "type", PP_COL_STRING, 0 },
                                        { "count_delta", PP_COL_COUNT, 0 },
                                        { "bytes_delta", PP_COL_BYTES, 0 },
                                        { "retained_bytes", PP_COL_BYTES, 0 },
                                        { "owned_by", PP_COL_STRING, 0 },
                                        { "path", PP_COL_STRING, PP_COL_FLAG_ROOT_PATH },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "type", NULL },
        .subject = "type",
        .figures = (const pp_figure_decl[]){ { "bytes_delta", "bytes", PP_AXIS_FOOTPRINT },
                                             { "count_delta", "count", PP_AXIS_FOOTPRINT },
                                             { "retained_bytes", "bytes", PP_AXIS_FOOTPRINT },
                                             { NULL, NULL, NULL } },
    },
    { .name = NULL },
};
