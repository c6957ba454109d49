/* Keeping the evidence of a run: dated, knob-stamped, never overwritten. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "evidence.h"
#include "outfile.h"
#include "result/result.h"

/* Knobs as "k=v,k=v" in key order; a file-name-safe variant for stamps. */
static void
knob_text(const json_t *knobs, char *buf, size_t size, int for_file)
{
    const char **keys;
    size_t n = json_object_size(knobs), used = 0, k = 0;
    const char *key;
    json_t *v;

    buf[0] = '\0';
    if (n == 0 || (keys = malloc(n * sizeof *keys)) == NULL)
        return;
    json_object_foreach((json_t *)knobs, key, v)
        keys[k++] = key;
    for (size_t i = 1; i < n; i++) /* insertion sort: a handful of knobs */
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            const char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    for (size_t i = 0; i < n && used + 1 < size; i++) {
        const char *val = json_string_value(json_object_get(knobs, keys[i]));
        int w = snprintf(buf + used, size - used, "%s%s=%s", i ? "," : "", keys[i], val ? val : "");

        if (w < 0)
            break;
        used += (size_t)w < size - used ? (size_t)w : size - used - 1;
    }
    free(keys);
    if (for_file)
        for (char *p = buf; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                  (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' || *p == '='))
                *p = '_';
}

static int
mkdir_p(const char *dir)
{
    char path[4096];

    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return -1;
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Render doc as format into a new file (never replacing one), fsynced
 * and put in place whole: a full disk leaves nothing under the name. */
static int
write_new(const char *path, const json_t *doc, const char *format,
          const pp_outfile_tracker *tracker, pp_error *err)
{
    pp_outfile of;
    int rc;

    if ((rc = pp_outfile_open(&of, path, PP_OUTFILE_EXCL, tracker, err)) != PP_OK)
        return rc;
    if ((rc = pp_render(doc, format, of.f, err)) != PP_OK) {
        pp_outfile_abort(&of);
        pp_error_set(err, PP_EIO, "%s: cannot write", path);
        return PP_EIO;
    }
    return pp_outfile_commit(&of, err);
}

/* Append s to buf as one index.tsv field: backslash, TAB, CR and LF (and
 * other control bytes) are escaped as \\ \t \r \n \xHH, so a knob value can
 * never forge a column or a row. */
static void
tsv_field(char *buf, size_t size, size_t *used, const char *s)
{
    static const char hex[] = "0123456789abcdef";

    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        char esc[5];
        size_t n = 0;

        if (*p == '\\') {
            esc[n++] = '\\';
            esc[n++] = '\\';
        } else if (*p == '\t') {
            esc[n++] = '\\';
            esc[n++] = 't';
        } else if (*p == '\n') {
            esc[n++] = '\\';
            esc[n++] = 'n';
        } else if (*p == '\r') {
            esc[n++] = '\\';
            esc[n++] = 'r';
        } else if (*p < 0x20 || *p == 0x7f) {
            esc[n++] = '\\';
            esc[n++] = 'x';
            esc[n++] = hex[*p >> 4];
            esc[n++] = hex[*p & 15];
        } else
            esc[n++] = (char)*p;
        if (*used + n + 1 >= size)
            return;
        memcpy(buf + *used, esc, n);
        *used += n;
        buf[*used] = '\0';
    }
}

static void
tsv_raw(char *buf, size_t size, size_t *used, const char *s)
{
    size_t n = strlen(s);

    if (*used + n + 1 >= size)
        return;
    memcpy(buf + *used, s, n + 1);
    *used += n;
}

/* One index line, written with a single append and fsynced, so concurrent
 * runs never interleave inside a line and a crash leaves no half line. */
static int
append_index(const char *dir, const json_t *doc, const char *date, const char *file,
             const char *knobs_line, pp_error *err)
{
    const char *pipeline = json_string_value(json_object_get(doc, "pipeline"));
    json_t *inputs = json_object_get(doc, "inputs"), *in;
    char index[4200], line[8192];
    size_t used = 0, i;
    int fd, e = 0;

    snprintf(index, sizeof index, "%s/index.tsv", dir);
    line[0] = '\0';
    tsv_field(line, sizeof line, &used, date);
    tsv_raw(line, sizeof line, &used, "\t");
    tsv_field(line, sizeof line, &used, pipeline);
    tsv_raw(line, sizeof line, &used, "\t");
    tsv_field(line, sizeof line, &used, knobs_line);
    tsv_raw(line, sizeof line, &used, "\t");
    tsv_field(line, sizeof line, &used, file);
    tsv_raw(line, sizeof line, &used, "\t");
    json_array_foreach(inputs, i, in) {
        json_t *h = json_object_get(in, "hash");
        char item[512];

        snprintf(item, sizeof item, "%s%s:%s:%s", i ? " " : "",
                 json_string_value(json_object_get(in, "name")),
                 json_string_value(json_object_get(h, "algo")),
                 json_string_value(json_object_get(h, "value")));
        tsv_field(line, sizeof line, &used, item);
    }
    tsv_raw(line, sizeof line, &used, "\n");
    if ((fd = open(index, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666)) < 0) {
        pp_error_set(err, PP_EIO, "%s: cannot append: %s", index, strerror(errno));
        return PP_EIO;
    }
    {
        struct stat st;
        static const char head[] = "date\tpipeline\tknobs\tresult\tinputs\n";

        if (fstat(fd, &st) == 0 && st.st_size == 0 &&
            write(fd, head, sizeof head - 1) != (ssize_t)(sizeof head - 1))
            e = errno ? errno : EIO;
    }
    if (e == 0 && write(fd, line, used) != (ssize_t)used)
        e = errno ? errno : ENOSPC;
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot write: %s", index, strerror(e));
        return PP_EIO;
    }
    return PP_OK;
}

int
pp_evidence_write(const char *dir, const json_t *doc, const char *date,
                  const pp_outfile_tracker *tracker, char **written, pp_error *err)
{
    const char *pipeline = json_string_value(json_object_get(doc, "pipeline"));
    char knobs_file[160], knobs_line[1024], base[320], path[4400], md[4400];
    int rc = PP_EIO;

    *written = NULL;
    knob_text(json_object_get(doc, "knobs"), knobs_file, sizeof knobs_file, 1);
    knob_text(json_object_get(doc, "knobs"), knobs_line, sizeof knobs_line, 0);
    snprintf(base, sizeof base, "%s-%s%s%s", date, pipeline ? pipeline : "run",
             knobs_file[0] ? "-" : "", knobs_file);
    for (char *p = base; *p; p++) /* the pipeline name too is only a name */
        if (*p == '/' || (unsigned char)*p < 0x20)
            *p = '_';
    if (mkdir_p(dir) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot create the evidence directory: %s", dir,
                     strerror(errno));
        return PP_EIO;
    }
    /* base.json, else base-2.json...: link(2) puts each in place whole and
     * never over an earlier run's file. */
    for (int i = 1; i < 1000; i++) {
        if (i == 1)
            snprintf(path, sizeof path, "%s/%s.json", dir, base);
        else
            snprintf(path, sizeof path, "%s/%s-%d.json", dir, base, i);
        snprintf(md, sizeof md, "%.*s.md", (int)(strlen(path) - 5), path);
        if (access(md, F_OK) == 0)
            continue;
        rc = write_new(path, doc, "json", tracker, err);
        if (rc == PP_OK || errno != EEXIST)
            break;
    }
    if (rc != PP_OK)
        return rc;
    if ((rc = write_new(md, doc, "markdown", tracker, err)) != PP_OK)
        return rc;
    if ((rc = append_index(dir, doc, date, strrchr(path, '/') + 1, knobs_line, err)) != PP_OK)
        return rc;
    if ((*written = strdup(path)) == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    return PP_OK;
}
