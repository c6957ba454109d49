/* Test helper: every distinct code address on the SampleProfiler stacks of
 * a trace, with how many sampled frames hold it, the name perfpipe gives it
 * (with FILE.maps beside the trace when present) and the name the module
 * map alone gives it, ignoring the trace's method events ("-" when the map
 * names nothing there). One line each, TAB-separated:
 *     IP_HEX FRAMES NAME MAP_NAME
 * Used by test-native.sh to measure coverage, to check ELF names with nm
 * and ReadyToRun names against the runtime's own method events.
 *
 *     native-names --name FILE.maps IP_HEX...
 * names each address from the module map alone, one "IP_HEX NAME" a line. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/perfpipe.h>
#include "native/native.h"

typedef struct ipw {
    uint64_t ip, n;
} ipw;

static int
cmp(const void *a, const void *b)
{
    const ipw *x = a, *y = b;
    return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static int
name_addresses(const char *maps_path, char **ips, int n)
{
    pp_native_maps maps;
    pp_native_syms *syms;
    pp_error err = PP_ERROR_INIT;
    if (pp_native_maps_load(maps_path, &maps, &err) != PP_OK) {
        fprintf(stderr, "native-names: %s\n", err.message);
        return 3;
    }
    if (pp_native_syms_new(&maps, &syms) != PP_OK)
        return 7;
    for (int i = 0; i < n; i++) {
        char nat[512];
        uint64_t ip = strtoull(ips[i], NULL, 16);
        if (!pp_native_syms_name(syms, ip, nat, sizeof nat))
            strcpy(nat, "-");
        printf("%" PRIx64 " %s\n", ip, nat);
    }
    pp_native_syms_free(syms);
    return 0;
}

int
main(int argc, char **argv)
{
    pp_trace_source *t;
    pp_error err = PP_ERROR_INIT;
    const pp_trace_event *ev;
    int rc;
    if (argc >= 3 && strcmp(argv[1], "--name") == 0)
        return name_addresses(argv[2], argv + 3, argc - 3);
    if (argc != 2) {
        fprintf(stderr,
                "usage: native-names FILE.nettrace | native-names --name FILE.maps IP...\n");
        return 2;
    }
    if (pp_nettrace_open(argv[1], &t, &err) != PP_OK) {
        fprintf(stderr, "native-names: %s\n", err.message);
        return 3;
    }
    size_t plen = strlen(argv[1]);
    char *mp = malloc(plen + 6);
    pp_native_maps maps;
    pp_native_syms *syms = NULL;
    if (!mp)
        return 7;
    snprintf(mp, plen + 6, "%s.maps", argv[1]);
    if (pp_native_maps_load(mp, &maps, NULL) == PP_OK && pp_native_syms_new(&maps, &syms) != PP_OK)
        return 7;
    free(mp);
    ipw *v = NULL;
    size_t n = 0, cap = 0;
    while ((rc = pp_nettrace_next(t, &ev, &err)) == 1) {
        if (ev->provider_known != PP_PROVIDER_SAMPLE_PROFILER)
            continue;
        for (uint32_t i = 0; i < ev->stack_depth; i++) {
            if (n == cap) {
                cap = cap ? cap * 2 : 4096;
                v = realloc(v, cap * sizeof *v);
                if (!v)
                    return 7;
            }
            v[n++] = (ipw){ ev->stack[i], 1 };
        }
    }
    if (rc < 0) {
        fprintf(stderr, "native-names: %s\n", err.message);
        return 3;
    }
    qsort(v, n, sizeof *v, cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].ip == v[i].ip)
            j++;
        char nat[512] = "-";
        if (syms && !pp_native_syms_name(syms, v[i].ip, nat, sizeof nat))
            strcpy(nat, "-");
        printf("%" PRIx64 "\t%zu\t%s\t%s\n", v[i].ip, j - i, pp_nettrace_symbolize(t, v[i].ip, 0),
               nat);
        i = j;
    }
    free(v);
    pp_native_syms_free(syms);
    pp_nettrace_close(t);
    return 0;
}
