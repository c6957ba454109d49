/* `perfpipe inspect TRACE` and `perfpipe render RESULT.json`: print a
 * document without running an analyzer. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "nettrace/inspect.h"
#include "result/result.h"
#include "input/source.h"
#include "input/unpack.h"

static int
parse(int argc, char **argv, const char *usage, const char **format, const char **output,
      const char **table, const char **file, unsigned *jobs)
{
    static const struct option opts[] = {
        { "format", required_argument, NULL, 'f' },
        { "output", required_argument, NULL, 'o' },
        { "table", required_argument, NULL, 'b' },
        { "jobs", required_argument, NULL, 'j' },
        { "force", no_argument, NULL, 0x101 },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!pp_cli_format_ok(optarg))
                return -1;
            *format = optarg;
            break;
        case 'o': *output = optarg; break;
        case 0x101: pp_cli_force = 1; break;
        case 'b': *table = optarg; break;
        case 'j':
            if (!jobs) { /* render reads no trace */
                pp_cli_put_text(stderr, usage);
                return -1;
            }
            if (pp_cli_parse_jobs(optarg, jobs) < 0)
                return -1;
            break;
        case 'h': pp_cli_put_text(stdout, usage); exit(PP_EXIT_OK);
        default: pp_cli_bad_option(jobs ? "inspect" : "render", c, argv); return -1;
        }
    }
    if (optind + 1 != argc) {
        pp_cli_put_text(stderr, usage);
        return -1;
    }
    *file = argv[optind];
    return 0;
}

/* Replace each "/dev/fd/N" a decompressed trace was read through by the
 * path the user gave, in s (a malloc'd copy when it changes, else NULL). */
static char *
as_given(const char *s, const char *where, const char *file)
{
    size_t wl = strlen(where), fl = strlen(file), n = 0;
    const char *p;
    char *out, *o;

    for (p = s; (p = strstr(p, where)) != NULL; p += wl)
        n++;
    if (n == 0 || (out = malloc(strlen(s) + n * fl + 1)) == NULL)
        return NULL;
    for (o = out, p = s;;) {
        const char *q = strstr(p, where);

        if (q == NULL) {
            strcpy(o, p);
            return out;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, file, fl);
        o += fl;
        p = q + wl;
    }
}

/* Every string under v (a document) as given (as_given). */
static void
doc_as_given(json_t *v, const char *where, const char *file)
{
    void *it = json_is_object(v) ? json_object_iter(v) : NULL;
    size_t n = json_is_array(v) ? json_array_size(v) : 0;
    char *s;

    for (size_t i = 0; it != NULL || i < n; i++) {
        json_t *x = it != NULL ? json_object_iter_value(it) : json_array_get(v, i);

        if (json_is_string(x) && (s = as_given(json_string_value(x), where, file)) != NULL) {
            json_string_set(x, s);
            free(s);
        } else {
            doc_as_given(x, where, file);
        }
        if (it != NULL && (it = json_object_iter_next(v, it)) == NULL)
            break;
    }
}

/* Inspect file, read through a decompressor when it is xz, gzip or zstd
 * (unpack.h: as `run` reads it); the document and messages name file. */
static int
inspect_file(const char *file, unsigned jobs, json_t **doc, pp_error *err)
{
    pp_unpack *u = NULL;
    const char *where = NULL;
    pp_error uerr = PP_ERROR_INIT;
    int rc = strcmp(file, "/dev/stdin") == 0 ? PP_OK :
                                               pp_unpack_open(file, file, 1, &u, &where, err);
    char *msg;

    if (rc != PP_OK)
        return rc;
    rc = pp_nettrace_inspect_doc(u != NULL ? where : file, jobs, doc, err);
    if (u == NULL)
        return rc;
    if (pp_unpack_finish(u, rc == PP_OK, &uerr) != PP_OK) {
        /* the compressed stream's damage explains whatever the reader saw */
        json_decref(*doc);
        *doc = NULL;
        *err = uerr;
        rc = uerr.code != PP_OK ? uerr.code : PP_EFORMAT;
    }
    if (*doc != NULL)
        doc_as_given(*doc, where, file);
    if (rc != PP_OK && (msg = as_given(err->message, where, file)) != NULL) {
        snprintf(err->message, sizeof err->message, "%s", msg);
        free(msg);
    }
    pp_unpack_free(u);
    return rc;
}

int
pp_cmd_inspect(int argc, char **argv)
{
    static const char usage[] =
        "Usage: perfpipe inspect TRACE.nettrace [--format FMT] [-o FILE [--force]] [--jobs N]\n"
        "\n"
        "TRACE `-` is standard input; a file compressed with xz, gzip or zstd is read\n"
        "as it is decompressed.\n"
        "The facts of a trace: format version, pointer size, process, clock, start\n"
        "time, duration, event/stack/metadata counts, unresolved-frame share,\n"
        "dropped events, and a table `events` counting every provider/event/version\n"
        "with its payload bytes. A truncated trace is read up to its last whole block\n"
        "with a warning naming the offset. Exit 3 when the file is not a readable\n"
        "nettrace (netperf V1-V3 and unknown versions are named as such).\n"
        "\n"
        "  --jobs N   read a V4/V5 file of 64 MiB or more on up to N threads (1-64),\n"
        "             one part between two sequence points each; the result is the\n"
        "             same byte for byte as --jobs 1 (serial). Default: PERFPIPE_JOBS,\n"
        "             else the online CPUs, at most 2. Pipes, V6 and small files are\n"
        "             read serially.\n";
    const char *format = "table", *output = NULL, *table = NULL, *file = NULL;
    pp_error err = PP_ERROR_INIT;
    json_t *doc = NULL;
    json_t *stages;
    unsigned jobs = 0;
    int rc;

    if (parse(argc, argv, usage, &format, &output, &table, &file, &jobs) < 0)
        return PP_EXIT_USAGE;
    if (strcmp(file, "-") == 0)
        file = "/dev/stdin";                   /* a pipe is read serially (--jobs above) */
    rc = inspect_file(file, jobs, &doc, &err); /* jobs 0: the default */
    if (rc != PP_OK || doc == NULL) {
        /* a gcdump, counters or spans file: name it and the command that reads it */
        if (rc == PP_EFORMAT)
            pp_source_wrong_kind("nettrace", file, &err);
        pp_cli_error("%s", err.message);
        return pp_cli_exit_for(rc == PP_OK ? PP_EFORMAT : rc);
    }
    /* Damage (a truncated tail, dropped events) is said on stderr too, so a
     * script reading stdout still sees it. */
    stages = json_object_get(doc, "stages");
    for (size_t i = 0; i < json_array_size(stages); i++) {
        json_t *findings = json_object_get(json_array_get(stages, i), "findings");

        for (size_t k = 0; k < json_array_size(findings); k++) {
            json_t *f = json_array_get(findings, k);
            const char *sev = json_string_value(json_object_get(f, "severity"));

            if (sev != NULL && strcmp(sev, "info") != 0 && !pp_cli_quiet)
                fprintf(stderr, "%s: %s: %s\n", pp_prog, sev,
                        json_string_value(json_object_get(f, "message")));
        }
    }
    rc = pp_cli_write_doc(output, doc, format, table);
    json_decref(doc);
    return rc;
}

int
pp_cmd_render(int argc, char **argv)
{
    static const char usage[] =
        "Usage: perfpipe render RESULT.json [--format FMT] [--table NAME] [-o FILE [--force]]\n"
        "\n"
        "Render a saved result document (perfpipe-result/1; `-` = standard input) again\n"
        "in another format:\n"
        "@DOC_FORMATS@,\n"
        "or a flame graph of a stack table (@STACK_FORMATS@).\n"
        "--table NAME or STAGE/NAME picks the table.\n";
    const char *format = "table", *output = NULL, *table = NULL, *file = NULL;
    pp_error err = PP_ERROR_INIT;
    json_error_t jerr;
    json_t *doc;
    int rc;

    if (parse(argc, argv, usage, &format, &output, &table, &file, NULL) < 0)
        return PP_EXIT_USAGE;
    doc = pp_cli_load_json(file, &jerr);
    if (doc == NULL) {
        pp_cli_error("%s:%d:%d: %s", file, jerr.line, jerr.column, jerr.text);
        return PP_EXIT_INPUT;
    }
    if (pp_result_validate(doc, &err) != PP_OK) {
        pp_cli_error("%s: %s", file, err.message);
        json_decref(doc);
        return PP_EXIT_INPUT;
    }
    rc = pp_cli_write_doc(output, doc, format, table);
    json_decref(doc);
    return rc;
}
