/* `perfpipe inspect` for .nettrace: one counting pass, then the facts as a
 * perfpipe-result/1 document. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "result/damage.h"
#include "result/result.h"
#include "nettrace/inspect.h"
#include "nettrace/symbols.h"
#include "nettrace/nettrace_internal.h"

static int
cmp_count(const void *a, const void *b)
{
    const nt_count *x = a, *y = b;
    int c = strcmp(x->provider, y->provider);
    if (c)
        return c;
    if (x->event_id != y->event_id)
        return x->event_id < y->event_id ? -1 : 1;
    return x->version < y->version ? -1 : x->version > y->version;
}

/* Every distinct address once, resolved now that the rundown has completed
 * the method map. */
static int
resolve_frames(pp_trace_source *r, const pp_u64map *ips, uint64_t *frames, uint64_t *unresolved)
{
    for (size_t i = 0; i < ips->cap; i++) {
        if (!ips->used[i])
            continue;
        *frames += ips->vals[i];
        const char *s = pp_nettrace_symbolize(r, ips->keys[i], 0);
        if (s == nt_symbol_oom) /* not an unresolved frame: an unknown one */
            return -1;
        if (s[0] == '?')
            *unresolved += ips->vals[i];
    }
    return 0;
}

/* Read every event of r, counting frames by distinct address (per stack
 * definition, at each region's end), and resolve the addresses once at the
 * end. With jobs > 1 a big enough seekable V4/V5 file is read in parallel
 * regions (inspect_par.c) that give the same counts; any case the regions
 * cannot match makes it read r again, serially. */
static int
count_frames(pp_trace_source **rp, const char *path, unsigned jobs, nt_warn_sink *ws,
             uint64_t *frames, uint64_t *unresolved, pp_error *err)
{
    pp_u64map ips = { 0 };
    int rc = jobs > 1 ? nt_inspect_parallel(*rp, path, jobs, ws, &ips, err) : 1;

    if (rc == 1 || rc == 2) { /* serial, or a parallel read that must be redone */
        pp_u64map_free(&ips);
        memset(&ips, 0, sizeof ips);
        if (rc == 2) { /* on a fresh reader: the first region used this one */
            pp_nettrace_close(*rp);
            *rp = NULL;
            memset(ws, 0, sizeof *ws);
            rc = pp_nettrace_open(path, rp, err);
            if (rc < 0)
                return rc;
            pp_nettrace_set_callbacks(*rp, NULL, nt_inspect_on_warning, ws);
        }
        rc = nt_inspect_count(*rp, path, &ips, err);
    }
    if (rc == PP_OK && resolve_frames(*rp, &ips, frames, unresolved) < 0) {
        pp_error_set(err, PP_ENOMEM, "%s: out of memory naming the trace's frames", path);
        rc = PP_ENOMEM;
    }
    pp_u64map_free(&ips);
    return rc;
}

/* Truncation, dropped events and block order: totals and a warning each. */
static void
add_damage(json_t *stage, const pp_trace_source *r, const pp_nettrace_stats *st,
           const nt_warn_sink *ws)
{
    char buf[128];

    if (st->truncated) {
        pp_result_total_int(stage, "truncated_at", PP_COL_BYTES, st->truncated_at);
        pp_result_finding(stage, PP_SEVERITY_WARNING, "nettrace.truncated",
                          ws->have ? ws->msg : "the trace is truncated");
    }
    if (st->dropped_events) {
        snprintf(buf, sizeof buf, "%llu events were dropped by the runtime (sequence gaps)",
                 (unsigned long long)st->dropped_events);
        pp_result_finding(stage, PP_SEVERITY_WARNING, "nettrace.dropped_events", buf);
    }

    if (r->seqs.repeated_blocks || r->seqs.reordered_blocks) {
        pp_result_total_int(stage, "repeated_blocks", PP_COL_COUNT,
                            (int64_t)r->seqs.repeated_blocks);
        pp_result_total_int(stage, "reordered_blocks", PP_COL_COUNT,
                            (int64_t)r->seqs.reordered_blocks);
        snprintf(buf, sizeof buf, "%llu event blocks repeated (skipped), %llu out of order",
                 (unsigned long long)r->seqs.repeated_blocks,
                 (unsigned long long)r->seqs.reordered_blocks);
        pp_result_finding(stage, PP_SEVERITY_WARNING, "nettrace.block_order", buf);
    }
}

/* Damage travels with the data (CONTRACTS.md) in inspect too: the input
 * with its damage object, as `perfpipe run` writes it, and a stage read
 * from a damaged input is "partial" with an input.damaged warning. */
static int
add_input(json_t *doc, json_t *stage, const char *path, const pp_trace_source *r,
          const pp_nettrace_stats *st, uint64_t warnings)
{
    pp_source_damage d = { st->truncated ? st->truncated_at : -1,
                           st->dropped_events,
                           r->seqs.repeated_blocks,
                           r->seqs.reordered_blocks,
                           r->seqs.missing_blocks,
                           r->seqs.sequence_gaps };
    json_t *in = pp_result_add_input(doc, "trace", path, "nettrace", (int64_t)st->bytes, NULL,
                                     NULL);
    char text[PP_ERROR_MESSAGE_MAX];

    if (in == NULL || json_object_set_new(in, "damage", pp_damage_json(&d, warnings)) != 0)
        return PP_ENOMEM;
    if (!pp_damage_any(&d, warnings))
        return PP_OK;
    pp_damage_text(text, sizeof text, "trace", path, &d, warnings);
    return pp_damage_mark_stage(stage, text);
}

int
pp_nettrace_inspect_doc(const char *path, unsigned jobs, json_t **doc_out, pp_error *err)
{
    pp_trace_source *r;
    nt_warn_sink ws = { { 0 }, 0, 0 };
    uint64_t frames = 0, unresolved = 0;
    int rc;

    *doc_out = NULL;
    if (jobs == 0)
        jobs = nt_inspect_default_jobs();
    rc = pp_nettrace_open(path, &r, err);
    if (rc < 0)
        return rc;
    pp_nettrace_set_callbacks(r, NULL, nt_inspect_on_warning, &ws);
    rc = count_frames(&r, path, jobs, &ws, &frames, &unresolved, err);
    if (rc < 0) {
        pp_nettrace_close(r);
        return rc;
    }

    pp_trace_info info = { .struct_size = sizeof info };
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_info(r, &info);
    pp_nettrace_stats_get(r, &st);

    json_t *doc = pp_result_new("inspect");
    json_t *stage = doc ? pp_result_add_stage(doc, "inspect", "inspect", PACKAGE_VERSION) : NULL;
    if (!stage) {
        json_decref(doc);
        pp_nettrace_close(r);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    char buf[128];
    uint32_t pids[16];
    uint32_t np = pp_nettrace_process_ids(r, pids, 16);
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < np && i < 16 && o < sizeof buf - 12; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%u", i ? "," : "", pids[i]);
    if (np > 16)
        snprintf(buf + o, sizeof buf - o, ",...");
    pp_result_total_string(stage, "format", "nettrace");
    pp_result_total_int(stage, "format_version", PP_COL_COUNT, info.format_version);
    pp_result_total_int(stage, "pointer_size", PP_COL_BYTES, info.pointer_size);
    pp_result_total_string(stage, "process_ids", buf);
    pp_result_total_int(stage, "processes", PP_COL_COUNT, st.process_count);
    pp_result_total_int(stage, "clock_frequency", PP_COL_COUNT, (int64_t)info.clock_frequency);
    time_t secs = (time_t)(info.start_unix_ns / 1000000000);
    struct tm tm;
    if (gmtime_r(&secs, &tm)) {
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
        o = strlen(buf);
        snprintf(buf + o, sizeof buf - o, ".%03dZ", (int)((info.start_unix_ns / 1000000) % 1000));
        pp_result_total_string(stage, "start_time", buf);
    }
    pp_result_total_int(stage, "duration", PP_COL_DURATION_NS,
                        info.last_event_ns - info.first_event_ns);
    pp_result_total_int(stage, "bytes", PP_COL_BYTES, (int64_t)st.bytes);
    pp_result_total_int(stage, "events", PP_COL_COUNT, (int64_t)st.events);
    pp_result_total_int(stage, "payload_bytes", PP_COL_BYTES, (int64_t)st.payload_bytes);
    pp_result_total_int(stage, "stacks", PP_COL_COUNT, (int64_t)st.stacks);
    pp_result_total_int(stage, "metadata_entries", PP_COL_COUNT, (int64_t)st.metadata_entries);
    pp_result_total_int(stage, "methods", PP_COL_COUNT, (int64_t)st.methods);
    pp_result_total_int(stage, "frames", PP_COL_COUNT, (int64_t)frames);
    pp_result_total_int(stage, "unresolved_frames", PP_COL_COUNT, (int64_t)unresolved);
    pp_result_total_double(stage, "unresolved_frame_share", PP_COL_PERCENT,
                           frames ? 100.0 * (double)unresolved / (double)frames : 0.0);
    pp_result_total_int(stage, "dropped_events", PP_COL_COUNT, (int64_t)st.dropped_events);
    add_damage(stage, r, &st, &ws);
    if (add_input(doc, stage, path, r, &st, ws.count) != PP_OK) {
        json_decref(doc);
        pp_nettrace_close(r);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }

    static const pp_column cols[] = {
        { "provider", PP_COL_STRING, 0 }, { "event_id", PP_COL_COUNT, 0 },
        { "version", PP_COL_COUNT, 0 },   { "name", PP_COL_STRING, 0 },
        { "count", PP_COL_COUNT, 0 },     { "payload_bytes", PP_COL_BYTES, 0 },
    };
    pp_table_set set = { NULL, NULL };
    pp_table *t = pp_result_table_new(&set, stage, "events", 6, cols, 3, err);
    nt_count *sorted = malloc((r->ncounts + 1) * sizeof *sorted);
    if (!t || !sorted) {
        pp_result_tables_release(&set);
        free(sorted);
        json_decref(doc);
        pp_nettrace_close(r);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if (r->ncounts > 0) /* a header-only trace has no counts array */
        memcpy(sorted, r->counts, r->ncounts * sizeof *sorted);
    qsort(sorted, r->ncounts, sizeof *sorted, cmp_count);
    for (size_t i = 0; i < r->ncounts; i++) {
        if (!sorted[i].count)
            continue;
        pp_cell cells[6] = {
            pp_cell_str(sorted[i].provider),       pp_cell_int(sorted[i].event_id),
            pp_cell_int(sorted[i].version),        pp_cell_str(sorted[i].name),
            pp_cell_int((int64_t)sorted[i].count), pp_cell_int((int64_t)sorted[i].payload_bytes),
        };
        pp_result_table_row(t, cells, NULL);
    }
    free(sorted);
    pp_result_tables_release(&set);
    pp_nettrace_close(r);
    *doc_out = doc;
    return PP_OK;
}
