/* Private to the perfpipe program: `perfpipe diagnose` and `verify`, the
 * diagnosis session (issue #38). A session is a target and its knobs; the
 * knobs (axes, durations, load command, counter settings, buffer) are
 * recorded in every evidence folder's session.json, and verify judges two
 * folders only when they are equal. */
#ifndef PP_CLI_DIAG_H
#define PP_CLI_DIAG_H

#include <stdint.h>

#include <jansson.h>

/* The axes, in capture order. */
enum {
    PP_DIAG_ALLOC = 1u << 0,
    PP_DIAG_CPU = 1u << 1,
    PP_DIAG_DB = 1u << 2,
    PP_DIAG_GC = 1u << 3,
    PP_DIAG_EXCEPTIONS = 1u << 4,
    PP_DIAG_CONTENTION = 1u << 5,
    PP_DIAG_HEAP = 1u << 6,
};
#define PP_DIAG_NAXES        7
#define PP_DIAG_DEFAULT_AXES (PP_DIAG_ALLOC | PP_DIAG_CPU | PP_DIAG_DB | PP_DIAG_GC | PP_DIAG_HEAP)

/* Axis i's name ("alloc"...), i < PP_DIAG_NAXES. */
const char *pp_diag_axis_name(int i);
/* A comma-separated axis list into *mask: 0, or -1 with the unknown name
 * in *bad (a pointer into list, up to the next comma). */
int pp_diag_axes_parse(const char *list, unsigned *mask, const char **bad);

typedef struct pp_diag_knobs {
    unsigned axes;          /* PP_DIAG_* */
    double duration_s;      /* each axis's capture */
    double counters_s;      /* the counters envelope (0 = duration_s) */
    unsigned interval_s;    /* counters' interval */
    char *counters;         /* dotnet-counters --counters list */
    char *load;             /* sh -c command run during each capture, or NULL */
    uint32_t buffer_mb;     /* 0 = the capture's default */
    char *benchmark;        /* the L1 benchmark covering the candidates, or NULL */
    char *benchmark_covers; /* which candidates it covers (candidates_bench.h) */
} pp_diag_knobs;

typedef struct pp_diag_session {
    uint64_t pid;
    char *process_name, *diagnostic_port, *backend;
    pp_diag_knobs knobs;
} pp_diag_session;

/* Defaults: PP_DIAG_DEFAULT_AXES, 10 s, counters 10 s at 1 s, System.Runtime
 * and Microsoft.AspNetCore.Hosting, no load. */
void pp_diag_session_init(pp_diag_session *s);
void pp_diag_session_free(pp_diag_session *s);
/* Read a session file (perfpipe-diagnose(1), SESSION FILE) over s's
 * defaults. 0, or an exit code after printing FILE:LINE:COLUMN: what was
 * expected. */
int pp_diag_session_load(const char *path, pp_diag_session *s);
/* The knobs as recorded in session.json (new reference). */
json_t *pp_diag_knobs_json(const pp_diag_knobs *k);

/* The rows of every table named table in a result document, each as an
 * object (column name -> cell); new reference, [] when none. */
json_t *pp_diag_table_rows(const json_t *doc, const char *table);

/* The evidence folder's note (note.md) and report (report.html) from its
 * session.json and candidates.json (diag_report.c). An exit code. */
int pp_diag_write_reports(const char *dir, const json_t *session);

#endif
