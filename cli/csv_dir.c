/* perfpipe ... --format csv -o DIR/: one plain CSV file per table, so a
 * spreadsheet opens each with the right header row, plus totals.csv and
 * findings.csv. The files are a set: a new directory is written under a
 * temporary name and renamed whole; in an existing one every file is
 * written and flushed under a temporary name before any is renamed, so a
 * write error (a full disk) replaces none. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "output/outfile.h"

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
    char table[512]; /* "STAGE/NAME", or "" with side */
    int side;        /* 1 totals, 2 findings */
    char file[512];  /* the file's name in the directory */
    char *path;      /* where it is written (final or temporary dir) */
    pp_outfile of;
} csv_job;

/* Render one job into its open file: PP_OK, or an exit code said. */
static int
write_csv(csv_job *job, const char *shown)
{
    pp_error err = PP_ERROR_INIT;
    FILE *out = job->of.f;
    int rc = job->side == 1 ?
                 pp_render_csv_totals(job->doc, out, &err) :
             job->side == 2 ?
                 pp_render_csv_findings(job->doc, out, &err) :
                 pp_render_opts_table(job->doc, "csv", job->table, &pp_cli_render, out, &err);

    if (rc == PP_EIO) {
        pp_cli_error("%s: cannot write: %s", shown, err.message);
        return PP_EXIT_OUTPUT;
    }
    if (rc != PP_OK) {
        pp_cli_error("%s: %s", shown, err.message);
        return rc == PP_ENOMEM ? PP_EXIT_NOMEM : PP_EXIT_USAGE;
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

static char *
join(const char *dir, const char *file)
{
    size_t n = strlen(dir) + strlen(file) + 2;
    char *path = malloc(n);

    if (path != NULL)
        snprintf(path, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", file);
    return path;
}

/* The files of the set: one per table, then totals and findings. */
static csv_job *
plan(const json_t *doc, size_t *njobs)
{
    const json_t *stages = json_object_get(doc, "stages"), *st, *tj;
    size_t si, ti, n = 2, k = 0;
    csv_job *jobs;

    json_array_foreach(stages, si, st)
        n += json_array_size(json_object_get(st, "tables"));
    if ((jobs = calloc(n, sizeof *jobs)) == NULL)
        return NULL;
    json_array_foreach(stages, si, st) {
        const char *sid = json_string_value(json_object_get(st, "id"));
        json_array_foreach(json_object_get(st, "tables"), ti, tj) {
            const char *tn = json_string_value(json_object_get(tj, "name"));
            csv_job *j = &jobs[k++];
            if (json_array_size(stages) > 1) {
                append_safe(j->file, sizeof j->file, sid);
                strncat(j->file, ".", sizeof j->file - strlen(j->file) - 1);
            }
            append_safe(j->file, sizeof j->file, tn);
            strncat(j->file, ".csv", sizeof j->file - strlen(j->file) - 1);
            snprintf(j->table, sizeof j->table, "%s/%s", sid ? sid : "", tn ? tn : "");
        }
    }
    snprintf(jobs[k].file, sizeof jobs[k].file, "totals.csv");
    jobs[k++].side = 1;
    snprintf(jobs[k].file, sizeof jobs[k].file, "findings.csv");
    jobs[k++].side = 2;
    for (size_t i = 0; i < k; i++)
        jobs[i].doc = doc;
    *njobs = k;
    return jobs;
}

/* Write and flush every file of the set into dir (final names shown as in
 * final): PP_EXIT_OK with each file prepared, or an exit code said and
 * every file dropped. */
static int
write_set(csv_job *jobs, size_t n, const char *dir, const char *final)
{
    pp_error err = PP_ERROR_INIT;
    int status = PP_EXIT_OK;
    size_t i;

    for (i = 0; i < n && status == PP_EXIT_OK; i++) {
        char *shown = join(final, jobs[i].file);
        if ((jobs[i].path = join(dir, jobs[i].file)) == NULL || shown == NULL) {
            free(shown);
            pp_cli_error("out of memory");
            status = PP_EXIT_OUTPUT;
            break;
        }
        if (pp_outfile_open(&jobs[i].of, jobs[i].path, pp_cli_force ? PP_OUTFILE_FORCE : 0,
                            pp_cli_temp_tracker(), &err) != PP_OK) {
            pp_cli_error("%s", err.message);
            status = PP_EXIT_OUTPUT;
        } else if ((status = write_csv(&jobs[i], shown)) != PP_EXIT_OK) {
            pp_outfile_abort(&jobs[i].of);
        } else if (pp_outfile_prepare(&jobs[i].of, &err) != PP_OK) {
            pp_cli_error("%s", err.message);
            status = PP_EXIT_OUTPUT;
        }
        free(shown);
    }
    if (status != PP_EXIT_OK) {
        while (i-- > 0)
            pp_outfile_abort(&jobs[i].of);
    }
    return status;
}

/* Put every prepared file in place; a failed rename is said with the
 * files it leaves as they were. */
static int
commit_set(csv_job *jobs, size_t n)
{
    pp_error err = PP_ERROR_INIT;
    size_t failed = 0;

    for (size_t i = 0; i < n; i++)
        if (pp_outfile_commit(&jobs[i].of, &err) != PP_OK) {
            pp_cli_error("%s", err.message);
            failed++;
        }
    if (failed > 0) {
        pp_cli_error("%zu of %zu files of the CSV set were not replaced: the directory mixes "
                     "this run's files with older ones; run again",
                     failed, n);
        return PP_EXIT_OUTPUT;
    }
    return PP_EXIT_OK;
}

#define OLD_SUFFIX ".perfpipe-old"

/* In an existing directory: each file the set replaces is first kept under
 * NAME.perfpipe-old (a hard link), so a rename that fails part way puts
 * the earlier files back and the directory ends as it was. */
static int
commit_set_over(csv_job *jobs, size_t n)
{
    pp_error err = PP_ERROR_INIT;
    char **old = calloc(n, sizeof *old);
    size_t i, done = 0;
    int status = PP_EXIT_OK;

    if (old == NULL) {
        pp_cli_error("out of memory");
        status = PP_EXIT_OUTPUT;
    }
    for (i = 0; status == PP_EXIT_OK && i < n; i++) {
        struct stat sb;
        if (lstat(jobs[i].of.path, &sb) != 0 || !S_ISREG(sb.st_mode))
            continue;
        size_t len = strlen(jobs[i].of.path) + sizeof OLD_SUFFIX;
        if ((old[i] = malloc(len)) == NULL) {
            pp_cli_error("out of memory");
            status = PP_EXIT_OUTPUT;
            break;
        }
        snprintf(old[i], len, "%s" OLD_SUFFIX, jobs[i].of.path);
        unlink(old[i]);
        if (link(jobs[i].of.path, old[i]) != 0) {
            pp_cli_error("%s: cannot keep the file it replaces: %s", jobs[i].of.path,
                         strerror(errno));
            free(old[i]);
            old[i] = NULL;
            status = PP_EXIT_OUTPUT;
        }
    }
    for (; status == PP_EXIT_OK && done < n; done++)
        if (pp_outfile_commit(&jobs[done].of, &err) != PP_OK) {
            pp_cli_error("%s; the directory is left as it was", err.message);
            status = PP_EXIT_OUTPUT;
        }
    if (status != PP_EXIT_OK) {
        /* Files before done - 1 are in place: put back what they replaced
         * (or remove them); done - 1 failed and replaced nothing; the rest
         * were never renamed. An older file kept under old[] is unlinked
         * below; one that cannot go back stays there, said. */
        for (i = 0; i < n; i++) {
            if (i + 1 >= done || done == 0) {
                if (i >= done)
                    pp_outfile_abort(&jobs[i].of);
            } else if (old != NULL && old[i] != NULL) {
                /* back where it was (a symbolic link's target, not the link) */
                char *final = strndup(old[i], strlen(old[i]) - (sizeof OLD_SUFFIX - 1));
                if (final == NULL || rename(old[i], final) != 0)
                    pp_cli_error("%s: the older file is kept as %s", jobs[i].path, old[i]);
                free(final);
                free(old[i]);
                old[i] = NULL;
            } else {
                (void)unlink(jobs[i].path);
            }
        }
    }
    for (i = 0; old != NULL && i < n; i++) {
        if (old[i] != NULL)
            (void)unlink(old[i]);
        free(old[i]);
    }
    free(old);
    return status;
}

/* A new directory: written under DIR.XXXXXX beside it, renamed whole. */
static int
write_new_dir(csv_job *jobs, size_t n, const char *dir)
{
    const pp_outfile_tracker *tracker = pp_cli_temp_tracker();
    size_t len = strlen(dir);
    char *tmp = malloc(len + sizeof ".XXXXXX");
    int status;

    if (tmp == NULL) {
        pp_cli_error("out of memory");
        return PP_EXIT_OUTPUT;
    }
    while (len > 1 && dir[len - 1] == '/')
        len--;
    snprintf(tmp, len + sizeof ".XXXXXX", "%.*s.XXXXXX", (int)len, dir);
    if (mkdtemp(tmp) == NULL) {
        pp_cli_error("%s: cannot create the CSV directory: %s", dir, strerror(errno));
        free(tmp);
        return PP_EXIT_OUTPUT;
    }
    tracker->add(tracker->user, tmp);
    status = write_set(jobs, n, tmp, dir);
    if (status == PP_EXIT_OK)
        status = commit_set(jobs, n);
    /* mkdtemp made it 0700: the set gets what mkdir would have given it. */
    if (status == PP_EXIT_OK &&
        (chmod(tmp, 0777 & ~pp_outfile_umask()) != 0 || rename(tmp, dir) != 0)) {
        pp_cli_error("%s: cannot create the CSV directory: %s", dir, strerror(errno));
        status = PP_EXIT_OUTPUT;
    }
    if (status != PP_EXIT_OK) {
        for (size_t i = 0; i < n; i++)
            if (jobs[i].path != NULL)
                unlink(jobs[i].path);
        rmdir(tmp);
    }
    tracker->remove(tracker->user, tmp);
    free(tmp);
    return status;
}

int
pp_cli_write_csv_dir(const char *dir, const json_t *doc)
{
    struct stat sb;
    csv_job *jobs;
    size_t n = 0;
    int status;

    if (stat(dir, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
        pp_cli_error("%s: not a directory (-o DIR/ with --format csv writes one file per table)",
                     dir);
        return PP_EXIT_OUTPUT;
    }
    if ((jobs = plan(doc, &n)) == NULL) {
        pp_cli_error("out of memory");
        return PP_EXIT_OUTPUT;
    }
    if (stat(dir, &sb) != 0) {
        status = write_new_dir(jobs, n, dir);
    } else {
        status = write_set(jobs, n, dir, dir);
        if (status == PP_EXIT_OK)
            status = commit_set_over(jobs, n);
    }
    for (size_t i = 0; i < n; i++)
        free(jobs[i].path);
    free(jobs);
    if (status == PP_EXIT_OK)
        pp_cli_wrote_result = 1;
    return status;
}
