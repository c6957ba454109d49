/* Binding the command line to a pipeline's inputs and checking what
 * the pipeline check cannot: stdin, outputs over inputs, refused plugins,
 * command-line options (run_internal.h). */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "output/outfile.h"
#include "pipeline/pipeline.h"
#include "loader/paths.h"
#include "pipeline/options.h"
#include "registry/kinds.h"
#include "run_internal.h"

/* A one-stage pipeline made from a descriptor, for third-party analyzers
 * that ship none: one input per slot, of the first kind it reads. */
char *
cli_run_synthesize(const pp_analyzer *a, const char *first_input)
{
    const char *kind = NULL;
    uint32_t nslots = a->input_slot_count ? a->input_slot_count : 1;
    size_t size = 1024 + 128 * nslots;
    char *text = malloc(size);
    size_t used;

    if (text == NULL)
        return NULL;
    /* An analyzer that reads several kinds gets the one the file's name
     * says; otherwise the first kind it reads. */
    for (const pp_input_kind *k = pp_input_kinds; k->reader != NULL && kind == NULL; k++)
        if ((a->input_kinds & k->reader->kind_bit) && pp_input_kind_ending_matches(k, first_input))
            kind = k->reader->kind;
    if (kind == NULL)
        kind = pp_pipeline_kind_name(a->input_kinds);
    used = (size_t)snprintf(text, size, "version: 1\nname: %s\ninputs:\n", a->name);
    for (uint32_t i = 0; i < nslots && used < size; i++)
        used += (size_t)snprintf(text + used, size - used, "  %s: { kind: %s, path: \"${%s}\" }\n",
                                 nslots > 1 && a->input_slots ? a->input_slots[i] : "input", kind,
                                 nslots > 1 && a->input_slots ? a->input_slots[i] : "input");
    if (used < size)
        used += (size_t)snprintf(text + used, size - used,
                                 "stages:\n  - id: %s\n    analyzer: %s\n", a->name, a->name);
    if (nslots > 1 && used < size) {
        used += (size_t)snprintf(text + used, size - used, "    inputs: [");
        for (uint32_t i = 0; i < nslots && used < size; i++)
            used += (size_t)snprintf(text + used, size - used, "%s%s", i ? ", " : "",
                                     a->input_slots[i]);
        if (used < size)
            snprintf(text + used, size - used, "]\n");
    }
    return text;
}

/* An output that is an input under another name (./x, a hard link, a
 * symlink) would destroy the capture: compared by device and inode. */
int
cli_run_output_over_input(const pp_pipeline *p, const char *cli_output)
{
    for (uint32_t k = 0; k <= p->output_count; k++) {
        const char *out = k < p->output_count ? p->outputs[k].path : cli_output;

        for (uint32_t i = 0; out != NULL && i < p->input_count; i++)
            if (pp_same_file(out, p->inputs[i].path)) {
                pp_cli_error("output '%s' is input '%s' ('%s'): refusing to overwrite a capture",
                             out, p->inputs[i].name, p->inputs[i].path);
                return -1;
            }
    }
    return 0;
}

/* `-` as an input is standard input. The nettrace and counters readers
 * read in one pass and take a pipe; the others need the whole file, so a
 * pipe is refused for them (stdin redirected from a regular file is fine
 * for every kind). *single_pass is set when stdin is a pipe or a device: it
 * cannot be read again, so the stages are not isolated (perfpipe(1)). An
 * exit code. */
int
cli_run_stdin_inputs(pp_pipeline *p, int *single_pass)
{
    struct stat st;
    int regular = fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
    uint32_t seen = 0;

    *single_pass = 0;
    for (uint32_t i = 0; i < p->input_count; i++) {
        pp_pipeline_input *in = &p->inputs[i];
        char *dev;

        if (in->path == NULL || strcmp(in->path, "-") != 0)
            continue;
        if (seen++ > 0) {
            pp_cli_error("inputs '%s' and '%s' are both '-': standard input can be read once",
                         p->inputs[i - 1].name, in->name);
            return PP_EXIT_USAGE;
        }
        if (!regular && strcmp(in->kind, "nettrace") != 0 && strcmp(in->kind, "counters") != 0) {
            pp_cli_error("input '%s' is '-', a pipe, but the %s reader needs the whole file "
                         "(only nettrace and counters are read in one pass): save it to a file "
                         "first, or redirect stdin from one (< FILE)",
                         in->name, in->kind);
            return PP_EXIT_USAGE;
        }
        if ((dev = strdup("/dev/stdin")) == NULL) {
            pp_cli_error("out of memory");
            return PP_EXIT_NOMEM;
        }
        free(in->path);
        in->path = dev;
        *single_pass = !regular;
    }
    return PP_EXIT_OK;
}

/* validate: a stage whose plugin was refused (a stand-in, loader.h) makes
 * the pipeline unrunnable as written. An exit code. */
int
cli_run_refused_stages(const pp_pipeline *p)
{
    int status = PP_EXIT_OK;

    for (uint32_t k = 0; k < p->stage_count; k++)
        if (p->stages[k].analyzer->flags & PP_ANALYZER_FLAG_STANDIN) {
            pp_cli_error("%s:%u:%u: stage '%s': analyzer '%s' is refused: %s", p->file,
                         (unsigned)p->stages[k].analyzer_pos.line,
                         (unsigned)p->stages[k].analyzer_pos.column, p->stages[k].id,
                         p->stages[k].analyzer_name, p->stages[k].analyzer->summary);
            status = PP_EXIT_PLUGIN;
        }
    return status;
}

void
cli_run_bound_free(bound *b)
{
    for (size_t i = 0; i < b->nnames; i++)
        free(b->names[i]);
}

/* An exit code: usage for too many, out of memory for a name not copied. */
static int
bind_input(bound *b, const char *name, const char *path)
{
    if (b->ninputs >= MAX_ARGS || b->nnames >= MAX_ARGS) {
        pp_cli_error("too many inputs");
        return PP_EXIT_USAGE;
    }
    if ((b->names[b->nnames] = strdup(name)) == NULL) {
        pp_cli_error("out of memory");
        return PP_EXIT_NOMEM;
    }
    b->inputs[b->ninputs].key = b->names[b->nnames++];
    b->inputs[b->ninputs++].value = path;
    return PP_EXIT_OK;
}

static const pp_pipeline_kv *
bound_input(const bound *b, const char *name)
{
    for (size_t i = 0; i < b->ninputs; i++)
        if (strcmp(b->inputs[i].key, name) == 0)
            return &b->inputs[i];
    return NULL;
}

/* The input whose whole path is ${key}, in a names-only model (paths are
 * not expanded there), or NULL. */
static const pp_pipeline_input *
input_named_by_var(const pp_pipeline *q, const char *key)
{
    for (uint32_t i = 0; i < q->input_count; i++) {
        const char *path = q->inputs[i].path;
        size_t n = strlen(key);

        if (path != NULL && strncmp(path, "${", 2) == 0 && strncmp(path + 2, key, n) == 0 &&
            strcmp(path + 2 + n, "}") == 0)
            return &q->inputs[i];
    }
    return NULL;
}

/* Positional files fill the pipeline's inputs in declared order; a --set
 * KEY=PATH whose ${KEY} is an input's whole path is that input, not a knob
 * (so two runs over different files stay comparable). An exit code. */
int
cli_run_bind_args(const run_args *a, const pp_pipeline *q, bound *b)
{
    int rc;

    if (a->mode == MODE_ANALYZER) {
        if ((uint32_t)a->npositional != q->input_count) {
            char names[512] = "";
            size_t used = 0;

            for (uint32_t i = 0; i < q->input_count && used < sizeof names; i++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                         q->inputs[i].name);
            pp_cli_error("%s takes %u input file%s (%s), got %d; see `perfpipe %s --help`",
                         a->analyzer, q->input_count, q->input_count == 1 ? "" : "s", names,
                         a->npositional, a->analyzer);
            return PP_EXIT_USAGE;
        }
        for (uint32_t i = 0; i < q->input_count; i++)
            if ((rc = bind_input(b, q->inputs[i].name, a->positional[i])) != PP_EXIT_OK)
                return rc;
    } else {
        for (size_t i = 0; i < a->ninputs; i++)
            if ((rc = bind_input(b, a->inputs[i].key, a->inputs[i].value)) != PP_EXIT_OK)
                return rc;
    }
    for (size_t i = 0; i < a->nsets; i++) {
        const pp_pipeline_input *in = input_named_by_var(q, a->sets[i].key);
        const pp_pipeline_kv *given = in != NULL ? bound_input(b, in->name) : NULL;

        if (in == NULL) {
            b->sets[b->nsets++] = a->sets[i];
        } else if (given != NULL && strcmp(given->value, a->sets[i].value) != 0) {
            pp_cli_error("--set %s=%s: ${%s} is the path of input '%s', already given as '%s'",
                         a->sets[i].key, a->sets[i].value, a->sets[i].key, in->name, given->value);
            return PP_EXIT_USAGE;
        } else if (given == NULL &&
                   (rc = bind_input(b, in->name, a->sets[i].value)) != PP_EXIT_OK) {
            return rc;
        }
    }
    return PP_EXIT_OK;
}

/* Each command-line option, checked against the analyzer of its stage, so
 * a wrong name or value blames the flag that gave it, not the pipeline file
 * it was merged into. An exit code. */
int
cli_run_check_options(const run_args *a, const pp_pipeline *p, pp_loader *loader)
{
    for (size_t i = 0; i < a->noptions; i++) {
        const pp_pipeline_option_override *ov = &a->options[i];
        const pp_pipeline_stage *s = NULL;
        const pp_analyzer *an;
        const char *pair[2] = { ov->key, ov->value };
        pp_options *o = NULL;
        pp_error err = PP_ERROR_INIT;
        int rc;

        for (uint32_t k = 0; k < p->stage_count && s == NULL; k++)
            if (strcmp(ov->stage, "*") == 0 || strcmp(p->stages[k].id, ov->stage) == 0)
                s = &p->stages[k];
        if (s == NULL || (an = pp_loader_get(loader, s->analyzer_name, &err)) == NULL)
            continue; /* the pipeline check names what is missing */
        rc = pp_options_build(an, pair, 1, &o, &err);
        pp_options_free(o);
        if (rc == PP_OK)
            continue;
        if (strcmp(a->option_flags[i], "--option") != 0)
            pp_cli_error("%s %s: %s", a->option_flags[i], ov->value, err.message);
        else if (strcmp(ov->stage, "*") == 0)
            pp_cli_error("--option %s=%s: %s", ov->key, ov->value, err.message);
        else
            pp_cli_error("--option %s.%s=%s: %s", ov->stage, ov->key, ov->value, err.message);
        return rc == PP_EPLUGIN ? PP_EXIT_PLUGIN : PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}
