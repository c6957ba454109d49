/* perfpipe ... --format csv -o DIR/: one plain CSV file per table, so a
 * spreadsheet opens each with the right header row, plus totals.csv and
 * findings.csv. Each file is written atomically (pp_cli_write_output). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"

int
pp_cli_is_dir_output(const char *path)
{
    struct stat sb;
    size_t n = path ? strlen(path) : 0;

    if (n == 0 || strcmp(path, "-") == 0)
        return 0;
    if (path[n - 1] == '/')
        return 1;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

typedef struct csv_job {
    const json_t *doc;
    const char *table;      /* "STAGE/NAME", or NULL with side */
    int side;               /* 1 totals, 2 findings */
} csv_job;

static int
write_csv(void *user, FILE *out)
{
    csv_job *job = user;
    pp_error err = PP_ERROR_INIT;
    int rc = job->side == 1   ? pp_render_csv_totals(job->doc, out, &err)
             : job->side == 2 ? pp_render_csv_findings(job->doc, out, &err)
                              : pp_render_opts_table(job->doc, "csv", job->table, &pp_cli_render, out, &err);

    if (rc != PP_OK) {
        pp_cli_error("%s", err.message);
        return rc == PP_EIO ? PP_EXIT_OUTPUT : PP_EXIT_USAGE;
    }
    return PP_EXIT_OK;
}

/* Append name to buf with anything but [A-Za-z0-9._-] as '_' (and no
 * leading '.'), so a table name never leaves the directory. */
static void
append_safe(char *buf, size_t size, const char *name)
{
    size_t n = strlen(buf);

    for (const char *p = name ? name : "_"; *p && n + 1 < size; p++, n++) {
        char ch = *p;
        int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                 ch == '_' || ch == '-' || (ch == '.' && p != name);
        buf[n] = ok ? ch : '_';
    }
    buf[n] = '\0';
}

static int
write_one(const char *dir, const char *file, csv_job *job)
{
    size_t n = strlen(dir) + strlen(file) + 2;
    char *path = malloc(n);
    int rc;

    if (path == NULL) {
        pp_cli_error("out of memory");
        return PP_EXIT_OUTPUT;
    }
    snprintf(path, n, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", file);
    rc = pp_cli_write_output(path, write_csv, job);
    free(path);
    return rc;
}

int
pp_cli_write_csv_dir(const char *dir, const json_t *doc)
{
    const json_t *stages = json_object_get(doc, "stages"), *st, *tj;
    size_t si, ti;
    struct stat sb;
    int status = PP_EXIT_OK, rc;

    if (stat(dir, &sb) != 0) {
        if (errno != ENOENT || mkdir(dir, 0777) != 0) {
            pp_cli_error("%s: cannot create the CSV directory: %s", dir, strerror(errno));
            return PP_EXIT_OUTPUT;
        }
    } else if (!S_ISDIR(sb.st_mode)) {
        pp_cli_error("%s: not a directory (-o DIR/ with --format csv writes one file per table)", dir);
        return PP_EXIT_OUTPUT;
    }
    json_array_foreach(stages, si, st) {
        const char *sid = json_string_value(json_object_get(st, "id"));
        json_array_foreach(json_object_get(st, "tables"), ti, tj) {
            const char *tn = json_string_value(json_object_get(tj, "name"));
            char file[512] = "", spec[512];
            csv_job job = { doc, spec, 0 };
            if (json_array_size(stages) > 1) {
                append_safe(file, sizeof file, sid);
                strncat(file, ".", sizeof file - strlen(file) - 1);
            }
            append_safe(file, sizeof file, tn);
            strncat(file, ".csv", sizeof file - strlen(file) - 1);
            snprintf(spec, sizeof spec, "%s/%s", sid ? sid : "", tn ? tn : "");
            if ((rc = write_one(dir, file, &job)) != PP_EXIT_OK)
                status = rc;
        }
    }
    {
        csv_job totals = { doc, NULL, 1 }, findings = { doc, NULL, 2 };
        if ((rc = write_one(dir, "totals.csv", &totals)) != PP_EXIT_OK)
            status = rc;
        if ((rc = write_one(dir, "findings.csv", &findings)) != PP_EXIT_OK)
            status = rc;
    }
    return status;
}
