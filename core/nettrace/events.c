/* Handing out events: one decoded row at a time with its metadata, thread,
 * activity, stack and time, counting what was read; and the facts gathered
 * while reading (info, stats, process ids). */
#include "config.h"

#include <string.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/nettrace_internal.h"
#include "base/sized.h"

/* Event times stay within +-2^62 ns (146 years) of the sync time, so the
 * difference of any two (a sample's gap, a command's duration) fits in an
 * int64_t; only a damaged file reaches the bound. */
#define TIME_NS_BOUND ((INT64_C(1) << 62) - 1)

static int64_t
ticks_to_ns(const pp_trace_source *r, uint64_t ts)
{
    uint64_t u = ts - r->sync_qpc;
    __int128 d, ns;

    if (r->qpc_freq == 1000000000u) {
        /* the common clock: no 128-bit arithmetic in the per-event path */
        if (u <= (uint64_t)TIME_NS_BOUND)
            return (int64_t)u;
        if (~u < (uint64_t)TIME_NS_BOUND)
            return -(int64_t)~u - 1; /* u as a negative difference */
        return u <= (uint64_t)INT64_MAX ? TIME_NS_BOUND : -TIME_NS_BOUND;
    }
    if (r->qpc_freq == 0)
        return 0;
    /* two's complement by hand: a cast of a uint64_t past INT64_MAX is
     * implementation-defined */
    d = u <= (uint64_t)INT64_MAX ? (__int128)u : -(__int128)(~u) - 1;
    /* The timestamp and the frequency come from the file: a hostile pair
     * must saturate, not overflow. */
    ns = d * 1000000000 / (__int128)r->qpc_freq;
    if (ns > TIME_NS_BOUND)
        return TIME_NS_BOUND;
    if (ns < -TIME_NS_BOUND)
        return -TIME_NS_BOUND;
    return (int64_t)ns;
}

static int
resolve_thread(pp_trace_source *r, uint64_t idx, uint64_t *tid, uint32_t *pid, uint64_t off,
               pp_error *err)
{
    if (idx == 0) {
        *tid = 0;
        return PP_OK;
    }
    uint64_t *slot = pp_u64map_get(&r->threads, idx);
    if (!slot)
        return nt_fail_at(r, err, PP_EFORMAT, off,
                          "%s: event at byte %llu references thread "
                          "index %llu, which is not defined",
                          r->name, (unsigned long long)off, (unsigned long long)idx);
    *tid = r->thread_rows[*slot].tid;
    if (pid)
        *pid = r->thread_rows[*slot].pid;
    return PP_OK;
}

int
pp_nettrace_next(pp_trace_source *r, const pp_trace_event **out, pp_error *err)
{
    pp_trace_event *ev = &r->ev;

    *out = NULL;
    if (r->failed)
        return nt_fail_at(r, err, r->failed, r->pos, "%s: the reader already failed", r->name);
    if (err)
        err->code = 0;
    for (;;) {
        if (r->done) {
            nt_sequence_region_end(r);
            if (!r->stopped) {
                nt_input_drain(r);
                r->st.bytes = r->hashed;
            }
            return 0;
        }
        if (!r->blk || r->blk_at >= r->blk_len) {
            r->blk = NULL;
            int rc = nt_next_block(r, err);
            if (rc < 0) {
                r->failed = rc;
                return rc;
            }
            r->st.bytes = r->pos;
            continue;
        }
        uint64_t eoff = r->blk_off + r->blk_at;
        const uint8_t *payload;
        uint32_t psize;
        int rc = nt_decode_header(r, r->blk, r->blk_len, &r->blk_at, &payload, &psize, r->blk_off,
                                  err);
        if (rc < 0)
            return rc;
        nt_meta *m = r->last_meta;
        if (!m || m->id != r->h.meta_id) {
            uint64_t *ix = pp_u64map_get(&r->meta_by_id, r->h.meta_id);
            if (!ix)
                return nt_fail_at(r, err, PP_EFORMAT, eoff,
                                  "%s: event at byte %llu references "
                                  "metadata id %u, which is not defined",
                                  r->name, (unsigned long long)eoff, r->h.meta_id);
            m = r->last_meta = r->metas[*ix];
        }
        ev->provider_known = m->provider_known;
        ev->event_id = m->event_id;
        ev->version = m->version;
        ev->metadata_id = m->id;
        ev->provider = m->provider;
        ev->name = m->name;
        ev->timestamp = r->h.ts;
        ev->time_ns = ticks_to_ns(r, r->h.ts);
        ev->processor_number = r->h.proc;
        ev->sequence_number = r->h.seq;
        ev->stack_id = r->h.stack_id;
        ev->payload = payload;
        ev->payload_size = psize;
        size_t row = m->stats_index;
        if (r->format == 6) {
            uint32_t pid = 0;
            if (resolve_thread(r, r->h.tid, &ev->thread_id, &pid, eoff, err) < 0 ||
                resolve_thread(r, r->h.capture_tid, &ev->capture_thread_id, NULL, eoff, err) < 0)
                return r->failed;
            ev->process_id = pid;
            memset(&ev->activity_id, 0, sizeof ev->activity_id);
            memset(&ev->related_activity_id, 0, sizeof ev->related_activity_id);
            if (r->h.label_id) {
                uint64_t *li = pp_u64map_get(&r->label_map, r->h.label_id);
                if (!li)
                    return nt_fail_at(r, err, PP_EFORMAT, eoff,
                                      "%s: event at byte %llu "
                                      "references label list %u, which is not defined since "
                                      "the last sequence point",
                                      r->name, (unsigned long long)eoff, r->h.label_id);
                const struct nt_label *l = &r->labels[*li];
                ev->activity_id = l->act;
                ev->related_activity_id = l->rel;
                if (l->version >= 0 && (uint32_t)l->version != m->version) {
                    ev->version = (uint32_t)l->version;
                    row = nt_count_row(r, m->provider, m->name, m->event_id, ev->version);
                    if (row == SIZE_MAX)
                        return nt_fail_at(r, err, PP_ENOMEM, eoff, "out of memory");
                }
            }
        } else {
            ev->thread_id = r->h.tid;
            ev->capture_thread_id = r->h.capture_tid;
            ev->process_id = r->process_id;
            ev->activity_id = r->h.act;
            ev->related_activity_id = r->h.rel;
        }
        ev->stack_region = (uint32_t)r->st.sequence_points;
        if (r->h.stack_id) {
            const nt_stack *s = nt_find_stack(r, r->h.stack_id);
            nt_sequence_stack_ref(r, r->h.stack_id, s ? (size_t)(s - r->stacks) + 1 : 0, eoff);
            if (s) {
                ev->stack = r->stack_ips + s->first; /* not NULL, even for 0 frames */
                ev->stack_depth = s->depth;
            } else {
                ev->stack = NULL;
                ev->stack_depth = 0;
            }
        } else {
            ev->stack = NULL;
            ev->stack_depth = 0;
        }
        if (r->h.capture_tid && nt_sequence_event(r, r->h.capture_tid, r->h.seq) < 0)
            return nt_fail_at(r, err, PP_ENOMEM, eoff, "out of memory");
        r->counts[row].count++;
        r->counts[row].payload_bytes += psize;
        r->st.events++;
        r->st.payload_bytes += psize;
        if (!r->have_time) {
            r->first_ns = r->last_ns = ev->time_ns;
            r->have_time = 1;
        } else {
            if (ev->time_ns < r->first_ns)
                r->first_ns = ev->time_ns;
            if (ev->time_ns > r->last_ns)
                r->last_ns = ev->time_ns;
        }
        if (m->kind != NT_KIND_NONE &&
            (m->kind == NT_KIND_MODULE ? nt_modules_add(r, ev) :
             m->kind == NT_KIND_ILMAP  ? nt_ilmaps_add(r, ev) :
                                         nt_methods_add_verbose(r, ev)) < 0)
            return nt_fail_at(r, err, PP_ENOMEM, eoff, "out of memory");
        *out = ev;
        return 1;
    }
}

/* ---- facts ---- */

int
pp_nettrace_info(const pp_trace_source *r, pp_trace_info *out)
{
    if (!r || !out || out->struct_size < offsetof(pp_trace_info, start_unix_ns))
        return PP_EINVAL;
    pp_trace_info i;
    memset(&i, 0, sizeof i);
    i.struct_size = sizeof i;
    i.format_version = r->format == 6 ? 6 : (r->st.metadata_entries && r->v5_tags ? 5 : 4);
    i.pointer_size = r->pointer_size;
    i.process_id = r->process_id;
    i.clock_frequency = r->qpc_freq;
    i.start_unix_ns = r->start_unix_ns;
    i.first_event_ns = r->first_ns;
    i.last_event_ns = r->last_ns;
    pp_sized_copy(out, &i, sizeof i);
    return PP_OK;
}

int
pp_nettrace_stats_get(const pp_trace_source *r, pp_nettrace_stats *out)
{
    if (!r || !out || out->struct_size < sizeof(uint32_t))
        return PP_EINVAL;
    pp_nettrace_stats s = r->st;
    s.methods = r->nmethods;
    s.process_count = (uint32_t)(r->npids ? r->npids : 1);
    pp_sized_copy(out, &s, sizeof s);
    return PP_OK;
}

uint32_t
pp_nettrace_process_ids(const pp_trace_source *r, uint32_t *ids, uint32_t max)
{
    for (size_t i = 0; i < r->npids && i < max; i++)
        ids[i] = r->pids[i];
    return (uint32_t)r->npids;
}
