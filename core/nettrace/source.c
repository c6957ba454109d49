/* The engine adapter: pp_nettrace_source_ops (core/input/source.h). The engine's
 * source pointer IS the reader, so ev->source handed to plugins is the same
 * handle pp_nettrace_symbolize/info/field take, valid until close. */
#include "config.h"

#include <string.h>
#include <jansson.h>

#include "base/advice.h"
#include "input/source.h"
#include "nettrace/nettrace_internal.h"

static int
nt_src_open(const char *path, const pp_source_hooks *hooks, void **src, pp_error *err)
{
    pp_trace_source *r;
    int rc = pp_nettrace_open(path, &r, err);
    if (rc < 0)
        return rc;
    if (hooks)
        pp_nettrace_set_callbacks(r, hooks->on_bytes, hooks->on_warning, hooks->user);
    r->perfpipe_took = pp_advice_perfpipe_took(path);
    *src = r;
    return PP_OK;
}

static int
nt_src_next(void *src, pp_record *rec, pp_error *err)
{
    const pp_trace_event *ev;
    int rc = pp_nettrace_next(src, &ev, err);
    if (rc <= 0)
        return rc;
    pp_nt_process_observe(&((pp_trace_source *)src)->proc, ev);
    memset(rec, 0, sizeof *rec);
    rec->struct_size = sizeof *rec;
    rec->kind = PP_KIND_NETTRACE;
    rec->u.event = ev;
    return 1;
}

static int
nt_src_describe(void *src, json_t *into)
{
    pp_trace_source *r = src;
    char warning[PP_ERROR_MESSAGE_MAX * 2];
    pp_trace_info info = { .struct_size = sizeof info };
    pp_nettrace_stats st = { .struct_size = sizeof st };
    uint32_t pids[64];

    pp_nettrace_info(r, &info);
    pp_nettrace_stats_get(r, &st);
    json_t *o = json_object();
    if (!o)
        return PP_ENOMEM;
    json_object_set_new(o, "format_version", json_integer(info.format_version));
    json_object_set_new(o, "pointer_size", json_integer(info.pointer_size));
    json_t *pa = json_array();
    uint32_t n = pp_nettrace_process_ids(r, pids, 64);
    for (uint32_t i = 0; i < n && i < 64; i++)
        json_array_append_new(pa, json_integer(pids[i]));
    json_object_set_new(o, "process_ids", pa);
    json_object_set_new(o, "clock_frequency", json_integer((json_int_t)info.clock_frequency));
    json_object_set_new(o, "start_unix_ns", json_integer(info.start_unix_ns));
    json_object_set_new(o, "duration_ns", json_integer(info.last_event_ns - info.first_event_ns));
    json_object_set_new(o, "events", json_integer((json_int_t)st.events));
    json_object_set_new(o, "stacks", json_integer((json_int_t)st.stacks));
    json_object_set_new(o, "metadata_entries", json_integer((json_int_t)st.metadata_entries));
    json_object_set_new(o, "dropped_events", json_integer((json_int_t)st.dropped_events));
    json_object_set_new(o, "methods", json_integer((json_int_t)st.methods));
    if (st.truncated)
        json_object_set_new(o, "truncated_at", json_integer(st.truncated_at));
    pp_nt_process_describe_requests(&r->proc, o);
    if (pp_nt_process_describe(&r->proc, info.process_id, r->perfpipe_took, o, warning,
                               sizeof warning)) {
        /* the engine hands inputs[].findings to every stage that read it */
        json_t *list = json_array();
        json_array_append_new(list, json_pack("{s:s,s:s,s:s}", "severity", "warning", "code",
                                              "input.wrong_process", "message", warning));
        json_object_set_new(into, "findings", list);
    }
    /* 1: the process started before a rebuild (a warning: what the trace
     * measured is not what is on disk); 2: rebuilt after the trace (the
     * usual before/after flow: information for reading sources). */
    int st_kind = pp_nt_modident_describe(
        &r->proc.modules, r->proc.command_line, r->proc.runtime_dll, info.start_unix_ns,
        info.start_unix_ns ? info.start_unix_ns + info.last_event_ns : 0, o, warning,
        sizeof warning);
    if (st_kind != 0) {
        json_t *list = json_object_get(into, "findings");
        if (list == NULL)
            json_object_set_new(into, "findings", list = json_array());
        /* a caveat: it bears on reading sources, not on the figures */
        json_array_append_new(
            list, json_pack("{s:s,s:s,s:s,s:b}", "severity", st_kind == 1 ? "warning" : "info",
                            "code", st_kind == 1 ? "input.stale_process" : "input.rebuilt_since",
                            "message", warning, "caveat", st_kind == 1));
    }
    json_object_set_new(into, "nettrace", o);
    return r->proc.modules.oom ? PP_ENOMEM : PP_OK;
}

static void
nt_src_damage(void *src, pp_source_damage *out)
{
    pp_trace_source *r = src;

    out->truncated_at = r->st.truncated ? r->st.truncated_at : -1;
    out->dropped_events = r->st.dropped_events;
    out->repeated_blocks = r->seqs.repeated_blocks;
    out->reordered_blocks = r->seqs.reordered_blocks;
    out->sequence_gaps = r->seqs.sequence_gaps;
    out->missing_blocks = r->seqs.missing_blocks;
}

static void
nt_src_close(void *src)
{
    if (src != NULL)
        pp_nt_process_free(&((pp_trace_source *)src)->proc);
    pp_nettrace_close(src);
}

const pp_source_ops pp_nettrace_source_ops = { "nettrace",   PP_KIND_NETTRACE, nt_src_open,
                                               nt_src_next,  nt_src_describe,  nt_src_close,
                                               nt_src_damage };
