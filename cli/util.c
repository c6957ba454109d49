/* Helpers shared by the subcommands: messages, exit codes, outputs. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "result/result.h"

const char *pp_prog = "perfpipe";

void
pp_cli_error(const char *fmt, ...)
{
    va_list ap;

    pp_cli_progress_done();
    fprintf(stderr, "%s: ", pp_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

int
pp_cli_exit_for(int status)
{
    switch (status) {
    case PP_OK:           return PP_EXIT_OK;
    case PP_EPLUGIN:      return PP_EXIT_PLUGIN;
    case PP_EFORMAT:
    case PP_EUNSUPPORTED:
    case PP_EIO:
    case PP_ELIMIT:       return PP_EXIT_INPUT;
    default:              return PP_EXIT_USAGE;
    }
}

pp_loader *
pp_cli_loader(char **dirs, int ndirs)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = pp_loader_new();

    if (l == NULL) {
        pp_cli_error("out of memory");
        return NULL;
    }
    for (int i = 0; i < ndirs; i++)
        if (pp_loader_add_dir(l, dirs[i], &err) != PP_OK)
            goto fail;
    if (pp_loader_add_defaults(l, &err) != PP_OK)
        goto fail;
    return l;
fail:
    pp_cli_error("%s", err.message);
    pp_loader_free(l);
    return NULL;
}

int
pp_cli_write_output(const char *path, pp_write_fn fn, void *user)
{
    char *tmp;
    size_t n;
    FILE *f;
    int fd, rc;

    if (path == NULL || strcmp(path, "-") == 0) {
        rc = fn(user, stdout);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            pp_cli_error("cannot write to standard output: %s", strerror(errno));
            return PP_EXIT_OUTPUT;
        }
        return rc;
    }
    n = strlen(path) + sizeof ".XXXXXX";
    if ((tmp = malloc(n)) == NULL) {
        pp_cli_error("out of memory");
        return PP_EXIT_OUTPUT;
    }
    snprintf(tmp, n, "%s.XXXXXX", path);
    if ((fd = mkstemp(tmp)) < 0 || (f = fdopen(fd, "w")) == NULL) {
        pp_cli_error("%s: cannot create: %s (does the directory exist?)", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        free(tmp);
        return PP_EXIT_OUTPUT;
    }
    rc = fn(user, f);
    if (fclose(f) != 0 && rc == PP_EXIT_OK) {
        pp_cli_error("%s: cannot write: %s", path, strerror(errno));
        rc = PP_EXIT_OUTPUT;
    }
    if (rc == PP_EXIT_OK && rename(tmp, path) != 0) {
        pp_cli_error("%s: cannot rename into place: %s", path, strerror(errno));
        rc = PP_EXIT_OUTPUT;
    }
    if (rc != PP_EXIT_OK)
        unlink(tmp);
    free(tmp);
    return rc;
}

static int progress_shown;

void
pp_cli_progress(void *user, const char *input, unsigned long long done, unsigned long long total)
{
    (void)user;
    if (!isatty(STDERR_FILENO))
        return;
    if (total > 0)
        fprintf(stderr, "\r%s: reading %s: %3.0f%% (%.1f of %.1f MB)\033[K", pp_prog, input,
                100.0 * (double)done / (double)total, done / 1e6, total / 1e6);
    else
        fprintf(stderr, "\r%s: reading %s: %.1f MB\033[K", pp_prog, input, done / 1e6);
    progress_shown = 1;
}

void
pp_cli_progress_done(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        progress_shown = 0;
    }
}

/* Shipped analyzers whose pipeline is named for what it reads. */
static const struct { const char *analyzer, *pipeline; } shipped[] = {
    { "counters-csv", "counters" },
    { "gcdump", "heap" },
    { "gcdump-diff", "heap-diff" },
};

const char *
pp_cli_pipeline_for(const char *analyzer)
{
    for (size_t i = 0; i < sizeof shipped / sizeof shipped[0]; i++)
        if (strcmp(shipped[i].analyzer, analyzer) == 0)
            return shipped[i].pipeline;
    return analyzer;
}

int
pp_cli_format_ok(const char *fmt)
{
    if (pp_render_format_known(fmt))
        return 1;
    pp_cli_error("unknown format '%s': use table, json, markdown, csv, or for a stack table "
                 "folded, speedscope or svg", fmt);
    return 0;
}

typedef struct doc_job {
    const json_t *doc;
    const char *format;
    const char *table;
} doc_job;

static int
write_doc(void *user, FILE *out)
{
    doc_job *job = user;
    pp_error err = PP_ERROR_INIT;
    int flame = strcmp(job->format, "folded") == 0 || strcmp(job->format, "speedscope") == 0 ||
                strcmp(job->format, "svg") == 0;
    int rc = job->table != NULL || flame
                 ? pp_render_table_named(job->doc, job->format, job->table, out, &err)
                 : pp_render(job->doc, job->format, out, &err);

    if (rc != PP_OK) {
        pp_cli_error("%s", err.message);
        return rc == PP_EIO ? PP_EXIT_OUTPUT : PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

int
pp_cli_write_doc(const char *path, const json_t *doc, const char *format, const char *table)
{
    doc_job job = { doc, format, table };

    return pp_cli_write_output(path, write_doc, &job);
}
