/* plugins/spans: the descriptor and record intake of the span attribution
 * analyzer. Everything the report needs is copied out of the borrowed
 * pp_span here: records do not outlive consume(). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/plugin.h>

#include "spans.h"

static const pp_option_decl options[] = {
    { "inproc_share", PP_OPT_DOUBLE, 0, "50",
      "in-proc share (%) of an operation's time that raises a finding" },
    { "nplus1", PP_OPT_INT, 0, "10",
      "calls of one downstream per request that raise an N+1 finding" },
};

static int
sp_create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **state, pp_error *err)
{
    sp_state *st = calloc(1, sizeof(*st));
    if (!st) {
        host->error_set(err, PP_ENOMEM, "spans: out of memory");
        return PP_ENOMEM;
    }
    st->host = host;
    st->ctx = ctx;
    st->inproc_share = 50.0;
    st->nplus1 = 10;
    if (host->opt_double(opts, "inproc_share", &st->inproc_share) == PP_EINVAL ||
        host->opt_int(opts, "nplus1", &st->nplus1) == PP_EINVAL) {
        free(st);
        host->error_set(err, PP_EINVAL, "spans: bad option type");
        return PP_EINVAL;
    }
    if (st->inproc_share < 0 || st->inproc_share > 100) {
        free(st);
        host->error_set(err, PP_EINVAL, "spans: inproc_share must be a percentage 0..100");
        return PP_EINVAL;
    }
    if (st->nplus1 < 2) {
        free(st);
        host->error_set(err, PP_EINVAL, "spans: nplus1 must be at least 2");
        return PP_EINVAL;
    }
    *state = st;
    return PP_OK;
}

/* "trace/span": span ids are only unique within a trace. */
static int
intern_id(sp_state *st, const char *trace, const char *span, uint32_t *id)
{
    size_t tl = strlen(trace), sl = strlen(span);
    char stackbuf[128];
    char *buf = tl + sl + 2 <= sizeof(stackbuf) ? stackbuf : malloc(tl + sl + 2);
    if (!buf)
        return PP_ENOMEM;
    memcpy(buf, trace, tl);
    buf[tl] = '/';
    memcpy(buf + tl + 1, span, sl);
    int rc = pp_pc_strtab_intern(&st->ids, buf, tl + sl + 1, id);
    if (buf != stackbuf)
        free(buf);
    return rc;
}

static int
sp_consume(void *state, const pp_record *rec, pp_error *err)
{
    sp_state *st = state;
    if (rec->kind != PP_KIND_SPANS)
        return PP_OK;
    const pp_span *s = rec->u.span;
    if (st->count == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 256;
        sp_span *n = cap > st->cap ? realloc(st->spans, (size_t)cap * sizeof(*n)) : NULL;
        if (!n) {
            st->host->error_set(err, PP_ENOMEM, "spans: out of memory after %u spans",
                                (unsigned)st->count);
            return PP_ENOMEM;
        }
        st->spans = n;
        st->cap = cap;
    }
    sp_span *o = &st->spans[st->count];
    memset(o, 0, sizeof(*o));
    o->start = s->start_unix_ns;
    o->end = s->end_unix_ns < s->start_unix_ns ? s->start_unix_ns : s->end_unix_ns;
    o->kind = s->kind;
    o->parent_id = SP_NO_ID;
    int rc = intern_id(st, s->trace_id, s->span_id, &o->span_id);
    if (rc == PP_OK && s->parent_span_id && s->parent_span_id[0])
        rc = intern_id(st, s->trace_id, s->parent_span_id, &o->parent_id);
    if (rc == PP_OK)
        rc = sp_classify(st, s, o);
    if (rc == PP_OK)
        rc = pp_pc_strtab_intern(&st->names, s->service ? s->service : "",
                                 s->service ? strlen(s->service) : 0, &o->service);
    if (rc != PP_OK) {
        st->host->error_set(err, PP_ENOMEM, "spans: out of memory");
        return PP_ENOMEM;
    }
    st->count++;
    return PP_OK;
}

static int
sp_finish(void *state, pp_ctx *ctx, pp_error *err)
{
    return sp_report(state, ctx, err);
}

static void
sp_destroy(void *state)
{
    sp_state *st = state;
    if (!st)
        return;
    free(st->spans);
    pp_pc_strtab_free(&st->ids);
    pp_pc_strtab_free(&st->names);
    free(st);
}

static const pp_analyzer descriptor = {
    PP_ANALYZER_HEADER,
    .name = "spans",
    .version = "1.0.0",
    .summary = "Where request time goes: per operation latency and its downstream attribution",
    .input_kinds = PP_KIND_SPANS,
    .input_slot_count = 1,
    .input_slots = NULL,
    .option_count = sizeof(options) / sizeof(options[0]),
    .options = options,
    .create = sp_create,
    .consume = sp_consume,
    .finish = sp_finish,
    .destroy = sp_destroy,
    .tables = pp_spans_tables,
};

PP_PLUGIN_DEFINE(descriptor);
