/* Private to `perfpipe run`, `validate` and the ANALYZER shorthand: the
 * parsed command line and the steps cmd_run.c chains (run_args.c parses,
 * run_inputs.c binds and checks inputs, run_deliver.c writes results). */
#ifndef PP_CLI_RUN_INTERNAL_H
#define PP_CLI_RUN_INTERNAL_H

#include <stdio.h>
#include <jansson.h>

#include "cli.h"
#include "pipeline/pipeline.h"

#define MAX_ARGS 64

typedef enum { MODE_RUN, MODE_VALIDATE, MODE_ANALYZER } run_mode;

typedef struct run_args {
    run_mode mode;
    const char *pipeline;       /* name or path */
    const char *analyzer;       /* MODE_ANALYZER */
    char *positional[MAX_ARGS]; /* MODE_ANALYZER: input paths */
    int npositional;
    pp_pipeline_kv sets[MAX_ARGS];
    size_t nsets;
    pp_pipeline_kv inputs[MAX_ARGS];
    size_t ninputs;
    pp_pipeline_option_override options[MAX_ARGS];
    const char *option_flags[MAX_ARGS]; /* the flag that set options[i], for messages */
    size_t noptions;
    char *plugin_dirs[MAX_ARGS];
    int ndirs;
    const char *format; /* --format: replaces the pipeline's outputs */
    const char *output; /* -o */
    const char *table;  /* --table for flame formats */
    const char *hash;
    const char *evidence_dir; /* --evidence-dir */
    int quiet;
    unsigned stage_timeout; /* --stage-timeout, 0 = the default */
    int no_isolate;         /* --no-isolate: stages in this process */
    unsigned jobs;          /* --jobs, 0 = the engine's default */
    pp_cli_capture capture; /* --pid N ...: capture live (capture_opts.c) */
} run_args;

/* The command line's inputs and variables, bound to the pipeline's inputs. */
typedef struct bound {
    pp_pipeline_kv inputs[MAX_ARGS];
    size_t ninputs;
    pp_pipeline_kv sets[MAX_ARGS];
    size_t nsets;
    char *names[MAX_ARGS]; /* owned copies of input names */
    size_t nnames;
} bound;

/* Everything after the run: the message, the evidence, the outputs. With
 * isolated stages it runs in the stages' process, so the document never
 * has to cross to the parent (core/run/isolate.h). Returns the exit status. */
typedef struct deliver_job {
    const run_args *a;
    const pp_pipeline *p;
} deliver_job;

/* run_args.c: the usage of each mode; parse argv into *a (a usage error
 * is printed, -1); record one analyzer option given by `flag`. */
void cli_run_help(FILE *out, run_mode mode);
int cli_run_parse_args(run_args *a, int argc, char **argv);
int cli_run_add_option(run_args *a, const char *flag, const char *stage, const char *key,
                       const char *value);

/* run_inputs.c. Each returns an exit code unless it says otherwise. */
/* A one-stage pipeline's YAML from a descriptor (malloc'd; NULL: no memory). */
char *cli_run_synthesize(const pp_analyzer *a, const char *first_input);
/* -1 when an output is one of the inputs (printed). */
int cli_run_output_over_input(const pp_pipeline *p, const char *cli_output);
int cli_run_stdin_inputs(pp_pipeline *p, int *single_pass);
int cli_run_refused_stages(const pp_pipeline *p);
void cli_run_bound_free(bound *b);
int cli_run_bind_args(const run_args *a, const pp_pipeline *q, bound *b);
int cli_run_check_options(const run_args *a, const pp_pipeline *p, pp_loader *loader);

/* run_deliver.c: the engine's hooks (user is the run_args), and what
 * follows the run (user is a deliver_job): an exit status. */
void cli_run_on_warning(void *user, const char *input, const char *message);
void cli_run_on_log(void *user, int level, const char *message);
void cli_run_on_progress(void *user, const char *input, uint64_t done, uint64_t total);
int cli_run_deliver(void *user, json_t *doc, int rc, const pp_error *err);

#endif
