/* bench-nettrace: throughput and peak memory of the nettrace reader.
 * Usage: bench-nettrace [--mode inspect|full|both] [--repeat N] [--no-warm] FILE
 *        bench-nettrace FILE [REPEAT]            (old form: both modes)
 *   inspect : read every event header (what `perfpipe inspect` does)
 *   full    : also decode every payload field of every event, walk every stack
 *             and symbolize every distinct frame address with its signature
 *             (after the read, as analyzers do at finish)
 * Prints MB/s, events/s and peak RSS. Figures go to bench/RESULTS.md;
 * bench/run-bench.sh runs `--mode full --repeat 1 --no-warm` under /usr/bin/time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <perfpipe/nettrace.h>

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU seconds (user + system) of this process: on a shared, loaded machine
 * wall time measures the neighbours, CPU time measures the reader. */
static double
cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Distinct frame addresses (open addressing, grown at 1/2 load). */
typedef struct {
    uint64_t *v;
    size_t cap, n;
} addr_set;

static int
set_add(addr_set *s, uint64_t ip)
{
    if (ip == 0)
        return 0;
    if (2 * (s->n + 1) > s->cap) {
        size_t ncap = s->cap ? 2 * s->cap : 4096;
        uint64_t *nv = calloc(ncap, sizeof *nv);
        if (!nv)
            return -1;
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i]) {
                size_t h = (size_t)((s->v[i] * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (ncap - 1);
                while (nv[h])
                    h = (h + 1) & (ncap - 1);
                nv[h] = s->v[i];
            }
        free(s->v);
        s->v = nv;
        s->cap = ncap;
    }
    size_t h = (size_t)((ip * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (s->cap - 1);
    while (s->v[h] && s->v[h] != ip)
        h = (h + 1) & (s->cap - 1);
    if (!s->v[h]) {
        s->v[h] = ip;
        s->n++;
    }
    return 0;
}

static uint64_t last_frames, last_symbolized, last_unresolved;

static int
run(const char *path, int full, uint64_t *bytes, uint64_t *events, uint64_t *sink)
{
    pp_trace_source *t;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    int rc;
    uint64_t frames = 0;

    if (pp_nettrace_open(path, &t, &err) < 0) {
        fprintf(stderr, "bench-nettrace: %s\n", err.message);
        return -1;
    }
    /* full: every payload field of every event decoded by index, every
     * frame of every stack collected into a set of distinct addresses that
     * are all symbolized after the read (as analyzers do at finish). */
    addr_set set = { 0 };
    while ((rc = pp_nettrace_next(t, &ev, &err)) == 1) {
        *sink += ev->payload_size + ev->thread_id;
        if (full) {
            pp_value v;
            for (uint32_t f = 0; pp_nettrace_field_at(ev, f, &v) == 0; f++)
                *sink += v.size;
            for (uint32_t i = 0; i < ev->stack_depth; i++)
                if (set_add(&set, ev->stack[i]) < 0) {
                    fprintf(stderr, "bench-nettrace: out of memory\n");
                    pp_nettrace_close(t);
                    return -1;
                }
            frames += ev->stack_depth;
        }
    }
    if (rc < 0) {
        fprintf(stderr, "bench-nettrace: %s\n", err.message);
        pp_nettrace_close(t);
        return -1;
    }
    uint64_t unresolved = 0;
    if (full)
        for (size_t i = 0; i < set.cap; i++)
            if (set.v[i]) {
                const char *sym = pp_nettrace_symbolize(t, set.v[i], PP_SYM_SIGNATURE);
                *sink += strlen(sym);
                unresolved += sym[0] == '?' && sym[1] == '!';
            }
    free(set.v);
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_stats_get(t, &st);
    *bytes += st.bytes;
    *events += st.events;
    if (full) {
        last_frames = frames;
        last_symbolized = set.n;
        last_unresolved = unresolved;
    }
    pp_nettrace_close(t);
    return 0;
}

static void
usage(FILE *f)
{
    fputs("usage: bench-nettrace [--mode inspect|full|both] [--repeat N] [--no-warm] FILE\n"
          "       bench-nettrace FILE [REPEAT]   (both modes, REPEAT passes, default 20)\n"
          "  --mode inspect  every event header decoded and counted (perfpipe inspect)\n"
          "  --mode full     plus every payload field of every event decoded by index,\n"
          "                  every stack frame walked and every distinct address\n"
          "                  symbolized with its signature after the read\n"
          "  --repeat N      passes per mode (rates are over all passes)\n"
          "  --no-warm       skip the unmeasured warm-up pass (for /usr/bin/time runs)\n"
          "Rates are per CPU second (user+system of this process) and per wall second.\n",
          f);
}

int
main(int argc, char **argv)
{
    const char *path = NULL;
    int repeat = -1, warm = 1, lo = 0, hi = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
            const char *m = argv[++i];
            if (!strcmp(m, "inspect"))
                lo = hi = 0;
            else if (!strcmp(m, "full"))
                lo = hi = 1;
            else if (!strcmp(m, "both"))
                lo = 0, hi = 1;
            else {
                usage(stderr);
                return 2;
            }
        } else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
            repeat = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--no-warm")) {
            warm = 0;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            usage(stderr);
            return 2;
        } else if (!path) {
            path = argv[i];
        } else if (repeat < 0) {
            repeat = atoi(argv[i]);
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (!path) {
        usage(stderr);
        return 2;
    }
    if (repeat <= 0)
        repeat = 20;
    uint64_t sink = 0;
    for (int full = lo; full <= hi; full++) {
        uint64_t bytes = 0, events = 0;
        if (warm && run(path, full, &bytes, &events, &sink) < 0) /* warm the cache */
            return 1;
        bytes = events = 0;
        double t0 = now(), c0 = cpu();
        for (int i = 0; i < repeat; i++)
            if (run(path, full, &bytes, &events, &sink) < 0)
                return 1;
        double dt = now() - t0, dc = cpu() - c0;
        printf("%-7s %8.1f MB/s  %6.2f M events/s per CPU second; wall %8.1f MB/s "
               "(%d x %.1f MB, %llu events, %.3f s wall, %.3f s CPU)\n",
               full ? "full" : "inspect", (double)bytes / dc / 1e6, (double)events / dc / 1e6,
               (double)bytes / dt / 1e6, repeat, (double)bytes / repeat / 1e6,
               (unsigned long long)(events / (uint64_t)repeat), dt, dc);
        if (full)
            printf(
                "full    %llu frames walked, %llu distinct addresses symbolized (%llu unresolved)\n",
                (unsigned long long)last_frames, (unsigned long long)last_symbolized,
                (unsigned long long)last_unresolved);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB (sink %llu)\n", (double)ru.ru_maxrss / 1024.0,
           (unsigned long long)(sink & 0xff));
    return 0;
}
