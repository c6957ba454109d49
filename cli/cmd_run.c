/* `perfpipe run`, `perfpipe validate` and the `perfpipe ANALYZER INPUT...`
 * shorthand: all three load a pipeline, check it against the plugins, and
 * (but validate) run it through one code path. The steps live in
 * run_args.c, run_inputs.c and run_deliver.c (run_internal.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "loader/paths.h"
#include "run/run.h"
#include "run_internal.h"
#include "shipped.h"

/* A refused plugin checks as its stand-in (loader.h): its stage fails
 * alone when run; validate reports it. */
static const pp_analyzer *
lookup(void *user, const char *name, pp_error *err)
{
    return pp_loader_get_or_standin(user, name, err);
}

static int
load(const run_args *a, const char *path, const char *text, const pp_pipeline_vars *vars,
     pp_pipeline **out, pp_error *err)
{
    return text != NULL ? pp_pipeline_load_string(a->analyzer, text, strlen(text), vars, out, err) :
                          pp_pipeline_load_file(path, vars, out, err);
}

/* The pipeline to load: *path (a file), or *text (made from the analyzer's
 * descriptor when it ships none). An exit code. */
static int
find_source(const run_args *a, pp_loader *loader, char **path, char **text)
{
    pp_error err = PP_ERROR_INIT;

    if (a->mode == MODE_ANALYZER) {
        const pp_analyzer *an = pp_loader_get(loader, a->analyzer, &err);
        pp_error ferr = PP_ERROR_INIT;

        if (an == NULL) {
            pp_cli_error("%s", err.message);
            return err.code == PP_ENOTFOUND ? PP_EXIT_USAGE : PP_EXIT_PLUGIN;
        }
        *path = pp_pipeline_find(pp_cli_pipeline_for(a->analyzer), &ferr);
        if (*path == NULL && (*text = cli_run_synthesize(an, a->positional[0])) == NULL) {
            pp_cli_error("out of memory");
            return PP_EXIT_USAGE;
        }
        return PP_EXIT_OK;
    }
    if (a->pipeline == NULL) {
        cli_run_help(stderr, a->mode);
        return PP_EXIT_USAGE;
    }
    if ((*path = pp_pipeline_find(a->pipeline, &err)) == NULL) {
        pp_cli_error("%s", err.message);
        return PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

/* --top on an analyzer that has no `top` option (counters-csv, spans,
 * bench, load) is the renderers' alone: they cut every table shown to N
 * rows (render_flags.c), so the stage is not given it. */
static void
top_for_render_only(run_args *a, pp_loader *loader)
{
    pp_error err = PP_ERROR_INIT;
    const pp_analyzer *an = pp_loader_get(loader, a->analyzer, &err);
    size_t o = 0;

    if (an == NULL)
        return; /* said by the pipeline check */
    for (uint32_t k = 0; k < an->option_count; k++)
        if (strcmp(an->options[k].name, "top") == 0)
            return;
    for (size_t i = 0; i < a->noptions; i++)
        if (strcmp(a->option_flags[i], "--top") != 0) {
            a->options[o] = a->options[i];
            a->option_flags[o++] = a->option_flags[i];
        }
    a->noptions = o;
}

static int
execute(run_args *a)
{
    pp_error err = PP_ERROR_INIT;
    pp_pipeline_vars vars = { 0 };
    pp_pipeline *p = NULL, *q = NULL;
    pp_loader *loader = NULL;
    bound b = { 0 };
    char *path = NULL, *text = NULL;
    json_t *doc = NULL;
    int rc, status, delivered = -1, single_pass = 0;

    if ((loader = pp_cli_loader(a->plugin_dirs, a->ndirs)) == NULL)
        return PP_EXIT_USAGE;
    /* Plugins are tried in a child before this process loads them, within
     * the stage limit when one is given; --no-isolate trusts them. */
    if (a->no_isolate)
        pp_loader_set_probe(loader, 0);
    else if (a->stage_timeout > 0)
        pp_loader_set_probe(loader, a->stage_timeout);
    if ((status = find_source(a, loader, &path, &text)) != PP_EXIT_OK)
        goto out;
    if (a->mode == MODE_ANALYZER)
        top_for_render_only(a, loader);
    /* A names-only load learns the inputs (names, raw paths), the real load
     * gets the bound files. */
    vars.sets = a->sets;
    vars.set_count = a->nsets;
    vars.inputs = a->mode == MODE_ANALYZER ? NULL : a->inputs;
    vars.input_count = a->mode == MODE_ANALYZER ? 0 : a->ninputs;
    vars.options = a->options;
    vars.option_count = a->noptions;
    vars.names_only = 1;
    if ((rc = load(a, path, text, &vars, &q, &err)) == PP_ENOMEM) {
        /* Not the pipeline's fault: a full load would blame it. */
        pp_cli_error("%s", err.message);
        status = PP_EXIT_NOMEM;
        goto out;
    }
    if (rc != PP_OK) {
        /* Report what a full load reports (it checks paths too, in file
         * order), unless it passes. */
        pp_error full = PP_ERROR_INIT;

        vars.names_only = 0;
        pp_cli_error("%s",
                     load(a, path, text, &vars, &p, &full) != PP_OK ? full.message : err.message);
        status = PP_EXIT_USAGE;
        goto out;
    }
    if ((status = cli_run_bind_args(a, q, &b)) != PP_EXIT_OK)
        goto out;
    vars.names_only = 0;
    vars.sets = b.sets;
    vars.set_count = b.nsets;
    vars.inputs = b.inputs;
    vars.input_count = b.ninputs;
    if ((rc = load(a, path, text, &vars, &p, &err)) != PP_OK) {
        pp_cli_error("%s", err.message);
        status = rc == PP_ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_USAGE;
        goto out;
    }
    if ((status = cli_run_check_options(a, p, loader)) != PP_EXIT_OK)
        goto out;
    if ((rc = pp_pipeline_check(p, lookup, loader, &err)) != PP_OK) {
        pp_cli_error("%s", err.message);
        status = rc == PP_EPLUGIN ? PP_EXIT_PLUGIN : PP_EXIT_USAGE;
        goto out;
    }
    if ((status = cli_run_stdin_inputs(p, &single_pass)) != PP_EXIT_OK)
        goto out;
    if (cli_run_output_over_input(p, a->output) != 0) {
        status = PP_EXIT_USAGE;
        goto out;
    }
    if (a->mode == MODE_VALIDATE && (status = cli_run_refused_stages(p)) != PP_EXIT_OK)
        goto out;
    if (a->mode == MODE_VALIDATE) {
        printf("%s: valid: pipeline '%s', %u input%s, %u stage%s, %u output%s\n", p->file, p->name,
               p->input_count, p->input_count == 1 ? "" : "s", p->stage_count,
               p->stage_count == 1 ? "" : "s", p->output_count, p->output_count == 1 ? "" : "s");
        goto out;
    }
    {
        /* A live capture or a piped stdin is read once and cannot be
         * replayed to a repeated child: such runs are not isolated (a
         * capture's kept file, or a saved stdin, is). */
        int live = pp_cli_capture_signals(p) || single_pass;
        deliver_job dj = { a, p };
        pp_run_hooks hooks = { a->hash,
                               cli_run_on_progress,
                               cli_run_on_warning,
                               cli_run_on_log,
                               a,
                               !live && !a->no_isolate,
                               a->stage_timeout,
                               cli_run_deliver,
                               &dj,
                               &delivered,
                               a->jobs };

        rc = pp_run_pipeline(p, &hooks, &doc, &err);
        pp_cli_progress_done();
        status = delivered >= 0 ? delivered : cli_run_deliver(&dj, doc, rc, &err);
    }
out:
    cli_run_bound_free(&b);
    json_decref(doc);
    pp_pipeline_free(q);
    pp_pipeline_free(p);
    pp_loader_free(loader);
    free(path);
    free(text);
    return status;
}

int
pp_cmd_run(int argc, char **argv)
{
    run_args a = { .mode = MODE_RUN };

    if (cli_run_parse_args(&a, argc, argv) < 0)
        return PP_EXIT_USAGE;
    return execute(&a);
}

int
pp_cmd_validate(int argc, char **argv)
{
    run_args a = { .mode = MODE_VALIDATE };

    if (cli_run_parse_args(&a, argc, argv) < 0)
        return PP_EXIT_USAGE;
    return execute(&a);
}

int
pp_cmd_analyzer(const char *analyzer, int argc, char **argv)
{
    run_args a = { .mode = MODE_ANALYZER, .analyzer = analyzer };

    if (cli_run_parse_args(&a, argc, argv) < 0 ||
        pp_cli_quick_options(analyzer, a.format, a.table, a.evidence_dir, a.options, a.option_flags,
                             &a.noptions, MAX_ARGS) < 0)
        return PP_EXIT_USAGE;
    if (a.capture.n > 0) {
        char *spec;
        int rc;

        if (a.npositional > 0) {
            pp_cli_error("%s: give an input file or --pid/--process/--diagnostic-port, not both",
                         analyzer);
            return PP_EXIT_USAGE;
        }
        if ((spec = pp_cli_capture_spec(analyzer, &a.capture)) == NULL) {
            pp_cli_error("out of memory");
            return PP_EXIT_USAGE;
        }
        a.positional[a.npositional++] = spec;
        rc = execute(&a);
        free(spec);
        return rc;
    }
    if (a.npositional == 0) {
        cli_run_help(stderr, MODE_ANALYZER);
        return PP_EXIT_USAGE;
    }
    if (a.ninputs > 0) {
        pp_cli_error("%s takes its inputs as arguments (perfpipe %s FILE...); --input is for "
                     "`perfpipe run`",
                     analyzer, analyzer);
        return PP_EXIT_USAGE;
    }
    return execute(&a);
}
