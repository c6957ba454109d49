/* What a run tells the user while it runs, and what follows it: the
 * message, the evidence, the outputs (run_internal.h). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "output/evidence.h"
#include "output/outfile.h"
#include "result/result.h"
#include "run_internal.h"

void
cli_run_on_warning(void *user, const char *input, const char *message)
{
    const run_args *a = user;

    if (!a->quiet) {
        pp_cli_progress_done();
        fprintf(stderr, "%s: %s: warning: %s\n", pp_prog, input, message);
    }
}

void
cli_run_on_log(void *user, int level, const char *message)
{
    const run_args *a = user;

    /* Warnings unless -q; plugin chatter below that only on request. */
    if ((level >= PP_LOG_WARN && !a->quiet) || getenv("PERFPIPE_DEBUG") != NULL) {
        pp_cli_progress_done();
        fprintf(stderr, "%s: %s\n", pp_prog, message);
    }
}

void
cli_run_on_progress(void *user, const char *input, uint64_t done, uint64_t total)
{
    pp_cli_progress(user, input, done, total);
}

/* An error-severity finding means the stage could not give its answer
 * (perfpipe(1), "Exit status"): exit 4 like a failed stage, with the result
 * still written. Warnings and infos never change the exit status. */
static const char *
text_of(const json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));

    return v != NULL ? v : "?";
}

static int
error_findings(const json_t *doc)
{
    const json_t *stages = json_object_get(doc, "stages"), *st, *f;
    size_t i, k;
    int n = 0;

    json_array_foreach(stages, i, st) {
        json_array_foreach(json_object_get(st, "findings"), k, f) {
            if (strcmp(text_of(f, "severity"), "error") != 0)
                continue;
            n++;
            pp_cli_error("stage '%s' could not answer: error [%s] %s (exit 4)", text_of(st, "id"),
                         text_of(f, "code"), text_of(f, "message"));
        }
    }
    return n;
}

/* A stage whose create() refused an option value (PP_EINVAL: `--option
 * top=-3`) makes the run a usage error: its message, exit 2, and nothing
 * written (a document without that stage's answer would pose as one). */
static const char *
option_refusal(const json_t *doc)
{
    const json_t *st, *e;
    size_t i;

    json_array_foreach(json_object_get(doc, "stages"), i, st) {
        e = json_object_get(st, "error");
        if (json_is_object(e) && strcmp(text_of(e, "phase"), "create") == 0 &&
            json_integer_value(json_object_get(e, "code")) == PP_EINVAL)
            return text_of(e, "message");
    }
    return NULL;
}

/* An output path holding ${stage}: one file per stage of the document, each
 * rendered from a document holding that stage alone (a pprof per stage). */
static int
write_per_stage(const char *path, const json_t *doc, const char *format, const char *table)
{
    const json_t *st;
    size_t i;
    int status = PP_EXIT_OK;

    json_array_foreach(json_object_get(doc, "stages"), i, st) {
        const char *id = json_string_value(json_object_get(st, "id"));
        const char *at = strstr(path, "${stage}");
        size_t n = strlen(path) + (id ? strlen(id) : 0) + 1;
        char *one_path = malloc(n);
        json_t *one = json_copy((json_t *)(uintptr_t)doc), *stages = json_array();
        int w;

        if (one_path == NULL || one == NULL || stages == NULL ||
            json_array_append(stages, (json_t *)(uintptr_t)st) != 0 ||
            json_object_set(one, "stages", stages) != 0) {
            pp_cli_error("out of memory");
            w = PP_EXIT_OUTPUT;
        } else {
            snprintf(one_path, n, "%.*s%s%s", (int)(at - path), path, id ? id : "",
                     at + strlen("${stage}"));
            w = strstr(one_path, "${stage}") != NULL ?
                    write_per_stage(one_path, one, format, table) :
                    pp_cli_write_doc(one_path, one, format, table);
        }
        if (w != PP_EXIT_OK)
            status = w;
        free(one_path);
        json_decref(stages);
        json_decref(one);
    }
    return status;
}

static int
write_results(const run_args *a, const pp_pipeline *p, const json_t *doc)
{
    pp_error err = PP_ERROR_INIT;
    int status = PP_EXIT_OK;

    if (a->evidence_dir != NULL) {
        char *kept = NULL;

        if (pp_evidence_write(a->evidence_dir, doc, p->date, pp_cli_temp_tracker(), &kept, &err) !=
            PP_OK) {
            pp_cli_error("%s", err.message);
            status = PP_EXIT_OUTPUT;
        } else if (!a->quiet) {
            fprintf(stderr, "%s: evidence kept in %s\n", pp_prog, kept);
        }
        free(kept);
    }
    if (a->format != NULL || a->output != NULL) {
        int w = pp_cli_write_doc(a->output, doc, a->format ? a->format : "table", a->table);

        if (w != PP_EXIT_OK)
            status = w;
    } else {
        for (uint32_t i = 0; i < p->output_count; i++) {
            const char *path = p->outputs[i].path;
            int w = path != NULL && strstr(path, "${stage}") != NULL ?
                        write_per_stage(path, doc, p->outputs[i].format, a->table) :
                        pp_cli_write_doc(path, doc, p->outputs[i].format, a->table);

            if (w != PP_EXIT_OK)
                status = w;
        }
    }
    return status;
}

int
cli_run_deliver(void *user, json_t *doc, int rc, const pp_error *err)
{
    const deliver_job *dj = user;
    int status = PP_EXIT_OK, w;

    pp_cli_progress_done();
    if (doc == NULL) {
        pp_cli_error("%s", err->message);
        return pp_cli_exit_for(rc);
    }
    if (option_refusal(doc) != NULL) {
        pp_cli_error("%s", option_refusal(doc));
        return PP_EXIT_USAGE;
    }
    if (rc != PP_OK) {
        pp_cli_error("%s (the other stages' results are written)", err->message);
        status = PP_EXIT_PLUGIN;
    } else if (error_findings(doc) > 0) {
        status = PP_EXIT_PLUGIN;
    }
    if ((w = write_results(dj->a, dj->p, doc)) != PP_EXIT_OK)
        status = w;
    /* Here, not only in main(): in the stages' process this is the run's
     * status, and its "out of memory" messages were said here. */
    return pp_cli_exit_status(status);
}
