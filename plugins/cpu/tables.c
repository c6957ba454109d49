/* plugins/cpu: the tables finish builds, declared once (ABI 1.5): the
 * descriptor hands these declarations to the host (rules, candidates and
 * compare read them from the result document, tables[i].decl), and each
 * writer makes its table from its entry (../common/decl.h), so the
 * columns a table has and the ones it declares cannot drift. */
#include "config.h"

#include <stddef.h>

#include "tables.h"
#include "../common/modules.h"

/* The flame tables' shape: running_stacks and waiting_stacks are one table
 * split by thread state, so they share their columns and figures. */
static const pp_column thread_stack_columns[] = { { "stack", PP_COL_STRING, 0 },
                                                  { "samples", PP_COL_COUNT, 0 },
                                                  { "ms", PP_COL_NUMBER, 0 },
                                                  { "thread", PP_COL_STRING, 0 },
                                                  { NULL, 0, 0 } };
/* A table of sampled thread time with its share of the whole. */
static const pp_figure_decl sample_share_figures[] = { { "ms", "ms", PP_AXIS_TIME },
                                                       { "samples", "samples", PP_AXIS_TIME },
                                                       { "share", "percent", NULL },
                                                       { NULL, NULL, NULL } };
static const pp_figure_decl stack_figures[] = { { "ms", "ms", PP_AXIS_TIME },
                                                { "samples", "samples", PP_AXIS_TIME },
                                                { NULL, NULL, NULL } };

const pp_table_decl pp_cpu_tables[] = {
    [PP_CPU_T_RUNNING] = {
        .name = "running",
        .columns = (const pp_column[]){ { "method", PP_COL_STRING, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "module", PP_COL_STRING, 0 },
                                        { "call_site", PP_COL_STRING, 0 },
                                        { "lo_ms", PP_COL_NUMBER, 0 },
                                        { "hi_ms", PP_COL_NUMBER, 0 },
                                        { "source", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "method", NULL },
        .subject = "method",
        .figures = sample_share_figures,
        .candidate =
            &(const pp_candidate_decl){
                .cost = "ms",
                .label = "time (running thread samples)",
                .does =
                    "runs (thread time while running, waits excluded, framework callees included)",
                .evidence = (const char *const[]){ "samples", NULL },
                .stacks = "by_stack",
                .waits = "waiting",
                .flags = PP_CANDIDATE_FRAME },
    },
    [PP_CPU_T_WAITING] = {
        .name = "waiting",
        .columns = (const pp_column[]){ { "wait", PP_COL_STRING, 0 },
                                        { "waiter", PP_COL_STRING, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "module", PP_COL_STRING, 0 },
                                        { "call_site", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "wait", "waiter", NULL },
        .subject = "waiter",
        .figures = sample_share_figures,
        .candidate = &(
            const pp_candidate_decl){ .cost = "ms",
                                      .label = "time (blocked, removable wait)",
                                      .does = "blocks (thread time waiting)",
                                      .evidence = (const char *const[]){ "wait", "samples", NULL },
                                      .flags = PP_CANDIDATE_FRAME | PP_CANDIDATE_RULE_GATED },
    },
    [PP_CPU_T_BLOCKING] = {
        .name = "blocking",
        .columns = (const pp_column[]){ { "waiter", PP_COL_STRING, 0 },
                                        { "block", PP_COL_STRING, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "lo_ms", PP_COL_NUMBER, 0 },
                                        { "hi_ms", PP_COL_NUMBER, 0 },
                                        { "module", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "waiter", NULL },
        .subject = "waiter",
        .figures = sample_share_figures,
        /* a caller blocked on a task or a lock (blocking.h): a cause an
       * await, or less sharing, removes */
        .candidate =
            &(const pp_candidate_decl){
                .cost = "ms",
                .label = "time blocked (sync over async, lock contention)",
                .does =
                    "blocks its thread on a task (.Wait, .Result, GetAwaiter().GetResult()) or a lock",
                .evidence = (const char *const[]){ "block", "samples", NULL },
                .flags = PP_CANDIDATE_FRAME },
    },
    [PP_CPU_T_BY_METHOD] = {
        .name = "by_method",
        .columns = (const pp_column[]){ { "method", PP_COL_STRING, 0 },
                                        { "exclusive", PP_COL_COUNT, 0 },
                                        { "inclusive", PP_COL_COUNT, 0 },
                                        { "exclusive_ms", PP_COL_NUMBER, 0 },
                                        { "inclusive_ms", PP_COL_NUMBER, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { "module", PP_COL_STRING, 0 },
                                        { "lo_ms", PP_COL_NUMBER, 0 },
                                        { "hi_ms", PP_COL_NUMBER, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "method", NULL },
        .subject = "method",
        .figures = (const pp_figure_decl[]){ { "exclusive_ms", "ms", PP_AXIS_TIME },
                                             { "inclusive_ms", "ms", PP_AXIS_TIME },
                                             { "exclusive", "samples", PP_AXIS_TIME },
                                             { "inclusive", "samples", PP_AXIS_TIME },
                                             { "share", "percent", NULL },
                                             { NULL, NULL, NULL } },
        .candidate = &(const pp_candidate_decl){ .cost = "exclusive_ms",
                                                 .label = "time (thread samples)",
                                                 .does = "runs itself (exclusive thread time)",
                                                 .superseded_by = "running",
                                                 .flags = PP_CANDIDATE_NO_WAITS |
                                                          PP_CANDIDATE_FRAME },
    },
    [PP_CPU_T_BY_THREAD] = {
        .name = "by_thread",
        .columns = (const pp_column[]){ { "thread", PP_COL_STRING, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "top_method", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "thread", NULL },
        .figures = (const pp_figure_decl[]){ { "ms", "ms", PP_AXIS_TIME },
                                             { "samples", "samples", PP_AXIS_TIME },
                                             { NULL, NULL, NULL } },
    },
    /* the flame graph of running time, threads apart (speedscope) or merged */
    [PP_CPU_T_RUNNING_STACKS] = {
        .name = "running_stacks",
        .columns = thread_stack_columns,
        .figures = stack_figures,
    },
    [PP_CPU_T_WAITING_STACKS] = {
        .name = "waiting_stacks",
        .columns = thread_stack_columns,
        .figures = stack_figures,
    },
    [PP_CPU_T_BY_STACK] = {
        .name = "by_stack",
        .columns = (const pp_column[]){ { "stack", PP_COL_STRING, PP_COL_FLAG_STACK },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "stack", NULL },
        .figures = (const pp_figure_decl[]){ { "ms", "ms", PP_AXIS_TIME },
                                             { "samples", "samples", PP_AXIS_TIME },
                                             { NULL, NULL, NULL } },
    },
    [PP_CPU_T_BY_THREAD_STACK] = {
        .name = "by_thread_stack",
        .columns = (const pp_column[]){ { "stack", PP_COL_STRING, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "thread", PP_COL_STRING, 0 },
                                        { "state", PP_COL_STRING, 0 },
                                        { NULL, 0, 0 } },
        .figures = (const pp_figure_decl[]){ { "ms", "ms", PP_AXIS_TIME },
                                             { "samples", "samples", PP_AXIS_TIME },
                                             { NULL, NULL, NULL } },
    },
    [PP_CPU_T_EXCEPTIONS] = {
        .name = "exceptions",
        .columns = (const pp_column[]){ { "frame", PP_COL_STRING, 0 },
                                        { "type", PP_COL_STRING, 0 },
                                        { "count", PP_COL_COUNT, 0 },
                                        { "per_sec", PP_COL_NUMBER, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "frame", "type", NULL },
        .subject = "frame",
        .figures = (const pp_figure_decl[]){ { "count", "count", PP_AXIS_TIME },
                                             { "per_sec", "per_second", NULL },
                                             { NULL, NULL, NULL } },
    },
    [PP_CPU_T_CONTENTION] = {
        .name = "contention",
        .columns = (const pp_column[]){ { "lock", PP_COL_STRING, 0 },
                                        { "waiter", PP_COL_STRING, 0 },
                                        { "count", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "lock", "waiter", NULL },
        .subject = "waiter",
        .figures = (const pp_figure_decl[]){ { "ms", "ms", PP_AXIS_TIME },
                                             { "count", "count", PP_AXIS_TIME },
                                             { "share", "percent", NULL },
                                             { NULL, NULL, NULL } },
    },
    /* with option focus: who calls the focus method and what it calls, by
     * the time the focus spends under them */
    [PP_CPU_T_CALLERS] = {
        .name = "callers",
        .columns = (const pp_column[]){ { "caller", PP_COL_STRING, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "caller", NULL },
    },
    [PP_CPU_T_CALLEES] = {
        .name = "callees",
        .columns = (const pp_column[]){ { "callee", PP_COL_STRING, 0 },
                                        { "samples", PP_COL_COUNT, 0 },
                                        { "ms", PP_COL_NUMBER, 0 },
                                        { "share", PP_COL_PERCENT, 0 },
                                        { NULL, 0, 0 } },
        .key = (const char *const[]){ "callee", NULL },
    },
    [PP_CPU_T_MODULES] = PP_PC_MODULES_TABLE_DECL,
    [PP_CPU_T_END] = { .name = NULL },
};
