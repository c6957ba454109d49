/* What kind of input a file really is, for the message when a reader
 * refuses it (source.h: pp_source_wrong_kind). Only a confident look at
 * the first bytes: a file it cannot place keeps the reader's own message. */
#define _GNU_SOURCE 1 /* memmem */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "source.h"

#define SNIFF_BYTES 4096

typedef struct found_kind {
    const pp_source_ops *reader; /* the input kind's reader (its .kind), or NULL */
    const char *what;            /* for people */
    const char *use;             /* what reads it */
} found_kind;

static const found_kind kinds[] = {
    { &pp_nettrace_source_ops, "a nettrace trace (dotnet-trace)",
      "`perfpipe alloc`, `cpu` or `db` read it (kind nettrace; `counters-csv` reads its "
      "counters)" },
    { NULL, "a NetPerf trace (EventPipe V1-V3, .NET Core 2.x)",
      "no analyzer reads it: convert it to nettrace with PerfView" },
    { &pp_gcdump_source_ops, "a gcdump heap snapshot (dotnet-gcdump)",
      "`perfpipe gcdump FILE` or `gcdump-diff BEFORE AFTER` read it (kind gcdump)" },
    { &pp_counters_source_ops, "a counters CSV (dotnet-counters --format csv)",
      "`perfpipe counters-csv` reads it (kind counters)" },
    { &pp_counters_source_ops, "a counters JSON (dotnet-counters --format json)",
      "`perfpipe counters-csv` reads it (kind counters)" },
    { &pp_spans_source_ops, "a spans JSON (OpenTelemetry OTLP export)",
      "`perfpipe spans` reads it (kind spans)" },
    { &pp_bdn_source_ops, "a BenchmarkDotNet export", "`perfpipe bench` reads it (kind bench)" },
    { &pp_load_source_ops, "a load-test result (wrk, hey, k6, bombardier or vegeta output)",
      "`perfpipe load` reads it (kind load)" },
};

static int
has(const char *buf, size_t n, const char *needle)
{
    return memmem(buf, n, needle, strlen(needle)) != NULL;
}

/* Index into kinds[] for the first n bytes of a file, or -1. */
static int
classify(const char *b, size_t n)
{
    size_t i = 0;

    if (n >= 8 && memcmp(b, "Nettrace", 8) == 0)
        return 0;
    if (n >= 24 && memcmp(b, "\x14\0\0\0!FastSerialization.1", 24) == 0) {
        if (has(b, n < 256 ? n : 256, "GCHeapDump"))
            return 2;
        if (has(b, n < 256 ? n : 256, "EventPipeFile"))
            return 1;
        return -1;
    }
    if (n >= 15 && memcmp(b, "Timestamp,Provider,Counter Name", n < 31 ? n : 31) == 0)
        return 3;
    if (has(b, n, "BenchmarkDotNet") || (n >= 7 && memcmp(b, "Method,", 7) == 0))
        return 6;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
        i++;
    if ((n - i >= 8 && memcmp(b + i, "Running ", 8) == 0 && has(b, n, " test @ ")) ||
        (n - i >= 8 && memcmp(b + i, "Summary:", 8) == 0 && has(b, n, "Requests/sec:")) ||
        (n - i >= 25 && memcmp(b + i, "response-time,DNS+dialup,", 25) == 0) ||
        (n - i >= 8 && memcmp(b + i, "{\"type\":", 8) == 0 && has(b, n, "\"metric\":")))
        return 7;
    if (i < n && b[i] == '{') {
        if (has(b, n, "\"http_req_duration\"") || has(b, n, "\"req2xx\"") ||
            (has(b, n, "\"latencies\"") && has(b, n, "\"status_codes\"")) ||
            has(b, n, "\"latency_us\""))
            return 7;
        if (has(b, n, "\"resourceSpans\""))
            return 5;
        if (has(b, n, "\"TargetProcess\"") && has(b, n, "\"Events\""))
            return 4;
    }
    return -1;
}

void
pp_source_wrong_kind(const char *kind, const char *path, pp_error *err)
{
    char buf[SNIFF_BYTES];
    struct stat st;
    ssize_t n;
    int fd, k;

    if (err == NULL || path == NULL || strcmp(path, "-") == 0)
        return;
    /* Only a regular file: a FIFO or a device must not lose bytes here. */
    if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
        return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    n = read(fd, buf, sizeof buf);
    close(fd);
    if (n <= 0 || (k = classify(buf, (size_t)n)) < 0 ||
        (kinds[k].reader != NULL && strcmp(kinds[k].reader->kind, kind) == 0))
        return;
    /* A counters input may be a `collect --counters` trace (source.h). */
    if (strcmp(kind, pp_counters_source_ops.kind) == 0 &&
        kinds[k].reader == &pp_nettrace_source_ops)
        return;
    pp_error_set(err, PP_EFORMAT, "%s: this is %s, not an input of kind %s: %s", path,
                 kinds[k].what, kind, kinds[k].use);
    err->offset = 0;
}
