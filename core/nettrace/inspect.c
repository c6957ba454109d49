/* `perfpipe inspect` for .nettrace: one counting pass, then the facts as a
 * perfpipe-result/1 document. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xxhash.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "damage.h"
#include "result/result.h"
#include "nettrace/inspect.h"
#include "nettrace/nettrace_internal.h"

typedef struct warn_sink { char msg[PP_ERROR_MESSAGE_MAX]; int have; uint64_t count; } warn_sink;

static void
on_warning(void *user, const pp_error *w)
{
    warn_sink *s = user;
    s->count++;
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

/* Events per distinct stack. The runtime redefines a stack in almost every
 * stack block (a region of a deep-stack trace holds ~1.8 events per
 * definition), so a per-region count still walks most frames. Stacks are
 * counted by content instead: a definition costs one XXH3-128 of its IPs and
 * one probe; the frames of each distinct stack are added to the address
 * counts once, at the end. The table is bounded (SC_MAX_*), so memory is
 * bounded whatever the trace.
 *
 * A stack's identity is its XXH3-128 plus its depth, leaf and root IP, all
 * in the entry: comparing the stored frames instead cost a cache miss per
 * definition (half of inspect's time on a 634 MB trace). Two different
 * stacks agreeing on all of that have a chance below 2^-100 even for 10^7
 * distinct stacks; the input's identity in the result is the same hash. */
typedef struct sc_entry {
    XXH128_hash_t hash;
    uint64_t leaf, root, events;
    size_t first;                /* frames in ips */
    uint32_t depth;              /* 0 = empty slot (empty stacks are not counted) */
    uint32_t pad;
} sc_entry;

typedef struct stack_count {
    sc_entry *slot;              /* open addressing, the entries themselves:
                                    one cache line a probe */
    size_t nslots, ne;           /* power of two; entries in use */
    uint64_t *ips;
    size_t nips, ips_cap;
    /* The current stack region: stack id -> slot + 1, 0 = not seen. */
    uint32_t region;
    uint32_t *by_id;
    size_t by_id_cap;
    uint32_t *touched;           /* ids set in by_id this region */
    size_t ntouched, touched_cap;
    /* Once full: how often a lookup found its stack. When most do not (the
     * trace has far more stacks than the table), hashing is skipped and
     * every frame is counted directly: a hash and a probe cost about what
     * 15-20 frame lookups do, so it pays only above a ~40 % hit rate. */
    uint64_t full_lookups, full_misses;
    int direct;
} stack_count;

#define SC_MAX_ID (1u << 20)     /* ids above are looked up by content each time */
/* The table keeps the first stacks it sees up to these bounds (16 MB of
 * frames, 8 MB of slots); a stack seen later that is not in it has its
 * frames counted directly, as before this table. Emptying the table when
 * full instead thrashed on a trace with 263 k distinct stacks (inspect
 * 1.45x slower than per-frame counting). */
#define SC_MAX_IPS ((size_t)2 << 20)
#define SC_MAX_ENTRIES ((size_t)1 << 16)
#define SC_NONE (SIZE_MAX - 1)   /* not in the table, and the table is full */

/* Frames counted by address: a direct-mapped cache of (address, count) in
 * front of the map. A trace's frames come from a few hundred to a few
 * thousand addresses (112 under 203 M frames on a 1.6 GB trace), so nearly
 * every frame is a hit in 64 KB that stays in cache; the map's probe, a
 * third of inspect's time when stacks do not repeat, is paid on evictions
 * only. n == 0 marks an empty slot (every add is of n >= 1). */
#define FC_BITS 12
typedef struct frame_counts {
    pp_u64map *ips;              /* address -> count, what the cache evicts */
    struct { uint64_t ip, n; } e[1u << FC_BITS];
} frame_counts;

static int
fc_evict(frame_counts *fc, uint64_t ip, uint64_t n)
{
    uint64_t *c = pp_u64map_get(fc->ips, ip);
    if (c) {
        *c += n;
        return 0;
    }
    return pp_u64map_put(fc->ips, ip, n);
}

static int
add_frames(frame_counts *fc, const uint64_t *stack, uint32_t depth, uint64_t n)
{
    for (uint32_t i = 0; i < depth; i++) {
        uint64_t ip = stack[i];
        size_t j = (size_t)((ip * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - FC_BITS));
        if (fc->e[j].ip == ip && fc->e[j].n) {
            fc->e[j].n += n;
            continue;
        }
        if (fc->e[j].n && fc_evict(fc, fc->e[j].ip, fc->e[j].n) < 0)
            return -1;
        fc->e[j].ip = ip;
        fc->e[j].n = n;
    }
    return 0;
}

/* Everything the cache holds into the map. */
static int
fc_flush(frame_counts *fc)
{
    for (size_t j = 0; j < (1u << FC_BITS); j++)
        if (fc->e[j].n) {
            if (fc_evict(fc, fc->e[j].ip, fc->e[j].n) < 0)
                return -1;
            fc->e[j].n = 0;
        }
    return 0;
}

static void
region_reset(stack_count *k)
{
    for (size_t i = 0; i < k->ntouched; i++)
        k->by_id[k->touched[i]] = 0;
    k->ntouched = 0;
}

/* Add every stored stack's frames to the address counts (at the end) and
 * empty the table. */
static int
sc_flush(stack_count *k, frame_counts *ips)
{
    for (size_t i = 0; i < k->nslots; i++)
        if (k->slot[i].depth &&
            add_frames(ips, k->ips + k->slot[i].first, k->slot[i].depth, k->slot[i].events) < 0)
            return -1;
    if (fc_flush(ips) < 0)
        return -1;
    region_reset(k);
    if (k->nslots)
        memset(k->slot, 0, k->nslots * sizeof *k->slot);
    k->ne = 0;
    k->nips = 0;
    return 0;
}

static size_t
sc_probe(const sc_entry *slot, size_t nslots, XXH128_hash_t h, const uint64_t *stack,
         uint32_t depth)
{
    size_t j = (size_t)h.low64 & (nslots - 1);
    for (; slot[j].depth; j = (j + 1) & (nslots - 1))
        if (slot[j].hash.low64 == h.low64 && slot[j].hash.high64 == h.high64 &&
            slot[j].depth == depth && slot[j].leaf == stack[0] &&
            slot[j].root == stack[depth - 1])
            break;
    return j;
}

static int
sc_rehash(stack_count *k, size_t nslots)
{
    sc_entry *s = calloc(nslots, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < k->nslots; i++)
        if (k->slot[i].depth) {
            size_t j = (size_t)k->slot[i].hash.low64 & (nslots - 1);
            while (s[j].depth)
                j = (j + 1) & (nslots - 1);
            s[j] = k->slot[i];
        }
    free(k->slot);
    k->slot = s;
    k->nslots = nslots;
    return 0;
}

/* The slot of stack[0..depth), depth > 0 (created with 0 events); SC_NONE
 * when it is not there and the table is full; SIZE_MAX when out of
 * memory. A rehash resets the region map. */
static size_t
sc_entry_of(stack_count *k, const uint64_t *stack, uint32_t depth)
{
    if (k->direct)
        return SC_NONE;
    XXH128_hash_t h = XXH3_128bits(stack, (size_t)depth * sizeof *stack);
    int full = k->nips + depth > SC_MAX_IPS || k->ne >= SC_MAX_ENTRIES;

    if (!full && (k->ne + 1) * 2 > k->nslots) {
        if (sc_rehash(k, k->nslots ? k->nslots * 2 : 4096) < 0)
            return SIZE_MAX;
        region_reset(k);
    }
    size_t j = sc_probe(k->slot, k->nslots, h, stack, depth);
    if (full) {
        k->full_lookups++;
        k->full_misses += k->slot[j].depth == 0;
        if (k->full_lookups >= 65536 && k->full_misses * 10 > k->full_lookups * 6)
            k->direct = 1;
    }
    if (k->slot[j].depth)
        return j;
    if (full)
        return SC_NONE;
    uint64_t *p = nt_grow(k->ips, &k->ips_cap, k->nips + depth, sizeof *p);
    if (!p)
        return SIZE_MAX;
    k->ips = p;
    memcpy(k->ips + k->nips, stack, (size_t)depth * sizeof *p);
    k->slot[j] = (sc_entry){ h, stack[0], stack[depth - 1], 0, k->nips, depth, 0 };
    k->nips += depth;
    k->ne++;
    return j;
}

static int
sc_add(stack_count *k, frame_counts *ips, const pp_trace_event *ev)
{
    uint32_t id = ev->stack_id;
    size_t e;

    if (ev->stack_depth == 0)
        return 0;
    if (id == 0 || id >= SC_MAX_ID) {
        if ((e = sc_entry_of(k, ev->stack, ev->stack_depth)) == SIZE_MAX)
            return -1;
        if (e == SC_NONE)
            return add_frames(ips, ev->stack, ev->stack_depth, 1);
        k->slot[e].events++;
        return 0;
    }
    if (ev->stack_region != k->region) {
        region_reset(k);
        k->region = ev->stack_region;
    }
    if (id >= k->by_id_cap) {
        size_t cap = k->by_id_cap ? k->by_id_cap : 1024;
        while (cap <= id)
            cap *= 2;
        uint32_t *s = realloc(k->by_id, cap * sizeof *s);
        if (!s)
            return -1;
        memset(s + k->by_id_cap, 0, (cap - k->by_id_cap) * sizeof *s);
        k->by_id = s;
        k->by_id_cap = cap;
    }
    if (k->by_id[id]) {
        k->slot[k->by_id[id] - 1].events++;
        return 0;
    }
    /* A rehash inside resets the region map: set the id after it. */
    if ((e = sc_entry_of(k, ev->stack, ev->stack_depth)) == SIZE_MAX)
        return -1;
    if (e == SC_NONE)            /* not cached: the next event looks again */
        return add_frames(ips, ev->stack, ev->stack_depth, 1);
    uint32_t *t = nt_grow(k->touched, &k->touched_cap, k->ntouched + 1, sizeof *t);
    if (!t)
        return -1;
    k->touched = t;
    t[k->ntouched++] = id;
    k->by_id[id] = (uint32_t)e + 1;
    k->slot[e].events++;
    return 0;
}

static void
sc_free(stack_count *k)
{
    free(k->slot);
    free(k->ips);
    free(k->by_id);
    free(k->touched);
}

/* Truncation, dropped events and block order: totals and a warning each. */
static void
add_damage(json_t *stage, const pp_trace_source *r, const pp_nettrace_stats *st,
           const warn_sink *ws)
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
    pp_source_damage d = { st->truncated ? st->truncated_at : -1, st->dropped_events,
                           r->seqs.repeated_blocks, r->seqs.reordered_blocks, 0,
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
pp_nettrace_inspect_doc(const char *path, json_t **doc_out, pp_error *err)
{
    pp_trace_source *r;
    const pp_trace_event *ev;
    warn_sink ws = { { 0 }, 0, 0 };
    pp_u64map ips = { 0 };
    uint64_t frames = 0, unresolved = 0;
    int rc;

    *doc_out = NULL;
    rc = pp_nettrace_open(path, &r, err);
    if (rc < 0)
        return rc;
    pp_nettrace_set_callbacks(r, NULL, on_warning, &ws);
    /* Count frames by distinct address during the read; resolve them once
     * at the end, when the rundown has completed the method map; count
     * events per distinct stack and add each stack's frames once. */
    stack_count sc = { 0 };
    frame_counts *fc = calloc(1, sizeof *fc);
    if (!fc) {
        pp_nettrace_close(r);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    fc->ips = &ips;
    while ((rc = pp_nettrace_next(r, &ev, err)) == 1) {
        if (sc_add(&sc, fc, ev) < 0) {
            rc = PP_ENOMEM;
            pp_error_set(err, rc, "%s: out of memory", path);
            break;
        }
    }
    if (rc >= 0 && sc_flush(&sc, fc) < 0) {
        rc = PP_ENOMEM;
        pp_error_set(err, rc, "%s: out of memory", path);
    }
    sc_free(&sc);
    free(fc);
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
    add_damage(stage, r, &st, &ws);
    if (add_input(doc, stage, path, r, &st, ws.count) != PP_OK) {
        json_decref(doc);
        pp_nettrace_close(r);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
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
