/* The nettrace reader against real captures: per-event counts equal
 * TraceEvent's (the test bed's *.oracle.json and the corpus *.baseline.txt),
 * thread-sample facts and symbolized leaves equal TraceEvent's, truncation
 * at every block boundary and mid-block keeps every whole block's events. */
#include "config.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/nettrace.h>
#include "nettrace/nettrace_internal.h"
#include "nettrace/inspect.h"
#include "unpacked.h"

static const char *
env_dir(const char *var)
{
    const char *d = getenv(var);
    return d && *d ? d : NULL;
}

static int
exists(const char *p)
{
    return access(p, R_OK) == 0;
}

/* ---- counting one trace ---- */

typedef struct tally {
    uint64_t events, tracelog_events;
    uint64_t samples[3];
    /* raw counts per row of r->counts are read from the reader itself */
} tally;

static pp_trace_source *
read_all(const char *path, tally *t, int want_tracelog_counts, json_t *te_counts)
{
    pp_trace_source *r;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    int rc;

    memset(t, 0, sizeof *t);
    ck_assert_msg(pp_nettrace_open(path, &r, &err) == PP_OK, "%s", err.message);
    while ((rc = pp_nettrace_next(r, &ev, &err)) == 1) {
        t->events++;
        const nt_meta *m = nt_event_meta(ev);
        ck_assert_ptr_nonnull(m);
        if (want_tracelog_counts && !nt_meta_is_tracelog_omitted(m, ev)) {
            char buf[256], key[512];
            t->tracelog_events++;
            snprintf(key, sizeof key, "%s/%s", ev->provider, nt_te_name(m, buf, sizeof buf));
            json_t *c = json_object_get(te_counts, key);
            json_object_set_new(te_counts, key, json_integer(c ? json_integer_value(c) + 1 : 1));
        }
        if (ev->provider_known == PP_PROVIDER_SAMPLE_PROFILER && ev->event_id == 0) {
            pp_value v;
            ck_assert_int_eq(pp_nettrace_field(ev, "Type", &v), PP_OK);
            ck_assert_uint_lt(v.v.u, 3);
            t->samples[v.v.u]++;
        }
    }
    ck_assert_msg(rc == 0, "%s", err.message);
    return r;
}

/* ---- test-bed fixtures vs oracle ---- */

static void
check_against_oracle(const char *trace, const char *oracle_path)
{
    json_error_t je;
    json_t *o = json_load_file(oracle_path, 0, &je);
    ck_assert_msg(o != NULL, "%s: %s", oracle_path, je.text);
    tally t;
    json_t *te = json_object();
    pp_trace_source *r = read_all(trace, &t, 1, te);

    json_t *raw = json_object_get(o, "raw");
    ck_assert_uint_eq(t.events, (uint64_t)json_integer_value(json_object_get(raw, "total_events")));
    ck_assert_int_eq(r->pointer_size, json_integer_value(json_object_get(
                                          json_object_get(o, "trace"), "pointer_size")));
    /* every (provider, id, version) row: count and payload bytes */
    size_t i;
    json_t *row;
    size_t matched = 0;
    json_array_foreach(json_object_get(raw, "events"), i, row) {
        const char *prov = json_string_value(json_object_get(row, "provider"));
        uint32_t id = (uint32_t)json_integer_value(json_object_get(row, "event_id"));
        uint32_t ver = (uint32_t)json_integer_value(json_object_get(row, "version"));
        int found = 0;
        for (size_t k = 0; k < r->ncounts; k++) {
            if (r->counts[k].event_id == id && r->counts[k].version == ver &&
                strcmp(r->counts[k].provider, prov) == 0 && r->counts[k].count) {
                ck_assert_msg(r->counts[k].count ==
                                  (uint64_t)json_integer_value(json_object_get(row, "count")),
                              "%s %s/%u v%u: %llu events, oracle %lld", trace, prov, id, ver,
                              (unsigned long long)r->counts[k].count,
                              (long long)json_integer_value(json_object_get(row, "count")));
                ck_assert_msg(
                    r->counts[k].payload_bytes ==
                        (uint64_t)json_integer_value(json_object_get(row, "payload_bytes")),
                    "%s %s/%u v%u payload bytes", trace, prov, id, ver);
                found = 1;
            }
        }
        ck_assert_msg(found, "%s: %s/%u v%u missing", trace, prov, id, ver);
        matched++;
    }
    size_t nonzero = 0;
    for (size_t k = 0; k < r->ncounts; k++)
        nonzero += r->counts[k].count != 0;
    ck_assert_uint_eq(nonzero, matched);

    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_stats_get(r, &st);
    ck_assert_uint_eq(st.dropped_events, (uint64_t)json_integer_value(json_object_get(
                                             json_object_get(o, "trace"), "events_lost")));
    ck_assert_uint_eq(st.bytes, (uint64_t)json_integer_value(json_object_get(o, "bytes")));
    /* TraceLog's view: totals after its documented omissions */
    json_t *tl = json_object_get(o, "tracelog");
    if (json_is_true(json_object_get(tl, "ok")))
        ck_assert_msg(t.tracelog_events ==
                          (uint64_t)json_integer_value(json_object_get(tl, "total_events")),
                      "%s: %llu events after TraceLog omissions, oracle %lld", trace,
                      (unsigned long long)t.tracelog_events,
                      (long long)json_integer_value(json_object_get(tl, "total_events")));

    /* thread samples by type */
    json_t *s = json_object_get(o, "samples");
    if (s) {
        json_t *bt = json_object_get(s, "by_type");
        ck_assert_uint_eq(t.samples[0], (uint64_t)json_integer_value(json_object_get(bt, "Error")));
        ck_assert_uint_eq(t.samples[1],
                          (uint64_t)json_integer_value(json_object_get(bt, "External")));
        ck_assert_uint_eq(t.samples[2],
                          (uint64_t)json_integer_value(json_object_get(bt, "Managed")));
    }
    json_decref(te);
    json_decref(o);
    pp_nettrace_close(r);
}

START_TEST(test_fixtures_vs_oracle)
{
    const char *dir = env_dir("PP_TESTDATA");
    int n = 0;
    if (!dir) {
        printf("SKIP: PP_TESTDATA not set\n");
        return;
    }
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".zst") == 0)
            l -= 4; /* committed compressed: read unpacked (unpacked.h) */
        if (l < 10 || strncmp(e->d_name + l - 9, ".nettrace", 9) != 0)
            continue;
        char trace[4096], oracle[4096], plain[4200];
        snprintf(trace, sizeof trace, "%s/%s", dir, e->d_name);
        snprintf(oracle, sizeof oracle, "%s/%.*s.oracle.json", dir, (int)(l - 9), e->d_name);
        if (!exists(oracle)) {
            printf("SKIP: %s has no oracle\n", trace);
            continue;
        }
        int fd = unpacked_open(trace, plain, sizeof plain);
        ck_assert_msg(fd != -2, "%s", plain);
        check_against_oracle(plain, oracle);
        unpacked_close(fd);
        n++;
    }
    closedir(d);
    /* the public corpus, with the oracle the test bed ran on it */
    const char *corpus = env_dir("PP_CORPUS");
    static const char *cnames[] = {
        "eventpipe-dotnetcore5.0-win-x64-arraytypes",
        "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints",
        "mixed_managed_external_samples",
    };
    for (size_t i = 0; i < 3; i++) {
        char trace[4096], oracle[4096];
        snprintf(trace, sizeof trace, "%s/%s.nettrace", corpus ? corpus : ".", cnames[i]);
        snprintf(oracle, sizeof oracle, "%s/corpus-oracle/%s.oracle.json", dir, cnames[i]);
        if (!corpus || !exists(trace) || !exists(oracle)) {
            printf("SKIP: corpus trace or oracle for %s absent\n", cnames[i]);
            continue;
        }
        check_against_oracle(trace, oracle);
        n++;
    }
    if (n == 0)
        printf("SKIP: no .nettrace fixtures with an oracle in %s\n", dir);
    else
        printf("checked %d fixtures against the TraceEvent oracle\n", n);
}
END_TEST

/* ---- samples: leaves resolved as TraceEvent resolves them ---- */

START_TEST(test_cpu_sampled_leaves)
{
    const char *dir = env_dir("PP_TESTDATA");
    char trace[4096], oracle[4096];
    if (!dir) {
        printf("SKIP: PP_TESTDATA not set\n");
        return;
    }
    snprintf(trace, sizeof trace, "%s/cpu-sampled.nettrace", dir);
    snprintf(oracle, sizeof oracle, "%s/cpu-sampled.oracle.json", dir);
    if (!exists(trace) || !exists(oracle)) {
        printf("SKIP: cpu-sampled fixture absent\n");
        return;
    }

    json_t *o = json_load_file(oracle, 0, NULL);
    ck_assert_ptr_nonnull(o);
    pp_trace_source *r;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_nettrace_open(trace, &r, &err), PP_OK);
    /* leaf IP of every sample, resolved after the read (rundown is last) */
    size_t n = 0, cap = 1 << 16;
    uint64_t *leaf = malloc(cap * sizeof *leaf);
    while (pp_nettrace_next(r, &ev, &err) == 1)
        if (ev->provider_known == PP_PROVIDER_SAMPLE_PROFILER && ev->stack_depth) {
            if (n == cap) {
                cap *= 2;
                leaf = realloc(leaf, cap * sizeof *leaf);
            }
            leaf[n++] = ev->stack[0];
        }
    json_t *s = json_object_get(o, "samples");
    ck_assert_uint_eq(n, (uint64_t)json_integer_value(json_object_get(s, "stack_samples")));
    size_t i, checked = 0;
    json_t *row;
    json_array_foreach(json_object_get(s, "leaf"), i, row) {
        const char *want = json_string_value(json_object_get(row, "method"));
        const char *want_full = json_string_value(json_object_get(row, "method_full"));
        if (!want || want[0] == '?' || strchr(want, '!'))
            continue; /* native frames: TraceEvent names them by module */
        uint64_t got = 0, got_full = 0;
        for (size_t k = 0; k < n; k++) {
            got += strcmp(pp_nettrace_symbolize(r, leaf[k], 0), want) == 0;
            if (want_full)
                got_full += strcmp(pp_nettrace_symbolize(r, leaf[k], PP_SYM_SIGNATURE),
                                   want_full) == 0;
        }
        ck_assert_msg(got == (uint64_t)json_integer_value(json_object_get(row, "total")),
                      "leaf %s: %llu samples, oracle %lld", want, (unsigned long long)got,
                      (long long)json_integer_value(json_object_get(row, "total")));
        if (want_full)
            ck_assert_msg(got_full == got, "leaf %s: signature form %s", want, want_full);
        checked++;
    }
    ck_assert_uint_gt(checked, 5);
    printf("cpu-sampled: %zu samples, %zu leaf methods equal TraceEvent's\n", n, checked);
    free(leaf);
    json_decref(o);
    pp_nettrace_close(r);
}
END_TEST

/* ---- public corpus: TraceEvent baselines ---- */

static void
check_baseline(const char *trace, const char *baseline)
{
    tally t;
    json_t *te = json_object();
    pp_trace_source *r = read_all(trace, &t, 1, te);
    FILE *f = fopen(baseline, "r");
    ck_assert_ptr_nonnull(f);
    char line[8192];
    uint64_t total = 0;
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        char *s = line;
        if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB &&
            (unsigned char)s[2] == 0xBF)
            s += 3;
        char *comma = strstr(s, ", ");
        if (!comma)
            continue;
        *comma = 0;
        long long want = atoll(comma + 2);
        json_t *c = json_object_get(te, s);
        ck_assert_msg(c != NULL, "%s: no events named %s", trace, s);
        ck_assert_msg(json_integer_value(c) == want, "%s: %s = %lld, TraceEvent %lld", trace, s,
                      (long long)json_integer_value(c), want);
        total += (uint64_t)want;
        rows++;
    }
    fclose(f);
    ck_assert_uint_eq(total, t.tracelog_events);
    ck_assert_int_eq(rows, (int)json_object_size(te));
    json_decref(te);
    pp_nettrace_close(r);
}

START_TEST(test_corpus_baselines)
{
    const char *dir = env_dir("PP_CORPUS");
    static const char *names[] = {
        "eventpipe-dotnetcore5.0-win-x64-arraytypes.nettrace",
        "eventpipe-dotnetcore6.0-win-x64-executioncheckpoints.nettrace",
    };
    for (size_t i = 0; i < 2; i++) {
        char trace[4096], base[4200];
        snprintf(trace, sizeof trace, "%s/%s", dir ? dir : ".", names[i]);
        snprintf(base, sizeof base, "%s.baseline.txt", trace);
        if (!dir || !exists(trace) || !exists(base)) {
            printf("SKIP: corpus trace %s absent\n", names[i]);
            continue;
        }
        check_baseline(trace, base);
    }
}
END_TEST

START_TEST(test_mixed_samples)
{
    const char *dir = env_dir("PP_CORPUS");
    char trace[4096];
    snprintf(trace, sizeof trace, "%s/mixed_managed_external_samples.nettrace", dir ? dir : ".");
    if (!dir || !exists(trace)) {
        printf("SKIP: mixed_managed_external_samples absent\n");
        return;
    }
    pp_trace_source *r;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_nettrace_open(trace, &r, &err), PP_OK);
    uint64_t *leaf = malloc(8192 * sizeof *leaf);
    uint32_t *type = malloc(8192 * sizeof *type);
    size_t n = 0;
    uint64_t main_frames = 0;
    while (pp_nettrace_next(r, &ev, &err) == 1) {
        if (ev->provider_known != PP_PROVIDER_SAMPLE_PROFILER)
            continue;
        pp_value v;
        ck_assert_int_eq(pp_nettrace_field(ev, "Type", &v), PP_OK);
        ck_assert_uint_lt(n, 8192);
        ck_assert_uint_gt(ev->stack_depth, 0);
        leaf[n] = ev->stack[0];
        type[n++] = (uint32_t)v.v.u;
    }
    ck_assert_uint_eq(n, 6331);
    uint64_t ext = 0, man = 0, findbyte = 0, inner = 0, readkey = 0, append = 0;
    for (size_t i = 0; i < n; i++) {
        const char *s = pp_nettrace_symbolize(r, leaf[i], 0);
        ext += type[i] == 1;
        man += type[i] == 2;
        findbyte += type[i] == 2 && strcmp(s, "NoNativeStacks.Program.FindByte") == 0;
        inner += type[i] == 2 && strstr(s, ".InnerLoop") != NULL;
        readkey += strcmp(s, "System.IO.StdInReader.ReadKey") == 0;
        append += strstr(s, "AppendExtraBuffer") != NULL;
    }
    ck_assert_uint_eq(ext, 2427);
    ck_assert_uint_eq(man, 3904);
    ck_assert_uint_eq(findbyte, 2590);
    ck_assert_uint_eq(inner, 1314);
    ck_assert_uint_eq(readkey, 2298);
    ck_assert_uint_eq(append, 125);
    (void)main_frames;
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_stats_get(r, &st);
    printf("mixed: %zu samples, %llu ext / %llu managed, FindByte %llu, %llu distinct IPs "
           "symbolized, %llu unresolved\n",
           n, (unsigned long long)ext, (unsigned long long)man, (unsigned long long)findbyte,
           (unsigned long long)st.symbolized, (unsigned long long)st.unresolved);
    free(leaf);
    free(type);
    pp_nettrace_close(r);
}
END_TEST

/* ---- truncation at every block boundary and mid-block ---- */

typedef struct wcount {
    int n;
    int64_t off;
} wcount;

static void
count_warning(void *user, const pp_error *w)
{
    wcount *c = user;
    c->n++;
    c->off = w->offset;
}

static void
check_truncation(const char *trace)
{
    /* block ends and the events in the blocks before them */
    pp_trace_source *r;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    size_t nb = 0, cap = 4096;
    uint64_t *bend = malloc(cap * sizeof *bend), *bev = malloc(cap * sizeof *bev);
    ck_assert_int_eq(pp_nettrace_open(trace, &r, &err), PP_OK);
    uint64_t last_pos = r->pos, events = 0;
    while (pp_nettrace_next(r, &ev, &err) == 1) {
        if (r->pos != last_pos) {
            if (nb + 1 >= cap) {
                cap *= 2;
                bend = realloc(bend, cap * sizeof *bend);
                bev = realloc(bev, cap * sizeof *bev);
            }
            bend[nb] = last_pos; /* everything before this block */
            bev[nb++] = events;
            last_pos = r->pos;
        }
        events++;
    }
    bend[nb] = last_pos; /* end of the last event block */
    bev[nb] = events;
    struct stat sb;
    ck_assert_int_eq(stat(trace, &sb), 0);
    uint64_t fsize = (uint64_t)sb.st_size;
    pp_nettrace_close(r);

    FILE *in = fopen(trace, "rb");
    uint8_t *data = malloc(fsize);
    ck_assert_uint_eq(fread(data, 1, fsize, in), fsize);
    fclose(in);
    char tmp[] = "/tmp/pp-nt-trunc-XXXXXX";
    int fd = mkstemp(tmp);
    ck_assert_int_ge(fd, 0);
    size_t cuts = 0;
    for (size_t b = 0; b < nb; b++) {
        uint64_t next_end = b + 1 < nb ? bend[b + 1] : fsize;
        uint64_t cut_at[3] = { bend[b], bend[b] + (next_end - bend[b]) / 2, next_end - 1 };
        for (int c = 0; c < 3; c++) {
            uint64_t cut = cut_at[c];
            if (cut >= fsize || cut < bend[0])
                continue;
            ck_assert_int_eq(ftruncate(fd, 0), 0);
            ck_assert_int_eq(pwrite(fd, data, cut, 0), (ssize_t)cut);
            pp_error e2 = PP_ERROR_INIT;
            wcount wc = { 0, -1 };
            ck_assert_int_eq(pp_nettrace_open(tmp, &r, &e2), PP_OK);
            pp_nettrace_set_callbacks(r, NULL, count_warning, &wc);
            uint64_t got = 0;
            int rc;
            while ((rc = pp_nettrace_next(r, &ev, &e2)) == 1)
                got++;
            ck_assert_msg(rc == 0, "cut at %llu: %s", (unsigned long long)cut, e2.message);
            /* the events of every block that ends before the cut */
            uint64_t want = 0;
            for (size_t k = 0; k <= nb; k++)
                if (bend[k] <= cut)
                    want = bev[k];
            ck_assert_msg(got == want, "cut at %llu: %llu events, expected %llu",
                          (unsigned long long)cut, (unsigned long long)got,
                          (unsigned long long)want);
            ck_assert_int_eq(wc.n, 1);
            ck_assert_int_le(wc.off, (int64_t)cut);
            pp_nettrace_stats st = { .struct_size = sizeof st };
            pp_nettrace_stats_get(r, &st);
            ck_assert_uint_eq(st.truncated, 1);
            ck_assert_uint_eq(st.bytes, cut); /* on_bytes saw the whole short file */
            pp_nettrace_close(r);
            cuts++;
        }
    }
    printf("%s: %zu truncated copies checked (%zu blocks)\n", trace, cuts, nb);
    close(fd);
    unlink(tmp);
    free(data);
    free(bend);
    free(bev);
}

START_TEST(test_truncation)
{
    const char *dir = env_dir("PP_CORPUS");
    char trace[4096];
    snprintf(trace, sizeof trace, "%s/mixed_managed_external_samples.nettrace", dir ? dir : ".");
    if (!dir || !exists(trace)) {
        printf("SKIP: corpus absent, no truncation test\n");
        return;
    }
    check_truncation(trace);
}
END_TEST

/* ---- allocation ticks and DiagnosticSource payloads vs the oracle ---- */

typedef struct tick {
    uint64_t leaf, bytes;
    char type[160];
    uint32_t kind;
} tick;

static void
check_alloc_and_ds(const char *trace, json_t *o)
{
    pp_trace_source *r;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    size_t n = 0, cap = 1024;
    tick *ticks = malloc(cap * sizeof *ticks);
    json_t *ds = json_object();
    uint32_t ix_amount = UINT32_MAX, meta_amount = UINT32_MAX;

    ck_assert_int_eq(pp_nettrace_open(trace, &r, &err), PP_OK);
    while (pp_nettrace_next(r, &ev, &err) == 1) {
        pp_value v;
        if (ev->provider_known == PP_PROVIDER_RUNTIME && ev->event_id == 10) {
            if (n == cap) {
                cap *= 2;
                ticks = realloc(ticks, cap * sizeof *ticks);
            }
            tick *t = &ticks[n++];
            /* precomputed index once per metadata id, then by index */
            if (meta_amount != ev->metadata_id) {
                ck_assert_int_eq(pp_nettrace_field_index(ev,
                                                         ev->version >= 2 ? "AllocationAmount64" :
                                                                            "AllocationAmount",
                                                         &ix_amount),
                                 PP_OK);
                meta_amount = ev->metadata_id;
            }
            ck_assert_int_eq(pp_nettrace_field_at(ev, ix_amount, &v), PP_OK);
            t->bytes = v.v.u;
            ck_assert_int_eq(pp_nettrace_field(ev, "AllocationKind", &v), PP_OK);
            t->kind = (uint32_t)v.v.u;
            ck_assert_int_eq(pp_nettrace_field(ev, "TypeName", &v), PP_OK);
            snprintf(t->type, sizeof t->type, "%s", v.v.s);
            t->leaf = ev->stack_depth ? ev->stack[0] : 0;
        }
        if (ev->provider_known == PP_PROVIDER_DIAGNOSTIC_SOURCE &&
            pp_nettrace_field(ev, "SourceName", &v) == PP_OK) {
            char key[1024], src[256], buf[256];
            snprintf(src, sizeof src, "%s", v.v.s);
            int has_name = pp_nettrace_field(ev, "EventName", &v) == PP_OK;
            snprintf(key, sizeof key, "%s|%s|%s", nt_te_name(nt_event_meta(ev), buf, sizeof buf),
                     src, has_name ? v.v.s : "");
            json_t *c = json_object_get(ds, key);
            json_object_set_new(ds, key, json_integer(c ? json_integer_value(c) + 1 : 1));
        }
    }
    json_t *a = json_object_get(o, "alloc");
    ck_assert_uint_eq(n, (uint64_t)json_integer_value(json_object_get(a, "ticks")));
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += ticks[i].bytes;
    ck_assert_uint_eq(total, (uint64_t)json_integer_value(json_object_get(a, "sampled_bytes")));
    size_t i, k;
    json_t *row;
    json_array_foreach(json_object_get(a, "by_type"), i, row) {
        uint64_t c = 0, b = 0;
        for (k = 0; k < n; k++)
            if (strcmp(ticks[k].type, json_string_value(json_object_get(row, "type"))) == 0) {
                c++;
                b += ticks[k].bytes;
            }
        ck_assert_uint_eq(c, (uint64_t)json_integer_value(json_object_get(row, "ticks")));
        ck_assert_uint_eq(b, (uint64_t)json_integer_value(json_object_get(row, "bytes")));
    }
    json_array_foreach(json_object_get(a, "by_top_frame_full"), i, row) {
        const char *want = json_string_value(json_object_get(row, "frame"));
        uint64_t c = 0;
        for (k = 0; k < n; k++)
            c += ticks[k].leaf &&
                 strcmp(pp_nettrace_symbolize(r, ticks[k].leaf, PP_SYM_SIGNATURE), want) == 0;
        if (want[0] != '?' && !strchr(want, '!'))
            ck_assert_msg(c == (uint64_t)json_integer_value(json_object_get(row, "ticks")),
                          "%s: top frame %s: %llu ticks, oracle %lld", trace, want,
                          (unsigned long long)c,
                          (long long)json_integer_value(json_object_get(row, "ticks")));
    }
    json_array_foreach(json_object_get(json_object_get(o, "diagnostic_source"), "events"), i, row) {
        char key[1024];
        const char *src = json_string_value(json_object_get(row, "source"));
        if (!src[0])
            continue; /* events without SourceName (Message, Version) */
        snprintf(key, sizeof key, "%s|%s|%s", json_string_value(json_object_get(row, "event")), src,
                 json_string_value(json_object_get(row, "name")));
        json_t *c = json_object_get(ds, key);
        ck_assert_msg(c && json_integer_value(c) ==
                               json_integer_value(json_object_get(row, "count")),
                      "%s: DiagnosticSource %s: %lld, oracle %lld", trace, key,
                      c ? (long long)json_integer_value(c) : -1LL,
                      (long long)json_integer_value(json_object_get(row, "count")));
    }
    printf("%s: %zu allocation ticks, %llu bytes, DiagnosticSource keys %zu: equal the oracle\n",
           trace, n, (unsigned long long)total, json_object_size(ds));
    json_decref(ds);
    free(ticks);
    pp_nettrace_close(r);
}

START_TEST(test_fixture_payloads)
{
    const char *dir = env_dir("PP_TESTDATA");
    static const char *names[] = { "alloc-envvar", "alloc-gcverbose", "db-database",
                                   "web-sampled-db" };
    int n = 0;
    for (size_t i = 0; dir && i < sizeof names / sizeof names[0]; i++) {
        char name[4096], trace[4200], oracle[4200], plain[4300];
        snprintf(name, sizeof name, "%s/%s.nettrace", dir, names[i]);
        snprintf(oracle, sizeof oracle, "%s/%s.oracle.json", dir, names[i]);
        if (!unpacked_exists(name, trace, sizeof trace) || !exists(oracle)) {
            printf("SKIP: %s absent\n", names[i]);
            continue;
        }
        json_t *o = json_load_file(oracle, 0, NULL);
        ck_assert_ptr_nonnull(o);
        int fd = unpacked_open(trace, plain, sizeof plain);
        ck_assert_msg(fd != -2, "%s", plain);
        check_alloc_and_ds(plain, o);
        unpacked_close(fd);
        json_decref(o);
        n++;
    }
    if (!n)
        printf("SKIP: no allocation/db fixtures\n");
}
END_TEST

/* ---- inspect document ---- */

START_TEST(test_inspect_doc)
{
    const char *dir = env_dir("PP_TESTDATA");
    char trace[4096], oracle[4200];
    if (!dir) {
        printf("SKIP: PP_TESTDATA not set\n");
        return;
    }
    snprintf(trace, sizeof trace, "%s/cpu-sampled.nettrace", dir);
    snprintf(oracle, sizeof oracle, "%s/cpu-sampled.oracle.json", dir);
    if (!exists(trace) || !exists(oracle)) {
        printf("SKIP: cpu-sampled absent\n");
        return;
    }
    json_t *doc, *o = json_load_file(oracle, 0, NULL);
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(pp_nettrace_inspect_doc(trace, 1, &doc, &err), PP_OK);
    json_t *stage = json_array_get(json_object_get(doc, "stages"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(stage, "id")), "inspect");
    json_t *tot = json_object_get(stage, "totals");
    json_t *raw = json_object_get(o, "raw");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(tot, "events"), "value")),
                     json_integer_value(json_object_get(raw, "total_events")));
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(tot, "bytes"), "value")),
                     json_integer_value(json_object_get(o, "bytes")));
    /* V4 and V5 share a container; 5 is reported only when V5 tags occur */
    json_int_t fv = json_integer_value(
        json_object_get(json_object_get(tot, "format_version"), "value"));
    ck_assert(fv == 4 || fv == 5);
    json_t *t = json_array_get(json_object_get(stage, "tables"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(t, "name")), "events");
    json_t *rows = json_object_get(t, "rows"), *ev = json_object_get(raw, "events");
    ck_assert_uint_eq(json_array_size(rows), json_array_size(ev));
    /* same order as the oracle (provider, event id, version) and same counts */
    for (size_t i = 0; i < json_array_size(rows); i++) {
        json_t *a = json_array_get(rows, i), *b = json_array_get(ev, i);
        ck_assert_str_eq(json_string_value(json_array_get(a, 0)),
                         json_string_value(json_object_get(b, "provider")));
        ck_assert_int_eq(json_integer_value(json_array_get(a, 1)),
                         json_integer_value(json_object_get(b, "event_id")));
        ck_assert_int_eq(json_integer_value(json_array_get(a, 2)),
                         json_integer_value(json_object_get(b, "version")));
        ck_assert_int_eq(json_integer_value(json_array_get(a, 4)),
                         json_integer_value(json_object_get(b, "count")));
        ck_assert_int_eq(json_integer_value(json_array_get(a, 5)),
                         json_integer_value(json_object_get(b, "payload_bytes")));
    }
    double share = json_real_value(
        json_object_get(json_object_get(tot, "unresolved_frame_share"), "value"));
    printf("inspect cpu-sampled: %zu event rows, unresolved frame share %.1f%%\n",
           json_array_size(rows), share);
    json_decref(doc);
    json_decref(o);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("nettrace_corpus");
    TCase *tc = tcase_create("real");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_fixtures_vs_oracle);
    tcase_add_test(tc, test_cpu_sampled_leaves);
    tcase_add_test(tc, test_corpus_baselines);
    tcase_add_test(tc, test_mixed_samples);
    tcase_add_test(tc, test_truncation);
    tcase_add_test(tc, test_fixture_payloads);
    tcase_add_test(tc, test_inspect_doc);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    if (!env_dir("PP_CORPUS") && !env_dir("PP_TESTDATA")) {
        printf("SKIP: neither PP_CORPUS nor PP_TESTDATA is set\n");
        return 77;
    }
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
