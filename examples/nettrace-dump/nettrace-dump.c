/* nettrace-dump: print the events of a .nettrace file, one per line, using
 * only the public API (perfpipe/nettrace.h). Usage: nettrace-dump FILE [N]
 * prints the first N events (default 20), then the per-run facts. */
#include <stdio.h>
#include <stdlib.h>

#include <perfpipe/nettrace.h>

int
main(int argc, char **argv)
{
    pp_trace_source *t;
    const pp_trace_event *ev;
    pp_error err = PP_ERROR_INIT;
    long limit = argc > 2 ? atol(argv[2]) : 20;
    int rc;

    if (argc < 2) {
        fprintf(stderr, "usage: nettrace-dump FILE [N]\n");
        return 2;
    }
    if (pp_nettrace_open(argv[1], &t, &err) < 0) {
        fprintf(stderr, "nettrace-dump: %s\n", err.message);
        return 1;
    }
    long n = 0;
    while ((rc = pp_nettrace_next(t, &ev, &err)) == 1) {
        if (n++ >= limit)
            continue;
        printf("%.3f ms  %s/%u v%u %s  tid=%llu pid=%u payload=%u stack=%u", ev->time_ns / 1e6,
               ev->provider, ev->event_id, ev->version, ev->name, (unsigned long long)ev->thread_id,
               ev->process_id, ev->payload_size, ev->stack_depth);
        if (ev->stack_depth)
            printf(" leaf=0x%llx", (unsigned long long)ev->stack[0]);
        putchar('\n');
    }
    if (rc < 0) {
        fprintf(stderr, "nettrace-dump: %s\n", err.message);
        pp_nettrace_close(t);
        return 1;
    }
    pp_trace_info info = { .struct_size = sizeof info };
    pp_nettrace_stats st = { .struct_size = sizeof st };
    pp_nettrace_info(t, &info);
    pp_nettrace_stats_get(t, &st);
    printf("format V%u, pointer size %u, pid %u, %llu events, %llu stacks, %llu methods, "
           "%llu dropped%s\n",
           info.format_version, info.pointer_size, info.process_id, (unsigned long long)st.events,
           (unsigned long long)st.stacks, (unsigned long long)st.methods,
           (unsigned long long)st.dropped_events, st.truncated ? ", truncated" : "");
    pp_nettrace_close(t);
    return 0;
}
