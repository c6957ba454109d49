/* Private to the perfpipe program: subcommands and shared helpers. The CLI
 * parses arguments, chooses renderings and maps statuses to exit codes; it
 * holds no analysis. */
#ifndef PP_CLI_H
#define PP_CLI_H

#include <stdio.h>

#include <perfpipe/error.h>

#include "loader/loader.h"
#include "result/result.h"

/* Exit codes: documented in perfpipe(1) and `perfpipe --help`. */
#define PP_EXIT_OK         0 /* success */
#define PP_EXIT_REGRESSION 1 /* compare --fail-on: a regression was found */
#define PP_EXIT_USAGE      2 /* bad arguments, or a pipeline that does not validate */
#define PP_EXIT_INPUT      3 /* an input capture cannot be read (missing, malformed) */
#define PP_EXIT_PLUGIN     4 /* a plugin was refused, or a stage failed (others' results kept) */
#define PP_EXIT_OUTPUT     5 /* a result could not be written */
#define PP_EXIT_CANNOT_JUDGE                                                                       \
    6                   /* compare --fail-on: a side is truncated, damaged, lost events
                                  or has a stage that is not ok */
#define PP_EXIT_NOMEM 7 /* out of memory */

/* Set by pp_cli_error when a message says "out of memory": the run then
 * ends with PP_EXIT_NOMEM whatever code the failing step returned
 * (pp_cli_exit_status), unless a result was put in place. */
extern int pp_cli_out_of_memory;
/* Set when a result was written: a file renamed into place, a CSV set,
 * standard output flushed. */
extern int pp_cli_wrote_result;

/* The exit status for a command's code rc: PP_EXIT_NOMEM when an "out of
 * memory" was said and nothing was written (a usage or input code would
 * send the user to the wrong place); rc otherwise. A result in place
 * keeps its run's code: 0 or 4 with its document saying why, never 7
 * (exit 7 leaves nothing new, perfpipe(1)). */
int pp_cli_exit_status(int rc);

extern const char *pp_prog; /* "perfpipe" */
/* -q/--quiet before the command (`perfpipe -q alloc F`): no warnings on
 * stderr, as the command's own -q. */
extern int pp_cli_quiet;
/* --force (any command that takes -o): an output that is a read-only file
 * is replaced instead of refused. */
extern int pp_cli_force;

int pp_cmd_run(int argc, char **argv);
int pp_cmd_analyzer(const char *analyzer, int argc, char **argv); /* perfpipe ANALYZER INPUT... */
int pp_cmd_validate(int argc, char **argv);
int pp_cmd_plugins(int argc, char **argv);
int pp_cmd_describe(int argc, char **argv);
int pp_cmd_inspect(int argc, char **argv);
int pp_cmd_render(int argc, char **argv);
int pp_cmd_compare(int argc, char **argv);
int pp_cmd_candidates(int argc, char **argv);
int pp_cmd_rules(int argc, char **argv);
int pp_cmd_ps(int argc, char **argv);
int pp_cmd_collect(int argc, char **argv);
int pp_cmd_diagnose(int argc, char **argv);
int pp_cmd_verify(int argc, char **argv);

/* One trace capture as `perfpipe collect` takes it (cmd_collect.c), for
 * diagnose: started (may be NULL) is called once the session runs, with
 * the target's pid; stats (may be NULL) gets what the capture was. An exit
 * code; errors are printed. The caller installs the signal handlers. */
struct pp_capture_spec;
typedef void (*pp_cli_trace_started)(void *user, unsigned long long pid);
typedef struct pp_cli_trace_stats {
    unsigned long long events, dropped, bytes, pid;
    double elapsed_s;
    char stopped_by[32];
} pp_cli_trace_stats;
int pp_cli_collect_trace(const struct pp_capture_spec *spec, int quiet,
                         pp_cli_trace_started started, void *user, pp_cli_trace_stats *stats);

/* Live-capture options of the analyzer shorthand (capture_opts.c). */
#define PP_CLI_CAPTURE_MAX 16
typedef struct pp_cli_capture {
    int n;
    const char *keys[PP_CLI_CAPTURE_MAX];
    const char *values[PP_CLI_CAPTURE_MAX];
} pp_cli_capture;
/* Record --NAME VALUE (pid, process, diagnostic-port, profile, providers,
 * counters, interval, duration, keep, follow-child, buffersize); -1 after
 * printing an error. */
int pp_cli_capture_opt(pp_cli_capture *c, const char *name, const char *value);
/* The capture spec (an input path, "capture:...") for analyzer, with the
 * analyzer's default profile when none is given. Caller frees. */
char *pp_cli_capture_spec(const char *analyzer, const pp_cli_capture *c);
/* If a pipeline input is captured live: Ctrl-C / SIGTERM stop open
 * captures cleanly (a second one cuts them; with none open they act as
 * usual) and 1 is returned; else 0 and nothing changes. */
struct pp_pipeline;
int pp_cli_capture_signals(const struct pp_pipeline *p);

/* What `describe` prints of analyzer name, found with the --plugin-dir
 * directories given then the defaults. An exit code. */
int pp_cli_describe(const char *name, char **dirs, int ndirs);

/* getopt_long (run with opterr = 0 and ':' leading optstring) returned c,
 * '?' or ':': one line naming the option and `perfpipe CMD --help`, not
 * the whole usage. */
void pp_cli_bad_option(const char *cmd, int c, char **argv);
/* A JSON document from path, "-" = standard input (once per run: a second
 * "-" fails with that said in jerr). NULL with jerr filled. */
struct json_t *pp_cli_load_json(const char *path, struct json_error_t *jerr);

/* "perfpipe: message" on stderr. */
void pp_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The exit code for a library status. */
int pp_cli_exit_for(int status);
/* --jobs ARG: 1..64 into *out and 0, else -1 after printing why. */
int pp_cli_parse_jobs(const char *arg, unsigned *out);

/* A loader with the --plugin-dir directories given (may be 0), then the
 * defaults. NULL after printing an error. */
pp_loader *pp_cli_loader(char **dirs, int ndirs);

/* Write text to path ("-" or NULL = stdout) without destroying anything
 * (core/output/outfile.h): a regular file is replaced atomically, a symlink's
 * target is replaced and the link kept, a device or FIFO is written in
 * place. An exit code: PP_EXIT_OUTPUT on any write error. */
typedef int (*pp_write_fn)(void *user, FILE *out);
int pp_cli_write_output(const char *path, pp_write_fn fn, void *user);

/* Every document the CLI writes is checked here first (pp_cli_write_output
 * and pp_cli_write_doc call it): jansson's failed allocations are counted
 * for the whole process from main() on (result/jsonmem.h), because a
 * json_object_set_new of a json_integer that could not be made drops the
 * member with nothing said. The count never goes back down: the first
 * failure is remembered. PP_EXIT_OK while none failed; otherwise says so,
 * naming path ("-" or NULL: standard output), and returns PP_EXIT_NOMEM:
 * the caller writes nothing. */
int pp_cli_doc_whole(const char *path);
/* doc as indented JSON to path ("-" or NULL = stdout), through
 * pp_cli_write_output. An exit code. */
int pp_cli_write_json(const char *path, const struct json_t *doc);

/* A reader that stops reading (`| head`) is no failure: SIGPIPE only
 * marks it (installed once by main, inherited by the isolated stages), the
 * writes then fail with EPIPE, and the output helpers stop writing without
 * a word; the exit status is the one the run would have had (perfpipe(1)
 * EXIT STATUS). pp_cli_reader_gone: whether a pipe's reader went away. */
void pp_cli_catch_sigpipe(void);
int pp_cli_reader_gone(void);

/* Flush stdout; on a write error print it and return PP_EXIT_OUTPUT. Every
 * command ends with it, so `perfpipe plugins >/dev/full` fails. */
int pp_cli_flush_stdout(void);

/* The tracker that removes temporary output files when SIGINT, SIGTERM,
 * SIGHUP or SIGPIPE ends the program (installs the handlers once). */
struct pp_outfile_tracker;
const struct pp_outfile_tracker *pp_cli_temp_tracker(void);

/* The shipped one-stage pipeline that runs analyzer (its name, which is
 * the analyzer's own name unless the pipeline is named for its input). */
const char *pp_cli_pipeline_for(const char *analyzer);

/* Whether fmt is a known output format; if not, print the list and
 * return 0 (cli/lists.c, as the rest of this block). */
int pp_cli_format_ok(const char *fmt);

/* Write text to out with the registries' names in place of @FORMATS@
 * (every output format), @DOC_FORMATS@ (those that draw a whole
 * document), @STACK_FORMATS@ (those that draw a stack table) and @KINDS@
 * (input kinds), each as "a, b or c". Usage texts go through it so that
 * they never list by hand what a registry holds. */
void pp_cli_put_text(FILE *out, const char *text);

/* `perfpipe help --list WHAT`: the names of a registry, one a line, for
 * completion and scripts. WHAT: formats, document-formats, stack-formats,
 * kinds. PP_EXIT_OK, or PP_EXIT_USAGE for another WHAT. */
int pp_cli_list_registry(const char *what, FILE *out);

/* `perfpipe ANALYZER FILE` with --format FORMAT (NULL = the shipped
 * pipeline's table), --table TABLE, --evidence-dir DIR: appends to
 * opts/flags[0..*n) (capacity max) the options that spare the stage tables
 * that one output never shows, unless the user gave them; the strings are
 * static or borrowed from opts. 0, or -1 with a message when full
 * (cli/quick_options.c). */
struct pp_pipeline_option_override;
int pp_cli_quick_options(const char *analyzer, const char *format, const char *table,
                         const char *evidence_dir, struct pp_pipeline_option_override *opts,
                         const char **flags, size_t *n, size_t max);

/* Render doc as format (table: for flame formats, NULL = first stack
 * table) to path ("-"/NULL = stdout), atomically. An exit code. */
struct json_t;
int pp_cli_write_doc(const char *path, const struct json_t *doc, const char *format,
                     const char *table);

/* Layout of every rendering (--wide, --weight, --top, $COLUMNS). */
extern pp_render_opts pp_cli_render;
/* Take --wide and --weight out of argv (in place, argv[argc] = NULL) into
 * pp_cli_render, note --top N there too (left in argv), and read the width
 * from $COLUMNS or the terminal. -1 after printing an error. */
int pp_cli_take_render_flags(int *argc, char **argv);

/* The flags pp_cli_take_render_flags takes for every command, NULL-ended
 * (completion offers them after any command). */
extern const char *const pp_cli_global_flags[];

/* A subcommand: argv[0] is its name. */
typedef int (*pp_cli_command_fn)(int argc, char **argv);

/* `perfpipe __complete pipelines|options CMD|formats CMD`: the words shell
 * completion offers, one a line, from the program's own help texts and
 * registries; lookup maps a command name to its function (NULL: an
 * analyzer). An exit code. */
int pp_cli_complete(int argc, char **argv, pp_cli_command_fn (*lookup)(const char *));

/* CSV directory: perfpipe ... --format csv -o DIR/ writes one file per
 * table (TABLE.csv, or STAGE.TABLE.csv when the pipeline has several
 * stages), totals.csv and findings.csv, each atomically. Is path meant as
 * such a directory (ends in '/', or is one)? And write it: an exit code. */
int pp_cli_is_dir_output(const char *path);
int pp_cli_write_csv_dir(const char *dir, const struct json_t *doc);

/* Progress on stderr, only when stderr is a terminal. */
void pp_cli_progress(void *user, const char *input, unsigned long long done,
                     unsigned long long total);
void pp_cli_progress_done(void);

#endif
