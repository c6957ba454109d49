/* The L1 step of a candidate's verification plan (candidates_bench.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "candidates_bench.h"

static int
covers(const char *list, const char *target)
{
    char item[256];
    const char *p = list;

    while (*p != '\0') {
        size_t n = strcspn(p, ",");

        while (n > 0 && *p == ' ') {
            p++;
            n--;
        }
        if (n > 0 && n < sizeof item) {
            memcpy(item, p, n);
            item[n] = '\0';
            if (strstr(target, item) != NULL)
                return 1;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

void
pp_candidates_bench_plan(const json_t *knobs, const char *axis, const char *target, char *buf,
                         size_t size)
{
    const char *bench = json_string_value(json_object_get(knobs, "benchmark"));
    const char *list = json_string_value(json_object_get(knobs, "benchmark_covers"));
    const char *verdict;
    size_t used = strlen(buf);

    if (bench == NULL || bench[0] == '\0' || axis == NULL || target == NULL)
        return;
    if (list != NULL && list[0] != '\0' && !covers(list, target))
        return;
    if (strncmp(axis, "allocation", 10) == 0)
        verdict = "confirmed when its allocated bytes/op falls (exact: a structural verdict)";
    else if (strncmp(axis, "time", 4) == 0)
        verdict = "confirmed when compare calls its time 'faster' (Welch's t-test on the "
                  "iterations; use the default job, not a ShortRun)";
    else
        return; /* footprint: a benchmark's bytes/op do not show what is kept alive */
    if (used + 1 < size)
        snprintf(buf + used, size - used,
                 "; then L1: rerun benchmark %s (BenchmarkDotNet with "
                 "JsonExporter.Full, `perfpipe bench RESULTS -o after.json`, `perfpipe compare "
                 "before.json after.json`): %s",
                 bench, verdict);
}
