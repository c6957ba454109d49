/* `perfpipe inspect` for .nettrace: one counting pass, then the facts as a
 * perfpipe-result/1 document. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "result/result.h"
#include "nettrace/inspect.h"
#include "nettrace/nettrace_internal.h"

typedef struct warn_sink { char msg[PP_ERROR_MESSAGE_MAX]; int have; } warn_sink;

static void
on_warning(void *user, const pp_error *w)
{
    warn_sink *s = user;
    if (!s->have) {
        snprintf(s->msg, sizeof s->msg, "%s", w->message);
        s->have = 1;
    }
}

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

/* Events per stack of the current stack region; the frames of each stack
 * are copied once, at its first event in the region. */
typedef struct region_count {
    uint32_t region;
    uint32_t *slot;              /* [stack_id] entry + 1, 0 = not seen */
    size_t slot_cap;
    struct rc_entry { uint32_t id, depth; size_t first; uint64_t events; } *e;
    size_t ne, e_cap;
    uint64_t *ips;
    size_t nips, ips_cap;
} region_count;

#define RC_MAX_ID (1u << 20)     /* ids above are counted frame by frame */

static int
add_frames(pp_u64map *ips, const uint64_t *stack, uint32_t depth, uint64_t n)
{
    for (uint32_t i = 0; i < depth; i++) {
        uint64_t *c = pp_u64map_get(ips, stack[i]);
        if (c)
            *c += n;
        else if (pp_u64map_put(ips, stack[i], n) < 0)
            return -1;
    }
    return 0;
}

static int
region_flush(region_count *k, pp_u64map *ips)
{
    for (size_t i = 0; i < k->ne; i++) {
        if (add_frames(ips, k->ips + k->e[i].first, k->e[i].depth, k->e[i].events) < 0)
            return -1;
        k->slot[k->e[i].id] = 0;
    }
    k->ne = 0;
    k->nips = 0;
    return 0;
}

static int
region_add(region_count *k, pp_u64map *ips, const pp_trace_event *ev)
{
    uint32_t id = ev->stack_id;
    if (ev->stack_depth == 0)
        return 0;
    if (id == 0 || id >= RC_MAX_ID)
        return add_frames(ips, ev->stack, ev->stack_depth, 1);
    if (ev->stack_region != k->region) {
        if (region_flush(k, ips) < 0)
            return -1;
        k->region = ev->stack_region;
    }
    if (id >= k->slot_cap) {
        size_t cap = k->slot_cap ? k->slot_cap : 1024;
        while (cap <= id)
            cap *= 2;
        uint32_t *s = realloc(k->slot, cap * sizeof *s);
        if (!s)
            return -1;
        memset(s + k->slot_cap, 0, (cap - k->slot_cap) * sizeof *s);
        k->slot = s;
        k->slot_cap = cap;
    }
    if (k->slot[id]) {
        k->e[k->slot[id] - 1].events++;
        return 0;
    }
    struct rc_entry *e = nt_grow(k->e, &k->e_cap, k->ne + 1, sizeof *e);
    if (!e)
        return -1;
    k->e = e;
    uint64_t *p = nt_grow(k->ips, &k->ips_cap, k->nips + ev->stack_depth, sizeof *p);
    if (!p)
        return -1;
    k->ips = p;
    memcpy(k->ips + k->nips, ev->stack, ev->stack_depth * sizeof *p);
    e[k->ne] = (struct rc_entry){ id, ev->stack_depth, k->nips, 1 };
    k->nips += ev->stack_depth;
    k->slot[id] = (uint32_t)++k->ne;
    return 0;
}

static void
region_free(region_count *k)
{
    free(k->slot);
    free(k->e);
    free(k->ips);
}

int
pp_nettrace_inspect_doc(const char *path, json_t **doc_out, pp_error *err)
{
    pp_trace_source *r;
    const pp_trace_event *ev;
    warn_sink ws = { { 0 }, 0 };
    pp_u64map ips = { 0 };
    uint64_t frames = 0, unresolved = 0;
    int rc;

    *doc_out = NULL;
    rc = pp_nettrace_open(path, &r, err);
    if (rc < 0)
        return rc;
    pp_nettrace_set_callbacks(r, NULL, on_warning, &ws);
    /* Count frames by distinct address during the read; resolve them once
     * at the end, when the rundown has completed the method map. Events of
     * one stack region repeat a few stacks: count events per stack id and
     * add each stack's frames once, when its region ends. */
    region_count rc_ = { 0 };
    while ((rc = pp_nettrace_next(r, &ev, err)) == 1) {
        if (region_add(&rc_, &ips, ev) < 0) {
            rc = PP_ENOMEM;
            pp_error_set(err, rc, "%s: out of memory", path);
            break;
        }
    }
    if (rc >= 0 && region_flush(&rc_, &ips) < 0) {
        rc = PP_ENOMEM;
        pp_error_set(err, rc, "%s: out of memory", path);
    }
    region_free(&rc_);
    if (rc < 0) {
        pp_u64map_free(&ips);
        pp_nettrace_close(r);
        return rc;
    }
    for (size_t i = 0; i < ips.cap; i++) {
        if (!ips.used[i])
            continue;
        frames += ips.vals[i];
        const char *s = pp_nettrace_symbolize(r, ips.keys[i], 0);
        if (s[0] == '?')
            unresolved += ips.vals[i];
    }
    pp_u64map_free(&ips);

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
        snprintf(buf + o, sizeof buf - o, ".%03dZ",
                 (int)((info.start_unix_ns / 1000000) % 1000));
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
    if (st.truncated) {
        pp_result_total_int(stage, "truncated_at", PP_COL_BYTES, st.truncated_at);
        pp_result_finding(stage, PP_SEVERITY_WARNING, "nettrace.truncated",
                          ws.have ? ws.msg : "the trace is truncated");
    }
    if (st.dropped_events) {
        snprintf(buf, sizeof buf, "%llu events were dropped by the runtime (sequence gaps)",
                 (unsigned long long)st.dropped_events);
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

    static const pp_column cols[] = {
        { "provider", PP_COL_STRING, 0 }, { "event_id", PP_COL_COUNT, 0 },
        { "version", PP_COL_COUNT, 0 }, { "name", PP_COL_STRING, 0 },
        { "count", PP_COL_COUNT, 0 }, { "payload_bytes", PP_COL_BYTES, 0 },
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
    if (r->ncounts > 0)          /* a header-only trace has no counts array */
        memcpy(sorted, r->counts, r->ncounts * sizeof *sorted);
    qsort(sorted, r->ncounts, sizeof *sorted, cmp_count);
    for (size_t i = 0; i < r->ncounts; i++) {
        if (!sorted[i].count)
            continue;
        pp_cell cells[6] = {
            pp_cell_str(sorted[i].provider), pp_cell_int(sorted[i].event_id),
            pp_cell_int(sorted[i].version), pp_cell_str(sorted[i].name),
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
