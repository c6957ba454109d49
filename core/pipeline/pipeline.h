/* Private: a declared pipeline (YAML, schema version 1) as a C model.
 *
 *   version: 1
 *   name: alloc-churn                       # optional: defaults to the file's base name
 *   description: ...                        # optional
 *   knobs: { scenario: getFullCart }        # scalars only; recorded and compared
 *   inputs:
 *     trace: { kind: nettrace, path: "${TRACE}" }
 *   stages:
 *     - id: alloc                           # optional: defaults to the analyzer name
 *       analyzer: alloc
 *       input: trace                        # or inputs: [baseline, candidate];
 *                                           # optional when there is one input
 *       options: { top: 25, framework: [System., Microsoft.] }
 *   outputs:                                # optional: defaults to one table on stdout
 *     - { format: table }
 *     - { format: json, path: "evidence/${name}-${date}.json" }
 *
 * Loading = parse + schema + command-line variables (vars) + ${VAR}
 * expansion of input and output paths. Checking = resolve analyzers, check
 * inputs and options against their descriptors, build the typed options.
 * Every error is one line "FILE:LINE:COLUMN: what was expected" pointing at
 * the offending key or value; err->line/column are set too.
 *
 * Limits (PP_ELIMIT): file 1 MiB, nesting 16, 65536 nodes, keys 256 bytes,
 * scalars 64 KiB, 1024 entries per section. YAML anchors, aliases and
 * multi-document streams are rejected: a pipeline never needs them and
 * aliases are how a small file expands into a huge one.
 *
 * ${VAR} is looked up in the knobs (after --set) first, then the built-ins
 * ${name} (pipeline name) and ${date} (YYYYMMDD-HHMMSS, one value per load).
 * `$$` is a literal `$`. Only input and output paths are expanded. */
#ifndef PP_PIPELINE_PIPELINE_H
#define PP_PIPELINE_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>
#include <perfpipe/plugin.h>

#include "pipeline/options.h"
#include "pipeline/pos.h"

#define PP_PIPELINE_VERSION 1

typedef struct pp_pipeline_knob {
    char *key;
    char *value; /* scalar text as written ("100", "getFullCart") */
    pp_pos pos;  /* of the key; 0:0 when from --set */
    pp_pos value_pos;
    int from_cli; /* set (or overridden) by --set */
} pp_pipeline_knob;

typedef struct pp_pipeline_input {
    char *name;
    char *kind;        /* an input kind's name (registry/kinds.c) */
    uint32_t kind_bit; /* PP_KIND_* */
    char *path;        /* expanded; from --input when overridden */
    pp_pos pos;        /* of the name */
    pp_pos kind_pos;
    pp_pos path_pos; /* 0:0 when from --input */
    int path_from_cli;
} pp_pipeline_input;

typedef struct pp_pipeline_ref {
    char *name;
    pp_pos pos;
} pp_pipeline_ref;

typedef struct pp_pipeline_option {
    char *name;
    pp_pos pos; /* of the key; 0:0 when from the command line */
    pp_pos value_pos;
    int is_list; /* a YAML sequence: items/item_count */
    char *value; /* scalar text when !is_list */
    char **items;
    pp_pos *item_pos;
    uint32_t item_count;
    int from_cli; /* value text is comma-separated for lists */
} pp_pipeline_option;

typedef struct pp_pipeline_stage {
    char *id;
    pp_pos pos;    /* of the stage's mapping (the `-` item) */
    pp_pos id_pos; /* of the id value, or pos when defaulted */
    char *analyzer_name;
    pp_pos analyzer_pos;
    int inputs_is_list; /* written as `inputs: [...]` */
    pp_pipeline_ref *inputs;
    uint32_t input_count;
    pp_pipeline_option *options;
    uint32_t option_count;
    /* After pp_pipeline_check: */
    const pp_analyzer *analyzer; /* borrowed from the lookup */
    pp_options *opts;            /* owned */
    uint32_t *input_index;       /* [input_count] indices into p->inputs */
    uint32_t timeout_s;          /* `timeout:` seconds, 0 = not given */
    pp_pos timeout_pos;
} pp_pipeline_stage;

/* Most seconds a stage's `timeout` (and --stage-timeout) may give. */
#define PP_PIPELINE_MAX_TIMEOUT 86400u

typedef struct pp_pipeline_output {
    char *format; /* a name of the output format registry (result/formats.h) */
    char *path;   /* expanded; NULL = stdout */
    pp_pos pos;   /* of the output's mapping */
    pp_pos format_pos;
    pp_pos path_pos;
} pp_pipeline_output;

typedef struct pp_pipeline {
    char *file; /* display name used in messages */
    int version;
    char *name;
    pp_pos name_pos;
    char *description;       /* NULL if absent */
    char *date;              /* the ${date} of this load */
    pp_pipeline_knob *knobs; /* in file order, then new --set keys */
    uint32_t knob_count;
    pp_pipeline_input *inputs; /* in file order */
    uint32_t input_count;
    pp_pipeline_stage *stages;
    uint32_t stage_count;
    pp_pipeline_output *outputs; /* file order; the default table if none */
    uint32_t output_count;
    int outputs_defaulted;
    int checked;
} pp_pipeline;

/* --set KEY=VALUE and --input NAME=PATH. */
typedef struct pp_pipeline_kv {
    const char *key;
    const char *value;
} pp_pipeline_kv;

/* A command-line option for a stage: stage is its id, or "*" for the only
 * stage (the `perfpipe ANALYZER FILE --top 10` shorthand). Lists are
 * comma-separated. */
typedef struct pp_pipeline_option_override {
    const char *stage;
    const char *key;
    const char *value;
} pp_pipeline_option_override;

typedef struct pp_pipeline_vars {
    const pp_pipeline_kv *sets; /* --set: expansion variables, recorded as knobs */
    size_t set_count;
    const pp_pipeline_kv *inputs; /* --input: replace an input's path */
    size_t input_count;
    const pp_pipeline_option_override *options;
    size_t option_count;
    const char *date; /* ${date}; NULL = now (local time) */
    int names_only;   /* skip path checks and ${VAR} expansion: the
                                     model is for its names only, never run */
} pp_pipeline_vars;

/* Parse a pipeline file. vars may be NULL. On success *out is the caller's
 * (pp_pipeline_free). Errors: PP_EIO (cannot open/read: "FILE: strerror"),
 * PP_ELIMIT, PP_EFORMAT (YAML syntax, not a mapping, empty), PP_EINVAL
 * (schema, undefined variable, bad override), PP_ENOMEM; err filled. */
int pp_pipeline_load_file(const char *path, const pp_pipeline_vars *vars, pp_pipeline **out,
                          pp_error *err);

/* The same from memory; display_name is used in messages and as p->file. */
int pp_pipeline_load_string(const char *display_name, const char *text, size_t len,
                            const pp_pipeline_vars *vars, pp_pipeline **out, pp_error *err);

/* Resolve an analyzer by name. Returns a descriptor valid as long as the
 * pipeline, or NULL with err's message saying why (no position needed:
 * the checker prefixes it). */
typedef const pp_analyzer *(*pp_analyzer_lookup_fn)(void *user, const char *name, pp_error *err);

/* Check a loaded pipeline against its analyzers and build each stage's
 * options. Errors (err filled, p left loaded but unchecked): unknown
 * analyzer (the lookup's code and message), a stage input not declared
 * under inputs, an input kind the analyzer does not read, the wrong number
 * of inputs, undeclared options, bad option values, duplicate stage ids,
 * output path collisions (two outputs, or an output and an input, on one
 * path; two outputs on stdout). */
int pp_pipeline_check(pp_pipeline *p, pp_analyzer_lookup_fn lookup, void *user, pp_error *err);

/* The knob's value, or NULL. */
const char *pp_pipeline_knob_value(const pp_pipeline *p, const char *key);

/* The input named `name`, or NULL. */
const pp_pipeline_input *pp_pipeline_find_input(const pp_pipeline *p, const char *name);

void pp_pipeline_free(pp_pipeline *p);

/* Helpers shared by the module's files. */

/* PP_KIND_* bit of a kind name, or 0. */
uint32_t pp_pipeline_kind_bit(const char *kind);
/* Name of the lowest PP_KIND_* bit set in bits, or NULL when none is known. */
const char *pp_pipeline_kind_name(uint32_t bits);
/* The names of the kinds in bits, in the registry's order, joined
 * by sep into buf (cut to size); "" when none. */
void pp_pipeline_kind_list(uint32_t bits, const char *sep, char *buf, size_t size);
/* Whether an output format is known (the output format registry). */
int pp_pipeline_format_known(const char *format);
/* Room for the names of every registered kind or format, and a NULL. */
#define PP_PIPELINE_MAX_NAMES 64

/* Expand ${VAR} in text; see the header comment. *out is malloc'd. On an
 * undefined variable or a malformed reference returns PP_EINVAL with
 * *bad_name set to a malloc'd copy of the variable name (or NULL when the
 * reference is malformed, e.g. "${" without "}"). */
typedef const char *(*pp_expand_lookup_fn)(void *user, const char *name);
int pp_expand(const char *text, pp_expand_lookup_fn lookup, void *user, char **out,
              char **bad_name);

#endif
