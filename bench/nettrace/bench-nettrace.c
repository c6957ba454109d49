/* bench-nettrace: throughput and peak memory of the nettrace reader.
 * Usage: bench-nettrace FILE [REPEAT]
 *   inspect : read every event header (what `perfpipe inspect` does)
 *   full    : also decode a payload field per event, walk every stack and
 *             symbolize every frame (after the read, as analyzers do)
 * Prints MB/s, events/s and peak RSS. Figures go to bench/RESULTS.md. */
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
    enum { SET = 1 << 20 };
    static uint64_t set[SET];
    memset(set, 0, sizeof set);
    while ((rc = pp_nettrace_next(t, &ev, &err)) == 1) {
        *sink += ev->payload_size + ev->thread_id;
        if (full) {
            pp_value v;
            for (uint32_t f = 0; pp_nettrace_field_at(ev, f, &v) == 0; f++)
                *sink += v.size;
            for (uint32_t i = 0; i < ev->stack_depth; i++) {
                uint64_t ip = ev->stack[i];
                size_t h = (size_t)((ip * UINT64_C(0x9E3779B97F4A7C15)) >> 44) & (SET - 1);
                while (set[h] && set[h] != ip)
                    h = (h + 1) & (SET - 1);
                set[h] = ip;
                frames++;
            }
        }
    }
    if (rc < 0) {
        fprintf(stderr, "bench-nettrace: %s\n", err.message);
        pp_nettrace_close(t);
        return -1;
    }
    if (full)
        for (size_t i = 0; i < SET; i++)
            if (set[i])
                *sink += strlen(pp_nettrace_symbolize(t, set[i], PP_SYM_SIGNATURE));
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_stats_get(t, &st);
    *bytes += st.bytes;
    *events += st.events;
    (void)frames;
    pp_nettrace_close(t);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench-nettrace FILE [REPEAT]\n");
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 20;
    uint64_t sink = 0;
    for (int full = 0; full <= 1; full++) {
        uint64_t bytes = 0, events = 0;
        if (run(argv[1], full, &bytes, &events, &sink) < 0)   /* warm the cache */
            return 1;
        bytes = events = 0;
        double t0 = now(), c0 = cpu();
        for (int i = 0; i < repeat; i++)
            if (run(argv[1], full, &bytes, &events, &sink) < 0)
                return 1;
        double dt = now() - t0, dc = cpu() - c0;
        printf("%-7s %8.1f MB/s  %6.2f M events/s per CPU second; wall %8.1f MB/s "
               "(%d x %.1f MB, %.3f s wall, %.3f s CPU)\n",
               full ? "full" : "inspect", (double)bytes / dc / 1e6, (double)events / dc / 1e6,
               (double)bytes / dt / 1e6, repeat, (double)bytes / repeat / 1e6, dt, dc);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak RSS %.1f MB (sink %llu)\n", (double)ru.ru_maxrss / 1024.0,
           (unsigned long long)(sink & 0xff));
    return 0;
}
