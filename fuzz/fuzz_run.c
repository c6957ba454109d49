/* libFuzzer target: the path `perfpipe run` takes, in-process. One binary
 * per input kind (FUZZ_RUN_KIND, set by fuzz/Makefile.inc):
 *
 *   nettrace  the input as a .nettrace file, read by alloc, cpu, db and gc, and
 *             the same file again as a counters input (the Metrics events
 *             of `collect --counters`) read by counters-csv; then by alloc
 *             and gc with --jobs 1 and, split at every sequence point, 2
 *             (core/engine/engine_par.c): the same document, warnings and error,
 *             or an abort;
 *   gcdump    the input read by gcdump and, as both of its sides, by
 *             gcdump-diff;
 *   counters  the input (CSV or JSON, sniffed) read by counters-csv;
 *   spans     the input read by spans;
 *   bench     the input (BenchmarkDotNet CSV or JSON) read by bench;
 *   load      the input (any load tool's output) read by load;
 *   packed    the input as a compressed trace (xz, gzip or zstd: core/input/unpack.c
 *             decompresses it through a pipe as the engine reads), read by
 *             alloc, cpu and gc;
 *   pipeline  the input is the pipeline YAML; its ${VARS} name small
 *             fixtures of every kind; when it checks against the shipped
 *             analyzers and reads only those fixtures, it runs.
 *
 * Each run goes through pp_pipeline_load_string, pp_pipeline_check with the
 * build tree's plugin loader (the shipped .so analyzers, dlopen'ed once),
 * pp_run_pipeline without isolation (the engine, the sources and their
 * hooks: the gcdump source keeping the engine's hooks struct is exactly the
 * kind of bug only this path reaches: with the engine's hooks on its stack,
 * a 90-second run from the gcdump fixtures finds the stack-use-after-scope),
 * pp_result_validate, and the JSON renderer plus one more picked by the
 * input's size into /dev/null. The engine's contracts are checked: no document
 * beside an input error, a document that validates.
 *
 * A run is a function of its input (hermetic(), below): what the caller's
 * environment or this machine's disk holds does not change what it reads.
 *
 * PP_FUZZ_PLUGIN_DIR overrides the plugin directory (default: the build
 * tree's plugins/.libs beside this program's directory); PP_FUZZ_SRCDIR the
 * source tree the pipeline target takes its fixtures from, and every target
 * its symbol files; PP_FUZZ_VERBOSE prints each run's outcome (to see that
 * seeds reach the stages). */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>

#include "engine/engine.h"
#include "loader/loader.h"
#include "pipeline/pipeline.h"
#include "result/formats.h"
#include "result/result.h"
#include "run/run.h"

#ifndef FUZZ_RUN_KIND
#error FUZZ_RUN_KIND must name the input kind
#endif
#ifndef PP_FUZZ_SRCDIR
#define PP_FUZZ_SRCDIR "."
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static pp_loader *loader;
static pp_pipeline *fixed;   /* the data kinds: loaded and checked once */
static pp_pipeline *split;   /* nettrace: alloc and gc, read serially and split */
static char warned[2][8192]; /* split: the warnings of each read, in order */
static size_t nwarned[2];
static int reading; /* which of the two reads runs */
static FILE *sink;
static int verbose;   /* PP_FUZZ_VERBOSE=1: each run's outcome on stderr */
static int no_render; /* PP_FUZZ_NO_RENDER=1: stop after validating */
static char dir[PATH_MAX];
static char input[PATH_MAX];

/* Fixtures for the pipeline target: variable name, file under the source
 * tree. Small, so a run costs little; one per kind the shipped pipelines
 * read. */
static const struct {
    const char *var, *file;
} fixtures[] = {
    { "TRACE", "tests/data/run-wrapper-gcverbose.nettrace" },
    { "GCDUMP", "tests/gcdump/small.gcdump" },
    { "BASELINE", "tests/gcdump/small.gcdump" },
    { "CANDIDATE", "tests/gcdump/sampled.gcdump" },
    { "COUNTERS", "tests/counters/threadpool-queue.csv" },
    { "SPANS", "tests/spans/otlp-enums.json" },
    { "RESULTS", "tests/data/bench-alloc.report.csv" },
};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])
static char fixture_path[NFIXTURES][PATH_MAX];
static pp_pipeline_kv sets[NFIXTURES + 1];

/* The symbol directory every run searches (PERFPIPE_SYMBOL_PATH): in-tree
 * files under the names the seed traces' application module asks for, so
 * the assembly and PDB readers run by path on every trace naming Workload
 * (the trace's own id refuses the PDB unless a mutation matches it or drops
 * it: then the assembly's id is wanted, Lines.pdb's, and lines are looked up). */
static const struct {
    const char *name, *file;
} symbol_files[] = {
    { "Workload.dll", "tests/data/pdb/portable/Lines.dll" }, /* its CodeView names Lines.pdb */
    { "Lines.pdb", "tests/data/pdb/portable/Lines.pdb" },
};
#define NSYMBOLS (sizeof symbol_files / sizeof symbol_files[0])
static char symdir[PATH_MAX + 8];

static const pp_analyzer *
lookup(void *user, const char *name, pp_error *err)
{
    return pp_loader_get(user, name, err);
}

static void
on_warning(void *user, const char *in, const char *message)
{
    (void)user;
    /* Touch both strings: a dangling one is an ASan report here. */
    if (strlen(in) + strlen(message) == SIZE_MAX)
        abort();
    if (split != NULL) {
        size_t left = sizeof warned[0] - nwarned[reading];
        int n = snprintf(warned[reading] + nwarned[reading], left, "%s\n", message);
        nwarned[reading] += n > 0 && (size_t)n < left ? (size_t)n : 0;
    }
}

static void
on_log(void *user, int level, const char *message)
{
    (void)user;
    (void)level;
    if (strlen(message) == SIZE_MAX)
        abort();
}

static void
fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_run: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* The pipeline the data kinds run: every shipped analyzer of the kind. */
static char *
pipeline_text(const char *kind, const char *path)
{
    char *t = NULL;
    int n = -1;

    if (strcmp(kind, "nettrace") == 0)
        n = asprintf(&t,
                     "version: 1\nname: fuzz-nettrace\n"
                     "inputs:\n  trace: { kind: nettrace, path: \"%s\" }\n"
                     "  metrics: { kind: counters, path: \"%s\" }\n"
                     "stages:\n  - { id: alloc, analyzer: alloc, input: trace }\n"
                     "  - { id: cpu, analyzer: cpu, input: trace }\n"
                     "  - { id: db, analyzer: db, input: trace }\n"
                     "  - { id: gc, analyzer: gc, input: trace }\n"
                     "  - { id: counters, analyzer: counters-csv, input: metrics }\n",
                     path, path);
    else if (strcmp(kind, "packed") == 0)
        n = asprintf(&t,
                     "version: 1\nname: fuzz-packed\n"
                     "inputs:\n  trace: { kind: nettrace, path: \"%s\" }\n"
                     "stages:\n  - { id: alloc, analyzer: alloc, input: trace }\n"
                     "  - { id: cpu, analyzer: cpu, input: trace }\n"
                     "  - { id: gc, analyzer: gc, input: trace }\n",
                     path);
    else if (strcmp(kind, "gcdump") == 0)
        n = asprintf(&t,
                     "version: 1\nname: fuzz-gcdump\n"
                     "inputs:\n  heap: { kind: gcdump, path: \"%s\" }\n"
                     "  again: { kind: gcdump, path: \"%s\" }\n"
                     "stages:\n  - { id: gcdump, analyzer: gcdump, input: heap }\n"
                     "  - { id: diff, analyzer: gcdump-diff, inputs: [heap, again] }\n",
                     path, path);
    else if (strcmp(kind, "counters") == 0)
        n = asprintf(&t,
                     "version: 1\nname: fuzz-counters\n"
                     "inputs:\n  counters: { kind: counters, path: \"%s\" }\n"
                     "stages:\n  - { id: counters, analyzer: counters-csv, input: counters }\n",
                     path);
    else if (strcmp(kind, "spans") == 0)
        n = asprintf(&t,
                     "version: 1\nname: fuzz-spans\n"
                     "inputs:\n  spans: { kind: spans, path: \"%s\" }\n"
                     "stages:\n  - { id: spans, analyzer: spans, input: spans }\n",
                     path);
    else if (strcmp(kind, "bench") == 0)
        n = asprintf(&t,
                     "version: 1\nname: fuzz-bench\n"
                     "inputs:\n  results: { kind: bench, path: \"%s\" }\n"
                     "stages:\n  - { id: bench, analyzer: bench, input: results }\n",
                     path);
    else if (strcmp(kind, "load") == 0)
        n = asprintf(&t,
                     "version: 1\nname: fuzz-load\n"
                     "inputs:\n  results: { kind: load, path: \"%s\" }\n"
                     "stages:\n  - { id: load, analyzer: load, input: results }\n",
                     path);
    return n < 0 ? NULL : t;
}

static const char *
extension(const char *kind)
{
    if (strcmp(kind, "nettrace") == 0)
        return ".nettrace"; /* the counters input then reads its Metrics events */
    if (strcmp(kind, "packed") == 0)
        return ".nettrace.xz"; /* the format is sniffed, whatever the name says */
    if (strcmp(kind, "gcdump") == 0)
        return ".gcdump";
    return strcmp(kind, "counters") == 0 || strcmp(kind, "spans") == 0 ? ".json" : ".txt";
}

static void
load_plugins(char **argv)
{
    const char *pd = getenv("PP_FUZZ_PLUGIN_DIR");
    char exe[PATH_MAX], buf[PATH_MAX + 32];
    pp_error err = PP_ERROR_INIT;
    ssize_t n;

    if (pd == NULL) {
        n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        if (n <= 0)
            snprintf(exe, sizeof exe, "%s", argv[0]);
        else
            exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash != NULL)
            *slash = '\0';
        else
            snprintf(exe, sizeof exe, ".");
        snprintf(buf, sizeof buf, "%s/../plugins/.libs", exe);
        pd = buf;
    }
    loader = pp_loader_new();
    if (loader == NULL || pp_loader_add_dir(loader, pd, &err) != PP_OK)
        fail("cannot use the plugin directory (set PP_FUZZ_PLUGIN_DIR)", err.message);
}

static void
cleanup(void)
{
    char link[PATH_MAX + 80];

    if (input[0] != '\0')
        unlink(input);
    for (size_t i = 0; symdir[0] != '\0' && i < NSYMBOLS; i++) {
        snprintf(link, sizeof link, "%s/%s", symdir, symbol_files[i].name);
        unlink(link);
    }
    if (symdir[0] != '\0')
        rmdir(symdir);
    if (dir[0] != '\0')
        rmdir(dir);
}

/* What the run may read besides its input: no PERFPIPE_ variable of the
 * caller (PERFPIPE_JOBS, PERFPIPE_NETTRACE_MMAP, a symbol path, a rules
 * path...) nor NUGET_PACKAGES (which classes a module); no user's rule
 * files (HOME and XDG_CONFIG_HOME: the empty temporary directory); times in
 * UTC; never the files a trace names, which exist on one machine and not on
 * another (PERFPIPE_BUILD_CHECK=off: last session's CI abort of
 * fuzz_run_nettrace could not be replayed here); as symbol path only
 * symdir, links to fixed files of the source tree. */
static void
hermetic(const char *src)
{
    char name[256], target[PATH_MAX + 64], link[PATH_MAX + 80];
    int again = 1;

    while (again) { /* unsetenv moves environ: start over after each */
        again = 0;
        for (char **e = environ; *e != NULL && !again; e++) {
            size_t n = strcspn(*e, "=");

            if (strncmp(*e, "PERFPIPE_", 9) == 0 && n < sizeof name) {
                snprintf(name, sizeof name, "%.*s", (int)n, *e);
                again = unsetenv(name) == 0;
            }
        }
    }
    unsetenv("NUGET_PACKAGES");
    snprintf(symdir, sizeof symdir, "%s/symbols", dir);
    if (mkdir(symdir, 0700) != 0)
        fail("cannot create", symdir);
    for (size_t i = 0; i < NSYMBOLS; i++) {
        snprintf(target, sizeof target, "%s/%s", src, symbol_files[i].file);
        snprintf(link, sizeof link, "%s/%s", symdir, symbol_files[i].name);
        if (access(target, R_OK) != 0)
            fail("missing symbol file (set PP_FUZZ_SRCDIR)", target);
        if (symlink(target, link) != 0)
            fail("cannot link", link);
    }
    setenv("PERFPIPE_BUILD_CHECK", "off", 1);
    setenv("PERFPIPE_SYMBOL_PATH", symdir, 1);
    setenv("HOME", dir, 1);
    setenv("XDG_CONFIG_HOME", dir, 1);
    setenv("TZ", "UTC", 1);
    tzset();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *kind = FUZZ_RUN_KIND;
    const char *tmp = getenv("TMPDIR");
    pp_error err = PP_ERROR_INIT;

    (void)argc;
    verbose = getenv("PP_FUZZ_VERBOSE") != NULL;
    no_render = getenv("PP_FUZZ_NO_RENDER") != NULL;
    load_plugins(*argv);
    if ((sink = fopen("/dev/null", "w")) == NULL)
        fail("cannot open /dev/null", NULL);
    snprintf(dir, sizeof dir, "%s/pp-fuzz-run-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(dir) == NULL)
        fail("mkdtemp", dir);
    atexit(cleanup);
    const char *src = getenv("PP_FUZZ_SRCDIR");
    if (src == NULL || src[0] == '\0')
        src = PP_FUZZ_SRCDIR;
    hermetic(src);
    if (strcmp(kind, "pipeline") == 0) {
        for (size_t i = 0; i < NFIXTURES; i++) {
            snprintf(fixture_path[i], sizeof fixture_path[i], "%s/%s", src, fixtures[i].file);
            if (access(fixture_path[i], R_OK) != 0)
                fail("missing fixture (set PP_FUZZ_SRCDIR)", fixture_path[i]);
            sets[i].key = fixtures[i].var;
            sets[i].value = fixture_path[i];
        }
        return 0;
    }
    snprintf(input, sizeof input, "%s/input%s", dir, extension(kind));
    int fd = open(input, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        fail("cannot create", input);
    close(fd);
    char *text = pipeline_text(kind, input);
    if (text == NULL)
        fail("unknown FUZZ_RUN_KIND", kind);
    if (pp_pipeline_load_string("fuzz.yaml", text, strlen(text), NULL, &fixed, &err) != PP_OK ||
        pp_pipeline_check(fixed, lookup, loader, &err) != PP_OK)
        fail("the target's own pipeline does not check", err.message);
    free(text);
    if (strcmp(kind, "nettrace") == 0) {
        if (asprintf(&text,
                     "version: 1\nname: fuzz-split\n"
                     "inputs:\n  trace: { kind: nettrace, path: \"%s\" }\n"
                     "stages:\n  - { id: alloc, analyzer: alloc, input: trace,"
                     " options: { top: 0, top-stacks: 0 } }\n"
                     "  - { id: gc, analyzer: gc, input: trace }\n",
                     input) < 0)
            fail("out of memory", NULL);
        if (pp_pipeline_load_string("split.yaml", text, strlen(text), NULL, &split, &err) !=
                PP_OK ||
            pp_pipeline_check(split, lookup, loader, &err) != PP_OK)
            fail("the split pipeline does not check", err.message);
        free(text);
        setenv("PERFPIPE_INSPECT_SPLIT", "every", 1); /* a region per point, any size */
    }
    return 0;
}

/* alloc and gc, --jobs 1 then 2: what the second read says must be what
 * the first said, byte for byte (plugin.h: merge equals a serial read). */
static void
same_split(void)
{
    char *text[2] = { NULL, NULL };
    pp_error err[2] = { PP_ERROR_INIT, PP_ERROR_INIT };
    int rc[2];

    for (reading = 0; reading < 2; reading++) {
        pp_run_hooks hooks = { .warning = on_warning, .log = on_log, .jobs = reading == 0 ? 1 : 2 };
        json_t *doc = NULL;

        nwarned[reading] = 0;
        warned[reading][0] = '\0';
        rc[reading] = pp_run_pipeline(split, &hooks, &doc, &err[reading]);
        text[reading] = doc ? json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(doc);
    }
    reading = 0;
    if (rc[0] != rc[1] || strcmp(err[0].message, err[1].message) != 0)
        fail("split: another status or error than serial", err[1].message);
    if ((text[0] == NULL) != (text[1] == NULL) || (text[0] && strcmp(text[0], text[1]) != 0))
        fail("split: another document than serial", NULL);
    if (strcmp(warned[0], warned[1]) != 0)
        fail("split: other warnings than serial", warned[1]);
    free(text[0]);
    free(text[1]);
}

/* Run a checked pipeline the way `perfpipe run --no-isolate` does and hold
 * the engine to its contracts. */
static void
run(const pp_pipeline *p, size_t size)
{
    pp_run_hooks hooks = { .warning = on_warning, .log = on_log };
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL;
    int rc = pp_run_pipeline(p, &hooks, &doc, &err);

    if (verbose) {
        size_t i;
        json_t *st;

        fprintf(stderr, "fuzz_run: rc %d%s%s\n", rc, err.message[0] ? ": " : "", err.message);
        json_array_foreach(json_object_get(doc, "stages"), i, st)
            fprintf(stderr, "fuzz_run: stage %s: %s, %zu tables\n",
                    json_string_value(json_object_get(st, "id")),
                    json_string_value(json_object_get(st, "status")),
                    json_array_size(json_object_get(st, "tables")));
    }
    if (rc != PP_OK && rc != PP_EPLUGIN) {
        if (doc != NULL)
            fail("a document beside an input error", err.message);
        if (err.message[0] == '\0')
            fail("an input error without a message", NULL);
        return;
    }
    if (doc == NULL)
        fail("no document and no error", NULL);
    if (pp_result_validate(doc, &err) != PP_OK)
        fail("the result document does not validate", err.message);
    /* JSON always, one other renderer picked by the input's size: all
     * of them on every run would cost a third of the time for little. */
    for (size_t i = 0; !no_render && i < 2; i++) {
        pp_error rerr = PP_ERROR_INIT;
        size_t nformats = 0;

        while (pp_output_formats[nformats].name != NULL)
            nformats++;
        (void)pp_render(doc, i == 0 ? "json" : pp_output_formats[size % nformats].name, sink,
                        &rerr);
    }
    fflush(sink);
    json_decref(doc);
}

/* The pipeline target runs only what reads the fixtures: a mutated path
 * could name a device or a FIFO, which is not this target's subject. */
static int
reads_only_fixtures(const pp_pipeline *p)
{
    for (uint32_t i = 0; i < p->input_count; i++) {
        size_t k = 0;

        while (k < NFIXTURES && strcmp(p->inputs[i].path, fixture_path[k]) != 0)
            k++;
        if (k == NFIXTURES)
            return 0;
    }
    return 1;
}

static void
run_yaml(const uint8_t *data, size_t size)
{
    pp_pipeline_vars vars = { sets, NFIXTURES, NULL, 0, NULL, 0, "2026-01-01", 0 };
    pp_error err = PP_ERROR_INIT;
    pp_pipeline *p = NULL;

    if (pp_pipeline_load_string("fuzz.yaml", (const char *)data, size, &vars, &p, &err) != PP_OK)
        return;
    if (pp_pipeline_check(p, lookup, loader, &err) == PP_OK && reads_only_fixtures(p))
        run(p, size);
    pp_pipeline_free(p);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (fixed == NULL) {
        run_yaml(data, size);
        return 0;
    }
    int fd = open(input, O_WRONLY | O_TRUNC);
    if (fd < 0)
        fail("cannot rewrite", input);
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            fail("cannot write", input);
        done += (size_t)w;
    }
    close(fd);
    run(fixed, size);
    if (split != NULL)
        same_split();
    return 0;
}
