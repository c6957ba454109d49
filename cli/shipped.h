/* Private to the perfpipe program: the registry of shipped pipelines. The
 * one place in cli/ that names shipped analyzers: what their quick path
 * (`perfpipe ANALYZER FILE`) runs, which capture profile it asks for, which
 * options spare the tables one output never shows, and the captures and
 * axes of `perfpipe diagnose`. Every other file of cli/ reads these rows
 * (tests/hacking/check-names.py enforces it). */
#ifndef PP_CLI_SHIPPED_H
#define PP_CLI_SHIPPED_H

/* What the quick path adds for one output (cli/quick_options.c). */
enum {
    /* its stack tables are trimmed to `top` on a text report */
    PP_SHIPPED_TRIM_STACKS = 1u << 0,
    /* pprof labels its samples with their type (type-stacks), and the
     * formats read as a whole profile get every stack (top-stacks 0) */
    PP_SHIPPED_TYPED_STACKS = 1u << 1,
    /* it builds per-thread stacks only for the formats that draw them */
    PP_SHIPPED_THREAD_STACKS = 1u << 2,
    /* a heap: pprof gets every type as a sample of its own (top 0) */
    PP_SHIPPED_HEAP = 1u << 3,
    /* diagnose's counters run and its heap comparison */
    PP_SHIPPED_DIAG_COUNTERS = 1u << 4,
    PP_SHIPPED_DIAG_HEAP_DIFF = 1u << 5,
};

typedef struct pp_cli_shipped {
    const char *analyzer;
    const char *pipeline; /* NULL: the analyzer's own name */
    const char *profile;  /* a capture's profile when no --profile; NULL:
                           * dotnet-trace's default */
    unsigned flags;       /* PP_SHIPPED_* */
    const char *picture;  /* the option a picture (html, svg) sets true: the
                           * table it draws from; NULL: none */
} pp_cli_shipped;

/* The row of a shipped analyzer, or NULL (a third-party one). */
const pp_cli_shipped *pp_cli_shipped_of(const char *analyzer);
/* The first row with flag set (there is one for each diagnose role). */
const pp_cli_shipped *pp_cli_shipped_with(unsigned flag);
/* Whether analyzer's row has flag (0 for a third-party analyzer). */
int pp_cli_shipped_has(const char *analyzer, unsigned flag);

/* One trace of a diagnosis session: the axes (PP_DIAG_*) it serves and
 * what it asks for. */
typedef struct pp_diag_capture {
    const char *name; /* the files' stem */
    unsigned axes;    /* PP_DIAG_* served */
    const char *profile, *providers;
    const char *analyzer;
} pp_diag_capture;

extern const pp_diag_capture pp_diag_captures[];
extern const unsigned pp_diag_ncaptures;
/* The session file's axis words, index i for PP_DIAG_* bit i. */
extern const char *const pp_diag_axis_names[];

#endif
