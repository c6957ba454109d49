/* Private: the one scale candidates rank on (docs/candidates.md "The scale").
 *
 * Every candidate's figure becomes a cost per unit of work of the capture it
 * came from (core/result/work.h: per request where the trace or a load input counts
 * requests, else per second of capture, else per operation; "capture" when
 * the document knows none), in estimated milliseconds: running, database and
 * removable blocked time are milliseconds already; bytes (allocated, or
 * retained growth) are converted at a cost per byte, the work the runtime
 * does for each allocated byte (zeroing it, and the gen0 collections it
 * brings closer). The table naming of a result lives here and nowhere else
 * (WORK-CONTRACT item 5: the analyzers' own declarations will replace it). */
#ifndef PP_CORE_CANDIDATES_COST_H
#define PP_CORE_CANDIDATES_COST_H

#include <jansson.h>

/* Default conversion of allocated bytes to time: 0.125 ms per MiB
 * (about 0.12 ns per byte; docs/candidates.md says why). */
#define PP_CAND_ALLOC_MS_PER_MIB 0.125

/* What a candidate's figure measures. */
typedef enum pp_cand_measure {
    PP_CAND_MS = 1, /* milliseconds of time */
    PP_CAND_BYTES   /* bytes (allocated or retained) */
} pp_cand_measure;

/* The unit of work of one document. */
typedef struct pp_cand_unit {
    const char *unit;   /* "request", "second", "operation" or "capture" */
    const char *source; /* where the request count came from, or NULL */
    double per;         /* the divisor (1 for "capture") */
} pp_cand_unit;

/* The unit of doc's work (never fails: "capture" with per 1 when the
 * document names no work). */
void pp_cand_unit_of(const json_t *doc, pp_cand_unit *u);

/* figure (of measure m) per unit u, in estimated ms: ms_per_mib converts
 * bytes. */
double pp_cand_cost(pp_cand_measure m, double figure, const pp_cand_unit *u, double ms_per_mib);

/* "1.2 ms", "340 KB" for figure per unit (text for a cell). */
void pp_cand_per_unit_text(pp_cand_measure m, double figure, const pp_cand_unit *u, char *buf,
                           size_t size);

/* Say how the scale was built in stage (a candidates stage): totals
 * `scale`, `unit`, `alloc_ms_per_mib` and a finding naming each input's
 * unit and divisor; a warning when the inputs' units differ. */
void pp_cand_describe_scale(json_t *stage, const json_t *const *docs, size_t ndocs,
                            double ms_per_mib);

#endif
