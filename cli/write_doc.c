/* A result document rendered to a file or standard output: above the
 * shared helpers (util.c), the render flags (render_flags.c) and the csv
 * directory writer (csv_dir.c), which it chooses between. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "result/result.h"

typedef struct doc_job {
    const char *path;
    const json_t *doc;
    const char *format;
    const char *table;
} doc_job;

static int
has_failed_stage(const json_t *doc)
{
    const json_t *st;
    size_t i;

    json_array_foreach(json_object_get(doc, "stages"), i, st) {
        const char *status = json_string_value(json_object_get(st, "status"));
        if (status != NULL && strcmp(status, "failed") == 0)
            return 1;
    }
    return 0;
}

static int
write_doc(void *user, FILE *out)
{
    doc_job *job = user;
    pp_error err = PP_ERROR_INIT;
    int rc = pp_render_opts_table(job->doc, job->format, job->table, &pp_cli_render, out, &err);

    /* standard output's reader went away: not an error, the caller stops
     * quietly (a file's write error is always said) */
    if (rc == PP_EIO && (job->path == NULL || strcmp(job->path, "-") == 0) && pp_cli_reader_gone())
        return PP_EXIT_OUTPUT;
    if (rc == PP_EIO) {
        pp_cli_error("%s: %s", job->path ? job->path : "standard output", err.message);
        return PP_EXIT_OUTPUT;
    }
    if (rc != PP_OK) {
        pp_cli_error("%s", err.message);
        if (rc == PP_ENOMEM)
            return PP_EXIT_NOMEM;
        /* Nothing to draw because a stage failed (it said why): that
         * stage's failure is the cause, not the format asked for. */
        return has_failed_stage(job->doc) ? PP_EXIT_PLUGIN : PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

int
pp_cli_write_doc(const char *path, const json_t *doc, const char *format, const char *table)
{
    doc_job job = { path, doc, format, table };
    int rc;

    if ((rc = pp_cli_doc_whole(path)) != PP_EXIT_OK)
        return rc;
    /* gzip bytes on a terminal help nobody (a pipe or a file is fine) */
    if (strcmp(format, "pprof") == 0 && (path == NULL || strcmp(path, "-") == 0) &&
        isatty(STDOUT_FILENO)) {
        pp_cli_error("pprof is binary (gzip): write it with -o FILE.pb.gz, or pipe it");
        return PP_EXIT_USAGE;
    }
    if (table == NULL && strcmp(format, "csv") == 0 && pp_cli_is_dir_output(path))
        return pp_cli_write_csv_dir(path, doc);
    return pp_cli_write_output(path, write_doc, &job);
}

static int
write_json(void *user, FILE *out)
{
    if (json_dumpf(user, out, JSON_INDENT(2)) == 0 && fputc('\n', out) != EOF)
        return PP_EXIT_OK;
    if (!pp_cli_reader_gone())
        pp_cli_error("cannot write the document: %s", strerror(errno ? errno : EIO));
    return PP_EXIT_OUTPUT;
}

int
pp_cli_write_json(const char *path, const json_t *doc)
{
    return pp_cli_write_output(path, write_json, (void *)doc);
}
