/* The input kind registry (kinds.h): the readers' table. */
#include "config.h"

#include <string.h>

#include "registry/kinds.h"

/* tests/registry adds a dummy row here to prove the rows are the only list
 * (it compiles this file with -include tests/registry/extra.h). */
#ifndef PP_REGISTRY_EXTRA_KINDS
#define PP_REGISTRY_EXTRA_KINDS
#endif

const pp_input_kind pp_input_kinds[] = {
    { &pp_nettrace_source_ops, ".nettrace", "a nettrace trace (dotnet-trace)" },
    { &pp_gcdump_source_ops, ".gcdump", "a gcdump heap snapshot (dotnet-gcdump)" },
    { &pp_counters_source_ops, ".csv .json", "dotnet-counters samples (CSV or JSON)" },
    { &pp_spans_source_ops, ".json .ndjson", "OpenTelemetry spans (OTLP/JSON)" },
    { &pp_bdn_source_ops, "", "a BenchmarkDotNet export (JsonExporter.Full, CSV)" },
    { &pp_load_source_ops, "", "a load tool's result (wrk, hey, k6, bombardier, vegeta)" },
    PP_REGISTRY_EXTRA_KINDS{ NULL, NULL, NULL },
};

const pp_input_kind *
pp_input_kind_named(const char *name)
{
    if (name == NULL)
        return NULL;
    for (const pp_input_kind *k = pp_input_kinds; k->reader != NULL; k++)
        if (strcmp(k->reader->kind, name) == 0)
            return k;
    return NULL;
}

const pp_input_kind *
pp_input_kind_of_bits(uint32_t bits)
{
    const pp_input_kind *best = NULL;

    for (const pp_input_kind *k = pp_input_kinds; k->reader != NULL; k++)
        if ((bits & k->reader->kind_bit) &&
            (best == NULL || k->reader->kind_bit < best->reader->kind_bit))
            best = k;
    return best;
}

uint32_t
pp_input_kinds_all(void)
{
    uint32_t all = 0;

    for (const pp_input_kind *k = pp_input_kinds; k->reader != NULL; k++)
        all |= k->reader->kind_bit;
    return all;
}

size_t
pp_input_kind_names(uint32_t bits, const char **names, size_t max)
{
    size_t n = 0;

    if (max == 0)
        return 0;
    for (const pp_input_kind *k = pp_input_kinds; k->reader != NULL && n + 1 < max; k++)
        if (bits & k->reader->kind_bit)
            names[n++] = k->reader->kind;
    names[n] = NULL;
    return n;
}

int
pp_input_kind_ending_matches(const pp_input_kind *k, const char *path)
{
    size_t len = path ? strlen(path) : 0;
    const char *e = k->endings;

    while (e != NULL && *e != '\0') {
        size_t n = strcspn(e, " ");
        if (n > 0 && len > n && strncmp(path + len - n, e, n) == 0)
            return 1;
        e += n;
        e += strspn(e, " ");
    }
    return 0;
}
