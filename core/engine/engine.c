/* Running a checked pipeline in one pass over each input. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "result/damage.h"
#include "engine.h"
#include "base/advice.h"
#include "engine_internal.h"
#include "gcdump/legacy.h"
#include "guard.h"
#include "hash.h"
#include "host.h"
#include "result/jsonmem.h"
#include "loader/loader.h"
#include "nettrace/inspect.h"
#include "result/work.h"
#include "result/result.h"
#include "input/source.h"

static void
on_bytes(void *user, const void *data, size_t len)
{
    input_run *in = user;

    pp_hash_update(in->hash, data, len);
    pp_engine_progress(in, in->done + len);
}

/* A reader's message with the input's path as the user gave it (the
 * reader was handed in->where, resolve_input). */
static void
as_given(const input_run *in, const char *msg, char *out, size_t size)
{
    size_t o = 0, wl = in->where != NULL ? strlen(in->where) : 0;

    for (const char *p = msg; *p != '\0' && o + 1 < size;) {
        if (wl > 0 && strncmp(p, in->where, wl) == 0) {
            o += (size_t)snprintf(out + o, size - o, "%s", in->plan->path);
            if (o >= size)
                o = size - 1;
            p += wl;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
}

static void
on_warning(void *user, const pp_error *w)
{
    input_run *in = user;
    json_t *list = json_object_get(in->entry, "warnings");
    char line[PP_ERROR_MESSAGE_MAX + 64];

    if (in->unpack != NULL && pp_unpack_failed(in->unpack))
        return; /* the reader saw the cut the decompressor reports */

    char msg[PP_ERROR_MESSAGE_MAX];

    as_given(in, w->message, msg, sizeof msg);
    if (w->offset >= 0 && strstr(msg, "offset") == NULL)
        snprintf(line, sizeof line, "offset %lld: %s", (long long)w->offset, msg);
    else
        snprintf(line, sizeof line, "%s", msg);
    json_array_append_new(list, json_string(line));
    in->warnings++;
    if (in->hooks->warning != NULL)
        in->hooks->warning(in->hooks->user, in->plan->path, line);
}

/* Prefix a reader's message with the file unless it names it already. */
static void
input_error(pp_error *err, const input_run *in, const pp_error *from)
{
    const char *path = in->plan->path;
    char msg[PP_ERROR_MESSAGE_MAX * 3], said[PP_ERROR_MESSAGE_MAX];

    as_given(in, from->message, said, sizeof said);
    if (strncmp(said, path, strlen(path)) == 0)
        snprintf(msg, sizeof msg, "%s", said);
    else if (from->offset >= 0 && strstr(said, "offset") == NULL)
        snprintf(msg, sizeof msg, "%s: offset %lld: %s", path, (long long)from->offset, said);
    else if (from->line > 0 && strstr(said, ":") == NULL)
        snprintf(msg, sizeof msg, "%s:%u:%u: %s", path, from->line, from->column, said);
    else
        snprintf(msg, sizeof msg, "%s: %s", path, said);
    pp_error_set(err, from->code < 0 ? from->code : PP_EFORMAT, "%s", msg);
    if (err != NULL) {
        err->offset = from->offset;
        err->line = from->line;
        err->column = from->column;
    }
}

/* perfpipe took one of the stage's inputs: its advice names perfpipe's
 * commands (advice.h). */
static int
perfpipe_took(const pp_plan_stage *p, const input_run *inputs)
{
    for (uint32_t slot = 0; slot < p->ninputs; slot++)
        if (pp_advice_perfpipe_took(pp_engine_input_path(&inputs[p->inputs[slot]])))
            return 1;
    return 0;
}

/* The stage's view of the run (host.h). */
static int
stage_ctx(stage_run *st, json_t *doc, const pp_run_hooks *hooks, const input_run *inputs,
          pp_error *err)
{
    const pp_analyzer *a = st->plan->analyzer;

    st->ctx.stage_id = st->plan->id;
    st->ctx.stage = pp_result_add_stage(doc, st->plan->id, a->name, a->version);
    if (st->ctx.stage == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory starting the run");
        return PP_ENOMEM;
    }
    st->ctx.knobs = json_object_get(doc, "knobs");
    st->ctx.log = hooks->log;
    st->ctx.log_user = hooks->user;
    st->ctx.perfpipe_took = perfpipe_took(st->plan, inputs);
    return PP_OK;
}

/* A compressed file is read through a decompressor (unpack.h): the reader
 * gets its "/dev/fd/N" as `where`, which messages turn back into the
 * path as given (as_given). Traces stream through a pipe; the other kinds'
 * readers seek or read whole files, so they get a memory file. */
static int
unpack(input_run *in, pp_error *err)
{
    const char *rp = NULL;
    int rc = pp_unpack_open(pp_engine_input_path(in), in->plan->path,
                            strcmp(in->plan->kind, "nettrace") == 0, &in->unpack, &rp, err);
    if (rc != PP_OK || in->unpack == NULL)
        return rc;
    char *where = strdup(rp);
    if (where == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    free(in->where);
    in->where = where;
    in->size = 0; /* the decompressed size is known at the end only */
    json_object_set_new(in->entry, "compressed",
                        json_pack("{s:s,s:I}", "format", pp_unpack_format(in->unpack), "bytes",
                                  (json_int_t)pp_unpack_packed_bytes(in->unpack)));
    return PP_OK;
}

static int
open_input(input_run *in, const pp_run_hooks *hooks, json_t *doc, pp_error *err)
{
    pp_error rerr = PP_ERROR_INIT;
    struct stat st;
    int rc;

    in->hooks = hooks;
    in->ops = pp_source_for_input(in->plan->kind, pp_engine_input_path(in));
    if (in->ops == NULL) {
        pp_error_set(err, PP_EINVAL, "input '%s': unknown kind '%s'", in->plan->name,
                     in->plan->kind);
        return PP_EINVAL;
    }
    if (stat(pp_engine_input_path(in), &st) == 0)
        in->size = (uint64_t)st.st_size;
    in->next_progress = PP_PROGRESS_STEP;
    in->hash = pp_hash_new(hooks->hash_algo ? hooks->hash_algo : "xxh3-128", err);
    if (in->hash == NULL)
        return err ? err->code : PP_EINVAL;
    in->entry = pp_result_add_input(doc, in->plan->name, in->plan->path, in->plan->kind,
                                    (int64_t)in->size, NULL, NULL);
    if (in->entry == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    json_object_set_new(in->entry, "warnings", json_array());
    if (pp_advice_perfpipe_took(pp_engine_input_path(in))) /* read by candidates' advice */
        json_object_set_new(in->entry, "captured_by", json_string("perfpipe"));
    if ((rc = unpack(in, err)) != PP_OK)
        return rc;
    /* The reader keeps the hooks until close: they live in the input_run,
     * not on this stack frame. */
    in->sh = (pp_source_hooks){ on_bytes, on_warning, in };
    rc = in->ops->open(pp_engine_input_path(in), &in->sh, &in->src, &rerr);
    if (rc != PP_OK) {
        in->src = NULL;
        if (rc != PP_ENOMEM)
            pp_source_wrong_kind(in->plan->kind, in->plan->path, &rerr);
        input_error(err, in, &rerr);
        return err ? err->code : rc;
    }
    return PP_OK;
}

/* Make a relative input path that names a file absolute, now, before any
 * plugin code runs: a plugin that calls chdir() in create() must not move
 * the inputs (the outputs are the writer's, isolate.c). A path that names
 * nothing here (a capture spec, "-") is left as given. */
static int
resolve_input(input_run *in, const pp_plan_input *plan, pp_error *err)
{
    char cwd[PATH_MAX];
    struct stat st;
    size_t n;

    in->plan = plan;
    if (plan->path == NULL || plan->path[0] == '/' || stat(plan->path, &st) != 0 ||
        getcwd(cwd, sizeof cwd) == NULL)
        return PP_OK;
    n = strlen(cwd) + strlen(plan->path) + 2;
    if ((in->where = malloc(n)) == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    snprintf(in->where, n, "%s/%s", cwd, plan->path);
    return PP_OK;
}

static int
resolve_inputs(input_run *inputs, const pp_plan *plan, pp_error *err)
{
    int rc = PP_OK;

    for (size_t i = 0; rc == PP_OK && i < plan->ninputs; i++)
        rc = resolve_input(&inputs[i], &plan->inputs[i], err);
    return rc;
}

/* A plugin that reads only node_size32/edge_start32 (plugin.h). */
static int
heap32(const pp_analyzer *a)
{
    return a->abi_minor >= 2 && (a->flags & PP_ANALYZER_FLAG_HEAP32);
}

/* A plugin that reads node types and sizes through the shapes (ABI 1.4). */
static int
heap_shapes(const pp_analyzer *a)
{
    return a->abi_minor >= 4 && (a->flags & PP_ANALYZER_FLAG_HEAP_SHAPES);
}

int
pp_engine_hash_join(input_run *in, pp_error *err)
{
    char digest[80];
    uint64_t hashed;

    if (in->bg == NULL)
        return PP_OK;
    int rc = pp_bg_hash_join(in->bg, &hashed);
    pp_bg_hash_free(in->bg);
    in->bg = NULL;
    if (rc != 0) {
        pp_error_set(err, PP_EIO,
                     "%s: the file changed while it was read: it ended at byte %llu of "
                     "%llu; read it again once nothing writes it",
                     in->plan->path, (unsigned long long)hashed, (unsigned long long)in->size);
        return PP_EIO;
    }
    pp_hash_final(in->hash, digest, sizeof digest);
    json_object_set_new(in->hash_entry, "value", json_string(digest));
    in->hash_entry = NULL;
    return PP_OK;
}

/* Read one input to its end, feeding every stage that consumes it. */
static int
read_input(input_run *in, size_t index, stage_run *stages, size_t nstages, const pp_guard *g,
           unsigned jobs, pp_error *first, pp_error *err)
{
    pp_record rec;
    pp_error rerr = PP_ERROR_INIT;
    /* One error struct for every consume call: initialising 536 bytes per
     * record and stage cost 5-6 % of a deep-stack alloc run. Only the code
     * and the message are read after a call, and both are reset before it. */
    pp_error perr = PP_ERROR_INIT;
    char digest[80];
    json_t *hash;
    int rc;

    /* 1: not read in parallel (engine_internal.h), so read here */
    /* a compressed input is a pipe: one reader, from the start */
    int serial = jobs > 1 && in->unpack == NULL ?
                     pp_engine_read_parallel(in, index, stages, nstages, g, jobs, first, err) :
                     1;

    if (serial < 0)
        return serial;
    rc = 0;
    while (serial == 1) {
        memset(&rec, 0, sizeof rec);
        rec.struct_size = sizeof rec;
        rc = in->ops->next(in->src, &rec, &rerr);
        if (rc <= 0)
            break;
        for (size_t s = 0; s < nstages; s++) {
            stage_run *st = &stages[s];

            if (st->failed || !(st->plan->analyzer->input_kinds & rec.kind))
                continue;
            for (uint32_t slot = 0; slot < st->plan->ninputs; slot++) {
                if (st->plan->inputs[slot] != index)
                    continue;
                perr.code = PP_OK;
                perr.message[0] = '\0';
                rec.input_index = slot;
                if (g != NULL && g->watch != NULL) {
                    g->watch->records[s]++;
                    g->watch->input_bytes = in->done;
                }
                watch_enter(g, s, PP_PHASE_CONSUME);
                /* Only a plugin that opted in reads just the 32-bit heap
                 * arrays, or the shapes instead of node_type/node_size32. */
                rc = PP_OK;
                if (rec.kind == PP_KIND_GCDUMP && !heap_shapes(st->plan->analyzer))
                    rc = pp_gcdump_node_arrays(rec.u.heap, &perr);
                if (rc == PP_OK && rec.kind == PP_KIND_GCDUMP && !heap32(st->plan->analyzer))
                    rc = pp_gcdump_legacy_arrays(rec.u.heap, &perr);
                if (rc == PP_OK)
                    rc = st->plan->analyzer->consume(st->state, &rec, &perr);
                watch_leave(g);
                if (rc != PP_OK)
                    pp_engine_stage_fail(st, first,
                                         "stage '%s' (analyzer %s) failed while consuming: %s",
                                         perr.message[0] ? perr.message : "no reason given");
                else if (st->ctx.violation[0] != '\0')
                    pp_engine_stage_fail(st, first,
                                         "stage '%s' (analyzer %s) broke the plugin ABI: %s",
                                         st->ctx.violation);
                if (st->failed)
                    break;
            }
        }
    }
    /* A damaged or cut stream explains whatever the reader made of it. */
    int urc = in->unpack != NULL ? pp_unpack_finish(in->unpack, rc == 0, err) : PP_OK;
    if (urc != PP_OK)
        return urc;
    if (rc < 0) {
        if (rc != PP_ENOMEM)
            pp_source_wrong_kind(in->plan->kind, in->plan->path, &rerr);
        input_error(err, in, &rerr);
        return err ? err->code : rc;
    }
    hash = json_object();
    json_object_set_new(hash, "algo", json_string(pp_hash_algo(in->hash)));
    if (in->bg == NULL) {
        pp_hash_final(in->hash, digest, sizeof digest);
        json_object_set_new(hash, "value", json_string(digest));
    } else
        in->hash_entry = hash; /* the value once pp_engine_hash_join has it */
    json_object_set_new(in->entry, "hash", hash);
    if (in->hooks->progress != NULL)
        in->hooks->progress(in->hooks->user, in->plan->name, in->size, in->size);
    if (in->ops->describe != NULL && in->ops->describe(in->src, in->entry) == PP_ENOMEM) {
        pp_error_set(err, PP_ENOMEM, "%s: out of memory describing the input", in->plan->path);
        return PP_ENOMEM;
    }
    memset(&in->damage, 0, sizeof in->damage);
    in->damage.truncated_at = -1;
    if (in->ops->damage != NULL)
        in->ops->damage(in->src, &in->damage);
    in->damaged = pp_damage_any(&in->damage, in->warnings);
    if (in->damaged && (in->warnings == 0 || in->damage.dropped_events > 0) &&
        in->hooks->warning != NULL) {
        /* Damage no reader warning told (sequence gaps): say it once. */
        char text[PP_ERROR_MESSAGE_MAX * 2];

        pp_damage_text(text, sizeof text, in->plan->name, in->plan->path, &in->damage, 0);
        in->hooks->warning(in->hooks->user, in->plan->path, text);
    }
    json_object_set_new(in->entry, "damage", pp_damage_json(&in->damage, in->warnings));
    {
        size_t i;
        json_t *f;

        json_array_foreach(json_object_get(in->entry, "findings"), i, f)
            if (in->hooks->warning != NULL)
                in->hooks->warning(in->hooks->user, in->plan->path,
                                   json_string_value(json_object_get(f, "message")));
    }
    return PP_OK;
}

/* Findings a reader attached to its input (inputs[].findings: e.g. the
 * nettrace reader's input.wrong_process) go to every stage that read it. */
static void
input_findings(const input_run *in, json_t *stage)
{
    size_t i;
    json_t *f;

    json_array_foreach(json_object_get(in->entry, "findings"), i, f) {
        const char *sev = json_string_value(json_object_get(f, "severity"));

        pp_result_finding(stage,
                          sev != NULL && strcmp(sev, "error") == 0 ? PP_SEVERITY_ERROR :
                          sev != NULL && strcmp(sev, "info") == 0  ? PP_SEVERITY_INFO :
                                                                     PP_SEVERITY_WARNING,
                          json_string_value(json_object_get(f, "code")),
                          json_string_value(json_object_get(f, "message")));
    }
}

/* Every stage that read a damaged input says so in its status. */
static void
mark_damaged(const pp_plan *plan, stage_run *stages, const input_run *inputs)
{
    for (size_t s = 0; s < plan->nstages; s++)
        for (uint32_t slot = 0; slot < stages[s].plan->ninputs; slot++) {
            const input_run *in = &inputs[stages[s].plan->inputs[slot]];
            char text[PP_ERROR_MESSAGE_MAX * 2];

            input_findings(in, stages[s].ctx.stage);
            if (!in->damaged)
                continue;
            pp_damage_text(text, sizeof text, in->plan->name, in->plan->path, &in->damage,
                           in->warnings);
            pp_damage_mark_stage(stages[s].ctx.stage, text);
        }
}

static json_t *
knobs_object(const pp_plan *plan)
{
    json_t *knobs = json_object();

    for (size_t i = 0; i < plan->nknobs; i++)
        json_object_set_new(knobs, plan->knobs[i].key, json_string(plan->knobs[i].value));
    return knobs;
}

/* Each stage's finish(), in order, and what the host checks of its result.
 * read_failures: names the host could not make while records were read
 * (pp_host_memory_failures): they count against every stage, as which one
 * asked is not known; those of a finish() against its stage. */
static void
finish_stages(stage_run *stages, size_t nstages, const pp_guard *g, uint64_t read_failures,
              pp_error *first)
{
    for (size_t s = 0; s < nstages; s++) {
        stage_run *st = &stages[s];
        pp_error perr = PP_ERROR_INIT;
        uint64_t failures = pp_host_memory_failures();
        int rc;

        if (st->failed)
            continue;
        st->ctx.finishing = 1;
        watch_enter(g, s, PP_PHASE_FINISH);
        rc = st->plan->analyzer->finish(st->state, &st->ctx, &perr);
        watch_leave(g);
        if (rc == PP_OK && st->ctx.violation[0] == '\0')
            pp_host_after_finish(&st->ctx, read_failures + pp_host_memory_failures() - failures);
        if (rc != PP_OK)
            pp_engine_stage_fail(st, first, "stage '%s' (analyzer %s) failed to finish: %s",
                                 perr.message[0] ? perr.message : "no reason given");
        else if (st->ctx.violation[0] != '\0')
            pp_engine_stage_fail(st, first, "stage '%s' (analyzer %s) broke the plugin ABI: %s",
                                 st->ctx.violation);
        else if (st->ctx.oom)
            pp_engine_stage_fail(st, first, "stage '%s' (analyzer %s) failed to finish: %s",
                                 "out of memory recording its results");
        st->ctx.finishing = 0;
        if (st->failed) {
            /* What a failed stage built is not a result. */
            json_object_set_new(st->ctx.stage, "tables", json_array());
            json_object_set_new(st->ctx.stage, "totals", json_object());
        }
    }
}

int
pp_engine_run(const pp_plan *plan, const pp_run_hooks *hooks, json_t **doc_out, pp_error *err)
{
    return pp_engine_run_guarded(plan, hooks, NULL, doc_out, err);
}

int
pp_engine_run_guarded(const pp_plan *plan, const pp_run_hooks *hooks, const pp_guard *g,
                      json_t **doc_out, pp_error *err)
{
    static const pp_run_hooks no_hooks;
    const pp_host_api *host = pp_host_api_get();
    stage_run *stages = calloc(plan->nstages ? plan->nstages : 1, sizeof *stages);
    input_run *inputs = calloc(plan->ninputs ? plan->ninputs : 1, sizeof *inputs);
    pp_error first = PP_ERROR_INIT;
    json_t *doc = pp_result_new(plan->pipeline);
    int rc = PP_OK;
    unsigned jobs;
    uint64_t read_failures, json_lost;

    *doc_out = NULL;
    if (hooks == NULL)
        hooks = &no_hooks;
    /* Unasked, a pipeline reads serially: two alloc states hold twice one's
     * memory (116 against 61 MB on the deep trace, bench/RESULTS.md), past
     * the 64 MB alloc is held to; PERFPIPE_JOBS asks as --jobs does. */
    jobs = hooks->jobs ? hooks->jobs : getenv("PERFPIPE_JOBS") ? nt_inspect_default_jobs() : 1;
    if (stages == NULL || inputs == NULL || doc == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory starting the run");
        rc = PP_ENOMEM;
        goto out;
    }
    json_object_set_new(doc, "knobs", knobs_object(plan));
    if ((rc = resolve_inputs(inputs, plan, err)) != PP_OK)
        goto out;

    for (size_t s = 0; s < plan->nstages; s++) {
        stage_run *st = &stages[s];
        const pp_analyzer *a = plan->stages[s].analyzer;
        pp_error perr = PP_ERROR_INIT;

        st->plan = &plan->stages[s];
        rc = stage_ctx(st, doc, hooks, inputs, err);
        if (rc != PP_OK)
            goto out;
        if (a->flags & PP_ANALYZER_FLAG_STANDIN) {
            /* A plugin the loader refused (its stand-in, loader.h). */
            char msg[PP_ERROR_MESSAGE_MAX * 2];

            snprintf(msg, sizeof msg, "stage '%s' (analyzer %s) was not loaded: %s", st->plan->id,
                     a->name, a->summary ? a->summary : "refused");
            st->failed = 1;
            pp_result_stage_failed_with(st->ctx.stage,
                                        json_pack("{s:s, s:s}", "message", msg, "phase", "load"));
            if (first.code == PP_OK)
                pp_error_set(&first, PP_EPLUGIN, "%s", msg);
            continue;
        }
        if (g != NULL && g->faults != NULL && g->faults[s] != NULL) {
            /* An earlier attempt found this stage faulty: it does not run. */
            st->failed = 1;
            pp_result_stage_failed_with(st->ctx.stage, json_incref(g->faults[s]));
            if (first.code == PP_OK)
                pp_error_set(&first, PP_EPLUGIN, "%s",
                             json_string_value(json_object_get(g->faults[s], "message")));
            continue;
        }
        watch_enter(g, s, PP_PHASE_CREATE);
        rc = a->create(host, &st->ctx, st->plan->options, &st->state, &perr);
        watch_leave(g);
        if (rc != PP_OK) {
            pp_engine_stage_fail(st, &first, "stage '%s' (analyzer %s) could not start: %s",
                                 perr.message[0] ? perr.message : "no reason given");
            /* PP_EINVAL from create: an option value out of range (the
             * CLI makes that a usage error, plugin.h). */
            json_object_set_new(json_object_get(st->ctx.stage, "error"), "phase",
                                json_string("create"));
            json_object_set_new(json_object_get(st->ctx.stage, "error"), "code", json_integer(rc));
        } else
            st->created = 1;
    }

    rc = PP_OK;
    pp_jsonmem_count();
    json_lost = pp_jsonmem_failures();
    read_failures = pp_host_memory_failures();
    for (size_t i = 0; i < plan->ninputs; i++) {
        inputs[i].plan = &plan->inputs[i];
        if ((rc = open_input(&inputs[i], hooks, doc, err)) != PP_OK)
            goto out;
        rc = read_input(&inputs[i], i, stages, plan->nstages, g, jobs, &first, err);
        if (rc != PP_OK)
            goto out;
    }
    if (pp_jsonmem_failures() != json_lost) {
        /* An input's description (its facts, hash, damage) lost a member. */
        pp_error_set(err, PP_ENOMEM, "out of memory describing the inputs");
        rc = PP_ENOMEM;
        goto out;
    }

    finish_stages(stages, plan->nstages, g, pp_host_memory_failures() - read_failures, &first);
    /* A split read's hash ran on beside the finish: the document needs it. */
    json_lost = pp_jsonmem_failures();
    for (size_t i = 0; i < plan->ninputs; i++)
        if ((rc = pp_engine_hash_join(&inputs[i], err)) != PP_OK)
            goto out;
    mark_damaged(plan, stages, inputs);
    if ((rc = pp_work_attach(doc)) != PP_OK || pp_jsonmem_failures() != json_lost) {
        rc = PP_ENOMEM;
        pp_error_set(err, rc, "out of memory ending the run");
        goto out;
    }
    if (first.code != PP_OK) {
        rc = PP_EPLUGIN;
        pp_error_set(err, PP_EPLUGIN, "%s", first.message);
    }
    *doc_out = doc;
    doc = NULL;
out:
    for (size_t s = 0; stages != NULL && s < plan->nstages; s++) {
        if (stages[s].created) {
            watch_enter(g, s, PP_PHASE_DESTROY);
            stages[s].plan->analyzer->destroy(stages[s].state);
            watch_leave(g);
        }
        pp_result_tables_release(&stages[s].ctx.tables);
    }
    /* Sources close last: plugins resolve symbols through them in finish(). */
    for (size_t i = 0; inputs != NULL && i < plan->ninputs; i++) {
        if (inputs[i].src != NULL)
            inputs[i].ops->close(inputs[i].src);
        pp_bg_hash_free(inputs[i].bg);
        pp_unpack_free(inputs[i].unpack);
        free(inputs[i].where);
        pp_hash_free(inputs[i].hash);
    }
    free(stages);
    free(inputs);
    json_decref(doc);
    return rc;
}
